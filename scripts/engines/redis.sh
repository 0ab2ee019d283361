#!/usr/bin/env bash
# Redis for tests and local clusters: scripts/engines/redis.sh install|start|stop|status|smoke
# Listens on 127.0.0.1:${REDIS_PORT:-6379}, no persistence, state under .infra/redis.
set -euo pipefail
ENGINE=redis
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

REDIS_PORT="${REDIS_PORT:-6379}"
DIR="$INFRA_DIR/redis"
PIDFILE="$DIR/redis.pid"
LOGFILE="$DIR/redis.log"
PATTERN="redis-server"
START_TIMEOUT="${REDIS_START_TIMEOUT:-30}"
STOP_TIMEOUT="${REDIS_STOP_TIMEOUT:-10}"

ping_ok() {
  [[ "$(timeout 2 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null || true)" == "PONG" ]]
}

cmd_install() {
  local pkgs=()
  command -v redis-server >/dev/null 2>&1 || pkgs+=(redis-server)
  command -v redis-cli >/dev/null 2>&1 || pkgs+=(redis-tools)
  if ((${#pkgs[@]})); then
    apt_install "${pkgs[@]}"
    # Outside containers (no policy-rc.d) Debian starts the packaged service on 6379;
    # stop it so our own instance owns the port.
    if [[ -x /etc/init.d/redis-server ]] && pgrep -f '^/usr/bin/redis-server .*:6379' >/dev/null 2>&1 \
      && ! running_pid "$PIDFILE" "$PATTERN" >/dev/null; then
      log "stopping the system redis-server service started by apt"
      if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
        systemctl stop redis-server || true
      else
        /etc/init.d/redis-server stop >/dev/null || true
      fi
    fi
  fi
  command -v redis-server >/dev/null 2>&1 || die "redis-server still not on PATH after install"
  command -v redis-cli >/dev/null 2>&1 || die "redis-cli still not on PATH after install"
  log "installed: $(redis-server --version | awk '{print $3}')"
}

cmd_start() {
  local pid t0 i
  command -v redis-server >/dev/null 2>&1 || die "redis-server not installed; run: $0 install"
  if pid="$(running_pid "$PIDFILE" "$PATTERN")"; then
    log "already running (pid $pid, port $REDIS_PORT)"
    return 0
  fi
  require_port_free "$REDIS_PORT"
  mkdir -p "$DIR"
  rm -f "$PIDFILE"
  : > "$LOGFILE"
  t0="$(now_ms)"
  redis-server \
    --bind 127.0.0.1 --port "$REDIS_PORT" \
    --save "" --appendonly no \
    --daemonize yes --pidfile "$PIDFILE" --dir "$DIR" --logfile "$LOGFILE" </dev/null
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if ping_ok && pid="$(running_pid "$PIDFILE" "$PATTERN")"; then
      log "ready in $(secs_since "$t0")s (pid $pid) REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
      return 0
    fi
    sleep 0.1
  done
  err "not ready after ${START_TIMEOUT}s (no PONG on 127.0.0.1:$REDIS_PORT)"
  tail_log "$LOGFILE"
  exit 1
}

cmd_stop() {
  stop_pidfile "$PIDFILE" "$PATTERN" "$STOP_TIMEOUT"
}

cmd_status() {
  local pid
  if pid="$(running_pid "$PIDFILE" "$PATTERN")" && ping_ok; then
    log "running (pid $pid) REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
    return 0
  fi
  if [[ -n "${pid:-}" ]]; then
    log "process $pid alive but not answering PING on port $REDIS_PORT"
    return 1
  fi
  log "stopped"
  return 3
}

# PING, SET/GET/INCR/DEL on a scratch key.
cmd_smoke() {
  local cli=(timeout 5 redis-cli -h 127.0.0.1 -p "$REDIS_PORT") key="engines:smoke:$$"
  [[ "$("${cli[@]}" ping)" == PONG ]] || die "PING failed"
  "${cli[@]}" set "$key" 41 >/dev/null
  [[ "$("${cli[@]}" incr "$key")" == 42 ]] || die "INCR failed"
  "${cli[@]}" del "$key" >/dev/null
  log "smoke OK ($("${cli[@]}" info server | tr -d '\r' | grep '^redis_version:'))"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  smoke) cmd_smoke ;;
  *) echo "usage: $0 install|start|stop|status|smoke" >&2; exit 2 ;;
esac
