#!/usr/bin/env bash
# Measures Kontor's action throughput against a pgbench baseline on the same private
# PostgreSQL cluster, in one run, with durable commits (fsync and synchronous_commit on).
#
#   deploy/bench.sh [games=32] [seconds=20]
#
# Baseline: pgbench, one client per game, each transaction locks its head row, updates it
# and inserts one JSONB event. Kontor: the load generator (benches/load.rs) plays the same
# number of Steel Driver games through the HTTP API of a release build of `kontor serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${1:-32}
SECONDS_EACH=${2:-20}
deploy/setup.sh

BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
DIR=$(mktemp -d /tmp/kontor-bench.XXXXXX)
RUN=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$DIR"; RUN=(runuser -u postgres --); fi
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  "${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop > /dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "building (release)..."
cargo build --release --locked -q
cargo bench --bench load --locked --no-run -q 2> /dev/null
LOAD=$(ls -t target/release/deps/load-* | grep -v '\.d$' | head -1)

"${RUN[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --no-locale -E UTF8 > /dev/null
"${RUN[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
  "-c listen_addresses='' -c unix_socket_directories='$DIR' -c max_connections=200 -c shared_buffers=256MB" \
  start > /dev/null
PSQL=("${RUN[@]}" "$BIN/psql" -h "$DIR" -U postgres -q -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE ROLE kontor LOGIN" -c "CREATE DATABASE kontor OWNER kontor" -c "CREATE DATABASE baseline"
"${PSQL[@]}" -d baseline <<SQL
CREATE TABLE heads (id int PRIMARY KEY, version bigint NOT NULL);
CREATE TABLE events (game_id int NOT NULL, seq bigint NOT NULL, payload jsonb NOT NULL, PRIMARY KEY (game_id, seq));
INSERT INTO heads SELECT g, 0 FROM generate_series(1, $GAMES) g;
SQL
cat > "$DIR/baseline.sql" <<'SQL'
\set g :client_id + 1
BEGIN;
SELECT version FROM heads WHERE id = :g FOR UPDATE;
UPDATE heads SET version = version + 1 WHERE id = :g;
INSERT INTO events VALUES (:g, (SELECT version FROM heads WHERE id = :g), '{"type": "link_built", "company": "red", "link": "PHL-NYC", "cost": 2, "profit": 60}');
END;
SQL
chmod 644 "$DIR/baseline.sql"
echo "pgbench: $GAMES clients, ${SECONDS_EACH}s..."
PGBENCH=$("${RUN[@]}" "$BIN/pgbench" -h "$DIR" -U postgres -n -c "$GAMES" -j 2 -T "$SECONDS_EACH" -f "$DIR/baseline.sql" baseline 2>&1)
TPS=$(echo "$PGBENCH" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
KONTOR_DATABASE_URL="postgres://kontor@localhost/kontor?host=$DIR" KONTOR_BIND="127.0.0.1:$PORT" \
  KONTOR_DATA_DIR="$DIR/kontor" KONTOR_DB_POOL_SIZE=$((GAMES + 8)) KONTOR_WORKERS=false RUST_LOG=warn KONTOR_REGISTRATIONS_PER_ADDRESS=1000000 \
  target/release/kontor serve > "$DIR/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/api/v1/kinds" > /dev/null && break; sleep 0.1; done
echo "kontor: $GAMES games, ${SECONDS_EACH}s..."
REPORT=$("$LOAD" --url "http://127.0.0.1:$PORT" --games "$GAMES" --seconds "$SECONDS_EACH")

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), PostgreSQL $("$BIN/postgres" --version | awk '{print $3}')"
echo "pgbench baseline: $TPS transactions/s"
echo "kontor: $REPORT"
python3 - "$TPS" "$REPORT" <<'PY'
import json, sys
tps = float(sys.argv[1]); r = json.loads(sys.argv[2])
ratio = r["actions_per_second"] / tps
print(f"kontor / pgbench = {ratio:.0%} (target >= 40%), p99 = {r['p99_ms']:.1f} ms (target < 50 ms)")
print("TARGETS MET" if ratio >= 0.4 and r["p99_ms"] < 50 else "TARGETS NOT MET")
PY
