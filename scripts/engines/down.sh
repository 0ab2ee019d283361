#!/usr/bin/env bash
# Stop Redis, Kafka and FerretDB by their recorded pids (SIGTERM, then SIGKILL after a timeout).
# Idempotent: engines that are not running are skipped.
#   scripts/engines/down.sh [engine...]    (default: redis kafka ferretdb)
set -euo pipefail
ENGINE=down
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

engines=("$@")
((${#engines[@]})) || engines=(redis kafka ferretdb)
for e in "${engines[@]}"; do
  [[ -x "$ENGINES_DIR/$e.sh" ]] || die "unknown engine: $e"
done

declare -A pids
for e in "${engines[@]}"; do
  "$ENGINES_DIR/$e.sh" stop </dev/null &
  pids[$e]=$!
done
failed=()
for e in "${engines[@]}"; do
  wait "${pids[$e]}" || failed+=("$e")
done
((${#failed[@]} == 0)) || die "failed to stop: ${failed[*]}"
