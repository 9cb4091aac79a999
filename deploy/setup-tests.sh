#!/usr/bin/env bash
# Prepares a machine for running the test suite: everything deploy/setup.sh installs, and the
# test tools (the OpenAPI 3.1 validator, the schemathesis fuzzer and the client generator the
# contract tests run, from PyPI; the web client's test tools from npm; Debian's Chromium;
# Debian's nginx for the scale-out test, and a PgBouncer of 1.21 or later, Debian's own where
# it is new enough, else built once from Debian trixie's source package; Debian's
# pg_auto_failover for the failover test; Debian's podman, runc and debootstrap and a locally
# made base image for the image's test; podman-compose from PyPI for the compose file's check).
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
CALENDAR=target/icalendar
if [ ! -x "$VALIDATOR/bin/openapi-spec-validator" ] || [ ! -x "$FUZZER/bin/schemathesis" ] || [ ! -x "$CLIENT/bin/mypy" ] || [ ! -f "$CALENDAR/.installed" ]; then
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

# An iCalendar parser of its own to read the deadline calendar's feed as a calendar program
# would (tests/api/calendar.rs, tests/calendar/events.py), pinned.
if [ ! -f "$CALENDAR/.installed" ]; then
  echo "Installing icalendar into $CALENDAR..."
  python3 -m venv "$CALENDAR"
  "$CALENDAR/bin/pip" install --quiet --disable-pip-version-check icalendar==7.3.0
  touch "$CALENDAR/.installed"
fi

# The independent Standard Webhooks implementation that verifies the webhooks' signatures
# (tests/webhook_receiver/verify.py, run by tests/api/webhooks.rs), pinned.
WEBHOOKS=target/webhook-verifier
if [ ! -x "$WEBHOOKS/bin/python" ] || ! "$WEBHOOKS/bin/python" -c 'import standardwebhooks' 2> /dev/null; then
  echo "Installing standardwebhooks into $WEBHOOKS..."
  python3 -m venv "$WEBHOOKS"
  "$WEBHOOKS/bin/pip" install --quiet --disable-pip-version-check standardwebhooks==1.0.0
fi

# The loopback push service of the Web Push tests (tests/push_service/server.py): an
# implementation of RFC 8291 and RFC 8292 independent of the server's, pinned.
PUSH_SERVICE=target/push-service
if [ ! -x "$PUSH_SERVICE/bin/python" ] || ! "$PUSH_SERVICE/bin/python" -c 'import http_ece, py_vapid' 2> /dev/null; then
  echo "Installing http-ece, py-vapid and cryptography into $PUSH_SERVICE..."
  python3 -m venv "$PUSH_SERVICE"
  "$PUSH_SERVICE/bin/pip" install --quiet --disable-pip-version-check http-ece==1.2.1 py-vapid==1.9.6 cryptography==50.0.2
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

