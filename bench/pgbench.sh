#!/usr/bin/env bash
# bench/pgbench.sh: `sbench pgbench` and pgbench 15 side by side, the same
# command line on the same server: for each script of SCRIPTS (pgbench's
# built-ins and a custom script) and each case of CASES (clients:threads,
# and -C), both tools run ROUNDS times, alternating who goes first; prints
# a markdown table of the medians of tps and client CPU (user+sys of the
# whole process, startup included) per transaction, and of the per-round
# ratios sbench/pgbench with their spread [min-max]; then the same CPU
# figures net of startup: each round also runs each tool for one
# transaction per client (-t 1: connections, Lua state, the scale query),
# and (CPU - that CPU) / transactions is the cost per transaction proper,
# which a run of few transactions (tpcb-like on a busy machine) otherwise
# hides under the startup.  The load average
# before and after is printed too: on a shared machine the CPU per
# transaction is the steadier figure, tps moves with the neighbours.
#
#   bench/pgbench.sh                  # against $PGHOST:$PGPORT, database $PGDATABASE
#   SCRIPTS="select-only" CASES="4:2" TIME=5 ROUNDS=3 bench/pgbench.sh
#
# Environment (defaults in brackets): PGHOST [127.0.0.1] PGPORT [5432]
# PGUSER [sbtest] PGDATABASE [sbtest] PGPASSWORD; BOUNCER_PORT (unset: no
# PgBouncer rows); SCRIPTS ["select-only simple-update tpcb-like custom"]
# (custom: a \set/\if script of pgbench's language, written below);
# CASES ["1:1 4:2 8:2 C4:2"] (C4:2 is -C -c 4 -j 2); TIME [5] ROUNDS [3];
# MODE [prepared] (-M); SBENCH [./build/cli/sbench]; PGBENCH [pgbench].
# The tables are made by `sbench pgbench -i -s 1` first.
set -eu -o pipefail
sb=${SBENCH:-./build/cli/sbench}
pgb=${PGBENCH:-pgbench}
[ -x "$sb" ] || { echo "bench/pgbench.sh: no $sb (build first, or set SBENCH)" >&2; exit 2; }
command -v "$pgb" >/dev/null || { echo "bench/pgbench.sh: pgbench is not installed" >&2; exit 2; }
host=${PGHOST:-127.0.0.1} port=${PGPORT:-5432} user=${PGUSER:-sbtest} db=${PGDATABASE:-sbtest}
scripts=${SCRIPTS:-select-only simple-update tpcb-like custom}
cases=${CASES:-1:1 4:2 8:2 C4:2} time=${TIME:-5} rounds=${ROUNDS:-3} mode=${MODE:-prepared}
for v in "$time" "$rounds"; do
    case $v in '' | *[!0-9]* | 0) echo "bench/pgbench.sh: TIME and ROUNDS must be positive integers" >&2; exit 2 ;; esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$sb" pgbench -i -s 1 -h "$host" -p "$port" -U "$user" "$db" >"$tmp/init.out" 2>&1 ||
    { tail -5 "$tmp/init.out"; exit 1; }

# The custom script: expressions, a branch and two statements, as a user's
# own script looks (every value drawn as pgbench draws it).
cat >"$tmp/custom.sql" <<'EOF'
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set delta random(-5000, 5000)
\if :delta > 0
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
\else
SELECT abalance + :delta FROM pgbench_accounts WHERE aid = :aid;
\endif
SELECT bbalance FROM pgbench_branches WHERE bid = :bid;
EOF

script_args() {
    case $1 in
    select-only) echo "-b select-only" ;;
    simple-update) echo "-b simple-update" ;;
    tpcb-like) echo "-b tpcb-like" ;;
    custom) echo "-f $tmp/custom.sql" ;;
    *) echo "bench/pgbench.sh: unknown script '$1' (select-only simple-update tpcb-like custom)" >&2; exit 2 ;;
    esac
}

