#!/usr/bin/env bash
# Measures whether uploads hold up other requests: /healthz's latency on a release build of
# `kontor serve` (private durable PostgreSQL cluster) with no upload load, then with clients
# looping the heaviest export an upload may be (benches/uploads.rs has the details).
#
#   deploy/bench-uploads.sh [seconds per phase=10] [clients=0,1,4]
#
# The server keeps its default upload limits (KONTOR_UPLOADS_MAX=4, 2 per user; each client
# is a user of its own). The web client is not needed and not built.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_PHASE=${1:-10}
CLIENTS=${2:-0,1,4}

BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed: run deploy/setup.sh first" >&2
  exit 1
fi

DIR=$(mktemp -d /tmp/kontor-bench-uploads.XXXXXX)
RUN=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; RUN=(runuser -u postgres --); fi
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2> /dev/null && wait "$SERVER" 2> /dev/null || true
  "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "building (release)..."
cargo build --release --locked -q
cargo bench --bench uploads --locked --no-run -q 2> /dev/null
LOAD=$(ls -t target/release/deps/uploads-* | grep -v '\.d$' | head -1)

"${RUN[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-locale -E UTF8 > /dev/null
"${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
  "-c listen_addresses='' -c unix_socket_directories='$DIR'" start > /dev/null
"${RUN[@]}" "$BIN/psql" -h "$DIR" -U postgres -q -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE kontor LOGIN" -c "CREATE DATABASE kontor OWNER kontor"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2> /dev/null || echo 18082)
KONTOR_DATABASE_URL="postgres://kontor@localhost/kontor?host=$DIR" KONTOR_BIND="127.0.0.1:$PORT" \
  KONTOR_DATA_DIR="$DIR/kontor" KONTOR_WORKERS=false RUST_LOG=warn \
  target/release/kontor serve > "$DIR/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
echo "kontor: /healthz with $CLIENTS upload clients, $SECONDS_PER_PHASE s each..."
REPORT=$("$LOAD" --url "http://127.0.0.1:$PORT" --seconds "$SECONDS_PER_PHASE" --clients "$CLIENTS")

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg), PostgreSQL $("$BIN/postgres" --version | awk '{print $3}')"
echo "$REPORT" | python3 -m json.tool
if grep -qi -e error -e panic "$DIR/server.log"; then
  echo "the server logged errors:"
  grep -i -e error -e panic "$DIR/server.log" | head -20
fi
