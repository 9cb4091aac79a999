#!/usr/bin/env bash
# Measures `kontor ratings rebuild` over many finished games (issue 24): a release build, a
# private durable PostgreSQL cluster (fsync and synchronous_commit on), the generator
# (benches/ratings.rs: rated games of both kinds, 3–6 seats, played to the end by the engines'
# sensible bot through the server's own start and decide steps, written in batches, then
# judged by the rating worker's own pass), then `kontor ratings rebuild --check` and
# `kontor ratings rebuild`, each under /usr/bin/time -v.
#
#   deploy/bench-ratings.sh [games=100000] [players=2000]
#
# With KEEP=1 the cluster is left running at the end (its URL printed), to time another build's
# rebuild on the same games; stop it with `pg_ctl -D DIR/data stop` and delete DIR.
# The cluster lives in a new folder under $TMPDIR (default /tmp) and is deleted at the end:
# 100,000 games take about 11 GB (a game is about 110 KB); point TMPDIR at a disk
# with room. The web client is not needed and not built.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/setup-common.sh
GAMES=${1:-100000}
PLAYERS=${2:-2000}

BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed: run deploy/setup.sh first" >&2
  exit 1
fi
if [ ! -x /usr/bin/time ]; then
  install_os_packages "measuring the rebuild's peak memory (/usr/bin/time -v)" time
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/kontor-bench-ratings.XXXXXX")
RUN=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; RUN=(runuser -u postgres --); fi
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "kept: ${KONTOR_DATABASE_URL:-} (folder $DIR)"; return; fi
  "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "building (release)..."
cargo build --release --locked -q
cargo bench --bench ratings --locked --no-run -q 2> /dev/null
GENERATOR=$(ls -t target/release/deps/ratings-* | grep -v '\.d$' | head -1)

"${RUN[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-locale -E UTF8 > /dev/null
# A bulk load writes gigabytes of WAL: checkpoints by size every 4 GB rather than every 1 GB.
"${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
  "-c listen_addresses='' -c unix_socket_directories='$DIR' -c shared_buffers=256MB -c max_wal_size=4GB" \
  start > /dev/null
PSQL=("${RUN[@]}" "$BIN/psql" -h "$DIR" -U postgres -q -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE ROLE kontor LOGIN" -c "CREATE DATABASE kontor OWNER kontor"
export KONTOR_DATABASE_URL="postgres://kontor@localhost/kontor?host=$DIR"
export KONTOR_DATA_DIR="$DIR/kontor" RUST_LOG=warn

echo "generating and judging $GAMES games among $PLAYERS players..."
GENERATED=$("$GENERATOR" --games "$GAMES" --users "$PLAYERS")
LOAD_GENERATED=$(cut -d' ' -f1-3 /proc/loadavg)

# Runs `kontor ratings rebuild $*` under /usr/bin/time -v: prints its line, wall time, peak
# memory and the load average after it.
rebuild() {
  local out="$DIR/rebuild$*.txt"
  /usr/bin/time -v target/release/kontor ratings rebuild "$@" > "$out" 2> "$out.time"
  echo "kontor ratings rebuild $*: $(cat "$out")"
  echo "  wall $(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$out.time")," \
    "peak RSS $(( $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out.time") / 1024 )) MiB," \
    "user $(sed -n 's/.*User time (seconds): //p' "$out.time") s," \
    "system $(sed -n 's/.*System time (seconds): //p' "$out.time") s," \
    "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(free -g | awk '/^Mem:/ {print $2}') GiB RAM, PostgreSQL $("$BIN/postgres" --version | awk '{print $3}')"
echo "generator: $GENERATED"
echo "  load average after generating and judging: $LOAD_GENERATED"
echo "database: $("${PSQL[@]}" -At -d kontor -c "SELECT pg_size_pretty(pg_database_size('kontor'))")," \
  "$("${PSQL[@]}" -At -d kontor -c "SELECT count(*) FROM game_events") events"
rebuild --check
rebuild
