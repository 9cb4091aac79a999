#!/usr/bin/env bash
# Measures live-stream fan-out on one instance: many concurrent Server-Sent-Event streams
# against a release build of `kontor serve` on a private durable PostgreSQL cluster, the
# server's memory per idle stream, and the time from an action's acceptance to its event
# reaching every stream that should receive it (benches/streams.rs has the details).
#
#   deploy/bench-streams.sh [streams=10000] [games=50] [actions=40] [waves=5]
#
# Half the streams are game streams (spread over the games), half user streams (/me/stream),
# over 3 × games users; the per-user stream limit is raised for the run. Each stream is one
# loopback TCP connection, so the client and the server each need a file descriptor per
# stream (the open-files limit is raised to its hard limit) and the client a local port per
# stream (net.ipv4.ip_local_port_range). The web client is not needed and not built.
#
# BENCH_CLIENT_CPUS=1 (a `taskset` CPU list) pins the measuring client to those cores, so that
# on a small machine it takes no more than them from the server; the report's `wave_cpu`
# counts the server's own CPU time per delivery and per wave either way (from /proc).
#
# BENCH_INSTRUCTIONS=1 runs the server under callgrind and counts its instructions during the
# waves, per delivered game-stream event and per action (deploy/bench-instructions.sh; small
# sizes, e.g. `BENCH_INSTRUCTIONS=1 deploy/bench-streams.sh 2000 10 0 5`, 100 game streams a
# game as at 10,000: the server runs 30-50 times slower).
set -euo pipefail
cd "$(dirname "$0")/.."
STREAMS=${1:-10000}
GAMES=${2:-50}
ACTIONS=${3:-40}
WAVES=${4:-5}

BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed: run deploy/setup.sh first" >&2
  exit 1
fi

# One descriptor per stream in each process, and some for the pool, the log and the listener.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((STREAMS + 512)) ]; then
  echo "the open-files limit ($(ulimit -n)) is too low for $STREAMS streams: raise the hard limit (ulimit -Hn) or ask for fewer" >&2
  exit 1
fi
read -r LOW HIGH < /proc/sys/net/ipv4/ip_local_port_range
if [ $((HIGH - LOW)) -lt $((STREAMS + 512)) ]; then
  echo "the local port range $LOW-$HIGH is too small for $STREAMS connections to one address: widen net.ipv4.ip_local_port_range" >&2
  exit 1
fi

DIR=$(mktemp -d /tmp/kontor-bench-streams.XXXXXX)
RUN=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; RUN=(runuser -u postgres --); fi
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2> /dev/null && wait "$SERVER" 2> /dev/null || true
  "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
source deploy/bench-instructions.sh

echo "building (release)..."
cargo build --release --locked -q
cargo bench --bench streams --locked --no-run -q 2> /dev/null
LOAD=$(ls -t target/release/deps/streams-* | grep -v '\.d$' | head -1)

"${RUN[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-locale -E UTF8 > /dev/null
"${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
  "-c listen_addresses='' -c unix_socket_directories='$DIR' -c max_connections=200 -c shared_buffers=256MB" \
  start > /dev/null
"${RUN[@]}" "$BIN/psql" -h "$DIR" -U postgres -q -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE kontor LOGIN" -c "CREATE DATABASE kontor OWNER kontor"

# MALLOC_MMAP_THRESHOLD_ fixes glibc's threshold for mapping large blocks: by default it
# rises after the first large free, and then argon2's 19 MiB work areas of the set-up's
# logins stay in the heap and blur the server's RSS; fixed, they go back to the system.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2> /dev/null || echo 18081)
KONTOR_DATABASE_URL="postgres://kontor@localhost/kontor?host=$DIR" KONTOR_BIND="127.0.0.1:$PORT" \
  KONTOR_DATA_DIR="$DIR/kontor" KONTOR_DB_POOL_SIZE=32 KONTOR_WORKERS=false RUST_LOG=warn KONTOR_REGISTRATIONS_PER_ADDRESS=1000000 \
  KONTOR_LIVE_MAX_STREAMS_PER_USER="$STREAMS" KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS="$STREAMS" MALLOC_MMAP_THRESHOLD_=131072 \
  "${INSTRUMENT[@]}" target/release/kontor serve > "$DIR/server.log" 2>&1 &
SERVER=$!
for _ in $(seq "$WAIT_FOR_SERVER"); do curl -sf "http://127.0.0.1:$PORT/api/v1/kinds" > /dev/null && break; sleep 0.1; done
echo "kontor: $STREAMS streams over $GAMES games..."
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
PIN=()
if [ -n "${BENCH_CLIENT_CPUS:-}" ]; then PIN=(taskset -c "$BENCH_CLIENT_CPUS"); fi
REPORT=$("${PIN[@]}" "$LOAD" --url "http://127.0.0.1:$PORT" --server-pid "$SERVER" --streams "$STREAMS" \
  --games "$GAMES" --actions "$ACTIONS" --waves "$WAVES" \
  ${INSTRUMENT:+--on-start "$(instructions_hook on)" --on-stop "$(instructions_hook off)"})

echo
echo "load average before: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)${BENCH_CLIENT_CPUS:+; client pinned to CPUs $BENCH_CLIENT_CPUS}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/^Mem:/ {print $2}') GiB memory, PostgreSQL $("$BIN/postgres" --version | awk '{print $3}')"
echo "$REPORT" | python3 -m json.tool
if grep -qi -e error -e panic "$DIR/server.log"; then
  echo "the server logged errors:"
  grep -i -e error -e panic "$DIR/server.log" | head -20
fi
if instructions_verdict; then
  # The waves' deliveries: each action's event on every game stream of its game.
  instructions_report "event delivered to a game stream" \
    "$(echo "$REPORT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["waves"]["game_stream_events"])')" \
    "action of the waves (its own work and its deliveries)" \
    "$(echo "$REPORT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["waves"]["actions"])')"
fi
