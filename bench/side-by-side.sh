#!/usr/bin/env bash
# bench/side-by-side.sh [ROUNDS] [SECONDS] [CONNECTIONS]: the bare Express echo, the in-memory embedded mode and
# the durable (LMDB) embedded mode run side by side; wrk drives each in turn (message/send to the echo agent; the
# echo's /echo), round after round, after three warm-up rounds. Prints req/s, server CPU ms per request
# (/proc/<pid>/stat) and p99 per process and round: ratios from interleaved rounds survive a machine whose speed
# drifts. Needs wrk and `npm run build`. See docs/performance.md ("The bench against a process driven alone").
set -euo pipefail
R=${1:-6}; S=${2:-5}; C=${3:-16}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work=$(mktemp -d); trap 'kill -INT ${pids[@]:-} 2>/dev/null || true; rm -rf "$work"' EXIT
# A messageId unique per run, thread and request: wrk seeds no Lua random generator, so math.random gives every
# thread of every run the same sequence, and the sends after the first round were idempotent replays of stored
# tasks (a duplicate-key insert and the stored answer), not sends.
cat > "$work/send.lua" <<'LUA'
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
local stamp = os.time() .. "-" .. os.clock()
request = function()
  n = n + 1
  local body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-' .. stamp .. '-' .. tid .. '-' .. n .. '","parts":[{"kind":"text","text":"benchmark text"}]}}}'
  return wrk.format("POST", "/agents/demo-echo/a2a", {["Content-Type"]="application/json", ["Authorization"]="Bearer " .. os.getenv("KEY")}, body)
end
LUA
cat > "$work/echo.lua" <<'LUA'
request = function()
  return wrk.format("POST", "/echo", {["Content-Type"]="application/json"}, '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-1","parts":[{"kind":"text","text":"benchmark text"}]}}}')
end
LUA
pids=()
PORT=18133 node "$root/bench/baseline-server.mjs" > "$work/base.out" 2>&1 & PB=$!; pids+=($PB)
embedded() { # name env...: prints pid
  local name=$1; shift
  env LOG_LEVEL=warn SEED_RATE_LIMIT_PER_MINUTE=10000000 HOST=127.0.0.1 "$@" node "$root/embedded/dist/main.js" > "$work/$name.out" 2>&1 &
  echo $!
}
PM=$(embedded mem STORE=memory PORT=18131); PD=$(embedded dur DATA_DIR="$work/data" PORT=18132); pids+=($PM $PD)
for f in mem dur; do for _ in $(seq 1 240); do grep -q "a2a key" "$work/$f.out" 2>/dev/null && break; sleep 0.5; done; done
KM=$(grep -oP 'a2a key:\s+\K\S+' "$work/mem.out"); KD=$(grep -oP 'a2a key:\s+\K\S+' "$work/dur.out")
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)
run() { # pid port key script -> "req/s cpu-ms/req p99"
  local c0 c1 out n
  c0=$(cpu "$1")
  out=$(KEY=$3 wrk -t2 -c"$C" -d"${S}s" -s "$work/$4" "http://127.0.0.1:$2" --latency 2>&1)
  c1=$(cpu "$1")
  n=$(echo "$out" | grep -oP '^\s+\K\d+(?= requests in)')
  if echo "$out" | grep -q "Non-2xx"; then echo "non-2xx answers: $(echo "$out" | grep Non-2xx)" >&2; fi
  printf '%s %.3f %s' "$(echo "$out" | grep -oP 'Requests/sec:\s+\K[\d.]+')" "$(echo "($c1-$c0)*1000/$tck/$n" | bc -l)" "$(echo "$out" | grep -oP '99%\s+\K\S+')"
}
for _ in 1 2 3; do run "$PB" 18133 x echo.lua >/dev/null; run "$PM" 18131 "$KM" send.lua >/dev/null; run "$PD" 18132 "$KD" send.lua >/dev/null; done
echo "round | echo req/s cpu p99 | in-memory req/s cpu p99 | durable req/s cpu p99 | load"
for i in $(seq 1 "$R"); do
  echo "$i | $(run "$PB" 18133 x echo.lua) | $(run "$PM" 18131 "$KM" send.lua) | $(run "$PD" 18132 "$KD" send.lua) | $(cut -d' ' -f1 /proc/loadavg)"
done
