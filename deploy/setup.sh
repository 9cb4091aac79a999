#!/usr/bin/env bash
# Prepares a machine for running Kontor: PostgreSQL's server binaries from the OS packages
# when they are missing (Kontor runs its own private cluster with them), and a Rust toolchain
# check. Nothing else: the server must start on a machine that reaches no package index but
# the OS's. Test tools are installed by deploy/setup-tests.sh.
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
