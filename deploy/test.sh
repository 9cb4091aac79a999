#!/usr/bin/env bash
# Runs the whole test suite: the web client's type check and lint, the unit and property
# tests of the rules engines, the integration tests against a real PostgreSQL (a private
# cluster the tests start themselves) and the real HTTP server, and the browser tests
# (Debian's Chromium driven by Playwright through the web client, against `kontor serve`).
# Arguments go to `cargo test`; with any, the browser tests are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup-tests.sh
. deploy/setup-common.sh
use_suitable_node
(cd web && npm run --silent check)
cargo test --locked "$@"
if [ $# -eq 0 ]; then
  (cd web && KONTOR_BIN="$PWD/../target/debug/kontor" npx playwright test)
fi
