# wl-lib.sh: shared by workloads.sh, sysbench-scripts.sh, ps-mode.sh and
# compare.sh (sourced, POSIX sh).  Runs sbench against one target and reads
# the target's own counters, so that the tests compare sbench's report with
# what the server counted.
#
# Targets: pgsql, mysql, odbc-pg, odbc-maria, odbc-sqlite, sqlite.
# Environment: SBT_BUILD, SBT_TMP, SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD,
# SBT_MYSQL_SOCKET, SBT_MYSQL_PORT, SBT_MYSQL_PASSWORD, SBT_ODBC_DIR.
# A missing server is a failure, never a skip.

: "${SBT_BUILD:?SBT_BUILD must name the build directory}"
: "${SBT_TMP:?SBT_TMP must name a scratch directory}"
SBENCH=$SBT_BUILD/cli/sbench
WL_HERE=$(cd "$(dirname "$0")" && pwd)
failures=0
checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; echo "(aborted)"; exit 1; }

# expect_eq WHAT GOT WANT
expect_eq() {
    checks=$((checks + 1))
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else fail "$1: got '$2', want '$3'"; fi
}
# expect_range WHAT GOT LO HI (integers, inclusive)
expect_range() {
    checks=$((checks + 1))
    case "$2" in '' | *[!0-9-]*) fail "$1: '$2' is not a number"; return ;; esac
    if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
        echo "ok   $1: $2 in [$3, $4]"
    else
        fail "$1: $2 not in [$3, $4]"
    fi
}

# wl_setup TARGET: sets KIND (pg, maria, sqlite), SB_DRV (sbench driver
# options) and checks that the server answers.
wl_setup() {
    TARGET=$1
    [ -x "$SBENCH" ] || die "no $SBENCH (build first)"
    case "$TARGET" in
    pgsql | odbc-pg)
        : "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
        KIND=pg ;;
    mysql | odbc-maria)
        : "${SBT_MYSQL_SOCKET:?}" "${SBT_MYSQL_PASSWORD:?}"
        KIND=maria ;;
    sqlite | odbc-sqlite)
        KIND=sqlite
        SQLITE_DB=$SBT_TMP/wl-$TARGET.db
        rm -f "$SQLITE_DB" "$SQLITE_DB-wal" "$SQLITE_DB-shm" ;;
    *) die "unknown target '$TARGET' (pgsql mysql odbc-pg odbc-maria odbc-sqlite sqlite)" ;;
    esac
    case "$TARGET" in
    # --server-metrics=off: the tests count sbench's statements in the
    # server's own counters, which the sampler's would add to (its
    # statements are tested in server_metrics.sh)
    pgsql) SB_DRV="--server-metrics=off --db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-password=$SBT_PGPASSWORD --pgsql-db=sbtest --pgsql-sslmode=disable" ;;
    mysql) SB_DRV="--server-metrics=off --db-driver=mysql --mysql-socket=$SBT_MYSQL_SOCKET --mysql-user=sbtest --mysql-password=$SBT_MYSQL_PASSWORD --mysql-db=sbtest" ;;
    sqlite) SB_DRV="--db-driver=sqlite --sqlite-db=$SQLITE_DB" ;;
    odbc-*)
        # Own odbc.ini so that the odbc_driver test's files stay untouched.
        SBT_ODBC_DIR=$SBT_TMP/odbc-wl-$TARGET
        SBT_SQLITE_DB=${SQLITE_DB:-$SBT_TMP/unused.db}
        export SBT_ODBC_DIR SBT_SQLITE_DB
        ex=$("$WL_HERE/odbc-ini.sh") || die "odbc-ini.sh failed"
        eval "$ex"
        export ODBCSYSINI ODBCINI
        case "$TARGET" in
        odbc-pg) SB_DRV="--db-driver=odbc --odbc-dsn=sbtest_pg --odbc-user=sbtest --odbc-password=$SBT_PGPASSWORD" ;;
        odbc-maria) SB_DRV="--db-driver=odbc --odbc-dsn=sbtest_maria --odbc-user=sbtest --odbc-password=$SBT_MYSQL_PASSWORD" ;;
        odbc-sqlite) SB_DRV="--db-driver=odbc --odbc-dsn=sbtest_sqlite" ;;
        esac ;;
    esac
    # the same options as sysbench 1.0.20 takes them (it has no
    # --server-metrics, and refuses an option it does not know)
    SY_DRV=${SB_DRV#--server-metrics=off }
    case "$KIND" in
    pg)
        export PGPASSWORD=$SBT_PGPASSWORD
        unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE || true
        v=$(adminq "SELECT 1") || die "PostgreSQL at $SBT_PGHOST:$SBT_PGPORT does not answer"
        [ "$v" = 1 ] || die "PostgreSQL at $SBT_PGHOST:$SBT_PGPORT does not answer"
        # pg_stat_statements in database postgres too: every query of this
        # script goes there, so the counters of database sbtest only see
        # sbench's own sessions.
        adminq "SET client_min_messages=warning; CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null ||
            die "pg_stat_statements is not available (shared_preload_libraries?)"
        ;;
    maria)
        v=$(adminq "SELECT 1") || die "MariaDB at $SBT_MYSQL_SOCKET does not answer"
        [ "$v" = 1 ] || die "MariaDB at $SBT_MYSQL_SOCKET does not answer"
        ;;
    esac
}

