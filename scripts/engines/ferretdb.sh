#!/usr/bin/env bash
# FerretDB v1.24.2 (MongoDB wire protocol on SQLite) for tests and local clusters:
#   scripts/engines/ferretdb.sh install|start|stop|status|smoke
# Built from scripts/engines/ferretdb (Go module embedding github.com/FerretDB/FerretDB/ferretdb)
# into .infra/ferretdb/ferretdb. Listens on 127.0.0.1:${MONGO_PORT:-27017}.
set -euo pipefail
ENGINE=ferretdb
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

MONGO_PORT="${MONGO_PORT:-27017}"
SRC="$ENGINES_DIR/ferretdb"
DIR="$INFRA_DIR/ferretdb"
BIN="$DIR/ferretdb"
HASHFILE="$DIR/build.hash"
DATA="$DIR/data"
LOGFILE="$DIR/ferretdb.log"
PIDFILE="$DIR/ferretdb.pid"
PATTERN="$BIN -listen"
START_TIMEOUT="${FERRETDB_START_TIMEOUT:-60}"
STOP_TIMEOUT="${FERRETDB_STOP_TIMEOUT:-10}"
FERRETDB_LOG_LEVEL="${FERRETDB_LOG_LEVEL:-warn}"

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  PATH="/usr/local/go/bin:$PATH"
fi

source_hash() {
  {
    hash_files "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum"
    go version 2>/dev/null || true
  } | sha256sum | cut -d' ' -f1
}

mongo_ping() {
  if command -v python3 >/dev/null 2>&1; then
    python3 "$SRC/mongo_ping.py" --port "$MONGO_PORT" --timeout 2 --quiet
  else # no python: the log line FerretDB's wrapper prints once the port accepts connections
    grep -q 'ferretdb: listening' "$LOGFILE" 2>/dev/null
  fi
}

cmd_install() {
  command -v go >/dev/null 2>&1 || die "go not found (Go >= 1.24 is expected; the toolchain can come from the Go proxy)"
  local want t0
  want="$(source_hash)"
  if [[ -x "$BIN" && -f "$HASHFILE" && "$(cat "$HASHFILE")" == "$want" ]]; then
    log "binary up to date ($BIN)"
    return 0
  fi
  mkdir -p "$DIR"
  t0="$(now_ms)"
  log "building $BIN with $(go env GOVERSION) (cold build takes minutes on 2 cores)"
  # -mod=readonly: go.mod + go.sum are committed, builds must not rewrite them.
  (
    cd "$SRC"
    CGO_ENABLED=0 GOFLAGS=-mod=readonly nice -n 10 go build -trimpath -o "$BIN.tmp" . </dev/null
  ) || { rm -f "$BIN.tmp"; die "go build failed"; }
  mv -f "$BIN.tmp" "$BIN"
  echo "$want" > "$HASHFILE"
  log "built in $(secs_since "$t0")s"
}

cmd_start() {
  local pid t0 i
  [[ -x "$BIN" ]] || die "binary missing; run: $0 install"
  if pid="$(running_pid "$PIDFILE" "$PATTERN")"; then
    log "already running (pid $pid, port $MONGO_PORT)"
    return 0
  fi
  require_port_free "$MONGO_PORT"
  t0="$(now_ms)"
  if [[ "${KEEP_DATA:-0}" != 1 ]]; then
    rm -rf "$DATA"
  fi
  mkdir -p "$DATA"
  [[ -f "$LOGFILE" ]] && mv -f "$LOGFILE" "$LOGFILE.1"
  rm -f "$PIDFILE"
  # setsid + nohup: the server must outlive the calling shell/CI step.
  setsid nohup "$BIN" -listen "127.0.0.1:$MONGO_PORT" -data "$DATA" -log-level "$FERRETDB_LOG_LEVEL" >"$LOGFILE" 2>&1 </dev/null &
  pid=$!
  echo "$pid" > "$PIDFILE"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      err "ferretdb (pid $pid) exited during start-up"
      tail_log "$LOGFILE"
      rm -f "$PIDFILE"
      exit 1
    fi
    if port_open "$MONGO_PORT" && mongo_ping; then
      log "ready in $(secs_since "$t0")s (pid $pid) MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT"
      return 0
    fi
    sleep 0.1
  done
  err "not ready after ${START_TIMEOUT}s (no MongoDB ping reply on 127.0.0.1:$MONGO_PORT); stopping pid $pid"
  tail_log "$LOGFILE"
  stop_pidfile "$PIDFILE" "$PATTERN" "$STOP_TIMEOUT" >&2 || true
  exit 1
}

cmd_stop() {
  stop_pidfile "$PIDFILE" "$PATTERN" "$STOP_TIMEOUT"
}

cmd_status() {
  local pid
  if pid="$(running_pid "$PIDFILE" "$PATTERN")" && mongo_ping; then
    log "running (pid $pid) MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT"
    return 0
  fi
  if [[ -n "${pid:-}" ]]; then
    log "process $pid alive but not answering MongoDB ping on port $MONGO_PORT"
    return 1
  fi
  log "stopped"
  return 3
}

# ping, hello, buildInfo, insert, unique index, findAndModify $inc, find, dropDatabase.
cmd_smoke() {
  command -v python3 >/dev/null 2>&1 || die "python3 required for smoke"
  python3 "$SRC/mongo_ping.py" --port "$MONGO_PORT" --smoke
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  smoke) cmd_smoke ;;
  *) echo "usage: $0 install|start|stop|status|smoke" >&2; exit 2 ;;
esac
