#!/bin/bash
# pgbouncer-server.sh: a throwaway PgBouncer in front of a PostgreSQL.
#   scripts/pgbouncer-server.sh start DIR PORT PGHOST PGPORT   (transaction pooling)
#   scripts/pgbouncer-server.sh stop DIR
# Users: sbtest with the password in $SBT_PGPASSWORD (default
# sbtest-pw-S3cret), forwarded to the server with SCRAM; at most
# $SBT_PGBOUNCER_MAX_CLIENTS client connections (2000).  Runs as user
# postgres (PgBouncer refuses root), listens on 127.0.0.1 only.
set -eu
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start DIR PORT PGHOST PGPORT | stop DIR" >&2; exit 2; }
case $cmd in
start)
    port=$3 pghost=$4 pgport=$5
    pw=${SBT_PGPASSWORD:-sbtest-pw-S3cret}
    mkdir -p "$dir"
    cat > "$dir/pgbouncer.ini" <<INI
[databases]
sbtest = host=$pghost port=$pgport dbname=sbtest
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = ${SBT_PGBOUNCER_MAX_CLIENTS:-2000}
default_pool_size = 20
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
ignore_startup_parameters = extra_float_digits,application_name
INI
    umask 077
    printf '"sbtest" "%s"\n' "$pw" > "$dir/userlist.txt"
    chown -R postgres "$dir"
    # runuser starts with the soft limit of open files (1024): a socket a client
    nofile=$((${SBT_PGBOUNCER_MAX_CLIENTS:-2000} + 200))
    runuser -u postgres -- bash -c 'ulimit -n "$1" 2>/dev/null; exec pgbouncer -d "$2"' _ "$nofile" "$dir/pgbouncer.ini"
    i=0
    while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "pgbouncer-server.sh: PgBouncer did not start on port $port" >&2
            tail -5 "$dir/pgbouncer.log" >&2 || true
            exit 1
        fi
        sleep 0.1
    done
    echo "pgbouncer-server.sh: running on 127.0.0.1:$port -> $pghost:$pgport"
    ;;
stop)
    if [ -f "$dir/pgbouncer.pid" ]; then
        kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
        sleep 0.3
    fi
    ;;
*)
    echo "usage: $0 start DIR PORT PGHOST PGPORT | stop DIR" >&2; exit 2 ;;
esac
