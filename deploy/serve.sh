#!/usr/bin/env bash
# Runs the Kontor server. With no KONTOR_DATABASE_URL it creates and starts a private
# PostgreSQL cluster in ./data (KONTOR_DATA_DIR) and stops it on shutdown.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh
exec cargo run --release --locked -- serve "$@"
