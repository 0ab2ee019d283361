#!/usr/bin/env bash
# FerretDB v1.24.2 (MongoDB wire protocol) for tests and local clusters:
#   scripts/engines/ferretdb.sh install|start|stop|status|smoke
# Built from scripts/engines/ferretdb (Go module embedding github.com/FerretDB/FerretDB/ferretdb)
# into .infra/ferretdb/ferretdb. Listens on 127.0.0.1:${MONGO_PORT:-27017}.
# Backend (FERRETDB_BACKEND): `postgresql` (default; a private PostgreSQL cluster from Debian's
# postgresql package on 127.0.0.1:${POSTGRES_PORT}, started and stopped with FerretDB) or `sqlite`.
# The PostgreSQL backend pushes every top-level equality of a filter down to SQL; the SQLite one only
# a filter that is exactly {_id}, so a compare-and-set {_id, version} scans the whole collection there
# (docs/performance.md, "Distributed mode").
set -euo pipefail
ENGINE=ferretdb
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

MONGO_PORT="${MONGO_PORT:-27017}"
FERRETDB_BACKEND="${FERRETDB_BACKEND:-postgresql}"
case "$FERRETDB_BACKEND" in
  postgresql | sqlite) ;;
  *) die "FERRETDB_BACKEND must be postgresql or sqlite (got: $FERRETDB_BACKEND)" ;;
esac
# 27017 -> 54320: one PostgreSQL per FerretDB port, so parallel checkouts on other ports do not collide.
POSTGRES_PORT="${POSTGRES_PORT:-$((MONGO_PORT + 27303))}"
SRC="$ENGINES_DIR/ferretdb"
DIR="$INFRA_DIR/ferretdb"
BIN="$DIR/ferretdb"
HASHFILE="$DIR/build.hash"
# State per backend: the SQLite files, or the PostgreSQL cluster; pid and log of FerretDB.
STATE="$DIR/$FERRETDB_BACKEND"
DATA="$STATE/data"
LOGFILE="$STATE/ferretdb.log"
PIDFILE="$STATE/ferretdb.pid"
PATTERN="$BIN -listen 127.0.0.1:$MONGO_PORT "
START_TIMEOUT="${FERRETDB_START_TIMEOUT:-60}"
STOP_TIMEOUT="${FERRETDB_STOP_TIMEOUT:-10}"
FERRETDB_LOG_LEVEL="${FERRETDB_LOG_LEVEL:-warn}"
PG_DB=ferretdb

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


# ---- PostgreSQL (the postgresql backend) -----------------------------------------------------------
pg_bindir() { find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n1; }
# PostgreSQL refuses to run as root: as root, its commands run as the package's `postgres` user.
as_pg() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# The cluster lives in .infra when the postgres user can reach it, else under /tmp (keyed by checkout).
pg_data_dir() {
  local d="$STATE/pgdata"
  mkdir -p "$STATE"
  if [[ "$(id -u)" == 0 ]] && ! runuser -u postgres -- test -x "$STATE" 2>/dev/null; then
    d="${TMPDIR:-/tmp}/a2a-inbound-postgres-$(printf '%s' "$STATE" | sha256sum | cut -c1-12)"
  fi
  printf '%s' "$d"
}
pg_sql() { # pg_sql SQL [DATABASE]
  PGOPTIONS="-c client_min_messages=warning" as_pg "$PGB/psql" -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres \
    -d "${2:-postgres}" -v ON_ERROR_STOP=1 -qAt -c "$1"
}

# FerretDB's PostgreSQL backend looks a document up by `_jsonb->'_id' @> '"<id>"'` (jsonb containment), which
# its own `_id` index (a btree on `_jsonb->'_id'`) cannot serve: every find by _id, and so every compare-and-set,
# scanned the table (8 ms at 1,000 tasks, growing with it). An event trigger gives every table FerretDB creates
# a GIN index on the same expression (jsonb_path_ops serves @>), so a lookup by _id is an index scan, as it is
# on MongoDB. FerretDB does not know the index (listIndexes does not show it); PostgreSQL's planner uses it.
PG_ID_INDEX_SQL="
CREATE OR REPLACE FUNCTION a2a_inbound_id_index() RETURNS event_trigger LANGUAGE plpgsql AS \$\$
DECLARE r record;
BEGIN
  FOR r IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' AND object_type = 'table' LOOP
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = r.objid AND attname = '_jsonb' AND NOT attisdropped) THEN
      EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> ''_id'') jsonb_path_ops)', r.object_identity);
    END IF;
  END LOOP;
END \$\$;
DROP EVENT TRIGGER IF EXISTS a2a_inbound_id_index;
CREATE EVENT TRIGGER a2a_inbound_id_index ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
  EXECUTE FUNCTION a2a_inbound_id_index();"

