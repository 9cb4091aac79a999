#!/usr/bin/env bash
# Runs the whole test suite: the web client's type check and lint, the unit and property
# tests of the rules engines, the integration tests against a real PostgreSQL (a private
# cluster the tests start themselves) and the real HTTP server, and the browser tests
# (Debian's Chromium driven by Playwright through the web client, against `kontor serve`).
# Arguments go to `cargo test`; with any, the browser tests are left out.
#
# A fresh clone compiles only Kontor itself: the compiled dependencies are kept in a cache the
# clones on this machine share (/var/cache/kontor as root, else the user's cache folder), in a
# folder named after what they are built from (Cargo.lock, Cargo.toml, rustc's and cargo's
# versions). A clone whose target/ has no build yet starts from a copy of them; the first
# build of a new set leaves one there (the two newest sets are kept).
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup-tests.sh
. deploy/setup-common.sh
use_suitable_node
(cd web && npm run --silent check)

if [ "$(id -u)" -eq 0 ]; then
  dependencies=/var/cache/kontor/cargo-dependencies
else
  dependencies=${XDG_CACHE_HOME:-$HOME/.cache}/kontor/cargo-dependencies
fi
dependencies_set=$dependencies/$(cat Cargo.lock Cargo.toml <(rustc -vV) <(cargo -V) | sha256sum | cut -c1-16)
# A copy, not links: cargo may write a unit again in place, and the cache must not change
# under another clone. Kontor's own units (its package and targets: kontor, api) stay out.
if [ ! -e target/debug/.fingerprint ] && [ -e "$dependencies_set/.complete" ]; then
  echo "Copying the compiled dependencies from $dependencies_set..."
  mkdir -p target/debug
  cp -a "$dependencies_set/debug/." target/debug/ || {
    echo "copying them failed: building them instead" >&2
    rm -rf target/debug
  }
fi
cargo test --locked --no-run
if [ ! -e "$dependencies_set/.complete" ]; then
  mkdir -p "$dependencies"
  (
    # Another clone saving the same set at once: it will be there.
    flock -n 9 || exit 0
    [ ! -e "$dependencies_set/.complete" ] || exit 0
    echo "Keeping the compiled dependencies in $dependencies_set for the next clone..."
    saving=$(mktemp -d "$dependencies_set.XXXXXX")
    chmod 755 "$saving"
    mkdir -p "$saving/debug"
    (cd target/debug && find deps build .fingerprint -mindepth 1 -maxdepth 1 \
      ! -name 'kontor-*' ! -name 'libkontor-*' ! -name 'api-*' -print0 \
      | xargs -0 cp -a --parents -t "$saving/debug/")
    touch "$saving/.complete"
    rm -rf "$dependencies_set"
    mv "$saving" "$dependencies_set"
    find "$dependencies" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | tail -n +3 \
      | cut -d' ' -f2- | xargs -r rm -rf
  ) 9> "$dependencies_set.lock" || echo "keeping the compiled dependencies failed (the tests are not affected)" >&2
fi
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
