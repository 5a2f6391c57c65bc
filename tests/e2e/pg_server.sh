# A real PostgreSQL server for a test, sourced after lib.sh (which sets $work): `pg_start`
# initdbs a cluster into a temp dir as user postgres (runuser; the test runs as root), starts it
# on a free loopback port with its socket in that dir, and makes the role `pperf` (password
# auth: scram-sha-256 on 127.0.0.1) with a PGPASSFILE in $work; a trap stops it (immediate) and
# removes it, whatever way the test ends. Helpers: `pg_newdb NAME` creates a database and prints
# its URI (no password in it: it comes from $PGPASSFILE); `pg_sql URI SQL` runs SQL (psql -At);
# `pg_stop` / `pg_restart` stop and start the same cluster.
# Needs Debian's postgresql (scripts/setup-test-tools.sh) and root; `pg_available` says whether
# both are there.
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
pg_dir="" pg_port="" pg_password="pperf-test-$$-$RANDOM"

pg_available() { [ -x "$pg_bin/initdb" ] && [ "$(id -u)" -eq 0 ] && id postgres >/dev/null 2>&1 && command -v psql >/dev/null; }

pg_stop() {
  [ -n "$pg_dir" ] && [ -f "$pg_dir/data/postmaster.pid" ] &&
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate -w stop >/dev/null 2>&1
  return 0
}

pg_restart() {
  runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w -t 60 start \
    -o "-k $pg_dir -p $pg_port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60" >/dev/null
}

pg_cleanup() {
  pg_stop
  [ -n "$pg_dir" ] && rm -rf "$pg_dir"
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}

pg_free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pg_start() {
  pg_dir="$(mktemp -d /tmp/pperf-pg.XXXXXX)"
  trap pg_cleanup EXIT
  trap 'exit 130' INT TERM
  chown postgres: "$pg_dir"
  printf '%s\n' "$pg_password" >"$pg_dir/pw" && chown postgres: "$pg_dir/pw"
  runuser -u postgres -- "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -E UTF8 --locale=C --auth-local=trust \
    --auth-host=scram-sha-256 --pwfile="$pg_dir/pw" >"$pg_dir/initdb.log" 2>&1 || { cat "$pg_dir/initdb.log"; return 1; }
  pg_port="$(pg_free_port)"
  pg_restart || { cat "$pg_dir/log"; return 1; }
  psql -X -q -h "$pg_dir" -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE pperf LOGIN CREATEDB PASSWORD '$pg_password'" >/dev/null || return 1
  export PGPASSFILE="$work/pgpass"
  printf '127.0.0.1:%s:*:pperf:%s\n' "$pg_port" "$pg_password" >"$PGPASSFILE"
  chmod 600 "$PGPASSFILE"
}

pg_newdb() {  # pg_newdb NAME: a fresh database owned by pperf; prints its URI
  psql -X -q -h "$pg_dir" -p "$pg_port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" -c "CREATE DATABASE \"$1\" OWNER pperf" >/dev/null || return 1
  echo "postgresql://pperf@127.0.0.1:$pg_port/$1"
}

pg_sql() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
