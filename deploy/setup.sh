#!/usr/bin/env bash
# Prepares a machine for running Kontor: PostgreSQL's server binaries from the OS packages
# when they are missing (Kontor runs its own private cluster with them), a Rust toolchain
# check, and the web client built (Node.js and npm from the OS packages if missing; its
# locked dependencies from the npm registry). Nothing else: test tools are installed by
# deploy/setup-tests.sh.
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

have_postgres() {
  compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null || command -v pg_config > /dev/null
}

if ! have_postgres; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "PostgreSQL is not installed and this is not root: run 'sudo apt-get install -y postgresql'" >&2
    exit 1
  fi
  echo "Installing PostgreSQL from the OS packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql > /dev/null
fi

if ! command -v cargo > /dev/null; then
  echo "cargo is not on the PATH: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi

# The web client (web/), which the server embeds in release builds and serves at /: built with
# the machine's Node.js and npm from the locked dependencies the build needs (the test tools
# among the devDependencies are installed by deploy/setup-tests.sh). npm ci runs only when
# the lock file changed since the last install.
if ! command -v npm > /dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "npm is not installed and this is not root: run 'sudo apt-get install -y nodejs npm'" >&2
    exit 1
  fi
  echo "Installing Node.js and npm from the OS packages..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm > /dev/null
fi
(
  cd web
  # The stamp names the lock file installed and whether the devDependencies came with it.
  if ! grep -qs -e "^build $(sha256sum < package-lock.json | cut -c1-64)$" -e "^all $(sha256sum < package-lock.json | cut -c1-64)$" node_modules/.kontor-installed; then
    echo "Installing the web client's build dependencies (npm ci --omit=dev)..."
    npm ci --omit=dev --no-audit --no-fund --loglevel=error
    echo "build $(sha256sum < package-lock.json | cut -c1-64)" > node_modules/.kontor-installed
  fi
  npm run --silent build > /dev/null
)
