#!/usr/bin/env bash
# Prepares a machine for running Kontor: PostgreSQL's server binaries from the OS packages
# when they are missing (Kontor runs its own private cluster with them), checks for Rust and
# a C compiler (cargo needs one: a few dependencies have C parts, and it links with it), and
# the web client built (Node.js and npm from the OS packages if missing, or from the npm
# registry where the OS's are too old: see deploy/setup-common.sh; its locked dependencies
# from the npm registry). Nothing else: test tools are installed by deploy/setup-tests.sh.
# Safe to run again: it only installs what is missing, and builds the page only when its
# sources changed.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/setup-common.sh

have_postgres() {
  compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null || command -v pg_config > /dev/null
}

if ! have_postgres; then
  # The package also creates a cluster of its own, which Kontor does not use.
  install_os_packages "Kontor's private PostgreSQL cluster" postgresql
fi

if ! command -v cargo > /dev/null; then
  echo "cargo is not on the PATH: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi
if ! command -v cc > /dev/null; then
  install_os_packages "cargo (it compiles and links with a C compiler)" gcc libc6-dev
fi

# A digest of what the page's build reads and of what it wrote (web/dist), from web/. The
# generated API types (src/api/schema.d.ts) are left out: the build drops types.
page_digest() {
  local path paths=()
  for path in index.html package.json package-lock.json tsconfig.json vite.config.ts public src dist; do
    if [ -e "$path" ]; then paths+=("$path"); fi
  done
  find "${paths[@]}" -type f ! -path src/api/schema.d.ts -print0 | LC_ALL=C sort -z \
    | xargs -0 sha256sum | sha256sum | cut -c1-64
}

# Makes folder $2 hold what folder $1 holds, leaving alone each file whose bytes are the same
# (its modification time too).
update_folder() {
  local from=$1 to=$2 file
  mkdir -p "$to"
  while IFS= read -r -d '' file; do
    if ! cmp -s "$from/$file" "$to/$file"; then
      mkdir -p "$(dirname "$to/$file")"
      cp "$from/$file" "$to/$file"
    fi
  done < <(cd "$from" && find . -type f -print0)
  while IFS= read -r -d '' file; do
    if [ ! -e "$from/$file" ]; then rm -f "$to/$file"; fi
  done < <(cd "$to" && find . -type f -print0)
  find "$to" -mindepth 1 -type d -empty -delete
}

# The web client (web/), which the server embeds in release builds and serves at /: built with
# a Node.js its tools run on (deploy/setup-common.sh), from the locked dependencies the build
# needs (the test tools among the devDependencies are installed by deploy/setup-tests.sh).
# npm ci runs only when the lock file changed since the last install.
use_suitable_node
(
  cd web
  # The stamp names the lock file installed and whether the devDependencies came with it.
  if ! grep -qs -e "^build $(sha256sum < package-lock.json | cut -c1-64)$" -e "^all $(sha256sum < package-lock.json | cut -c1-64)$" node_modules/.kontor-installed; then
    echo "Installing the web client's build dependencies (npm ci --omit=dev)..."
    npm ci --omit=dev --no-audit --no-fund --loglevel=error
    echo "build $(sha256sum < package-lock.json | cut -c1-64)" > node_modules/.kontor-installed
  fi

  # The page is built only when its sources or web/dist changed since the last build, and
  # then only the files whose bytes changed are written: a release build embeds web/dist, so
  # cargo compiles the server again when a file there is rewritten, even with the same bytes
  # (a restart of deploy/serve.sh took minutes for that).
  stamp=../target/web-dist.stamp
  if [ "$(page_digest)" != "$(cat "$stamp" 2> /dev/null)" ]; then
    echo "Building the web client (web/dist)..."
    built=$(mktemp -d)
    trap 'rm -rf "$built"' EXIT
    npm run --silent build -- --outDir "$built" --emptyOutDir > /dev/null
    update_folder "$built" dist
    mkdir -p ../target
    page_digest > "$stamp"
  fi
)
