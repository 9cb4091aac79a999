#!/usr/bin/env bash
# Runs the whole test suite: unit and property tests of the rules engines, and the
# integration tests against a real PostgreSQL (a private cluster the tests start themselves)
# and the real HTTP server.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup-tests.sh
exec cargo test --locked "$@"