# one TOOL PORT LENGTH ARGS...: runs for LENGTH (-T N or -t 1); prints
# "tps cpu_us_per_tx cpu_s transactions" (0 0 0 0 when the run failed)
one() {
    local tool=$1 p=$2 len=$3; shift 3
    local cmd
    if [ "$tool" = sbench ]; then cmd=("$sb" pgbench); else cmd=("$pgb"); fi
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -o "$tmp/time" "${cmd[@]}" -n -M "$mode" "$@" $len -h "$host" \
        -p "$p" -U "$user" "$db" >"$tmp/out" 2>&1 || { echo "0 0 0 0"; return; }
    local tps n cpu
    tps=$(awk -F'[ =]+' '/^tps/ { print $2; exit }' "$tmp/out")
    n=$(awk -F': ' '/^number of transactions actually processed/ { split($2, a, "/"); print a[1] }' "$tmp/out")
    cpu=$(awk '{ print $1 + $2 }' "$tmp/time")
    awk -v t="${tps:-0}" -v n="${n:-0}" -v c="$cpu" \
        'BEGIN { printf "%.1f %.2f %.3f %d\n", t, (n > 0 ? c * 1e6 / n : 0), c, n }'
}
# net CPU µs per transaction from "tps cpu_us cpu_s n" of the timed run
# and the same of the startup run (-t 1), on stdin as one line of 8
net() { awk '{ n = $4 - $8; print (n > 0 && $3 > $7 ? ($3 - $7) * 1e6 / n : 0) }'; }
# median of the numbers on stdin; spread: "median [min-max]"
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
spread() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (!NR) { print "-"; exit }
        printf "%.2f [%.2f-%.2f]\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; TIME=$time s, ROUNDS=$rounds, -M $mode"
echo
targets="direct:$port"
[ -n "${BOUNCER_PORT:-}" ] && targets="$targets pgbouncer:$BOUNCER_PORT"
echo "| target | script | case | pgbench tps | sbench tps | tps ratio | pgbench CPU µs/tx | sbench CPU µs/tx | CPU/tx ratio | pgbench net µs/tx | sbench net µs/tx | net CPU/tx ratio |"
echo "|---|---|---|---:|---:|---|---:|---:|---|---:|---:|---|"
for t in $targets; do
    name=${t%%:*} p=${t#*:}
    for s in $scripts; do
        sargs=$(script_args "$s")
        for k in $cases; do
            C="" ck=$k
            case $k in C*) C="-C" ck=${k#C} ;; esac
            c=${ck%%:*} j=${ck#*:}
            [ "$j" -gt "$c" ] && j=$c
            : >"$tmp/pg"; : >"$tmp/sb"; : >"$tmp/ratio"; : >"$tmp/pgnet"; : >"$tmp/sbnet"
            for r in $(seq "$rounds"); do
                if [ $((r % 2)) = 1 ]; then order="pgbench sbench"; else order="sbench pgbench"; fi
                for tool in $order; do
                    # shellcheck disable=SC2086
                    one "$tool" "$p" "-T $time" $sargs $C -c "$c" -j "$j" >"$tmp/this.$tool"
                    # shellcheck disable=SC2086
                    one "$tool" "$p" "-t 1" $sargs $C -c "$c" -j "$j" >"$tmp/start.$tool"
                done
                cat "$tmp/this.pgbench" >>"$tmp/pg"; cat "$tmp/this.sbench" >>"$tmp/sb"
                paste -d' ' "$tmp/this.pgbench" "$tmp/start.pgbench" | net >"$tmp/net.pgbench"
                paste -d' ' "$tmp/this.sbench" "$tmp/start.sbench" | net >"$tmp/net.sbench"
                cat "$tmp/net.pgbench" >>"$tmp/pgnet"; cat "$tmp/net.sbench" >>"$tmp/sbnet"
                paste -d' ' "$tmp/this.pgbench" "$tmp/this.sbench" "$tmp/net.pgbench" "$tmp/net.sbench" \
                    >>"$tmp/ratio"
            done
            label="-c $c -j $j${C:+ -C}"
            # ratio columns: pgbench's 1-4, sbench's 5-8, net µs/tx 9 (pgbench) and 10
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s |\n' "$name" "$s" "$label" \
                "$(cut -d' ' -f1 "$tmp/pg" | median)" "$(cut -d' ' -f1 "$tmp/sb" | median)" \
                "$(awk '$1 > 0 { print $5 / $1 }' "$tmp/ratio" | spread)" \
                "$(cut -d' ' -f2 "$tmp/pg" | median)" "$(cut -d' ' -f2 "$tmp/sb" | median)" \
                "$(awk '$2 > 0 && $6 > 0 { print $6 / $2 }' "$tmp/ratio" | spread)" \
                "$(median <"$tmp/pgnet")" "$(median <"$tmp/sbnet")" \
                "$(awk '$9 > 0 && $10 > 0 { print $10 / $9 }' "$tmp/ratio" | spread)"
        done
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