# dbq SQL: one query in database sbtest, unaligned output.
dbq() {
    case "$KIND" in
    pg) psql -X -qAt -v ON_ERROR_STOP=1 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "$1" ;;
    maria) mariadb --no-defaults -uroot --socket="$SBT_MYSQL_SOCKET" -N -B -D sbtest -e "$1" ;;
    sqlite) sqlite3 -batch "$SQLITE_DB" "$1" ;;
    esac
}
# adminq SQL: a query that must not count in database sbtest's statistics.
adminq() {
    case "$KIND" in
    pg) psql -X -qAt -v ON_ERROR_STOP=1 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d postgres -c "$1" ;;
    *) dbq "$1" ;;
    esac
}

# sbtest_tables: how many tables named sbtest% exist.
sbtest_tables() {
    case "$KIND" in
    pg) dbq "SELECT count(*) FROM pg_tables WHERE schemaname='public' AND tablename LIKE 'sbtest%'" ;;
    maria) dbq "SELECT count(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name LIKE 'sbtest%'" ;;
    sqlite) dbq "SELECT count(*) FROM sqlite_master WHERE type='table' AND name LIKE 'sbtest%'" ;;
    esac
}
table_exists() { # $1 name -> 1/0
    case "$KIND" in
    pg) dbq "SELECT count(*) FROM pg_tables WHERE schemaname='public' AND tablename='$1'" ;;
    maria) dbq "SELECT count(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name='$1'" ;;
    sqlite) dbq "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='$1'" ;;
    esac
}
# rows_total N: sum of count(*) over sbtest1..sbtestN.
rows_total() {
    i=1 sql="SELECT 0"
    while [ "$i" -le "$1" ]; do sql="$sql + (SELECT count(*) FROM sbtest$i)"; i=$((i + 1)); done
    dbq "$sql"
}

# sb NAME ARGS...: runs sbench with the target's options; output in
# $SBT_TMP/wl-NAME.out, status in $rc.
sb() {
    name=$1; shift
    OUT=$SBT_TMP/wl-$TARGET-$name.out
    # SB_DRV is split on purpose (no option value contains spaces).
    # shellcheck disable=SC2086
    if "$SBENCH" $SB_DRV --db-server-counters=off --db-server-settings=off "$@" >"$OUT" 2>&1; then rc=0; else rc=$?; fi
}
show_out() { sed 's/^/     | /' "$OUT" | tail -n "${1:-15}"; }

