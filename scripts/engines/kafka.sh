#!/usr/bin/env bash
# Apache Kafka 3.9.1 (KRaft, single node) for tests and local clusters:
#   scripts/engines/kafka.sh install|start|stop|status|smoke
# Jars come from Maven Central via scripts/engines/kafka/pom.xml into .infra/kafka/libs.
# Listens on 127.0.0.1:${KAFKA_PORT:-9092} (controller ${KAFKA_CONTROLLER_PORT:-9093}).
set -euo pipefail
ENGINE=kafka
# shellcheck source=lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms512m -Xmx512m}"
SRC="$ENGINES_DIR/kafka"
DIR="$INFRA_DIR/kafka"
LIBS="$DIR/libs"
MARKER="$LIBS/.complete"
DATA="$DIR/data"
PRISTINE="$DIR/data.formatted"
PRISTINE_HASH="$DIR/data.formatted.hash"
CONF="$DIR/server.properties"
LOG4J="$DIR/log4j.properties"
TOOLS_LOG4J="$SRC/tools-log4j.properties"
LOGFILE="$DIR/kafka.log"
OUTFILE="$DIR/kafka.out"
PIDFILE="$DIR/kafka.pid"
PATTERN="kafka.Kafka $CONF"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-120}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"

libs_hash() { hash_files "$SRC/pom.xml"; }

libs_complete() {
  [[ -f "$MARKER" && "$(cat "$MARKER")" == "$(libs_hash)" ]] || return 1
  compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null && compgen -G "$LIBS/slf4j-reload4j-*.jar" >/dev/null
}

java_tool() { # java_tool MAIN_CLASS ARGS... (quiet logging, small heap)
  java -Xms64m -Xmx256m -Dlog4j.configuration="file:$TOOLS_LOG4J" -cp "$LIBS/*" "$@"
}

cmd_install() {
  command -v java >/dev/null 2>&1 || die "java not found (Java 17 is expected on these machines)"
  if libs_complete; then
    log "jars present ($(find "$LIBS" -name '*.jar' | wc -l) in $LIBS)"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (apt-get install -y maven)"
  local t0 tmp
  t0="$(now_ms)"
  tmp="$LIBS.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$DIR"
  log "fetching jars from Maven Central (mvn dependency:copy-dependencies)"
  # The output directory must be absolute: mvn resolves relative paths against the pom's folder.
  if ! mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory="$tmp" \
    -DincludeScope=runtime -f "$SRC/pom.xml" </dev/null >"$DIR/mvn.log" 2>&1; then
    tail_log "$DIR/mvn.log"
    rm -rf "$tmp"
    die "mvn dependency:copy-dependencies failed (full output: $DIR/mvn.log)"
  fi
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
  libs_hash > "$MARKER"
  log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars in $(secs_since "$t0")s"
}

render_config() {
  mkdir -p "$DIR"
  sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
    -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
    -e "s|@KAFKA_DATA_DIR@|$DATA|g" \
    "$SRC/server.properties" > "$CONF"
  cp "$SRC/log4j.properties" "$LOG4J"
}

cmd_start() {
  local pid t0 i cluster_id
  libs_complete || die "jars missing; run: $0 install"
  if pid="$(running_pid "$PIDFILE" "$PATTERN")"; then
    log "already running (pid $pid, port $KAFKA_PORT)"
    return 0
  fi
  require_port_free "$KAFKA_PORT"
  require_port_free "$KAFKA_CONTROLLER_PORT"
  t0="$(now_ms)"
  render_config
  if [[ "${KEEP_DATA:-0}" != 1 ]]; then
    rm -rf "$DATA"
  fi
  if [[ -f "$DATA/meta.properties" ]]; then
    log "reusing data in $DATA (KEEP_DATA=1)"
  elif [[ -f "$PRISTINE/meta.properties" && "$(cat "$PRISTINE_HASH" 2>/dev/null)" == "$(hash_files "$CONF")" ]]; then
    # A freshly formatted copy for the same config: saves two JVM launches per start.
    rm -rf "$DATA"
    cp -a "$PRISTINE" "$DATA"
    log "fresh data dir from formatted template $PRISTINE"
  else
    rm -rf "$DATA" "$PRISTINE" "$PRISTINE_HASH"
    cluster_id="$(java_tool kafka.tools.StorageTool random-uuid)"
    java_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$CONF" --ignore-formatted >/dev/null
    cp -a "$DATA" "$PRISTINE"
    hash_files "$CONF" > "$PRISTINE_HASH"
    log "formatted $DATA (cluster $cluster_id) in $(secs_since "$t0")s"
  fi
  [[ -f "$LOGFILE" ]] && mv -f "$LOGFILE" "$LOGFILE.1"
  : > "$LOGFILE"
  rm -f "$PIDFILE"
  # setsid + nohup: the broker must outlive the calling shell/CI step.
  # shellcheck disable=SC2086
  setsid nohup java $KAFKA_HEAP_OPTS \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true \
    -Dkafka.logs.dir="$DIR" -Dlog4j.configuration="file:$LOG4J" \
    -cp "$LIBS/*" kafka.Kafka "$CONF" >"$OUTFILE" 2>&1 </dev/null &
  pid=$!
  echo "$pid" > "$PIDFILE"
  for ((i = 0; i < START_TIMEOUT * 5; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      err "broker (pid $pid) exited during start-up"
      tail_log "$OUTFILE" 20
      tail_log "$LOGFILE"
      rm -f "$PIDFILE"
      exit 1
    fi
    if grep -q 'Kafka Server started' "$LOGFILE" 2>/dev/null && port_open "$KAFKA_PORT"; then
      log "ready in $(secs_since "$t0")s (pid $pid) KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
      return 0
    fi
    sleep 0.2
  done
  err "not ready after ${START_TIMEOUT}s (no 'Kafka Server started' in $LOGFILE); stopping pid $pid"
  tail_log "$LOGFILE"
  stop_pidfile "$PIDFILE" "$PATTERN" "$STOP_TIMEOUT" >&2 || true
  exit 1
}

cmd_stop() {
  stop_pidfile "$PIDFILE" "$PATTERN" "$STOP_TIMEOUT"
}

cmd_status() {
  local pid
  if pid="$(running_pid "$PIDFILE" "$PATTERN")" && port_open "$KAFKA_PORT"; then
    log "running (pid $pid) KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
    return 0
  fi
  if [[ -n "${pid:-}" ]]; then
    log "process $pid alive but port $KAFKA_PORT not accepting connections"
    return 1
  fi
  log "stopped"
  return 3
}

# Create a topic, list topics, produce and consume one record (AdminClient + clients from libs).
cmd_smoke() {
  libs_complete || die "jars missing; run: $0 install"
  java_tool "$SRC/KafkaSmoke.java" "127.0.0.1:$KAFKA_PORT" "${1:-engines-smoke}"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  smoke) shift; cmd_smoke "$@" ;;
  *) echo "usage: $0 install|start|stop|status|smoke [topic]" >&2; exit 2 ;;
esac
