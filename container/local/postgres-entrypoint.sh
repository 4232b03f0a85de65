#!/bin/sh
# Entrypoint of the local postgres stand-in (postgres.Containerfile): on the first start, makes
# the cluster in $PGDATA with the superuser $POSTGRES_USER (default postgres) and its password
# $POSTGRES_PASSWORD, and the database $POSTGRES_DB (default: the user's name); then runs the
# command (`postgres …`) as the postgres user.
set -eu
if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  initdb --username="$user" --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  if [ "$database" != postgres ]; then
    echo "CREATE DATABASE \"$database\"" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "docker-entrypoint.sh: made the cluster in $PGDATA (user $user, database $database)"
fi
exec "$@"