# parse_report FILE: sets R_READ R_WRITE R_OTHER R_TOTAL R_TXN R_QUERIES
# R_IGN R_RECONN R_EVENTS from a sysbench-1.0 style report.
parse_report() {
    eval "$(awk '
        /^ *read:/ { print "R_READ=" $2 }
        /^ *write:/ { print "R_WRITE=" $2 }
        /^ *other:/ { print "R_OTHER=" $2 }
        /^ *total:/ && !/time/ { print "R_TOTAL=" $2 }
        /^ *transactions:/ { print "R_TXN=" $2 }
        /^ *queries:/ && NF > 1 { print "R_QUERIES=" $2 }
        /^ *ignored errors:/ { print "R_IGN=" $3 }
        /^ *reconnects:/ { print "R_RECONN=" $2 }
        /^ *total number of events:/ { print "R_EVENTS=" $5 }
    ' "$1")"
}

# mix WORKLOAD: reads, writes, others per event with default options; 1
# when an event is one transaction; statements each connection prepares
# (pg: every PQprepare runs in its own implicit transaction and counts in
# xact_commit).  Uses $TABLES (--tables of the run).
mix() {
    case "$1" in
    oltp_read_write) echo "14 4 2 1 $((9 * TABLES))" ;;
    oltp_read_only) echo "14 0 2 1 $((5 * TABLES))" ;;
    oltp_write_only) echo "0 4 2 1 $((4 * TABLES))" ;;
    oltp_point_select) echo "1 0 0 0 $TABLES" ;;
    oltp_insert | oltp_update_index | oltp_update_non_index | oltp_delete)
        echo "0 1 0 0 $TABLES" ;;
    select_random_points | select_random_ranges) echo "1 0 0 0 1" ;;
    esac
}

# Server counters.  snap_before resets what can be reset; snap_after sets
# D_* deltas:
#   pg:     D_COMMIT D_ROLLBACK (pg_stat_database, database sbtest),
#           D_SEL D_WR D_OTH (pg_stat_statements calls: SELECTs and DML on
#           sbtest tables; BEGIN+COMMIT+ROLLBACK)
#   maria:  D_COMMIT D_BEGIN D_ROLLBACK D_SEL D_WR (Com_insert+update+delete)
#           D_EXEC (Com_stmt_execute)
#   sqlite: D_WR rows touched, counted by triggers (wl_triggers)
pg_xact() {
    adminq "SELECT xact_commit || ' ' || xact_rollback FROM pg_stat_database WHERE datname='sbtest'"
}
maria_status() {
    adminq "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit','Com_begin','Com_rollback','Com_select','Com_insert','Com_update','Com_delete','Com_stmt_execute','Com_set_option')" |
        awk '{ printf "%s=%s ", $1, $2 }'
}
snap_before() {
    case "$KIND" in
    pg)
        # Statistics of ended sessions arrive within ~1 s (lazy flush).
        sleep 1.2
        set -- $(pg_xact); X0C=$1 X0R=$2
        adminq "SELECT pg_stat_statements_reset()" >/dev/null ;;
    maria) S0=$(maria_status) ;;
    sqlite) dbq "UPDATE sbcount SET n = 0" 2>/dev/null || true ;;
    esac
}
snap_after() {
    case "$KIND" in
    pg)
        # Backends flush their counters when they exit, but a little late:
        # wait for the session ends to land.
        sleep 1.5
        set -- $(pg_xact); D_COMMIT=$(($1 - X0C)) D_ROLLBACK=$(($2 - X0R))
        ss="FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest')"
        D_SEL=$(adminq "SELECT coalesce(sum(calls),0) $ss AND query ILIKE 'SELECT%sbtest%'")
        D_WR=$(adminq "SELECT coalesce(sum(calls),0) $ss AND (query ILIKE 'INSERT%sbtest%' OR query ILIKE 'UPDATE%sbtest%' OR query ILIKE 'DELETE%sbtest%')")
        D_OTH=$(adminq "SELECT coalesce(sum(calls),0) $ss AND upper(query) IN ('BEGIN', 'COMMIT', 'ROLLBACK', 'START TRANSACTION')") ;;
    maria)
        S1=$(maria_status)
        eval "$(echo "$S0" | sed 's/Com_/A_/g')"
        eval "$(echo "$S1" | sed 's/Com_/B_/g')"
        D_COMMIT=$((B_commit - A_commit)) D_BEGIN=$((B_begin - A_begin))
        D_ROLLBACK=$((B_rollback - A_rollback)) D_SEL=$((B_select - A_select))
        D_WR=$((B_insert + B_update + B_delete - A_insert - A_update - A_delete))
        D_EXEC=$((B_stmt_execute - A_stmt_execute))
        D_SETOPT=$((B_set_option - A_set_option)) ;;
    sqlite)
        D_WR=$(dbq "SELECT coalesce(sum(n),0) FROM sbcount") ;;
    esac
}

