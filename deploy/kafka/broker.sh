#!/usr/bin/env bash
# A single-node Apache Kafka broker in KRaft mode on 127.0.0.1, from Maven Central's artifacts.
#   deploy/kafka/broker.sh start DIR PORT   format storage in DIR, start with a small heap, wait until it answers
#   deploy/kafka/broker.sh stop DIR         stop the broker started in DIR (by PID)
# The jars are fetched once (mvn, deploy/kafka/pom.xml) into $KAFKA_LIB
# (default ~/.cache/agent-monitor/kafka-<version>) and reused. Needs Java 17+.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$HERE/pom.xml")"
LIB="${KAFKA_LIB:-$HOME/.cache/agent-monitor/kafka-$VERSION}"

fetch() {
  if [ ! -f "$LIB/.complete" ]; then
    mkdir -p "$LIB"
    mvn -q -f "$HERE/pom.xml" dependency:copy-dependencies -DoutputDirectory="$LIB" >&2
    touch "$LIB/.complete"
  fi
}

start() {
  local dir="$1" port="$2" cport=$(( $2 + 1 ))
  fetch
  mkdir -p "$dir/data"
  cat > "$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=4
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  cat > "$dir/log4j2.properties" <<'LOG'
status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
LOG
  if [ ! -f "$dir/data/meta.properties" ]; then
    java -cp "$LIB/*" -Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir" \
      kafka.tools.StorageTool format -t "$(java -cp "$LIB/*" kafka.tools.StorageTool random-uuid 2>/dev/null)" \
      -c "$dir/server.properties" >/dev/null
  fi
  nohup java -Xms128m -Xmx512m -XX:+UseG1GC -cp "$LIB/*" -Dlog4j2.configurationFile="$dir/log4j2.properties" \
    -Dkafka.logs.dir="$dir" kafka.Kafka "$dir/server.properties" >"$dir/stdout.log" 2>&1 &
  echo $! > "$dir/broker.pid"
  for _ in $(seq 1 120); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      sleep 1
      echo "kafka $VERSION on 127.0.0.1:$port (pid $(cat "$dir/broker.pid"))"
      return 0
    fi
    if ! kill -0 "$(cat "$dir/broker.pid")" 2>/dev/null; then
      echo "kafka exited; see $dir/stdout.log and $dir/server.log" >&2
      tail -20 "$dir/stdout.log" >&2 || true
      return 1
    fi
    sleep 0.5
  done
  echo "kafka did not open 127.0.0.1:$port in 60 s" >&2
  return 1
}

stop() {
  local dir="$1"
  if [ -f "$dir/broker.pid" ]; then
    local pid; pid="$(cat "$dir/broker.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/broker.pid"
  fi
}

case "${1:-}" in
  start) start "$2" "$3" ;;
  stop) stop "$2" ;;
  fetch) fetch ;;
  *) echo "usage: $0 start DIR PORT | stop DIR | fetch" >&2; exit 2 ;;
esac
