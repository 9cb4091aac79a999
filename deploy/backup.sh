#!/usr/bin/env bash
# Backs up a Kontor installation into a folder: the database as a pg_dump archive (custom
# format, a consistent snapshot taken while the server runs) and the data folder's secret
# (jwt-secret: it signs access tokens and unsubscribe links).
#
#   deploy/backup.sh <backup-folder>
#
# The database is KONTOR_DATABASE_URL, or else the embedded cluster of the data folder
# (KONTOR_DATA_DIR, default ./data), running or not. The folder must not exist yet.
# Restore with deploy/restore.sh (see the README, "Backups and restore").
set -euo pipefail
OUT=${1:?usage: deploy/backup.sh <backup-folder>}
source "$(dirname "$0")/pg-common.sh"
if [ -e "$OUT" ]; then
  echo "$OUT exists already: give a new folder" >&2
  exit 1
fi
trap stop_started_cluster EXIT
locate_database
umask 077
mkdir -p "$OUT"
"$PG_BIN/pg_dump" --format=custom --dbname="$TARGET_URL" --file="$OUT/kontor.dump"
if [ -f "$DATA_DIR/jwt-secret" ]; then
  cp "$DATA_DIR/jwt-secret" "$OUT/jwt-secret"
  secret="the data folder's jwt-secret"
else
  secret="no jwt-secret in $DATA_DIR (KONTOR_JWT_SECRET is set, or no server ran yet): keep that setting with the backup"
fi
{
  echo "Kontor backup of $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "pg_dump: $("$PG_BIN/pg_dump" --version)"
  echo "secret: $secret"
} > "$OUT/MANIFEST"
echo "backed up to $OUT: kontor.dump ($(du -h "$OUT/kontor.dump" | cut -f1)), $secret"
