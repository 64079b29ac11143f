#!/usr/bin/env bash
# bench/tls.sh: client CPU per transaction with TLS against without, sbench
# beside sysbench 1.0.20, on a PostgreSQL this script starts with ssl=on and
# a MariaDB it starts with TLS (throwaway certificates: a CA, the server's,
# and the client certificate sysbench's --mysql-ssl=on loads from its
# working directory).  Cases, each for ROUNDS alternating
# rounds of EVENTS transactions on one thread (oltp_point_select: one
# statement a transaction, so the per-statement cost of TLS shows):
#   sbench    --pgsql-sslmode=require   (the wire fast path through libpq's
#                                        OpenSSL session, pgsql_tls.c)
#   sbench    --pgsql-sslmode=require --pgsql-wire=off   (libpq's own path)
#   sbench    --pgsql-sslmode=disable
#   sysbench  PGSSLMODE=require / disable   (libpq reads it; sysbench has no
#                                            TLS option for PostgreSQL)
#   MariaDB:
#   sbench    --mysql-ssl=REQUIRED  (the wire fast path through Connector/C's
#                                    OpenSSL session, mysql_tls.c)
#   sbench    --mysql-ssl=REQUIRED --mysql-wire=off   (Connector/C's path)
#   sbench    --mysql-ssl=off
#   sysbench  --mysql-ssl=on / off
# CPU per transaction is user+sys of the client over the run, net of a
# one-transaction run of the same case (startup, TLS handshake, SCRAM).
# Prints a markdown table: each case's median and [min-max] over the rounds,
# and the load average before and after (a shared machine says so).
# Environment: ROUNDS [5] EVENTS [50000] BUILD_DIR (a release build).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
EVENTS=${EVENTS:-50000}
need openssl sysbench psql mariadb
build_sbench
make_tmp
trap stop_servers EXIT
PG_PORT=$(pick_port PG_PORT "${PG_PORT:-25532}" "${PG_PORT:+1}")
MY_PORT=$(pick_port MY_PORT "${MY_PORT:-23506}" "${MY_PORT:+1}")
start_pg
# certificates: a CA, the servers' certificate and a client one (sysbench's
# --mysql-ssl=on loads client-key.pem, client-cert.pem and cacert.pem from
# its working directory, $TMPD)
cert() { # NAME SUBJECT: a key and a certificate signed by the CA
    openssl req -new -nodes -newkey rsa:2048 -subj "$2" -keyout "$TMPD/$1.key" -out "$TMPD/$1.csr" >/dev/null 2>&1 &&
        openssl x509 -req -in "$TMPD/$1.csr" -CA "$TMPD/cacert.pem" -CAkey "$TMPD/ca.key" -CAcreateserial -days 2 \
            -extfile <(echo "subjectAltName=IP:127.0.0.1") -out "$TMPD/$1.crt" >/dev/null 2>&1
}
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMPD/ca.key" -out "$TMPD/cacert.pem" -days 2 \
    -subj "/CN=sbench bench CA" >/dev/null 2>&1 && cert server /CN=127.0.0.1 && cert client /CN=sbtest ||
    die "openssl failed"
cp "$TMPD/client.key" "$TMPD/client-key.pem" && cp "$TMPD/client.crt" "$TMPD/client-cert.pem"
chmod 644 "$TMPD"/*.pem "$TMPD"/*.crt
SBT_MYSQL_SERVER_ARGS="--ssl-ca=$TMPD/cacert.pem --ssl-cert=$TMPD/server.crt --ssl-key=$TMPD/server.key" start_my
chown postgres "$TMPD/server.key" "$TMPD/server.crt"
chmod 600 "$TMPD/server.key"
psql -X -q -h "$TMPD/pg" -p "$PG_PORT" -U postgres -c "ALTER SYSTEM SET ssl = on" \
    -c "ALTER SYSTEM SET ssl_cert_file = '$TMPD/server.crt'" -c "ALTER SYSTEM SET ssl_key_file = '$TMPD/server.key'" \
    -c "SELECT pg_reload_conf()" >/dev/null || die "could not turn ssl on"
for db in pgsql mysql; do
    # shellcheck disable=SC2046
    "$SBENCH" $(conn_opts "$db") --tables=1 --table-size=10000 oltp_point_select prepare >"$TMPD/prepare.log" 2>&1 ||
        die "$db prepare failed"
done

# NAME|TOOL|DB|OPTIONS|PGSSLMODE
cases=("sbench TLS fast path|sbench|pgsql|--pgsql-sslmode=require|"
       "sbench TLS via libpq|sbench|pgsql|--pgsql-sslmode=require --pgsql-wire=off|"
       "sbench no TLS|sbench|pgsql|--pgsql-sslmode=disable|"
       "sysbench TLS|sysbench|pgsql||require"
       "sysbench no TLS|sysbench|pgsql||disable"
       "MariaDB: sbench TLS fast path|sbench|mysql|--mysql-ssl=REQUIRED|"
       "MariaDB: sbench TLS via Connector/C|sbench|mysql|--mysql-ssl=REQUIRED --mysql-wire=off|"
       "MariaDB: sbench no TLS|sbench|mysql|--mysql-ssl=off|"
       "MariaDB: sysbench TLS|sysbench|mysql|--mysql-ssl=on|"
       "MariaDB: sysbench no TLS|sysbench|mysql|--mysql-ssl=off|")
# run CASE EVENTS LOG: one run of a case, from $TMPD (sysbench's certificates)
run() {
    local tool db opts mode
    IFS='|' read -r _ tool db opts mode <<<"$1"
    # sbench's server cross-check and sampler off: one connection, as sysbench
    [ "$tool" = sbench ] && opts="$opts --db-server-counters=off --history=off"
    # shellcheck disable=SC2046,SC2086
    (cd "$TMPD" && PGSSLMODE=${mode:-prefer} timed "$3" 300 "$(tool_bin "$tool")" $(conn_opts "$db") \
        --tables=1 --table-size=10000 $opts --threads=1 --events="$2" --time=0 oltp_point_select run)
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
