# shellcheck shell=bash
# Shared helpers for scripts/engines/*.sh. Sourced, never executed.
# Callers set ENGINE (used as log prefix) before sourcing.

ENGINES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$ENGINES_DIR/../.." && pwd)"
INFRA_DIR="$REPO_ROOT/.infra"
export REPO_ROOT INFRA_DIR

export CI="${CI:-true}"
export DEBIAN_FRONTEND=noninteractive

log() { printf '[%s] %s\n' "${ENGINE:-engines}" "$*"; }
err() { printf '[%s] ERROR: %s\n' "${ENGINE:-engines}" "$*" >&2; }
die() { err "$*"; exit 1; }

now_ms() { date +%s%3N; }
# secs_since START_MS -> "12.3"
secs_since() { awk -v s="$1" -v e="$(now_ms)" 'BEGIN { printf "%.1f", (e - s) / 1000 }'; }

# port_open PORT [HOST]: true when something accepts TCP connections.
port_open() {
  local port="$1" host="${2:-127.0.0.1}"
  timeout 1 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

# port_owner PORT: best-effort description of the listening process.
port_owner() {
  ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\(.*\)))/\1/p' | head -n1
}

# read_pid PIDFILE: prints the pid if the file holds a number.
read_pid() {
  local f="$1" pid
  [[ -s "$f" ]] || return 1
  pid="$(tr -dc '0-9' < "$f")"
  [[ -n "$pid" ]] || return 1
  printf '%s' "$pid"
}

# pid_matches PID PATTERN: process is alive and its command line contains PATTERN
# (guards against a stale pid file whose pid was reused by another process).
pid_matches() {
  local pid="$1" pattern="$2"
  kill -0 "$pid" 2>/dev/null || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$pattern"
}

# running_pid PIDFILE PATTERN: prints the pid when the recorded process is alive.
running_pid() {
  local pid
  pid="$(read_pid "$1")" || return 1
  pid_matches "$pid" "$2" || return 1
  printf '%s' "$pid"
}

# stop_pidfile PIDFILE PATTERN TIMEOUT_S: SIGTERM, wait, then SIGKILL. Idempotent.
stop_pidfile() {
  local pidfile="$1" pattern="$2" timeout_s="$3" pid i
  if ! pid="$(running_pid "$pidfile" "$pattern")"; then
    rm -f "$pidfile"
    log "not running"
    return 0
  fi
  log "stopping pid $pid (SIGTERM)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout_s * 10; i++)); do
    pid_matches "$pid" "$pattern" || break
    sleep 0.1
  done
  if pid_matches "$pid" "$pattern"; then
    err "pid $pid still alive after ${timeout_s}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_matches "$pid" "$pattern" || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
  log "stopped"
}

# require_port_free PORT: fail clearly when an unmanaged process holds the port.
require_port_free() {
  local port="$1" owner
  if port_open "$port"; then
    owner="$(port_owner "$port")"
    die "port $port is already in use${owner:+ by $owner} (not started by this script); stop it or override the port env var"
  fi
}

# tail_log FILE [N]: print the last lines of a log to stderr.
tail_log() {
  local f="$1" n="${2:-40}"
  if [[ -s "$f" ]]; then
    printf -- '----- last %s lines of %s -----\n' "$n" "$f" >&2
    tail -n "$n" "$f" >&2
    printf -- '-----\n' >&2
  fi
}

# hash_files FILE... -> sha256 over contents (and names).
hash_files() {
  local f
  for f in "$@"; do
    printf '%s\n' "$(basename "$f")"
    cat "$f"
  done | sha256sum | cut -d' ' -f1
}

# apt_install PKG...: apt-get update + install (as root, or with sudo -n); output in $DIR/apt.log.
apt_install() {
  local apt=(apt-get -y -q -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  [[ "$(id -u)" == 0 ]] || apt=(sudo -n "${apt[@]}")
  local out="$DIR/apt.log"
  mkdir -p "$DIR"
  log "apt-get update"
  "${apt[@]}" update >"$out" 2>&1 || { tail_log "$out"; die "apt-get update failed"; }
  log "apt-get install $*"
  "${apt[@]}" install --no-install-recommends "$@" >>"$out" 2>&1 || { tail_log "$out"; die "apt-get install failed"; }
}
