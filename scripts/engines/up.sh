#!/usr/bin/env bash
# Install (cached under .infra/) and start Redis, Kafka and FerretDB in parallel, wait until
# each is ready, and print per-engine timings. Idempotent: running engines are left alone.
#   scripts/engines/up.sh [engine...]      (default: redis kafka ferretdb)
set -euo pipefail
ENGINE=up
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

engines=("$@")
((${#engines[@]})) || engines=(redis kafka ferretdb)
for e in "${engines[@]}"; do
  [[ -x "$ENGINES_DIR/$e.sh" ]] || die "unknown engine: $e"
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# run_engine NAME: install then start, recording "install start total" seconds.
run_engine() {
  local name="$1" t0 t1 t2
  t0="$(now_ms)"
  "$ENGINES_DIR/$name.sh" install
  t1="$(now_ms)"
  "$ENGINES_DIR/$name.sh" start
  t2="$(now_ms)"
  awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.1f %.1f %.1f\n", (b-a)/1000, (c-b)/1000, (c-a)/1000 }' \
    > "$tmp/$name.time"
}

t_all="$(now_ms)"
declare -A pids
for e in "${engines[@]}"; do
  # Each engine's own log lines are already prefixed with [engine].
  run_engine "$e" </dev/null &
  pids[$e]=$!
done

failed=()
for e in "${engines[@]}"; do
  wait "${pids[$e]}" || failed+=("$e")
done

printf '\n%-10s %10s %10s %10s\n' engine install_s start_s total_s
for e in "${engines[@]}"; do
  if [[ -s "$tmp/$e.time" ]]; then
    read -r i s t < "$tmp/$e.time"
    printf '%-10s %10s %10s %10s\n' "$e" "$i" "$s" "$t"
  else
    printf '%-10s %10s\n' "$e" FAILED
  fi
done
printf '%-10s %32s\n\n' all "$(secs_since "$t_all")"

if ((${#failed[@]})); then
  die "failed: ${failed[*]} (see .infra/<engine>/*.log)"
fi
cat <<ENV
export REDIS_URL=redis://127.0.0.1:${REDIS_PORT:-6379}
export KAFKA_BROKERS=127.0.0.1:${KAFKA_PORT:-9092}
export MONGO_URL=mongodb://127.0.0.1:${MONGO_PORT:-27017}
ENV
