# bench/lib.sh: helpers shared by bench/run.sh and bench/connections.sh.
# shellcheck shell=bash
# Sourced, not run.  Expects bash with `set -eu -o pipefail`.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/bench/build-release}
SBENCH=$BUILD_DIR/cli/sbench
SYSBENCH=${SYSBENCH:-/usr/bin/sysbench}
PGPW=${SBT_PGPASSWORD:-sbtest-pw-S3cret}
MYPW=${SBT_MYSQL_PASSWORD:-sbtest-pw-S3cret}
export SBT_PGPASSWORD=$PGPW SBT_MYSQL_PASSWORD=$MYPW

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

need() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || die "'$c' is not installed (needed by $(basename "$0"))"
    done
}

# Builds sbench in release mode under $BUILD_DIR (ninja is a no-op when
# nothing changed).
build_sbench() {
    need meson ninja
    if [ ! -f "$BUILD_DIR/build.ninja" ]; then
        log "configuring a release build in $BUILD_DIR"
        meson setup "$BUILD_DIR" "$ROOT" --buildtype=release >"$BUILD_DIR.setup.log" 2>&1 ||
            { tail -n 30 "$BUILD_DIR.setup.log" >&2; die "meson setup failed (log: $BUILD_DIR.setup.log)"; }
        rm -f "$BUILD_DIR.setup.log"
    fi
    local bt
    bt=$(meson introspect --buildoptions "$BUILD_DIR" 2>/dev/null |
        tr '{' '\n' | grep '"name": "buildtype"' | sed 's/.*"value": "\([a-z]*\)".*/\1/' || true)
    [ -z "$bt" ] || [ "$bt" = release ] || die "$BUILD_DIR is a '$bt' build, not release: remove it"
    ninja -C "$BUILD_DIR" >"$BUILD_DIR/ninja-bench.log" 2>&1 ||
        { tail -n 30 "$BUILD_DIR/ninja-bench.log" >&2; die "building sbench failed"; }
    [ -x "$SBENCH" ] || die "no binary at $SBENCH after the build"
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pick_port NAME DEFAULT EXPLICIT: prints a free port.  An explicitly chosen
# port that is busy is an error (we must never benchmark someone else's
# server); a busy default moves up to the next free port.
pick_port() {
    local name=$1 p=$2 explicit=$3 i
    if port_busy "$p"; then
        [ "$explicit" = 1 ] && die "$name port $p is already in use by another server; pick another ($name=...)"
        for i in $(seq 1 200); do
            port_busy $((p + i)) || { log "$name: port $p is busy, using $((p + i))"; echo $((p + i)); return; }
        done
        die "no free port found above $p for $name"
    fi
    echo "$p"
}

# Temp dir with short path (unix socket paths are limited), reachable by the
# postgres user.  Servers in it are stopped by stop_servers (trap).
make_tmp() {
    TMPD=$(mktemp -d /tmp/sbb.XXXXXX) || die "mktemp failed"
    chmod 755 "$TMPD"
}

PG_STARTED=0
MY_STARTED=0
start_pg() {
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT (data in $TMPD/pg)"
    "$ROOT/scripts/pg-server.sh" start "$TMPD/pg" "$PG_PORT" >"$TMPD/pg-start.log" 2>&1 ||
        { cat "$TMPD/pg-start.log" >&2; die "could not start PostgreSQL"; }
    PG_STARTED=1
}
start_my() {
    log "starting MariaDB on 127.0.0.1:$MY_PORT (data in $TMPD/my)"
    "$ROOT/scripts/mariadb-server.sh" start "$TMPD/my" "$MY_PORT" >"$TMPD/my-start.log" 2>&1 ||
        { cat "$TMPD/my-start.log" >&2; die "could not start MariaDB"; }
    MY_STARTED=1
}
stop_servers() {
    [ -n "${TMPD:-}" ] || return 0
    [ "$PG_STARTED" = 1 ] && { "$ROOT/scripts/pg-server.sh" stop "$TMPD/pg" >/dev/null 2>&1 || echo "bench: warning: stopping PostgreSQL in $TMPD/pg failed" >&2; }
    [ "$MY_STARTED" = 1 ] && { "$ROOT/scripts/mariadb-server.sh" stop "$TMPD/my" >/dev/null 2>&1 || echo "bench: warning: stopping MariaDB in $TMPD/my failed" >&2; }
    PG_STARTED=0 MY_STARTED=0
    if [ "${KEEP_TMP:-0}" != 1 ]; then rm -rf "$TMPD"; fi
}

# Connection options for sbench and sysbench (identical spelling).
conn_opts() {
    case $1 in
    pgsql) echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PG_PORT --pgsql-user=sbtest --pgsql-password=$PGPW --pgsql-db=sbtest" ;;
    mysql) echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MY_PORT --mysql-user=sbtest --mysql-password=$MYPW --mysql-db=sbtest" ;;
    *) die "unknown database '$1'" ;;
    esac
}

