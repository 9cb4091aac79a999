#!/usr/bin/env bash
# Restores a backup made by deploy/backup.sh into an empty database, and the data folder's
# secret, so that tokens issued before the backup stay valid.
#
#   deploy/restore.sh <backup-folder>
#
# Target: KONTOR_DATABASE_URL (an existing, empty database; the objects will belong to the
# URL's user), or else the embedded cluster of the data folder (KONTOR_DATA_DIR, default
# ./data; create it first with `kontor migrate`): its database `kontor` is dropped and
# made anew from the dump — refused if it holds any game, unless KONTOR_RESTORE_OVERWRITE=1.
# Stop the servers that use the target first; start them again afterwards.
set -euo pipefail
IN=${1:?usage: deploy/restore.sh <backup-folder>}
source "$(dirname "$0")/pg-common.sh"
if [ ! -f "$IN/kontor.dump" ]; then
  echo "$IN/kontor.dump not found: not a backup made by deploy/backup.sh" >&2
  exit 1
fi
# Refuse a secret that differs from the data folder's own before touching anything.
if [ -f "$IN/jwt-secret" ] && [ -f "$DATA_DIR/jwt-secret" ] && ! cmp -s "$IN/jwt-secret" "$DATA_DIR/jwt-secret" \
  && [ "${KONTOR_RESTORE_OVERWRITE:-}" != 1 ]; then
  echo "$DATA_DIR/jwt-secret differs from the backup's: remove it, or set KONTOR_RESTORE_OVERWRITE=1" >&2
  exit 1
fi
trap stop_started_cluster EXIT
locate_database
PSQL=("$PG_BIN/psql" -X -q -t -A -v ON_ERROR_STOP=1)

# How many games the target holds (none when it has no tables yet).
games_in_target() {
  if [ "$("${PSQL[@]}" --dbname="$TARGET_URL" -c "SELECT to_regclass('public.games') IS NULL")" = t ]; then
    echo 0
  else
    "${PSQL[@]}" --dbname="$TARGET_URL" -c "SELECT count(*) FROM games"
  fi
}
if [ -n "$ADMIN_URL" ]; then
  games=$(games_in_target)
  if [ "$games" != 0 ] && [ "${KONTOR_RESTORE_OVERWRITE:-}" != 1 ]; then
    echo "the embedded database holds $games games: refusing to replace it (KONTOR_RESTORE_OVERWRITE=1 does)" >&2
    exit 1
  fi
  "${PSQL[@]}" --dbname="$ADMIN_URL" -c "DROP DATABASE IF EXISTS kontor WITH (FORCE)" \
    -c "CREATE DATABASE kontor OWNER kontor"
else
  tables=$("${PSQL[@]}" --dbname="$TARGET_URL" -c \
    "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
  if [ "$tables" != 0 ]; then
    echo "the target database is not empty ($tables tables): restore into a new, empty database" >&2
    exit 1
  fi
fi
# One transaction: a restore that fails leaves the target as it was. Owners and grants of the
# old database are not carried over: everything belongs to the target's user.
"$PG_BIN/pg_restore" --no-owner --no-privileges --exit-on-error --single-transaction \
  --dbname="$TARGET_URL" "$IN/kontor.dump"
if [ -f "$IN/jwt-secret" ]; then
  mkdir -p "$DATA_DIR"
  install -m 600 "$IN/jwt-secret" "$DATA_DIR/jwt-secret"
  secret="jwt-secret restored into $DATA_DIR"
else
  secret="the backup has no jwt-secret: set the KONTOR_JWT_SECRET the old server had"
fi
echo "restored $(games_in_target) games; $secret"