pg_install() {
  if [[ -z "$(pg_bindir)" ]]; then
    apt_install postgresql
    # Outside containers Debian creates and starts a `main` cluster on 5432: ours is separate, stop it.
    if command -v pg_lsclusters >/dev/null 2>&1; then
      pg_lsclusters -h 2>/dev/null | while read -r ver name _; do
        pg_ctlcluster "$ver" "$name" stop >/dev/null 2>&1 || true
      done
    fi
  fi
  [[ -n "$(pg_bindir)" ]] || die "PostgreSQL binaries not found under /usr/lib/postgresql after install"
  [[ "$(id -u)" != 0 ]] || id postgres >/dev/null 2>&1 || die "running as root needs the postgres user (Debian's postgresql package creates it)"
  log "postgresql: $("$(pg_bindir)/postgres" --version)"
}

pg_start() {
  PGB="$(pg_bindir)"
  [[ -n "$PGB" ]] || die "PostgreSQL not installed; run: $0 install"
  local pgdata t0
  pgdata="$(pg_data_dir)"
  t0="$(now_ms)"
  mkdir -p "$STATE"
  if [[ ! -s "$pgdata/PG_VERSION" ]]; then
    rm -rf "$pgdata"
    mkdir -p "$pgdata"
    [[ "$(id -u)" != 0 ]] || chown postgres:postgres "$pgdata"
    chmod 700 "$pgdata"
    as_pg "$PGB/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$STATE/initdb.log" 2>&1 \
      || { tail_log "$STATE/initdb.log"; die "initdb failed"; }
  fi
  if as_pg "$PGB/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
    log "postgresql already running ($pgdata)"
  else
    require_port_free "$POSTGRES_PORT"
    # Loopback TCP only, no Unix socket. synchronous_commit=off is MongoDB's own default durability
    # (a write is acknowledged before its journal flush; the WAL writer flushes within 200 ms).
    as_pg "$PGB/pg_ctl" -D "$pgdata" -w -t 60 -l "$pgdata/postgres.log" -o "-p $POSTGRES_PORT \
      -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c synchronous_commit=off \
      -c max_connections=200 -c shared_buffers=256MB" start >/dev/null \
      || { tail_log "$pgdata/postgres.log"; die "postgresql did not start on port $POSTGRES_PORT"; }
  fi
  if [[ "${KEEP_DATA:-0}" != 1 ]]; then
    pg_sql "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)"
  fi
  if [[ "$(pg_sql "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != 1 ]]; then
    pg_sql "CREATE DATABASE $PG_DB"
  fi
  pg_sql "$PG_ID_INDEX_SQL" "$PG_DB"
  log "postgresql ready in $(secs_since "$t0")s on 127.0.0.1:$POSTGRES_PORT ($pgdata)"
}

pg_stop() {
  PGB="$(pg_bindir)"
  [[ -n "$PGB" ]] || return 0
  local pgdata
  pgdata="$(pg_data_dir)"
  [[ -s "$pgdata/PG_VERSION" ]] || return 0
  if as_pg "$PGB/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
    as_pg "$PGB/pg_ctl" -D "$pgdata" -m fast -w -t 30 stop >/dev/null || err "postgresql did not stop"
    log "postgresql stopped"
  fi
}

cmd_install() {
  command -v go >/dev/null 2>&1 || die "go not found (Go >= 1.24 is expected; the toolchain can come from the Go proxy)"
  local want t0
  want="$(source_hash)"
  [[ "$FERRETDB_BACKEND" != postgresql ]] || pg_install
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
  local args=(-listen "127.0.0.1:$MONGO_PORT" -log-level "$FERRETDB_LOG_LEVEL")
  if [[ "$FERRETDB_BACKEND" == postgresql ]]; then
    pg_start
    args+=(-data "$DATA" -postgresql-url "postgres://postgres@127.0.0.1:$POSTGRES_PORT/$PG_DB")
  else
    if [[ "${KEEP_DATA:-0}" != 1 ]]; then
      rm -rf "$DATA"
    fi
    args+=(-data "$DATA")
  fi
  mkdir -p "$DATA"
  [[ -f "$LOGFILE" ]] && mv -f "$LOGFILE" "$LOGFILE.1"
  rm -f "$PIDFILE"
  # setsid + nohup: the server must outlive the calling shell/CI step.
  setsid nohup "$BIN" "${args[@]}" >"$LOGFILE" 2>&1 </dev/null &
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
      log "ready in $(secs_since "$t0")s (pid $pid, $FERRETDB_BACKEND) MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT"
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
  [[ "$FERRETDB_BACKEND" != postgresql ]] || pg_stop
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