tool_bin() {
    case $1 in
    sbench | sbench-poll) echo "$SBENCH" ;;  # sbench-poll: --io=poll (run.sh)
    sysbench) echo "$SYSBENCH" ;;
    *) die "unknown tool '$1'" ;;
    esac
}

# timed LOG TIMEOUT CMD...: runs CMD under /usr/bin/time, output to LOG,
# rusage to LOG.time as "wall user sys maxrss_kb voluntary_switches
# involuntary_switches".  Returns CMD's status.  Also writes the machine's
# busy CPU time (all CPUs, /proc/stat, in seconds) over the run to
# LOG.busy, and the TCP segments the machine sent over it (/proc/net/snmp
# OutSegs: on loopback, the client's and the server's) to LOG.segs.
busy_s() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat; }
tcp_out_segs() { awk '$1 == "Tcp:" { if (!n) { for (i = 1; i <= NF; i++) if ($i == "OutSegs") c = i; n = 1 } else print $c }' /proc/net/snmp; }
timed() {
    local out=$1 lim=$2
    shift 2
    local rc=0 b0 s0
    b0=$(busy_s)
    s0=$(tcp_out_segs)
    timeout -k 10 "$lim" /usr/bin/time -o "$out.time" -f '%e %U %S %M %w %c' "$@" >"$out" 2>&1 </dev/null || rc=$?
    awk -v a="$b0" -v b="$(busy_s)" 'BEGIN { printf "%.2f\n", b - a }' >"$out.busy"
    awk -v a="$s0" -v b="$(tcp_out_segs)" 'BEGIN { print b - a }' >"$out.segs"
    [ "$rc" = 124 ] && echo "bench: timed out after ${lim}s" >>"$out"
    return "$rc"
}

