#!/bin/sh
# pgbouncer.sh: what a connection pooler buys a web-style workload that
# opens a connection per transaction (pgbench -C), measured with sbench.
# Runs oltp_point_select with --reconnect=transaction once straight to
# PostgreSQL and once through PgBouncer, and prints tps (including the
# connection time) and the connection-time statistics of each.
#
#   examples/pgbouncer.sh [extra sbench options]
#
# Environment: PGHOST [127.0.0.1] PGPORT [5432] (the server), BOUNCER_PORT
# [6432] (a PgBouncer in front of it; scripts/pgbouncer-server.sh starts
# one), PGPASSWORD, SBENCH [sbench, or ./build/cli/sbench], RUN
# ["--threads=4 --time=20"].
set -eu
sbench=${SBENCH:-sbench}
[ -x ./build/cli/sbench ] && [ -z "${SBENCH:-}" ] && sbench=./build/cli/sbench
host=${PGHOST:-127.0.0.1}
run=${RUN:---threads=4 --time=20}
common="--db-driver=pgsql --pgsql-host=$host --tables=1 --table-size=10000"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
"$sbench" $common --pgsql-port="${PGPORT:-5432}" "$@" oltp_point_select prepare --force >/dev/null
for target in direct:"${PGPORT:-5432}" pgbouncer:"${BOUNCER_PORT:-6432}"; do
    name=${target%%:*} port=${target#*:}
    # shellcheck disable=SC2086
    "$sbench" $common --pgsql-port="$port" $run --reconnect=transaction --db-ps-mode=disable \
        "$@" oltp_point_select run > "$out/$name.txt"
done
# shellcheck disable=SC2086
"$sbench" $common --pgsql-port="${PGPORT:-5432}" "$@" oltp_point_select cleanup >/dev/null
for name in direct pgbouncer; do
    tps=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$out/$name.txt")
    conn=$(grep '^Connection time' "$out/$name.txt")
    printf '%-10s tps = %s (including connection time)\n           %s\n' "$name" "$tps" "$conn"
done
