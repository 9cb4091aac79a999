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
  # On a failure, what the server warned of (RUST_LOG=warn) is the first clue: its last lines
  # go to the output, where CI keeps them.
  if ! (cd web && KONTOR_BIN="$PWD/../target/debug/kontor" npx playwright test); then
    echo "--- The browser tests failed; the last lines of their server's log (web/test-results-server.log):"
    tail -n 120 web/test-results-server.log 2> /dev/null || true
    exit 1
  fi
fi
