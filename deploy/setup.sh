#!/usr/bin/env bash
# Prepares a machine for Kontor: PostgreSQL's server binaries from the OS packages when they
# are missing (Kontor runs its own private cluster with them), and a Rust toolchain check.
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

# The OpenAPI 3.1 validator the contract test runs, in its own virtual environment.
VALIDATOR=target/openapi-validator
if [ ! -x "$VALIDATOR/bin/openapi-spec-validator" ]; then
  if ! command -v python3 > /dev/null; then
    if [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv > /dev/null
    else
      echo "python3 is needed for the OpenAPI validator: run 'sudo apt-get install -y python3 python3-venv'" >&2
      exit 1
    fi
  fi
  echo "Installing the OpenAPI validator into $VALIDATOR..."
  python3 -m venv "$VALIDATOR" 2> /dev/null || {
    [ "$(id -u)" -eq 0 ] && apt-get install -y -qq python3-venv > /dev/null && python3 -m venv "$VALIDATOR"
  }
  "$VALIDATOR/bin/pip" install --quiet --disable-pip-version-check openapi-spec-validator==0.9.0
fi

if ! command -v cargo > /dev/null; then
  echo "cargo is not on the PATH: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi
