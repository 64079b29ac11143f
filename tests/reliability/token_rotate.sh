#!/bin/bash
# token_rotate.sh: a password command whose token rotates every 2 s (issue
# #46's "Done when") keeps a reconnecting run alive on PostgreSQL and
# MariaDB.  A rotator changes the server-side password (ALTER ROLE / SET
# PASSWORD, as the role itself) and the file the command reads, together,
# so an old token is refused at once; sbench runs --reconnect=transaction
# (4 clients on 2 threads) with --password-ttl=1 (a cached token outlives
# its rotation), and without it while a killer ends its sessions
# (--db-reconnect).  Every run must end
# with status 0, no failed event, connections and reconnects counted, and
# no token anywhere in its output.  Needs the servers of scripts/test.sh.
source "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
TOK=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-tok.XXXXXX")  # outside $T: holds the tokens by design
PGC="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbtest"
MYC="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$SBT_MYSQL_PORT --mysql-user=sbtest --mysql-db=sbtest"
O="--tables=1 --table-size=100 --db-server-counters=off --db-server-settings=off"

# the server's password now (the last token set), for the rotator and the
# restore at exit
printf '%s\n' "$SBT_PGPASSWORD" >"$TOK/pg.now"
printf '%s\n' "$SBT_MYSQL_PASSWORD" >"$TOK/my.now"
pg_as() { PGPASSWORD=$(cat "$TOK/pg.now") timeout 20 psql -X -q -At -v ON_ERROR_STOP=1 \
    -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest "$@"; }
my_as() { MYSQL_PWD=$(cat "$TOK/my.now") timeout 20 mariadb --no-defaults -N -B \
    -h127.0.0.1 -P"$SBT_MYSQL_PORT" -usbtest sbtest "$@"; }
# set_pw pg|my NEW: the server's password, then the command's file
set_pw() {
    if [ "$1" = pg ]; then pg_as -c "ALTER ROLE sbtest PASSWORD '$2'" >/dev/null || return 1
    else my_as -e "SET PASSWORD = PASSWORD('$2')" || return 1; fi
    printf '%s\n' "$2" >"$TOK/$1.tmp" && mv "$TOK/$1.tmp" "$TOK/$1.now"
    echo "$2" >>"$TOK/all"
}
restore() {
    [ "$(cat "$TOK/pg.now")" = "$SBT_PGPASSWORD" ] || set_pw pg "$SBT_PGPASSWORD" || echo "FAIL: cannot restore the pgsql password"
    [ "$(cat "$TOK/my.now")" = "$SBT_MYSQL_PASSWORD" ] || set_pw my "$SBT_MYSQL_PASSWORD" || echo "FAIL: cannot restore the mysql password"
}
trap 'stop_bg; restore; rm -rf "$TOK"; rel_cleanup' EXIT
# rotate pg|my: a new token every 2 s until $TOK/stop exists (stop_bg:
# never killed between the server's change and the file's)
rotate() {
    local i=0
    while sleep 2 && [ ! -e "$TOK/stop" ]; do
        i=$((i + 1))
        set_pw "$1" "tok$1-$i-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')" || echo "rotator: $1 failed"
    done
}
# kill_sessions pg|my: ends sbench's sessions every 1.5 s until killed
kill_sessions() {
    while :; do
        sleep 1.5
        if [ "$1" = pg ]; then
            pg_as -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = 'sbtest' AND application_name = 'sbench'" >/dev/null
        else
            for id in $(my_as -e "SELECT id FROM information_schema.processlist WHERE user = 'sbtest' AND id <> CONNECTION_ID() AND db = 'sbtest'"); do
                my_as -e "KILL CONNECTION $id" 2>/dev/null
            done
        fi
    done
}
# sb NAME ARGS...: one run, output kept in NAME.*; must succeed with no
# failed event, its connections and reconnects printed
sb() {
    local name=$1; shift
    timeout -k 5 90 "$S" "$@" >"$T/out.$name" 2>"$T/err.$name" </dev/null
    local rc=$?
    local failed=$(rep "failed transactions" "$T/out.$name") rec=$(rep "reconnects" "$T/out.$name")
    local tx=$(rep "transactions" "$T/out.$name") conns=$(rep "connections opened" "$T/out.$name")
    echo "$name: status $rc, transactions ${tx:-?}, failed ${failed:-0}, connections ${conns:-?}," \
         "reconnects ${rec:-?}, rotations so far $(wc -l <"$TOK/all" 2>/dev/null)"
    [ "$rc" -eq 0 ] || { fail "$name: status $rc"; tail -n 5 "$T/err.$name"; return 1; }
    [ "${failed:-0}" -eq 0 ] && [ "${tx:-0}" -gt 50 ] && [ "${conns:-0}" -ge 2 ] ||
        fail "$name: ${tx:-no} transactions, ${failed:-0} failed, ${conns:-no} connections"
    # a refused token counts an error (SQLSTATE 28P01 / 28000, native
    # 1045) even when a later attempt connects; a killed session counts
    # its own (57P01, 08006, 2013...)
    grep -E "^ *SQLSTATE (28|08001)|native 1045 " "$T/out.$name" | sed "s/^/    $name: /"
    grep -qE "^ *SQLSTATE (28|08001)|native 1045 " "$T/out.$name" && fail "$name: connections refused"
    eval "${name}_rec=${rec:-0} ${name}_conns=${conns:-0}"
}
ROT=""
bg() { "$@" & BG_PIDS="$BG_PIDS $!"; }
# stops the killer, lets the rotator finish its step
stop_bg() {
    touch "$TOK/stop"
    for p in $BG_PIDS; do [ "$p" = "$ROT" ] || kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    BG_PIDS="" ROT=""
    rm -f "$TOK/stop"
}