# Fields of a sysbench-style report.
# Events of a run: its "transactions:" line, else (sysbench prints no SQL
# statistics for a script that runs no SQL) its "total number of events:".
tx_count() {
    local n
    n=$(sed -n 's/^ *transactions: *\([0-9][0-9]*\) .*/\1/p' "$1" | head -n1)
    [ -n "$n" ] || n=$(sed -n 's/^ *total number of events: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n1)
    echo "$n"
}
tx_rate() { sed -n 's/^ *transactions: *[0-9][0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$1" | head -n1; }
time_field() { awk -v f="$2" '{ print $f }' "$1.time" | tail -n1; }
# per_tx LOG EXT EXPR FORMAT: the awk expression EXPR over the last line of
# LOG.EXT, divided by the run's transactions and printed with FORMAT; empty
# when the run counted none, the file is missing or EXPR is "".
per_tx() {
    local tx
    tx=$(tx_count "$1")
    [ -n "$tx" ] && [ "$tx" -gt 0 ] && [ -s "$1.$2" ] || { echo; return; }
    awk -v tx="$tx" -v fmt="$4" "{ v = $3 } END { if (v != \"\") printf fmt, v / tx }" "$1.$2"
}
# CPU microseconds (user+sys) per transaction.
cpu_us_per_tx() { per_tx "$1" time '($2 + $3) * 1e6' %.1f; }

# CPU microseconds per transaction of everything but the client (the
# server, mostly) over the run: machine busy time less the client's.
other_us_per_tx() {
    local tx
    tx=$(tx_count "$1")
    [ -n "$tx" ] && [ "$tx" -gt 0 ] && [ -s "$1.busy" ] || { echo; return; }
    awk -v tx="$tx" -v busy="$(cat "$1.busy")" '{ u = $2; s = $3 } END { printf "%.1f", (busy - u - s) * 1e6 / tx }' "$1.time"
}

# Median of the numbers given as arguments (empty if none).
median() {
    [ $# -gt 0 ] || { echo; return; }
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
maxof() { [ $# -gt 0 ] || { echo; return; }; printf '%s\n' "$@" | sort -g | tail -n1; }
# ratio A B [digits]: A/B, empty when either is missing or B is 0.
ratio() {
    [ -n "$1" ] && [ -n "$2" ] || { echo; return; }
    awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b + 0 == 0) print ""; else printf "%.*f\n", d, a / b }'
}
# ge A B / le A B: numeric comparison, false if A is empty.
ge() { [ -n "$1" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
le() { [ -n "$1" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
lt() { [ -n "$1" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
kb_to_mb() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }' || echo; }
na() { if [ -n "$1" ]; then echo "$1"; else echo "n/a"; fi; }
# User or kernel CPU microseconds per transaction: FIELD 2 (user) or 3 (sys)
# of LOG.time.
cpu_part_us_per_tx() { per_tx "$1" time "\$$2 * 1e6" %.1f; }

# Context switches (voluntary and involuntary) of the client per
# transaction, and the machine's TCP segments per transaction.
switches_per_tx() { per_tx "$1" time '(NF >= 6 ? $5 + $6 : "")' %.2f; }
segs_per_tx() { per_tx "$1" segs '$1' %.2f; }

# The spread of a measurement over its rounds, "min-max" (one value: that
# value; none: nothing).
spread() {
    [ $# -gt 0 ] || { echo; return; }
    printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (lo == hi) print lo; else print lo "-" hi }'
}

# System calls per transaction of a run made under `strace -c -f -o LOG.strace`
# (every thread of the client; the report's transactions in LOG).  Prints
# nothing when either is missing.
syscalls_per_tx() {
    local tx calls
    tx=$(tx_count "$1")
    [ -n "$tx" ] && [ "$tx" -gt 0 ] && [ -s "$1.strace" ] || { echo; return; }
    calls=$(awk '$NF == "total" { print $4 }' "$1.strace" | tail -n1)
    [ -n "$calls" ] || { echo; return; }
    awk -v c="$calls" -v tx="$tx" 'BEGIN { printf "%.2f", c / tx }'
}

# The system calls that make up most of a run's (LOG.strace): "name count"
# pairs, the most frequent first, at most 4.
top_syscalls() {
    [ -s "$1.strace" ] || { echo; return; }
    awk '$1 ~ /^[0-9.]+$/ && $NF != "total" && NF >= 5 { print $4, $NF }' "$1.strace" |
        sort -rn | head -n4 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }'
}

# ports_from_env: PG_PORT and MY_PORT from the environment (explicit: a
# busy one is an error, see pick_port) or the defaults 45432 and 43306.
ports_from_env() {
    explicit_pg=0 explicit_my=0
    [ -n "${PG_PORT:-}" ] && explicit_pg=1
    [ -n "${MY_PORT:-}" ] && explicit_my=1
    PG_PORT=${PG_PORT:-45432}
    MY_PORT=${MY_PORT:-43306}
}
# start_servers LOGDIR DBS: a fresh LOGDIR, the temp dir, and the servers
# DBS names (pgsql, mysql), stopped on exit.
start_servers() {
    rm -rf "$1"
    mkdir -p "$1"
    make_tmp
    trap 'stop_servers' EXIT
    trap 'exit 130' INT TERM
    case " $2 " in *" pgsql "*) PG_PORT=$(pick_port PG_PORT "$PG_PORT" "$explicit_pg"); start_pg ;; esac
    case " $2 " in *" mysql "*) MY_PORT=$(pick_port MY_PORT "$MY_PORT" "$explicit_my"); start_my ;; esac
}
# server_cpu_s DB: the CPU seconds the server started by start_servers has
# used so far, its exited children's too (PostgreSQL's backends are reaped
# by the postmaster: /proc/PID/stat utime, stime, cutime, cstime).
server_cpu_s() {
    local pid
    case $1 in
    pgsql) pid=$(head -n1 "$TMPD/pg/data/postmaster.pid") ;;
    mysql) pid=$(cat "$TMPD/my/mysqld.pid") ;;
    esac
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13 + $14 + $15) / hz }' "/proc/$pid/stat"
}
