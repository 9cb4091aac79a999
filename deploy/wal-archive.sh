#!/bin/sh
# A continuous WAL archive of Kontor's PostgreSQL, kept on another machine, and the restore
# from it to the latest committed action. Run on the archive's machine, as the user that owns
# the archive (and, for `restore`, the user that will run the restored PostgreSQL). The
# operator's manual (docs/operations.md, "Continuous archiving") says when to run what; the
# test `tests/api/wal_archive.rs` runs exactly these commands.
#
#   deploy/wal-archive.sh receive     ARCHIVE CONNINFO   # runs for good (a service)
#   deploy/wal-archive.sh base-backup ARCHIVE CONNINFO   # once the receiver runs; then weekly, say
#   deploy/wal-archive.sh restore     ARCHIVE NEW-DATA   # after losing the database server
#
# ARCHIVE is a folder of the archive's machine: `wal/` (what pg_receivewal received) and
# `base/<UTC time>/` (base backups, `base.tar.gz` and `pg_wal.tar.gz`). CONNINFO reaches the
# database server as a role with REPLICATION, for example
# "host=db1 port=5432 user=kontor_archive" (a password in ~/.pgpass), or, for Kontor's
# embedded cluster, its Unix socket forwarded by ssh (see the manual).
#
# `receive` creates the physical replication slot KONTOR_ARCHIVE_SLOT (default
# kontor_archive) if it is missing, so the server keeps every segment the archive has not yet
# got, and runs pg_receivewal --synchronous under that name as its application_name: it
# flushes what it receives at once and says so, so the server may wait for it before it
# acknowledges a commit (`synchronous_standby_names = 'kontor_archive'`). It retries by
# itself when the connection drops.
#
# `restore` unpacks the newest base backup into NEW-DATA (which must not exist or be empty),
# completes the segment the receiver was writing (`*.partial`, copied, the archive is left as
# it is), and runs PostgreSQL's archive recovery to the end of the archive, on a private
# socket and without TCP, so nobody writes to a half-recovered database; then it stops the
# server, leaving NEW-DATA ready to start as it was configured (port, settings). Take a new
# archive (a new ARCHIVE folder: `receive`, then `base-backup`) of the restored server: it
# runs on a new timeline and has no slot.
#
# PostgreSQL's tools: KONTOR_PG_BIN, else the newest /usr/lib/postgresql/<major>/bin, else
# the PATH.
set -eu

usage() {
  sed -n '8,10p' "$0" | sed 's/^#   //' >&2
  exit 2
}

pg_bin() {
  if [ -n "${KONTOR_PG_BIN:-}" ]; then
    echo "$KONTOR_PG_BIN"
    return
  fi
  newest=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/pg_receivewal' 2> /dev/null \
    | sort -V | tail -n 1)
  if [ -n "$newest" ]; then
    dirname "$newest"
  else
    dirname "$(command -v pg_receivewal)"
  fi
}

# Paths end up inside PostgreSQL's restore_command, quoted: refuse quotes rather than
# mis-quote them.
plain_path() {
  case $1 in
    *\'* | *\"*) echo "wal-archive.sh: $1: a path with a quote in it is not supported" >&2; exit 2 ;;
  esac
}