# wl_triggers N: SQLite has no server counters; triggers on sbtest1..N
# count every inserted, updated and deleted row into table sbcount.
wl_triggers() {
    sql="CREATE TABLE IF NOT EXISTS sbcount(t TEXT PRIMARY KEY, n INTEGER);"
    i=1
    while [ "$i" -le "$1" ]; do
        for op in INSERT UPDATE DELETE; do
            sql="$sql INSERT OR IGNORE INTO sbcount VALUES ('$op$i', 0);
CREATE TRIGGER IF NOT EXISTS sbc_$op$i AFTER $op ON sbtest$i BEGIN
UPDATE sbcount SET n = n + 1 WHERE t = '$op$i'; END;"
        done
        i=$((i + 1))
    done
    dbq "$sql"
}

# check_server_counts TRX MARGIN: compares the report (parse_report) with
# the deltas (snap_after).  TRX: 1 when every event is one BEGIN..COMMIT,
# 0 when every query autocommits.  MARGIN: transactions (pg: xact_commit)
# the server may count beyond the report, see the callers.
check_server_counts() {
    trx=$1 margin=$2 w=$3
    case "$KIND" in
    pg)
        # pg_stat_statements records statements that completed, and sbench
        # counts successful queries only: exact.
        expect_eq "$w: pg_stat_statements SELECT calls = report read" "$D_SEL" "$R_READ"
        expect_eq "$w: pg_stat_statements INSERT/UPDATE/DELETE calls = report write" "$D_WR" "$R_WRITE"
        expect_eq "$w: pg_stat_statements BEGIN/COMMIT/ROLLBACK calls = report other" "$D_OTH" "$R_OTHER"
        if [ "$trx" = 1 ]; then want=$R_TXN; else want=$((R_READ + R_WRITE)); fi
        expect_range "$w: pg_stat_database xact_commit delta" "$D_COMMIT" "$want" $((want + margin))
        # every ignored error rolls its transaction back (autocommit: the
        # statement's own transaction)
        expect_range "$w: pg_stat_database xact_rollback delta" "$D_ROLLBACK" "$R_IGN" $((R_IGN + margin)) ;;
    maria)
        # Com_* count a statement when it starts, also when it then fails
        # with an ignored error (deadlock): up to R_IGN more than the report.
        expect_range "$w: Com_select delta" "$D_SEL" "$R_READ" $((R_READ + R_IGN))
        expect_range "$w: Com_insert+Com_update+Com_delete delta" "$D_WR" "$R_WRITE" $((R_WRITE + R_IGN))
        if [ "$trx" = 1 ]; then
            expect_eq "$w: Com_commit delta = transactions" "$D_COMMIT" "$R_TXN"
            expect_eq "$w: Com_rollback delta = ignored errors" "$D_ROLLBACK" "$R_IGN"
            if [ "$TARGET" = odbc-maria ]; then
                # Connector/ODBC sends no BEGIN: SQL_AUTOCOMMIT_OFF is
                # "SET autocommit=0" and after the commit "=1" again: two
                # Com_set_option per started transaction, plus up to 4
                # per connection for its session setup (measured: 4).
                expect_eq "$w: Com_begin delta (ODBC: none)" "$D_BEGIN" 0
                n=$((R_TXN + R_IGN))
                expect_range "$w: Com_set_option delta" "$D_SETOPT" $((2 * n)) $((2 * n + 4 * THREADS))
            else
                # a restarted event runs BEGIN again after its ROLLBACK
                expect_eq "$w: Com_begin delta = transactions + ignored errors" "$D_BEGIN" $((R_TXN + R_IGN))
                expect_eq "$w: Com_begin+Com_commit+Com_rollback = report other" \
                    $((D_BEGIN + D_COMMIT + D_ROLLBACK)) "$R_OTHER"
            fi
        else
            expect_eq "$w: Com_commit delta (autocommit)" "$D_COMMIT" 0
            expect_range "$w: statements counted = transactions" $((D_SEL + D_WR)) "$R_TXN" $((R_TXN + R_IGN))
        fi ;;
    esac
}

