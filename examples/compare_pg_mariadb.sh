#!/bin/sh
# compare_pg_mariadb.sh: the same workload on PostgreSQL and MariaDB, one
# after the other, with the results side by side.
#
#   examples/compare_pg_mariadb.sh [WORKLOAD] [extra sbench options]
#
# Connection settings come from the environment (defaults in brackets):
#   PGHOST [127.0.0.1] PGPORT [5432] PGUSER [sbtest] PGPASSWORD PGDATABASE [sbtest]
#   MYSQL_HOST [127.0.0.1] MYSQL_PORT [3306] MYSQL_USER [sbtest] MYSQL_PWD MYSQL_DB [sbtest]
#   SBENCH [sbench, or ./build/core/sbench if present]
#   SIZE ["--tables=4 --table-size=100000"]  RUN ["--threads=4 --time=30"]
set -eu
workload=${1:-oltp_read_write}
[ $# -gt 0 ] && shift
sbench=${SBENCH:-sbench}
[ -x ./build/core/sbench ] && [ -z "${SBENCH:-}" ] && sbench=./build/core/sbench
size=${SIZE:---tables=4 --table-size=100000}
run=${RUN:---threads=4 --time=30}
pg="--db-driver=pgsql --pgsql-host=${PGHOST:-127.0.0.1} --pgsql-port=${PGPORT:-5432}
    --pgsql-user=${PGUSER:-sbtest} --pgsql-db=${PGDATABASE:-sbtest}"
my="--db-driver=mysql --mysql-host=${MYSQL_HOST:-127.0.0.1} --mysql-port=${MYSQL_PORT:-3306}
    --mysql-user=${MYSQL_USER:-sbtest} --mysql-db=${MYSQL_DB:-sbtest}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for db in pg my; do
    eval "conn=\$$db"
    # shellcheck disable=SC2086
    "$sbench" $conn $size --threads=4 "$@" "$workload" prepare --force >/dev/null
    # shellcheck disable=SC2086
    "$sbench" $conn $size $run "$@" "$workload" run > "$out/$db.txt"
    # shellcheck disable=SC2086
    "$sbench" $conn $size "$@" "$workload" cleanup >/dev/null
done

field() { # file label -> the value after the label
    sed -n "s/^ *$2: *\([0-9.]*\).*/\1/p" "$1" | head -1
}
printf '%-28s %16s %16s\n' "$workload" PostgreSQL MariaDB
for label in "transactions" "queries" "ignored errors" "min" "avg" "max" "95th percentile"; do
    printf '%-28s %16s %16s\n' "$label" "$(field "$out/pg.txt" "$label")" "$(field "$out/my.txt" "$label")"
done
printf '%-28s %16s %16s\n' "tps" \
    "$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$out/pg.txt")" \
    "$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$out/my.txt")"
