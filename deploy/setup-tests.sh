#!/usr/bin/env bash
# Prepares a machine for running the test suite: everything deploy/setup.sh installs, and the
# test tools (the OpenAPI 3.1 validator, the schemathesis fuzzer and the client generator the
# contract tests run, from PyPI; the web client's test tools from npm; Debian's Chromium;
# Debian's nginx and pgbouncer for the scale-out test).
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/setup.sh
. deploy/setup-common.sh
use_suitable_node

# The Python tools below each live in a virtual environment of their own. Debian's python3
# makes one only with python3-venv (without it `python3 -m venv` fails, saying so at length):
# see to both before the first.
VALIDATOR=target/openapi-validator
FUZZER=target/schemathesis
CLIENT=target/python-client
if [ ! -x "$VALIDATOR/bin/openapi-spec-validator" ] || [ ! -x "$FUZZER/bin/schemathesis" ] || [ ! -x "$CLIENT/bin/mypy" ]; then
  if ! python3 -c 'import ensurepip, venv' 2> /dev/null; then
    install_os_packages "the test suite's Python tools" python3 python3-venv
  fi
fi

# The OpenAPI 3.1 validator the contract test runs.
if [ ! -x "$VALIDATOR/bin/openapi-spec-validator" ]; then
  echo "Installing the OpenAPI validator into $VALIDATOR..."
  python3 -m venv "$VALIDATOR"
  "$VALIDATOR/bin/pip" install --quiet --disable-pip-version-check openapi-spec-validator==0.9.0
fi

# The fuzzer the contract test runs against a test server (tests/api/fuzz.rs), pinned.
if [ ! -x "$FUZZER/bin/schemathesis" ]; then
  echo "Installing schemathesis into $FUZZER..."
  python3 -m venv "$FUZZER"
  "$FUZZER/bin/pip" install --quiet --disable-pip-version-check schemathesis==4.32.5
fi

# The client generator a third party would use, and mypy to hold the test's script to the
# generated types (tests/api/client.rs), pinned.
if [ ! -x "$CLIENT/bin/mypy" ]; then
  echo "Installing openapi-python-client and mypy into $CLIENT..."
  python3 -m venv "$CLIENT"
  "$CLIENT/bin/pip" install --quiet --disable-pip-version-check openapi-python-client==0.29.1 mypy==2.4.1
fi

# The web client's type check, lint and browser-test runner (its devDependencies).
(
  cd web
  lock="$(sha256sum < package-lock.json | cut -c1-64)"
  if ! grep -qs "^all $lock$" node_modules/.kontor-installed; then
    echo "Installing the web client's test tools (npm ci)..."
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
    echo "all $lock" > node_modules/.kontor-installed
  fi
)

# The browser the web client's tests drive: Debian's Chromium (Playwright must not download
# its own; it cannot here).
if [ ! -x /usr/bin/chromium ]; then
  install_os_packages "the browser tests" chromium
fi

# The scale-out test (tests/api/scaleout.rs) runs two servers behind Debian's nginx, and
# behind PgBouncer in front of PostgreSQL; the server itself needs neither.
missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v openssl > /dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "${missing[*]} needed for the scale-out test: run 'sudo apt-get install -y ${missing[*]}'" >&2
    exit 1
  fi
  # Installed as tools only: the test runs them on loopback with its own configuration, so
  # the packages' own services must not start (nginx would take port 80). policy-rc.d
  # answering 101 tells the packages' scripts not to start them.
  own_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  installed=0
  install_os_packages "the scale-out test" "${missing[@]}" || installed=$?
  if [ -n "$own_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
  [ "$installed" -eq 0 ] || exit "$installed"
  # ... nor at the next boot.
  if [ -d /run/systemd/system ]; then
    systemctl disable --quiet nginx pgbouncer 2> /dev/null || true
  fi
fi