PW_PG="--pgsql-password-command=cat $TOK/pg.now"
PW_MY="--mysql-password-command=cat $TOK/my.now"
timeout 60 "$S" $PGC "$PW_PG" $O oltp_point_select cleanup >/dev/null 2>&1
timeout 60 "$S" $PGC "$PW_PG" $O oltp_point_select prepare >/dev/null 2>&1 || fail "pgsql prepare"
timeout 60 "$S" $MYC "$PW_MY" $O oltp_point_select cleanup >/dev/null 2>&1
timeout 60 "$S" $MYC "$PW_MY" $O oltp_point_select prepare >/dev/null 2>&1 || fail "mysql prepare"

: >"$TOK/all"
# both pg|my NAME CONNECTION-OPTION...: the two runs under a rotator, the
# second with a killer too
both() {
    local db=$1 label=$2; shift 2
    local before=$(wc -l <"$TOK/all")
    bg rotate "$db"
    ROT=$!
    sb "${db}_each" "$@" --password-ttl=1 $O --threads=2 --clients=4 --time=7 --rate=100 --reconnect=transaction oltp_point_select run
    bg kill_sessions "$db"
    sb "${db}_lost" "$@" --password-ttl=1 $O --threads=2 --time=7 --rate=100 oltp_point_select run
    stop_bg
    local rot=$(($(wc -l <"$TOK/all") - before)) rec conns
    eval "rec=\${${db}_lost_rec:-0} conns=\${${db}_each_conns:-0}"
    [ "$rot" -ge 4 ] && [ "$rec" -ge 2 ] && [ "$conns" -gt 50 ] &&
        ok "$label: $rot rotations, $conns connections one per transaction, $rec reconnects after killed sessions, the runs stayed alive" ||
        fail "$label: $rot rotations (want 4 or more), $rec reconnects (want 2 or more), $conns connections (want over 50)"
}
both pg pgsql $PGC "$PW_PG"
both my mysql $MYC "$PW_MY"
restore
timeout 60 "$S" $PGC "$PW_PG" $O oltp_point_select cleanup >/dev/null 2>&1
timeout 60 "$S" $MYC "$PW_MY" $O oltp_point_select cleanup >/dev/null 2>&1

leaks=0
while read -r tok; do
    [ -n "$tok" ] && grep -rqF -- "$tok" "$T" && { fail "a token in $(grep -rlF -- "$tok" "$T" | head -n 1)"; leaks=1; }
done <"$TOK/all"
[ "$leaks" -eq 0 ] && ok "$(wc -l <"$TOK/all") tokens, $(ls "$T" | wc -l) files: no token anywhere"
finish
