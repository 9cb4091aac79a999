#!/bin/sh
# The container's entry point: refuses to start without a database URL (the image has no
# PostgreSQL of its own, and `kontor serve` would otherwise try to start one), then runs
# `kontor` with the container's arguments (default: serve).
set -eu
if [ -z "${KONTOR_DATABASE_URL:-}${DATABASE_URL:-}" ] && [ -z "${KONTOR_CONFIG:-}" ]; then
  echo "KONTOR_DATABASE_URL must be set: this image has no PostgreSQL of its own" >&2
  exit 64
fi
exec /usr/local/bin/kontor "$@"