[ $# -eq 3 ] || usage
command=$1
archive=$2
bin=$(pg_bin)
slot=${KONTOR_ARCHIVE_SLOT:-kontor_archive}

case $command in
  receive)
    conninfo=$3
    mkdir -p "$archive/wal"
    chmod 0700 "$archive" "$archive/wal"
    # The slot's name is also the receiver's application_name, which
    # synchronous_standby_names names.
    PGAPPNAME=$slot "$bin/pg_receivewal" --dbname="$conninfo" --slot="$slot" \
      --create-slot --if-not-exists
    PGAPPNAME=$slot exec "$bin/pg_receivewal" --dbname="$conninfo" --slot="$slot" \
      --directory="$archive/wal" --synchronous --verbose
    ;;
  base-backup)
    conninfo=$3
    # The archive must hold every segment from the base backup on: the receiver (and its
    # slot) first.
    if [ -z "$(ls -A "$archive/wal" 2> /dev/null)" ]; then
      echo "wal-archive.sh: $archive/wal is empty: start \`wal-archive.sh receive\` first" >&2
      exit 1
    fi
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p "$archive/base"
    target="$archive/base/$stamp"
    # Into a side folder, renamed when complete: `restore` never takes half a backup.
    "$bin/pg_basebackup" --dbname="$conninfo" --pgdata="$target.partial" --format=tar --gzip \
      --wal-method=stream --checkpoint=fast --no-password
    mv "$target.partial" "$target"
    echo "base backup $target"
    ;;
  restore)
    data=$3
    plain_path "$archive"
    if [ -n "$(ls -A "$data" 2> /dev/null)" ]; then
      echo "wal-archive.sh: $data is not empty: restore into a new folder" >&2
      exit 1
    fi
    base=$(find "$archive/base" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial' 2> /dev/null \
      | sort | tail -n 1)
    if [ -z "$base" ]; then
      echo "wal-archive.sh: $archive/base holds no complete base backup" >&2
      exit 1
    fi
    mkdir -p "$data"
    chmod 0700 "$data"
    tar -xzf "$base/base.tar.gz" -C "$data"
    tar -xzf "$base/pg_wal.tar.gz" -C "$data/pg_wal"
    # The segment the receiver was writing when the server was lost holds the last commits:
    # under its full name in pg_wal, recovery reads it after the archive's complete ones.
    for partial in "$archive"/wal/*.partial; do
      [ -e "$partial" ] || continue
      cp "$partial" "$data/pg_wal/$(basename "$partial" .partial)"
    done
    rm -f "$data/standby.signal" "$data/postmaster.pid"
    touch "$data/recovery.signal"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # Recovery to the end of the archive (no target: the latest committed action) on a
    # private socket, no TCP, so nobody writes to a half-recovered database. With hot_standby
    # off it takes no connection until recovery ended and the server took a new timeline;
    # nothing waits for a standby meanwhile. (pg_ctl --wait returns as soon as recovery
    # starts, then: wait for the end here.) Configuration files of its own, empty and
    # refusing everyone (the data folder's postgresql.auto.conf still counts): a Debian
    # cluster keeps postgresql.conf and pg_hba.conf in /etc, outside the base backup, and
    # the recovery needs neither.
    restore="cp \"$archive/wal/%f\" \"%p\""
    : > "$work/postgresql.conf"
    echo 'local all all reject' > "$work/pg_hba.conf"
    : > "$work/pg_ident.conf"
    "$bin/pg_ctl" --pgdata="$data" --log="$work/recovery.log" --wait --silent \
      -o "-c config_file='$work/postgresql.conf' -c hba_file='$work/pg_hba.conf' \
          -c ident_file='$work/pg_ident.conf' \
          -c listen_addresses='' -c unix_socket_directories='$work' -c port=5432 \
          -c hot_standby=off -c archive_mode=off -c synchronous_standby_names='' \
          -c restore_command='$restore' -c recovery_target_timeline=latest" start \
      || { cat "$work/recovery.log" >&2; exit 1; }
    until "$bin/pg_isready" --host="$work" --port=5432 --quiet; do
      if ! "$bin/pg_ctl" --pgdata="$data" status > /dev/null; then
        cat "$work/recovery.log" >&2
        echo "wal-archive.sh: recovery failed" >&2
        exit 1
      fi
      sleep 0.2
    done
    "$bin/pg_ctl" --pgdata="$data" --wait --silent --mode=fast stop
    if [ -e "$data/recovery.signal" ]; then
      cat "$work/recovery.log" >&2
      echo "wal-archive.sh: recovery did not end" >&2
      exit 1
    fi
    grep -E 'redo done|last completed transaction|selected new timeline' "$work/recovery.log" || true
    echo "restored $base and $archive/wal into $data"
    ;;
  *) usage ;;
esac
