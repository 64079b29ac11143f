#!/bin/sh
# Throwaway MariaDB server for sbench tests.
#
#   scripts/mariadb-server.sh start DIR PORT
#       Initializes DIR/data (once), starts mariadbd in the background
#       listening on 127.0.0.1:PORT and DIR/mysqld.sock, waits until it
#       answers (at most 60 s), then makes sure user 'sbtest' exists for
#       localhost and 127.0.0.1 with password $SBT_MYSQL_PASSWORD (default
#       'sbtest-pw-S3cret') and all privileges, and database sbtest exists.
#       Idempotent: if the server in DIR already runs, only the user and
#       database are (re)checked.
#   scripts/mariadb-server.sh stop DIR
#       Clean shutdown; succeeds when nothing runs.
#
# $SBT_MYSQL_SERVER_ARGS, if set, is appended to mariadbd's arguments (split
# on spaces), e.g. "--ssl-cert=... --ssl-key=..." for TLS tests.
#
# The server reads no configuration file (--no-defaults); root logs in over
# the socket without a password.  The password is passed to the client on
# stdin, never on a command line.
set -eu

MARIADBD=${MARIADBD:-$(command -v mariadbd 2>/dev/null || echo /usr/sbin/mariadbd)}
INSTALL_DB=${INSTALL_DB:-mariadb-install-db}
CLIENT=${CLIENT:-mariadb}
ADMIN=${ADMIN:-mariadb-admin}

die() {
    echo "mariadb-server.sh: $*" >&2
    exit 1
}

die_with_log() {
    echo "mariadb-server.sh: $*" >&2
    if [ -f "$DIR/error.log" ]; then
        echo "--- last lines of $DIR/error.log ---" >&2
        tail -n 20 "$DIR/error.log" >&2
    fi
    exit 1
}

usage() {
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 2
}

# Prints the server's pid if DIR's server process is alive, else nothing.
running_pid() {
    if [ -f "$DIR/mysqld.pid" ]; then
        pid=$(cat "$DIR/mysqld.pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            echo "$pid"
        fi
    fi
}

answers() {
    "$ADMIN" --no-defaults -uroot --socket="$DIR/mysqld.sock" \
        --connect-timeout=2 ping >/dev/null 2>&1
}

# SQL string literal body: doubles backslashes and single quotes.
sql_quote() {
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/''/g"
}

setup_users() {
    pw=$(sql_quote "${SBT_MYSQL_PASSWORD:-sbtest-pw-S3cret}")
    for h in localhost 127.0.0.1; do
        cat <<EOF
CREATE USER IF NOT EXISTS 'sbtest'@'$h' IDENTIFIED BY '$pw';
ALTER USER 'sbtest'@'$h' IDENTIFIED BY '$pw';
GRANT ALL PRIVILEGES ON *.* TO 'sbtest'@'$h';
EOF
    done
    echo "CREATE DATABASE IF NOT EXISTS sbtest;"
    echo "FLUSH PRIVILEGES;"
}

start() {
    case "$PORT" in
        ''|*[!0-9]*) die "PORT must be a number, got '$PORT'" ;;
    esac
    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd)
    if [ -z "$(running_pid)" ]; then
        [ -x "$MARIADBD" ] || die "mariadbd not found (set MARIADBD)"
        if [ ! -d "$DIR/data/mysql" ]; then
            rm -rf "$DIR/data"
            if ! "$INSTALL_DB" --no-defaults --user=root --datadir="$DIR/data" \
                    --auth-root-authentication-method=normal --skip-test-db \
                    >"$DIR/install.log" 2>&1; then
                tail -n 20 "$DIR/install.log" >&2
                die "mariadb-install-db failed (see $DIR/install.log)"
            fi
        fi
        rm -f "$DIR/mysqld.sock" "$DIR/mysqld.pid"
        # SBT_MYSQL_SERVER_ARGS is split on purpose.
        # shellcheck disable=SC2086
        nohup "$MARIADBD" --no-defaults --user=root \
            --datadir="$DIR/data" --socket="$DIR/mysqld.sock" \
            --port="$PORT" --bind-address=127.0.0.1 \
            --pid-file="$DIR/mysqld.pid" --log-error="$DIR/error.log" \
            --skip-log-bin --innodb-buffer-pool-size=256M \
            --innodb-flush-log-at-trx-commit=2 --innodb-log-file-size=64M \
            --max-connections=1200 --local-infile=ON \
            ${SBT_MYSQL_SERVER_ARGS:-} \
            >/dev/null 2>&1 </dev/null &
        spid=$!
        i=0
        until answers; do
            if ! kill -0 "$spid" 2>/dev/null; then
                die_with_log "mariadbd exited during startup"
            fi
            i=$((i + 1))
            if [ "$i" -ge 120 ]; then
                die_with_log "mariadbd did not answer within 60 s"
            fi
            sleep 0.5
        done
    elif ! answers; then
        die_with_log "a server runs in $DIR (pid $(running_pid)) but does not answer"
    fi
    if ! setup_users | "$CLIENT" --no-defaults -uroot --socket="$DIR/mysqld.sock" \
            >"$DIR/setup.log" 2>&1; then
        cat "$DIR/setup.log" >&2
        die_with_log "could not create user sbtest / database sbtest"
    fi
    echo "mariadb-server.sh: running in $DIR, port $PORT, socket $DIR/mysqld.sock"
}

stop() {
    [ -d "$DIR" ] || return 0
    pid=$(running_pid)
    [ -n "$pid" ] || return 0
    "$ADMIN" --no-defaults -uroot --socket="$DIR/mysqld.sock" \
        --connect-timeout=5 shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -eq 120 ]; then
            kill "$pid" 2>/dev/null || true
        elif [ "$i" -ge 240 ]; then
            echo "mariadb-server.sh: mariadbd $pid ignores SIGTERM, killing it" >&2
            kill -9 "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.5
    done
    echo "mariadb-server.sh: stopped server in $DIR"
}

[ $# -ge 2 ] || usage
CMD=$1
DIR=$2
case "$CMD" in
    start)
        [ $# -eq 3 ] || usage
        PORT=$3
        start
        ;;
    stop)
        [ $# -eq 2 ] || usage
        stop
        ;;
    *) usage ;;
esac
