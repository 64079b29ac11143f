#!/usr/bin/env bash
# bench/tls.sh: client CPU per transaction with TLS against without, sbench
# beside sysbench 1.0.20, on a PostgreSQL this script starts with ssl=on (a
# throwaway self-signed certificate).  Cases, each for ROUNDS alternating
# rounds of EVENTS transactions on one thread (oltp_point_select: one
# statement a transaction, so the per-statement cost of TLS shows):
#   sbench    --pgsql-sslmode=require   (the wire fast path through libpq's
#                                        OpenSSL session, pgsql_tls.c)
#   sbench    --pgsql-sslmode=require --pgsql-wire=off   (libpq's own path)
#   sbench    --pgsql-sslmode=disable
#   sysbench  PGSSLMODE=require / disable   (libpq reads it; sysbench has no
#                                            TLS option for PostgreSQL)
# CPU per transaction is user+sys of the client over the run, net of a
# one-transaction run of the same case (startup, TLS handshake, SCRAM).
# Prints a markdown table: each case's median and [min-max] over the rounds,
# and the load average before and after (a shared machine says so).
# Environment: ROUNDS [5] EVENTS [50000] BUILD_DIR (a release build).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
EVENTS=${EVENTS:-50000}
need openssl sysbench psql
build_sbench
make_tmp
trap stop_servers EXIT
PG_PORT=$(pick_port PG_PORT "${PG_PORT:-25532}" "${PG_PORT:+1}")
start_pg
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMPD/server.key" -out "$TMPD/server.crt" -days 2 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1 || die "openssl req failed"
chown postgres "$TMPD/server.key" "$TMPD/server.crt"
chmod 600 "$TMPD/server.key"
psql -X -q -h "$TMPD/pg" -p "$PG_PORT" -U postgres -c "ALTER SYSTEM SET ssl = on" \
    -c "ALTER SYSTEM SET ssl_cert_file = '$TMPD/server.crt'" -c "ALTER SYSTEM SET ssl_key_file = '$TMPD/server.key'" \
    -c "SELECT pg_reload_conf()" >/dev/null || die "could not turn ssl on"
C="$(conn_opts pgsql) --tables=1 --table-size=10000"
"$SBENCH" $C oltp_point_select prepare >"$TMPD/prepare.log" 2>&1 || die "prepare failed"

cases=("sbench TLS fast path|sbench|--pgsql-sslmode=require|"
       "sbench TLS via libpq|sbench|--pgsql-sslmode=require --pgsql-wire=off|"
       "sbench no TLS|sbench|--pgsql-sslmode=disable|"
       "sysbench TLS|sysbench||require"
       "sysbench no TLS|sysbench||disable")
# run CASE EVENTS LOG: one run of a case
run() {
    local tool opts mode
    IFS='|' read -r _ tool opts mode <<<"$1"
    # sbench's server cross-check and sampler off: one connection, as sysbench
    [ "$tool" = sbench ] && opts="$opts --db-server-counters=off --history=off"
    # shellcheck disable=SC2086
    PGSSLMODE=${mode:-prefer} timed "$3" 300 "$(tool_bin "$tool")" $C $opts \
        --threads=1 --events="$2" --time=0 oltp_point_select run
}
l0=$(cut -d' ' -f1 /proc/loadavg)
declare -A res
for ((r = 1; r <= ROUNDS; r++)); do
    for c in "${cases[@]}"; do
        name=${c%%|*}
        log "round $r: $name"
        run "$c" 1 "$TMPD/one.log" || die "$name: a one-transaction run failed (see $TMPD/one.log)"
        run "$c" "$EVENTS" "$TMPD/run.log" || die "$name: the run failed (see $TMPD/run.log)"
        tx=$(tx_count "$TMPD/run.log")
        net=$(awk -v a="$(awk '{print $2 + $3}' "$TMPD/run.log.time")" -v b="$(awk '{print $2 + $3}' "$TMPD/one.log.time")" \
            -v tx="$tx" 'BEGIN { printf "%.1f", (a - b) * 1e6 / (tx - 1) }')
        res[$name]="${res[$name]:-} $net"
    done
done
l1=$(cut -d' ' -f1 /proc/loadavg)
echo "Client CPU per transaction (µs, user+sys, net of startup), oltp_point_select, 1 thread, $EVENTS transactions,"
echo "$ROUNDS alternating rounds; load average $l0 before, $l1 after ($(nproc) CPUs):"
echo
echo "| case | median | [min-max] |"
echo "|---|--:|--:|"
for c in "${cases[@]}"; do
    name=${c%%|*}
    # shellcheck disable=SC2086
    echo "| $name | $(median ${res[$name]}) | [$(printf '%s\n' ${res[$name]} | sort -g | head -n1)-$(maxof ${res[$name]})] |"
done
