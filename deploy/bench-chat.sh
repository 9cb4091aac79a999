#!/usr/bin/env bash
# Measures table talk on one instance (benches/chat.rs has the details): the chat messages
# per second a release build of `kontor serve` accepts on the load of deploy/bench.sh while
# the games' moves continue (the moves' throughput without and with chat, in one run), and
# the delay from sending a message to its arrival on many streams of one game. On a private
# PostgreSQL cluster with durable commits (fsync and synchronous_commit on).
#
#   deploy/bench-chat.sh [games=32] [seconds=20] [streams=100] [messages=200]
#
# The chat's rate limits are lifted for the run (KONTOR_CHAT_INTERVAL_SECS=0 and a daily cap
# out of reach) and the per-user stream limit raised: the figures are the server's, not its
# limits'. The web client is not needed and not built.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${1:-32}
SECONDS_EACH=${2:-20}
STREAMS=${3:-100}
MESSAGES=${4:-200}

BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed: run deploy/setup.sh first" >&2
  exit 1
fi

DIR=$(mktemp -d /tmp/kontor-bench-chat.XXXXXX)
RUN=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; RUN=(runuser -u postgres --); fi
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2> /dev/null && wait "$SERVER" 2> /dev/null || true
  "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "building (release)..."
# One build: building a benchmark builds the server binary too (target/release/kontor), with
# the same dependencies' features, where `cargo build --release` first would compile the
# whole tree a second time with others.
cargo bench --bench chat --locked --no-run -q 2> /dev/null
LOAD=$(ls -t target/release/deps/chat-* | grep -v '\.d$' | head -1)

"${RUN[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-locale -E UTF8 > /dev/null
"${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
  "-c listen_addresses='' -c unix_socket_directories='$DIR' -c max_connections=200 -c shared_buffers=256MB" \
  start > /dev/null
"${RUN[@]}" "$BIN/psql" -h "$DIR" -U postgres -q -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE kontor LOGIN" -c "CREATE DATABASE kontor OWNER kontor"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2> /dev/null || echo 18082)
KONTOR_DATABASE_URL="postgres://kontor@localhost/kontor?host=$DIR" KONTOR_BIND="127.0.0.1:$PORT" \
  KONTOR_DATA_DIR="$DIR/kontor" KONTOR_DB_POOL_SIZE=$((GAMES * 2 + 8)) KONTOR_WORKERS=false RUST_LOG=warn \
  KONTOR_REGISTRATIONS_PER_ADDRESS=1000000 KONTOR_CHAT_INTERVAL_SECS=0 KONTOR_CHAT_DAILY_MAX=100000000 \
  KONTOR_LIVE_MAX_STREAMS_PER_USER="$STREAMS" KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS=$((STREAMS + 64)) \
  target/release/kontor serve > "$DIR/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/api/v1/kinds" > /dev/null && break; sleep 0.1; done
echo "kontor: $GAMES games, ${SECONDS_EACH}s of moves alone and ${SECONDS_EACH}s of moves and chat; $STREAMS streams on one game, $MESSAGES messages..."
REPORT=$("$LOAD" --url "http://127.0.0.1:$PORT" --games "$GAMES" --seconds "$SECONDS_EACH" \
  --streams "$STREAMS" --messages "$MESSAGES")

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/^Mem:/ {print $2}') GiB memory, PostgreSQL $("$BIN/postgres" --version | awk '{print $3}')"
echo "$REPORT" | python3 -m json.tool
if grep -qi -e error -e panic "$DIR/server.log"; then
  echo "the server logged errors:"
  grep -i -e error -e panic "$DIR/server.log" | head -20
fi
