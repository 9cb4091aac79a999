# Shared by deploy/backup.sh and deploy/restore.sh (sourced, not run): finds PostgreSQL's
# client binaries and the database Kontor uses — KONTOR_DATABASE_URL, or else the embedded
# cluster of the data folder (KONTOR_DATA_DIR, default ./data), which these scripts start
# for the time they need it when no server is running on it.

# The newest installed PostgreSQL binaries (as src/embedded_pg.rs finds them).
PG_BIN=${KONTOR_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)}
if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/pg_dump" ]; then
  echo "PostgreSQL's binaries were not found: install them (deploy/setup.sh) or set KONTOR_PG_BIN" >&2
  exit 1
fi

DATA_DIR=${KONTOR_DATA_DIR:-./data}
STARTED_CLUSTER=""

# The embedded cluster's folder: <data>/postgres, unless it had to live under
# /var/lib/kontor/clusters (the note postgres-location.txt in the data folder says so).
embedded_cluster_dir() {
  local note="$DATA_DIR/postgres-location.txt"
  if [ -f "$note" ]; then
    sed -n 's/.* lives in \(.*\)$/\1/p' "$note" | tail -1
  else
    echo "$DATA_DIR/postgres"
  fi
}

# Runs a server binary of PostgreSQL as the cluster's user (postgres when we are root, as
# Kontor runs it), from a folder that user may enter.
as_cluster_user() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

# Sets TARGET_URL (the application's database, as the role kontor) and ADMIN_URL (the
# embedded cluster's superuser; empty for an external database), starting the embedded
# cluster if it is not running (stopped again on exit by stop_started_cluster).
locate_database() {
  if [ -n "${KONTOR_DATABASE_URL:-}" ]; then
    TARGET_URL=$KONTOR_DATABASE_URL
    ADMIN_URL=""
    return
  fi
  local cluster
  cluster=$(embedded_cluster_dir)
  if [ ! -f "$cluster/data/PG_VERSION" ]; then
    echo "no embedded PostgreSQL cluster in $cluster: run 'kontor migrate' with KONTOR_DATA_DIR=$DATA_DIR first (it creates one), or set KONTOR_DATABASE_URL" >&2
    exit 1
  fi
  cluster=$(cd "$cluster" && pwd)
  # Use the cluster as Kontor's own processes do: a shared lock on kontor-users.lock while
  # we use it, so a server that started it does not stop it under a dump or restore.
  exec 9<> "$cluster/kontor-users.lock"
  flock -s 9
  if ! as_cluster_user "$PG_BIN/pg_ctl" -D "$cluster/data" status > /dev/null 2>&1; then
    # The same settings as src/embedded_pg.rs: a private Unix socket, no TCP.
    as_cluster_user "$PG_BIN/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 -o \
      "-c listen_addresses='' -c unix_socket_directories='$cluster/socket' -c unix_socket_permissions=0700 -p 5432 -c max_connections=200" \
      start > /dev/null
    STARTED_CLUSTER="$cluster/data"
  fi
  TARGET_URL="postgres://kontor@localhost:5432/kontor?host=$cluster/socket"
  ADMIN_URL="postgres://postgres@localhost:5432/postgres?host=$cluster/socket"
}

# Stops the cluster if this script started it and no Kontor process has come to use it since.
stop_started_cluster() {
  if [ -n "$STARTED_CLUSTER" ] && flock -n -x 9; then
    as_cluster_user "$PG_BIN/pg_ctl" -D "$STARTED_CLUSTER" -m fast -w stop > /dev/null || true
  fi
}