# Installs the OS packages `$2…`, needed for the test `$1`, as tools only: the tests run them
# on loopback with configurations of their own, so no service of theirs may start.
# policy-rc.d answering 101 tells the packages' scripts not to start one.
install_tool_packages() {
  local own_policy='' installed=0
  if [ "$(id -u)" -eq 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  install_os_packages "$@" || installed=$?
  if [ -n "$own_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
  [ "$installed" -eq 0 ] || exit "$installed"
}

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
  # the packages' own services must not start (nginx would take port 80).
  install_tool_packages "the scale-out test" "${missing[@]}"
  # ... nor at the next boot.
  if [ -d /run/systemd/system ]; then
    systemctl disable --quiet nginx pgbouncer 2> /dev/null || true
  fi
fi

# PgBouncer 1.21 or later: the scale-out test runs in transaction mode, which needs
# prepared-statement tracking (`max_prepared_statements`). Debian 13's pgbouncer (1.24) has it;
# Debian 12's (1.18) has not, and then 1.24.1 is built once from Debian trixie's source package
# (the same Debian mirror and keyring as the machine's own sources, in a private sources
# folder with its own lists, so the machine's apt sources are left alone) against bookworm's
# libraries, into a cache outside the clone that later clones on the machine reuse (its stamp
# names the version built; trixie had 1.24.1). The test runs the binary target/pgbouncer
# points at.
pgbouncer_is_suitable() {
  "$1" --version 2> /dev/null | awk 'NR == 1 { split($2, v, "."); exit !(v[1] > 1 || (v[1] == 1 && v[2] >= 21)) }'
}
if [ "$(id -u)" -eq 0 ]; then
  PGBOUNCER_CACHE=/var/cache/kontor/pgbouncer
else
  PGBOUNCER_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kontor/pgbouncer
fi
if pgbouncer_is_suitable /usr/sbin/pgbouncer; then
  pgbouncer=/usr/sbin/pgbouncer
else
  pgbouncer=$PGBOUNCER_CACHE/bin/pgbouncer
  if [ ! -e "$PGBOUNCER_CACHE/.built" ] || ! pgbouncer_is_suitable "$pgbouncer"; then
    echo "PgBouncer $(/usr/sbin/pgbouncer --version 2> /dev/null | awk 'NR == 1 { print $2 }') tracks no prepared statements: building Debian trixie's PgBouncer from its source into $PGBOUNCER_CACHE (once, about a minute)..."
    build_deps=()
    for package in libevent-dev libssl-dev libc-ares-dev pkg-config make gcc; do
      dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q "install ok installed" || build_deps+=("$package")
    done
    if [ ${#build_deps[@]} -gt 0 ]; then
      install_os_packages "building PgBouncer" "${build_deps[@]}"
    fi
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(LABEL)' 2> /dev/null | awk '$2 == "Debian" { print $1; exit }')
    mirror=${mirror:-http://deb.debian.org/debian/}
    work=$(mktemp -d)
    mkdir -p "$work/sources" "$work/lists/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$work/sources/trixie-src.list"
    apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources" -o "Dir::State::Lists=$work/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
    log=$work/build.log
    if ! (
      set -e
      apt-get "${apt_private[@]}" update
      cd "$work"
      apt-get "${apt_private[@]}" source --download-only pgbouncer
      # Upstream's release as Debian ships it (configure included); Debian's packaging is
      # not needed for a build into a folder.
      mkdir src
      tar -xf pgbouncer_*.orig.tar.* -C src --strip-components=1
      cd src
      rm -rf "$PGBOUNCER_CACHE"
      ./configure --prefix="$PGBOUNCER_CACHE" --with-cares --without-systemd
      make -j"$(nproc)"
      make install
    ) > "$log" 2>&1; then
      tail -n 40 "$log" >&2
      echo "building PgBouncer failed (above: the end of its output; all of it in $log)" >&2
      exit 1
    fi
    pgbouncer_is_suitable "$pgbouncer" || { echo "$pgbouncer is not PgBouncer 1.21 or later" >&2; exit 1; }
    "$pgbouncer" --version | head -n 1 > "$PGBOUNCER_CACHE/.built"
    rm -rf "$work"
  fi
fi
mkdir -p target
ln -sfn "$pgbouncer" target/pgbouncer

# The failover test (tests/api/auto_failover.rs) runs a pg_auto_failover monitor and two data
# nodes on loopback: Debian's pg_auto_failover (/usr/bin/pg_autoctl, and the extension) for the
# PostgreSQL the tests run, the newest under /usr/lib/postgresql as the tests choose it
# (Debian 12 has 15, Debian 13 has 17). The packages start no service; the server itself does
# not need them.
pg_major=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2> /dev/null \
  | awk -F/ '{ print $5 }' | sort -n | tail -n 1)
if [ -z "$pg_major" ]; then
  echo "no PostgreSQL server under /usr/lib/postgresql for the failover test (deploy/setup.sh installs one)" >&2
  exit 1
fi
if [ ! -x /usr/bin/pg_autoctl ] || [ ! -f "/usr/share/postgresql/$pg_major/extension/pgautofailover.control" ]; then
  install_tool_packages "the failover test" pg-auto-failover-cli "postgresql-$pg_major-auto-failover"
fi
# The WAL archive's test (tests/api/wal_archive.rs, through deploy/wal-archive.sh) needs
# pg_receivewal, pg_basebackup and pg_isready: Debian's postgresql-client-<major>, which the
# server package depends on (so normally nothing is installed here).
for tool in pg_receivewal pg_basebackup pg_isready; do
  if [ ! -x "/usr/lib/postgresql/$pg_major/bin/$tool" ]; then
    install_tool_packages "the WAL archive's test" "postgresql-client-$pg_major"
    break
  fi
done

# The image's test (tests/api/image.rs) builds deploy/Dockerfile's `prebuilt` target around
# the test binary and runs it: Debian's podman with runc (crun, podman's default, fails on
# machines with hybrid cgroups), and debootstrap for the base image. No container registry is
# reachable from the machines this was written on, so the base image `debian:bookworm-slim`
# is made here from Debian's packages (debootstrap's minbase, about 2 minutes once) and kept
# in podman's storage; it is made again only when it is missing.
missing=()
command -v podman > /dev/null || missing+=(podman)
command -v runc > /dev/null || missing+=(runc)
command -v debootstrap > /dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  install_os_packages "the image's test" "${missing[@]}"
fi
if ! podman image exists localhost/debian:bookworm-slim; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "the image's test needs the base image debian:bookworm-slim, made as root: run this as root" >&2
    exit 1
  fi
  echo "Making the base image debian:bookworm-slim with debootstrap (once)..."
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(LABEL)' 2> /dev/null | awk '$2 == "Debian" { print $1; exit }')
  rootfs=$(mktemp -d)
  log=$(mktemp)
  if ! debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian/}" > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "debootstrap failed (above: the end of its output; all of it in $log)" >&2
    exit 1
  fi
  # What a slim image leaves out: apt's downloads and lists (the Dockerfile updates the lists).
  rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import --quiet - debian:bookworm-slim > /dev/null
  rm -rf "$rootfs" "$log"
fi

# podman-compose, whose `config` the suite runs on deploy/compose.yaml (Debian's 1.0.3 has no
# `config`), pinned.
COMPOSE=target/podman-compose
if [ ! -x "$COMPOSE/bin/podman-compose" ]; then
  echo "Installing podman-compose into $COMPOSE..."
  python3 -m venv "$COMPOSE"
  "$COMPOSE/bin/pip" install --quiet --disable-pip-version-check podman-compose==1.6.0
fi