# sessions: how many sbench sessions the server has now (PostgreSQL:
# application_name 'sbench'; MariaDB: SHOW PROCESSLIST rows of user sbtest,
# which leaves the Com_* counters alone).
sessions() {
    case "$KIND" in
    pg) adminq "SELECT count(*) FROM pg_stat_activity WHERE datname = 'sbtest' AND application_name = 'sbench'" ;;
    maria) adminq "SHOW PROCESSLIST" | awk -F '\t' '$2 == "sbtest"' | wc -l | tr -d ' ' ;;
    esac
}

# pgbench_setup: the PostgreSQL target, and pgbench (PGB) and sbench pgbench
# (SBP) on the same server and database, for the tests that compare them
pgbench_setup() {
    wl_setup pgsql
    command -v pgbench >/dev/null || die "pgbench is not installed"
    CONN="-h $SBT_PGHOST -p $SBT_PGPORT -U sbtest"
}
# shellcheck disable=SC2086
PGB() { pgbench $CONN "$@" sbtest; }
# shellcheck disable=SC2086
SBP() { "$SBENCH" pgbench $CONN "$@" sbtest; }

# sb_until_sessions NAME WANT MIN_S ARGS...: like sb, but the run (whose
# ARGS hold a --time long enough, e.g. 300) is ended with SIGINT once the
# server has shown WANT sbench sessions and MIN_S seconds have passed, so
# the count does not depend on how fast the machine samples: a loaded
# machine just takes longer (bound: 150 s, then the run is stopped all the
# same).  Sets rc (130 after the SIGINT: the run was interrupted as asked)
# and SEEN, the largest number of sessions any sample showed (a sample above
# WANT is kept: it fails the test).
sb_until_sessions() {
    name=$1 want=$2 min_s=$3; shift 3
    OUT=$SBT_TMP/wl-$TARGET-$name.out
    # shellcheck disable=SC2086
    "$SBENCH" $SB_DRV --db-server-counters=off --db-server-settings=off "$@" >"$OUT" 2>&1 &
    spid=$!
    su_t0=$(date +%s) SEEN=0 su_all=""
    while kill -0 "$spid" 2>/dev/null; do
        n=$(sessions 2>/dev/null) || n=0
        case "$n" in '' | *[!0-9]*) n=0 ;; esac
        [ "$n" -gt "$SEEN" ] && SEEN=$n
        # min_s counts from when every session is there: on a loaded
        # machine connecting can take longer than min_s, and a run ended
        # at once then has no transaction yet
        [ -z "$su_all" ] && [ "$SEEN" -ge "$want" ] && su_all=$(date +%s)
        su_el=$(($(date +%s) - su_t0))
        if { [ -n "$su_all" ] && [ $(($(date +%s) - su_all)) -ge "$min_s" ]; } || [ "$su_el" -ge 150 ]; then
            kill -INT "$spid" 2>/dev/null
            break
        fi
        sleep 0.2
    done
    if wait "$spid"; then rc=0; else rc=$?; fi
}

# watch_sessions FILE: in the background, the largest session count seen
# goes into FILE until FILE.stop exists.
watch_sessions() {
    max=0
    echo 0 >"$1"
    while [ ! -f "$1.stop" ]; do
        n=$(sessions 2>/dev/null) || n=0
        case "$n" in '' | *[!0-9]*) n=0 ;; esac
        if [ "$n" -gt "$max" ]; then max=$n; echo "$max" >"$1"; fi
        sleep 0.2
    done
}
