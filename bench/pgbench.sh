#!/usr/bin/env bash
# bench/pgbench.sh: `sbench pgbench` and pgbench 15 side by side, the same
# command line on the same server: for each -c in CLIENTS, with and without
# -C, straight to the server and (BOUNCER_PORT set) through PgBouncer, both
# tools run ROUNDS times alternating who goes first; prints a markdown table
# of the median tps and the client CPU (user+sys) per transaction.
#
#   bench/pgbench.sh                  # against $PGHOST:$PGPORT, database $PGDATABASE
#   CLIENTS="1 8" TIME=5 ROUNDS=1 bench/pgbench.sh
#
# Environment (defaults in brackets): PGHOST [127.0.0.1] PGPORT [5432]
# PGUSER [sbtest] PGDATABASE [sbtest] PGPASSWORD; BOUNCER_PORT (unset: no
# PgBouncer rows); CLIENTS ["1 8 64"] JOBS [2] TIME [10] ROUNDS [3]
# SCRIPT [-S] (the pgbench script options); SBENCH [./build/cli/sbench].
# The tables are made by `sbench pgbench -i -s 1` first.
set -eu -o pipefail
sb=${SBENCH:-./build/cli/sbench}
[ -x "$sb" ] || { echo "bench/pgbench.sh: no $sb (build first, or set SBENCH)" >&2; exit 2; }
command -v pgbench >/dev/null || { echo "bench/pgbench.sh: pgbench is not installed" >&2; exit 2; }
host=${PGHOST:-127.0.0.1} port=${PGPORT:-5432} user=${PGUSER:-sbtest} db=${PGDATABASE:-sbtest}
clients=${CLIENTS:-1 8 64} jobs=${JOBS:-2} time=${TIME:-10} rounds=${ROUNDS:-3} script=${SCRIPT:--S}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$sb" pgbench -i -s 1 -h "$host" -p "$port" -U "$user" "$db" >"$tmp/init.out" 2>&1 ||
    { tail -5 "$tmp/init.out"; exit 1; }

# one TOOL PORT ARGS...: prints "tps cpu_us_per_tx"
one() {
    local tool=$1 p=$2; shift 2
    local cmd
    if [ "$tool" = sbench ]; then cmd=("$sb" pgbench); else cmd=(pgbench); fi
    /usr/bin/time -f "%U %S" -o "$tmp/time" "${cmd[@]}" -n "$@" -T "$time" -h "$host" -p "$p" \
        -U "$user" "$db" >"$tmp/out" 2>&1 || { echo "0 0"; return; }
    local tps n cpu
    tps=$(awk -F'[ =]+' '/^tps/ { print $2; exit }' "$tmp/out")
    n=$(awk -F': ' '/^number of transactions actually processed/ { split($2, a, "/"); print a[1] }' "$tmp/out")
    cpu=$(awk '{ print $1 + $2 }' "$tmp/time")
    awk -v t="${tps:-0}" -v n="${n:-0}" -v c="$cpu" 'BEGIN { printf "%.1f %.1f\n", t, (n > 0 ? c * 1e6 / n : 0) }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }

targets="direct:$port"
[ -n "${BOUNCER_PORT:-}" ] && targets="$targets pgbouncer:$BOUNCER_PORT"
echo "| target | -c | -C | pgbench tps | sbench tps | pgbench CPU µs/tx | sbench CPU µs/tx |"
echo "|---|---|---|---|---|---|---|"
for t in $targets; do
    name=${t%%:*} p=${t#*:}
    for c in $clients; do
        j=$jobs; [ "$j" -gt "$c" ] && j=$c
        for C in "" "-C"; do
            : >"$tmp/pg" ; : >"$tmp/sb"
            for r in $(seq "$rounds"); do
                if [ $((r % 2)) = 1 ]; then order="pgbench sbench"; else order="sbench pgbench"; fi
                for tool in $order; do
                    # shellcheck disable=SC2086
                    one "$tool" "$p" $script $C -c "$c" -j "$j" >>"$tmp/${tool:0:2}"
                done
            done
            printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$c" "${C:-no}" \
                "$(cut -d' ' -f1 "$tmp/pg" | median)" "$(cut -d' ' -f1 "$tmp/sb" | median)" \
                "$(cut -d' ' -f2 "$tmp/pg" | median)" "$(cut -d' ' -f2 "$tmp/sb" | median)"
        done
    done
done
