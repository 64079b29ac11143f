#!/bin/sh
# pg-server.sh: starts and stops a throwaway PostgreSQL server for sbench's
# tests (drvcheck, integration suites).  Nothing here is meant for real data:
# fsync is off and the sbtest role is a superuser.
#
#   scripts/pg-server.sh start DIR PORT   initdb into DIR/data (if needed),
#                                         start, create role and db sbtest
#   scripts/pg-server.sh stop DIR         fast shutdown; succeeds if not running
#
# DIR is created and given to the postgres user; the unix socket lives in DIR
# (keep DIR short: a socket path must fit in ~100 bytes).  The server listens
# on 127.0.0.1:PORT only.  Environment:
#   SBT_PGPASSWORD  password of role sbtest (default sbtest-pw-S3cret)
#   PG_BINDIR       directory of initdb/pg_ctl/psql (default: found by itself)
# Run as root (the server then runs as user postgres) or as the postgres user.
set -eu

usage() {
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 2
}

die() {
    echo "pg-server.sh: error: $*" >&2
    if [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
        echo "pg-server.sh: last lines of $LOG:" >&2
        tail -n 20 "$LOG" >&2 || true
    fi
    exit 1
}

find_bindir() {
    if [ -n "${PG_BINDIR:-}" ]; then
        [ -x "$PG_BINDIR/pg_ctl" ] || die "PG_BINDIR=$PG_BINDIR has no pg_ctl"
        echo "$PG_BINDIR"
        return
    fi
    if command -v pg_config >/dev/null 2>&1; then
        d=$(pg_config --bindir 2>/dev/null || true)
        if [ -n "$d" ] && [ -x "$d/initdb" ]; then
            echo "$d"
            return
        fi
    fi
    # Debian layout: /usr/lib/postgresql/MAJOR/bin; take the newest major.
    best=
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && best=$d
    done
    [ -n "$best" ] || die "no PostgreSQL server binaries found (set PG_BINDIR)"
    echo "$best"
}

# Runs a command as the postgres user (or as ourselves when we are not root),
# from DIR so that the command never needs access to the caller's cwd.
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        (cd "$DIR" && runuser -u postgres -- "$@")
    else
        (cd "$DIR" && "$@")
    fi
}

is_running() {
    [ -f "$DATA/PG_VERSION" ] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

# psql as the superuser postgres over the unix socket (trusted locally).
psql_pg() {
    as_pg "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U postgres "$@"
}

init_cluster() {
    as_pg "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C \
        --auth-local=trust --auth-host=scram-sha-256 >"$DIR/initdb.log" 2>&1 ||
        { LOG=$DIR/initdb.log; die "initdb into $DATA failed"; }
    cat >>"$DATA/postgresql.conf" <<EOF

# --- added by sbench scripts/pg-server.sh (test server, not for real data) ---
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
# tests/integration/scale.sh opens 1000 sessions at once (plus the test's
# own psql and the superuser slots); ~10 MB more shared memory than 300
max_connections = 1100
shared_preload_libraries = 'pg_stat_statements'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
# autovacuum and autoanalyze run their own transactions in the test database,
# which would blur the comparisons of sbench's counts with pg_stat_database
autovacuum = off
password_encryption = 'scram-sha-256'
EOF
    cat >"$DATA/pg_hba.conf" <<EOF
# sbench test server (scripts/pg-server.sh)
# TYPE  DATABASE  USER      ADDRESS        METHOD
local   all       postgres                 trust
local   all       sbtest                   scram-sha-256
host    all       all       127.0.0.1/32   scram-sha-256
EOF
    [ "$(id -u)" = 0 ] && chown postgres: "$DATA/postgresql.conf" "$DATA/pg_hba.conf"
    return 0
}

# Creates (or updates) role sbtest, database sbtest and pg_stat_statements.
# The password goes through the environment (psql's \getenv), never argv.
setup_sbtest() {
    SBT_PGPASSWORD=${SBT_PGPASSWORD:-sbtest-pw-S3cret}
    export SBT_PGPASSWORD
    psql_pg -d postgres >/dev/null <<'EOF' || die "creating role sbtest failed"
\getenv sbt_pw SBT_PGPASSWORD
SELECT NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sbtest') AS need_role \gset
\if :need_role
CREATE ROLE sbtest LOGIN SUPERUSER;
\endif
ALTER ROLE sbtest LOGIN SUPERUSER PASSWORD :'sbt_pw';
SELECT NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'sbtest') AS need_db \gset
\if :need_db
CREATE DATABASE sbtest OWNER sbtest;
\endif
EOF
    psql_pg -d sbtest -c 'SET client_min_messages = warning' \
        -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' \
        >/dev/null || die "CREATE EXTENSION pg_stat_statements failed"
}

start() {
    case "$PORT" in
    '' | *[!0-9]*) die "PORT must be a number, got '$PORT'" ;;
    esac
    mkdir -p "$DIR" || die "cannot create $DIR"
    DIR=$(cd "$DIR" && pwd)
    DATA=$DIR/data
    LOG=$DIR/log
    BIN=$(find_bindir)
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || die "there is no postgres user"
        chown postgres: "$DIR" || die "cannot chown $DIR to postgres"
        chmod 755 "$DIR"   # data/ itself stays 700; clients need the socket
        runuser -u postgres -- test -x "$DIR" ||
            die "user postgres cannot reach $DIR (check the parent directories)"
    fi
    if is_running; then
        setup_sbtest
        echo "pg-server.sh: already running: $DATA (port $PORT)"
        return 0
    fi
    if [ ! -f "$DATA/PG_VERSION" ]; then
        [ -e "$DATA" ] && [ -n "$(ls -A "$DATA" 2>/dev/null)" ] &&
            die "$DATA exists but is not a PostgreSQL data directory"
        init_cluster
    fi
    as_pg "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null 2>&1 ||
        die "pg_ctl start failed for $DATA (port $PORT)"
    setup_sbtest
    echo "pg-server.sh: running: $DATA on 127.0.0.1:$PORT and socket $DIR"
}

stop() {
    [ -d "$DIR" ] || return 0
    DIR=$(cd "$DIR" && pwd)
    DATA=$DIR/data
    LOG=$DIR/log
    [ -f "$DATA/PG_VERSION" ] || return 0
    BIN=$(find_bindir)
    is_running || return 0
    as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null 2>&1 ||
        die "pg_ctl stop failed for $DATA"
    echo "pg-server.sh: stopped $DATA"
}

[ $# -ge 1 ] || usage
case "$1" in
start)
    [ $# -eq 3 ] || usage
    DIR=$2
    PORT=$3
    start
    ;;
stop)
    [ $# -eq 2 ] || usage
    DIR=$2
    stop
    ;;
*) usage ;;
esac
