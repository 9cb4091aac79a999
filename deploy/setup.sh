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
# the machine's Node.js and npm from the locked dependencies. npm ci runs only when the lock
# file changed since the last install.
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
  if ! cmp -s package-lock.json node_modules/.installed-lock.json 2> /dev/null; then
    echo "Installing the web client's dependencies (npm ci)..."
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.installed-lock.json
  fi
  npm run --silent build > /dev/null
)
