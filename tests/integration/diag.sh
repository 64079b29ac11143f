#!/bin/sh
# diag.sh TARGET: the diagnostic workloads against a real server, each
# number checked against the server's own view (wl-lib.sh's targets:
# pgsql, mysql, sqlite, odbc-pg, odbc-maria).
#  - params: every value equals pg_settings / information_schema /
#    PRAGMA (SQLite's per-connection cache_size, journal_mode and
#    synchronous are the driver's options, not the file's); a changed
#    setting moves (ALTER SYSTEM / SET GLOBAL / --sqlite-journal-mode);
#    a run's JSON final report has the same settings (run.server_settings)
#    and sees the change too; on SQLite a missing file is refused, not
#    created.
#  - connect: N connects = sessions the server counted (pg_stat_database
#    sessions, MariaDB Connections).
#  - select: queries = pg_stat_statements calls / Com_stmt_execute.
#  - blob: bytes written = bytes the server stores = bytes read back
#    (on PostgreSQL: as many bytes on the wire by strace, not hex text),
#    all 256 byte values stored (the server's hex), the server's MD5 of
#    each = the MD5 of the same bytes sent as hex text,
#    identical content (md5 of every value on the server = md5 of the
#    stored value read back by sbench's own check).
#  - scan: rows read = count(*); on PostgreSQL and MariaDB 1,000,000 rows;
#    on MariaDB one streamed SELECT (Com_select + 1), its first row in
#    under half the time of the same SELECT buffered whole;
#    on PostgreSQL the cursor's first-row and last-row times against the
#    server's own execution times (pg_stat_statements) and its FETCH count
#    and the first row in under a tenth of the time of the last (streaming).
#  - sweep: steps 1, 2, 4; each step's sessions as the server saw them
#    (pg_backend_pid / CONNECTION_ID in diag_seen) = its clients; its
#    transactions = rows it inserted (diag_log).
#  - sbk: records written = rows in the table; the Total line's MB/s =
#    records x size / seconds of the JSON final report within 1%; a
#    writers-only run has no Reading line; readers alone read each record
#    once (count(*)) and stop at the table's end, long before --time.
. "$(dirname "$0")/wl-lib.sh"
wl_setup "${1:?target}"
J=$SBT_TMP/diag-$TARGET
mkdir -p "$J"
py() { python3 -c "$@"; }

case "$KIND" in pg | maria) ROWS=1000000 ;; *) ROWS=20000 ;; esac
sb cleanup diag cleanup
sb sbkclean sbk cleanup
sb prepare --scan-rows=$ROWS --sweep-rows=1000 diag prepare
[ $rc = 0 ] || { show_out; die "diag prepare failed"; }
expect_eq "diag_big rows" "$(dbq 'SELECT count(*) FROM diag_big')" $ROWS

# ---- params ----
sb params --report-format=json params
[ $rc = 0 ] || { show_out; fail "params exited $rc"; }
grep '^{' "$OUT" > "$J/params.json"
case "$KIND" in
pg) dbq "SELECT name || '|' || setting FROM pg_settings ORDER BY name" ;;
maria) dbq "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES" | tr '\t' '|' ;;
sqlite) for p in journal_mode synchronous page_size cache_size locking_mode temp_store auto_vacuum foreign_keys mmap_size; do
            echo "$p|$(dbq "PRAGMA $p")"; done ;;
esac > "$J/server-settings.txt"
n=$(py 'import json,sys
srv = dict(l.rstrip("\n").split("|", 1) for l in open(sys.argv[1]) if "|" in l)
d = json.loads(open(sys.argv[2]).readline())
bad = [(s["name"], s["value"], srv.get(s["name"])) for s in d["settings"]
       if s["name"] in srv and s["value"] != srv[s["name"]] and s["name"] not in ("cache_size", "journal_mode", "synchronous")]
same = sum(1 for s in d["settings"] if srv.get(s["name"]) == s["value"])
print("%d %s" % (same, bad if bad else ""))' "$J/server-settings.txt" "$J/params.json")
set -- $n
checks=$((checks + 1))
if [ "${2:-}" = "" ] && [ "$1" -ge 4 ]; then echo "ok   params: $1 settings equal the server's"; else fail "params differ from the server: $n"; fi

# each setting's source and human units against the server's own columns
# (pg_settings.source and unit, MariaDB's GLOBAL_VALUE_ORIGIN): the human
# value parsed back to bytes or seconds = value x unit
case "$KIND" in
pg) dbq "SELECT name || '|' || source || '|' || coalesce(unit, '') FROM pg_settings" ;;
maria) dbq "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE_ORIGIN, '' FROM information_schema.SYSTEM_VARIABLES" | tr '\t' '|' ;;
esac > "$J/server-sources.txt"
if [ "$KIND" != sqlite ]; then
    v=$(py 'import json, re, sys
src = {l.split("|")[0]: l.rstrip("\n").split("|")[1:] for l in open(sys.argv[1]) if "|" in l}
words = {"COMPILE-TIME": "default", "CONFIG": "configuration file", "COMMAND-LINE": "command line",
         "AUTO": "set by the server", "SQL": "SET GLOBAL", "override": "override (server)",
         "database": "ALTER DATABASE", "user": "ALTER ROLE", "database user": "ALTER ROLE IN DATABASE"}
byte_names = {"innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size", "max_allowed_packet",
              "tmp_table_size", "max_heap_table_size", "sort_buffer_size", "join_buffer_size", "query_cache_size",
              "innodb_page_size"}
mult = {"B": 1, "kB": 1024, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}
back = {"B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}
d = json.loads(open(sys.argv[2]).readline())
bad, humans = [], 0
for s in d["settings"]:
    origin, unit = src[s["name"]]
    if s["source"] != words.get(origin, origin):
        bad.append((s["name"], s["source"], origin))
    m = re.match(r"^(\d*)([a-zA-Z]+)$", unit) or (re.match(r"^()(B)$", "B") if s["name"] in byte_names else None)
    try:
        v = float(s["value"])
    except ValueError:
        v = None
    if m and v is not None and v >= 0 and m.group(2) in mult:
        want = v * int(m.group(1) or 1) * mult[m.group(2)]
        h = s.get("human") or ""
        n, u = (h.split() + ["", ""])[:2]
        got = float(n) * back.get(u, float("nan")) if n else float("nan")
        if not abs(got - want) <= 0.05 * want + 1e-9:
            bad.append((s["name"], s["value"], unit, h))
        humans += 1
print("%d %s" % (humans, bad or ""))' "$J/server-sources.txt" "$J/params.json")
    set -- $v
    checks=$((checks + 1))
    if [ "${2:-}" = "" ] && [ "$1" -ge 2 ]; then echo "ok   params: sources = the server's, $1 human values = value x unit"; else fail "params sources/units: $v"; fi
fi
# a user who may not read every setting: the ones it cannot read are named
# (what that user sees in pg_settings, against the list params asks for)
if [ "$TARGET" = pgsql ]; then
    adminq "DROP ROLE IF EXISTS sbt_plain" >/dev/null 2>&1
    adminq "CREATE ROLE sbt_plain LOGIN PASSWORD 'plain-pw-7'" >/dev/null
    sb plain --pgsql-user=sbt_plain --pgsql-password=plain-pw-7 --report-format=json params
    [ $rc = 0 ] || { show_out; fail "params as a plain user exited $rc"; }
    seen=$(PGPASSWORD=plain-pw-7 psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbt_plain -d sbtest -c "SELECT name FROM pg_settings" | sort)
    v=$(echo "$seen" | py 'import json, sys
seen = set(sys.stdin.read().split())
d = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][0])
asked = {s["name"] for s in d["settings"]} | set(d["not_read"])
want = sorted(asked - seen)
print("%s|%s" % (",".join(sorted(d["not_read"])), ",".join(want)))' "$SBT_TMP/wl-$TARGET-plain.out")
    expect_eq "params as a plain user: settings not read = those pg_settings hides from it" "${v%%|*}" "${v#*|}"
    case ",${v%%|*}," in *,shared_preload_libraries,*) echo "ok   params: shared_preload_libraries named as not read" ;;
    *) fail "params: shared_preload_libraries not named for a plain user (${v%%|*})" ;; esac
    checks=$((checks + 1))
    adminq "DROP ROLE sbt_plain" >/dev/null
fi

# params only reads: on SQLite a missing database file is one clear line
# and exit 1, and the file is still missing after (prepare creates it)
if [ "$KIND" = sqlite ]; then
    rm -f "$J/absent.db"
    sb absent --sqlite-db="$J/absent.db" params
    expect_eq "params on a missing SQLite file: exit status" "$rc" 1
    expect_eq "params on a missing SQLite file: file created" "$([ -e "$J/absent.db" ] && echo yes || echo no)" no
    expect_eq "params on a missing SQLite file: message" \
        "$(grep -c "SQLite database '$J/absent.db' does not exist" "$OUT")" 1
    sb absentprep --sqlite-db="$J/absent.db" --scan-rows=10 --sweep-rows=10 diag prepare
    expect_eq "diag prepare on a missing SQLite file creates it" "$rc/$([ -s "$J/absent.db" ] && echo yes)" 0/yes
    rm -f "$J/absent.db"*
fi

# every run's JSON final report carries the same settings (run.server_settings)
printf 'function event() end\n' > "$J/noop.lua"
run_settings() { # OPTIONS...: a 5-event run's run.server_settings into $J/run-settings.json
    rm -f "$J/run.json"
    sb runsettings --db-server-settings=on --events=5 --time=0 --report-format=json --output="$J/run.json" "$@" "$J/noop.lua" run
    [ $rc = 0 ] || { show_out; fail "noop run exited $rc"; }
    tail -1 "$J/run.json" | py 'import json,sys; print(json.dumps(json.load(sys.stdin)["run"].get("server_settings", {})))' > "$J/run-settings.json"
}
run_setting() { py 'import json,sys; print(json.load(open(sys.argv[1]))["settings"][sys.argv[2]]["value"])' "$J/run-settings.json" "$1"; }
run_settings
v=$(py 'import json,sys
run = json.load(open(sys.argv[1]))
d = json.loads(open(sys.argv[2]).readline())
want = {s["name"]: s["value"] for s in d["settings"]}
got = {k: v["value"] for k, v in run.get("settings", {}).items()}
print("same" if got == want and run.get("version") == d.get("version", d.get("server")) else "%r vs %r" % (run, want))' "$J/run-settings.json" "$J/params.json")
expect_eq "run.server_settings of a run = params ($(py 'import json,sys; print(len(json.load(open(sys.argv[1]))["settings"]))' "$J/run-settings.json") settings)" "$v" same
setting() { py 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print([s["value"] for s in d["settings"] if s["name"]==sys.argv[2]][0])' "$J/params.json" "$1"; }
case "$KIND" in
pg)
    adminq "ALTER SYSTEM SET random_page_cost = 1.7" >/dev/null; adminq "SELECT pg_reload_conf()" >/dev/null; sleep 0.5
    sb params2 --report-format=json params; grep '^{' "$OUT" > "$J/params.json"
    expect_eq "params: random_page_cost after ALTER SYSTEM" "$(setting random_page_cost)" 1.7
    run_settings
    expect_eq "run.server_settings: random_page_cost after ALTER SYSTEM" "$(run_setting random_page_cost)" 1.7
    adminq "ALTER SYSTEM RESET random_page_cost" >/dev/null; adminq "SELECT pg_reload_conf()" >/dev/null ;;
maria)
    old=$(dbq "SELECT @@GLOBAL.innodb_io_capacity"); adminq "SET GLOBAL innodb_io_capacity = 345"
    sb params2 --report-format=json params; grep '^{' "$OUT" > "$J/params.json"
    expect_eq "params: innodb_io_capacity after SET GLOBAL" "$(setting innodb_io_capacity)" 345
    run_settings
    expect_eq "run.server_settings: innodb_io_capacity after SET GLOBAL" "$(run_setting innodb_io_capacity)" 345
    adminq "SET GLOBAL innodb_io_capacity = $old" ;;
sqlite)
    if [ "$TARGET" = sqlite ]; then
        sb params2 --sqlite-journal-mode=delete --report-format=json params; grep '^{' "$OUT" > "$J/params.json"
        expect_eq "params: journal_mode with --sqlite-journal-mode=delete" "$(setting journal_mode)" delete
        run_settings --sqlite-journal-mode=delete
        expect_eq "run.server_settings: journal_mode with --sqlite-journal-mode=delete" "$(run_setting journal_mode)" delete
    fi ;;
esac

# diag's JSON line of one test: runs `diag TEST` with the options given
diag_json() {
    t=$1; shift
    sb "$t" --report-format=json "$@" diag "$t"
    [ $rc = 0 ] || { show_out; fail "diag $t exited $rc"; }
    grep '^{' "$OUT" | py 'import json, sys
print([l for l in sys.stdin if json.loads(l).get("test") == sys.argv[1]][-1], end="")' "$t" > "$J/$t.json"
}
jget() { py 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$J/$1.json" "$2"; }

# ---- connect ----
N=7
case "$KIND" in
pg) sleep 1.2; s0=$(adminq "SELECT sessions FROM pg_stat_database WHERE datname='sbtest'") ;;
maria) s0=$(adminq "SHOW GLOBAL STATUS LIKE 'Connections'" | awk '{print $2}') ;;
esac
diag_json connect --connects=$N --diag-repeats=1
expect_eq "connect: connections in the report" "$(jget connect 'd["connects"]')" $N
case "$KIND" in
pg) sleep 1.5; s1=$(adminq "SELECT sessions FROM pg_stat_database WHERE datname='sbtest'")
    expect_eq "connect: sessions pg_stat_database counted" $((s1 - s0)) $N ;;
maria) s1=$(adminq "SHOW GLOBAL STATUS LIKE 'Connections'" | awk '{print $2}')
    # the second SHOW's own client is one more connection
    expect_eq "connect: Connections MariaDB counted" $((s1 - s0 - 1)) $N ;;
esac
v=$(jget connect '1 if d["connect_ms"]["min"] <= d["connect_ms"]["avg"] <= d["connect_ms"]["max"] and d["connect_ms"]["min"] <= d["connect_ms"]["p95"] <= d["connect_ms"]["max"] else 0')
expect_eq "connect: min <= avg, p95 <= max" "$v" 1

# ---- select ----
case "$KIND" in
pg) adminq "SELECT pg_stat_statements_reset()" >/dev/null ;;
maria) e0=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'" | awk '{print $2}') ;;
esac
diag_json select --diag-time=1 --diag-repeats=1
q=$(jget select 'd["with_fetch"]["queries"] + d["no_fetch"]["queries"]')
case "$KIND" in
pg) sleep 1.5
    c=$(adminq "SELECT coalesce(sum(calls),0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest') AND query = 'SELECT \$1'")
    expect_eq "select: queries = pg_stat_statements calls" "$c" "$q" ;;
maria) e1=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'" | awk '{print $2}')
    expect_eq "select: queries = Com_stmt_execute" $((e1 - e0)) "$q" ;;
*) expect_range "select: queries" "$q" 100 1000000000 ;;
esac

# ---- blob ----
diag_json blob --blob-size=300000 --blobs=3 --diag-repeats=1
expect_eq "blob: bytes written" "$(jget blob 'd["bytes_written"]')" 900000
case "$KIND" in
pg) srv=$(dbq "SELECT sum(octet_length(b)) FROM diag_blob") ;;
maria) srv=$(dbq "SELECT sum(length(b)) FROM diag_blob") ;;
sqlite) srv=$(dbq "SELECT sum(length(CAST(b AS BLOB))) FROM diag_blob") ;;
esac
expect_eq "blob: bytes the server stores" "$srv" 900000
expect_eq "blob: bytes read back" "$(jget blob 'd["bytes_read"]')" 900000
expect_eq "blob: read back identical" "$(jget blob 'd["identical"]')" True
case "$KIND" in # three different values of the right size on the server
pg) expect_eq "blob: distinct md5 on the server" "$(dbq "SELECT count(DISTINCT md5(b)) FROM diag_blob WHERE octet_length(b) = 300000")" 3 ;;
maria) expect_eq "blob: distinct md5 on the server" "$(dbq "SELECT count(DISTINCT md5(b)) FROM diag_blob WHERE length(b) = 300000")" 3 ;;
esac
# binary bytes, not text: the server's own hex of each BLOB's first 4096
# bytes holds all 256 byte values (NUL, quotes, backslash, bytes >= 0x80)
case "$KIND" in
pg) hx=$(dbq "SELECT string_agg(encode(substring(b from 1 for 4096), 'hex'), ',' ORDER BY id) FROM diag_blob") ;;
maria) hx=$(dbq "SELECT GROUP_CONCAT(HEX(SUBSTRING(b, 1, 4096)) ORDER BY id) FROM diag_blob") ;;
sqlite) hx=$(dbq "SELECT group_concat(hex(substr(b, 1, 4096)), ',') FROM (SELECT b FROM diag_blob ORDER BY id)") ;;
esac
expect_eq "blob: distinct byte values the server stores in each BLOB" \
    "$(py "import sys; print(' '.join(str(len(set(bytes.fromhex(h)))) for h in sys.argv[1].split(',')))" "$hx")" "256 256 256"
expect_eq "blob: stored bytes = the bytes sent as hex text (the server's MD5/hex)" \
    "$(jget blob 'd["server_identical"]')" 3
expect_eq "blob: read back as binary (not as hex text)" "$(jget blob 'd["read_as_hex"]')" False
echo "info blob: $(jget blob '"upload %.1f MB/s, download %.1f MB/s" % (d["upload_mb_s"], d["download_mb_s"])')"
# PostgreSQL: the downloads travel as raw bytes (bytea results in binary
# format), not hex text of twice the size: the bytes the client received
# (strace's recvfrom results, fast path and libpq) for 4 x 1 MiB values
# are 5 MiB and a little: the statement's first answer in hex text (2 MiB:
# it shows the columns are all bytea), the 3 others raw (all hex: 8 MiB)
if [ "$TARGET" = pgsql ] && command -v strace >/dev/null; then
    for wire in on off; do
        # shellcheck disable=SC2086
        strace -f -e trace=recvfrom -o "$J/blob-$wire.strace" "$SBENCH" $SB_DRV --db-server-counters=off \
            --db-server-settings=off --pgsql-wire=$wire --blob-size=1048576 --blobs=4 --diag-repeats=1 \
            diag blob >"$J/blob-$wire.out" 2>&1
        expect_eq "blob under strace, --pgsql-wire=$wire: exit status, identical" \
            "$?,$(grep -c 'identical: yes' "$J/blob-$wire.out")" 0,1
        kib=$(awk '/recvfrom\(/ { n = $NF; if (n ~ /^[0-9]+$/) s += n } END { printf "%d", s / 1024 }' "$J/blob-$wire.strace")
        expect_range "blob, --pgsql-wire=$wire: KiB received for 4 MiB downloaded (hex text: 8192+)" "$kib" 5120 5400
    done
fi
# the same through literal SQL (--db-ps-mode=disable): the bytes as a hex
# literal ('\x..'::bytea, X'..')
if [ "$TARGET" = pgsql ] || [ "$TARGET" = mysql ]; then
    diag_json blob --blob-size=300000 --blobs=3 --diag-repeats=1 --db-ps-mode=disable
    expect_eq "blob, ps-mode disable: read back identical" "$(jget blob 'd["identical"]')" True
    expect_eq "blob, ps-mode disable: stored bytes = the bytes sent" "$(jget blob 'd["server_identical"]')" 3
fi

# ---- scan ----
[ "$TARGET" = pgsql ] && adminq "SELECT pg_stat_statements_reset()" >/dev/null
[ "$TARGET" = mysql ] && s0=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_select'" | awk '{print $2}')
diag_json scan --diag-repeats=1
if [ "$TARGET" = mysql ]; then
    # one streamed SELECT (mysql_use_result): the server ran one SELECT
    s1=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_select'" | awk '{print $2}')
    expect_eq "scan: SELECTs the server ran for the streamed scan (Com_select)" $((s1 - s0)) 1
    expect_eq "scan: method" "$(jget scan 'd["method"]')" stream
    stream_first=$(jget scan 'd["first_row_ms"]')
fi
if [ "$TARGET" = pgsql ]; then
    # the cursor's first-row time against the server's own execution times
    # (pg_stat_statements): the DECLARE's plus one FETCH's, between the
    # fastest and the slowest FETCH (+ 100 ms for two round trips on a busy
    # machine), and the last-row time at least all of the server's time;
    # the FETCHes are the fetches sbench counted
    sleep 1
    ss="FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='sbtest')"
    srv=$(adminq "SELECT (SELECT coalesce(sum(total_exec_time), 0) $ss AND query LIKE 'DECLARE diag_scan%') || ' ' ||
                         (SELECT coalesce(min(min_exec_time), 0) $ss AND query LIKE 'FETCH FORWARD%') || ' ' ||
                         (SELECT coalesce(sum(total_exec_time), 0) $ss AND (query LIKE 'FETCH FORWARD%' OR query LIKE 'DECLARE diag_scan%')) || ' ' ||
                         (SELECT coalesce(sum(calls), 0) $ss AND query LIKE 'FETCH FORWARD%') || ' ' ||
                         (SELECT coalesce(max(max_exec_time), 0) $ss AND query LIKE 'FETCH FORWARD%')")
    set -- $srv
    expect_eq "scan: FETCHes the server ran = fetches sbench counted" "$4" "$(jget scan 'd["fetches"]')"
    v=$(jget scan '1 if '"$1"' + '"$2"' <= d["first_row_ms"] <= '"$1"' + '"$5"' + 100 and d["last_row_ms"] >= '"$3"' else "%r vs server %s" % ((d["first_row_ms"], d["last_row_ms"]), "'"$srv"'")')
    expect_eq "scan: first row between the server's DECLARE + fastest and + slowest FETCH (+ 100 ms for 2 round trips), last row >= its total ($srv)" "$v" 1
fi
expect_eq "scan: rows read = count(*)" "$(jget scan 'd["rows"]')" "$(dbq 'SELECT count(*) FROM diag_big')"
if [ "$KIND" != sqlite ]; then
    expect_eq "scan: first row under a tenth of the last ($(jget scan '"%.1f / %.1f ms" % (d["first_row_ms"], d["last_row_ms"])'))" \
        "$(jget scan '1 if d["first_row_ms"] * 10 < d["last_row_ms"] else 0')" 1
fi

# --scan-method=one: one SELECT for the whole table (the server counts one)
if [ "$TARGET" = mysql ]; then
    c0=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_select'" | awk '{print $2}')
    diag_json scan --diag-repeats=1 --scan-method=one
    c1=$(adminq "SHOW GLOBAL STATUS LIKE 'Com_select'" | awk '{print $2}')
    expect_eq "scan one: rows read = count(*)" "$(jget scan 'd["rows"]')" "$(dbq 'SELECT count(*) FROM diag_big')"
    # the SHOW's own client is no SELECT; the count(*) above ran after c1
    expect_eq "scan one: SELECTs the server ran (Com_select)" $((c1 - c0)) 1
    expect_eq "scan one: method" "$(jget scan 'd["method"]')" one_buffered
    # the same SELECT buffered whole: its first row comes after all rows
    # were received, the streamed one's long before
    expect_eq "scan: streamed first row ($stream_first ms) under half the buffered one's" \
        "$(jget scan '1 if '"$stream_first"' * 2 < d["first_row_ms"] else d["first_row_ms"]')" 1
fi

# ---- temp ----
diag_json temp --temp-rows=100,2000
expect_eq "temp: sizes" "$(jget temp '",".join(str(s["rows"]) for s in d["sizes"])')" 100,2000
expect_eq "temp: INSERTs of 80 rows (2000 rows: 25, 100 rows: 2)" "$(jget temp '",".join(str(s["insert_statements"]) for s in d["sizes"])')" 2,25
# the batched insert against the same batches run as plain SQL by the
# database's own client (the server's clock around them, one session):
# sbench takes at most 3x as long (+100 ms for a busy machine); one row
# per round trip, as before, took 30-100x as long
case "$KIND" in
pg | maria)
    diag_json temp --temp-rows=100000 --diag-repeats=1
    py 'import random, sys
kind = sys.argv[1]
clock = "SELECT extract(epoch from clock_timestamp());" if kind == "pg" else "SELECT UNIX_TIMESTAMP(NOW(6));"
print("CREATE TEMPORARY TABLE diag_tmp2 (id INTEGER NOT NULL, k INTEGER NOT NULL, c VARCHAR(60) NOT NULL);")
print("BEGIN;" if kind == "pg" else "START TRANSACTION;")
print(clock)
for b in range(1250):
    print("INSERT INTO diag_tmp2 (id, k, c) VALUES " + ", ".join(
        "(%d, %d, \x27%s\x27)" % (b * 80 + i + 1, random.randint(1, 100000),
                               "".join(random.choice("abcdefghij") for _ in range(20))) for i in range(80)) + ";")
print(clock)
print("SELECT count(*) FROM diag_tmp2;")
print("COMMIT;")' "$KIND" > "$J/temp-plain.sql"
    case "$KIND" in
    pg) psql -X -qAt -v ON_ERROR_STOP=1 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -f "$J/temp-plain.sql" ;;
    maria) mariadb --no-defaults -uroot --socket="$SBT_MYSQL_SOCKET" -N -B -D sbtest < "$J/temp-plain.sql" ;;
    esac > "$J/temp-plain.out"
    expect_eq "temp: the plain SQL run inserted 100000 rows" "$(sed -n 3p "$J/temp-plain.out")" 100000
    plain=$(awk 'NR == 1 { a = $1 } NR == 2 { printf "%.0f", ($1 - a) * 1000 }' "$J/temp-plain.out")
    v=$(jget temp '"%.0f" % d["sizes"][0]["insert_ms"]')
    expect_eq "temp: sbench's batched insert of 100000 rows ($v ms) within 3x the plain SQL run's ($plain ms) + 100 ms" \
        "$(awk -v a="$v" -v b="$plain" 'BEGIN { print (a <= 3 * b + 100) ? 1 : 0 }')" 1 ;;
esac

# ---- repetitions: each test 3 times, the spread of its figures ----
sb repeats --report-format=json --diag-time=1 --diag-repeats=3 diag select
[ $rc = 0 ] || { show_out; fail "diag select with repeats exited $rc"; }
grep '^{' "$OUT" > "$J/repeats.json"
v=$(py 'import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
runs = [o for o in objs if o.get("test") == "select"]
sp = [o for o in objs if o.get("test") == "spread"][0]
qps = sorted(r["with_fetch"]["qps"] for r in runs)
f = [x for x in sp["figures"] if x["label"] == "trivial SELECT with fetch"][0]
ok = len(runs) == 3 and abs(f["median"] - qps[1]) < 1e-6 and abs(f["min"] - qps[0]) < 1e-6 and abs(f["max"] - qps[2]) < 1e-6
# a warning exactly when the spread is over 10% of the median, or over the
# with/no fetch difference
nf = [x for x in sp["figures"] if x["label"] == "trivial SELECT no fetch"][0]
want = (f["max"] - f["min"]) / f["median"] > 0.10 or max(f["max"] - f["min"], nf["max"] - nf["min"]) > abs(f["median"] - nf["median"])
got = any("trivial SELECT with fetch" in w for w in sp["warnings"])
print(1 if ok and want == got else "%r %r %r %r" % (qps, f, want, got))' "$J/repeats.json")
expect_eq "repeats: 3 runs; median, min, max of the spread = the runs' own; warned exactly when noisy" "$v" 1
# the summary's headline is the median run (it was the last one): 3
# connects runs, the headline's avg = the median of the three runs' avg,
# and the JSON names that run
sb headline --report-format=json --connects=5 --diag-repeats=3 --tests=connect diag run
[ $rc = 0 ] || { show_out; fail "diag run with repeats exited $rc"; }
grep '^{' "$OUT" > "$J/headline.json"
v=$(py 'import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
runs = [o["connect_ms"]["avg"] for o in objs if o.get("test") == "connect"]
sp = [o for o in objs if o.get("test") == "spread"][0]
med = sorted(runs)[1]
print(1 if len(runs) == 3 and runs[sp["median_run"] - 1] == med else "%r %r" % (runs, sp.get("median_run")))' "$J/headline.json")
expect_eq "repeats: the summary shows the median run (JSON median_run)" "$v" 1
sb headline-text --connects=5 --diag-repeats=3 --tests=connect diag run
want=$(awk '/^    avg:/ { print $2 }' "$OUT" | sort -n | sed -n 2p)
got=$(sed -n 's/^connection open *avg \([0-9.]*\) ms.*/\1/p' "$OUT")
expect_eq "repeats: the text summary's headline avg is the median of the runs' ($(awk '/^    avg:/ { printf "%s ", $2 }' "$OUT"))" "$got" "$want"

# ---- sweep ----
l0=$(dbq "SELECT count(*) FROM diag_log")
diag_json sweep --sweep-clients=4 --sweep-time=1 --sweep-rows=1000
expect_eq "sweep: steps" "$(jget sweep '",".join(str(s["clients"]) for s in d["steps"])')" 1,2,4
expect_eq "sweep: threads of each step" "$(jget sweep '",".join(str(s["threads"]) for s in d["steps"])')" 1,2,4
if [ "$KIND" != sqlite ]; then
    expect_eq "sweep: sessions the server saw per step (diag_seen)" \
        "$(dbq "SELECT clients, count(DISTINCT backend) FROM diag_seen GROUP BY clients ORDER BY clients" | tr '\t|\n' ':: ')" "1:1 2:2 4:4 "
fi
tx=$(jget sweep 'sum(s["transactions"] for s in d["steps"])')
expect_eq "sweep: transactions = rows inserted into diag_log" $(($(dbq "SELECT count(*) FROM diag_log") - l0)) "$tx"

# ---- bad options: one line, a non-zero exit, no test run ----
for o in --diag-repeats=0 --temp-batch=86 --temp-rows=x --scan-method=zz --tests=foo; do
    sb bad $o diag run
    checks=$((checks + 1))
    if [ "$rc" != 0 ] && [ "$(grep -c . "$OUT")" -le 2 ] && grep -q "^FATAL: ${o%%=*}" "$OUT" && ! grep -q traceback "$OUT"; then
        echo "ok   $o refused: $(grep FATAL "$OUT" | cut -c1-90)"
    else
        fail "$o: exit $rc"; show_out
    fi
done

# ---- the whole suite's summary ----
sb run --tests=connect,select --connects=3 --diag-time=1 --diag-repeats=2 diag run
[ $rc = 0 ] && grep -q "^Diagnosis of" "$OUT" && grep -q "^trivial SELECT no fetch" "$OUT" &&
    echo "ok   diag run: summary" || { show_out; fail "diag run: no summary (exit $rc)"; }
checks=$((checks + 1))
sb cleanup diag cleanup
expect_eq "cleanup: diag tables left" "$(table_exists diag_big)$(table_exists diag_blob)" 00

# ---- sbk: writers and readers ----
sb sbkprep --records=200 --record-size=256 sbk prepare
[ $rc = 0 ] || { show_out; fail "sbk prepare exited $rc"; }
sb sbk --threads=2 --readers=1 --record-size=256 --time=2 --report-interval=1 \
    --report-format=json --output="$J/sbk.json" sbk run
[ $rc = 0 ] || { show_out; fail "sbk run exited $rc"; }
cp "$OUT" "$J/sbk.txt"
rows=$(dbq "SELECT count(*) FROM sbk_records")
w=$(awk '/^Total : .* Writing/ { for (i = 1; i <= NF; i++) if ($i == "Writing") print $(i + 1) }' "$J/sbk.txt")
expect_eq "sbk: records written (Total line) = rows added" "$w" $((rows - 200))
expect_eq "sbk: records written (JSON insert count)" "$(tail -1 "$J/sbk.json" | py 'import json,sys; print(json.load(sys.stdin)["kinds"]["insert"]["count"])')" "$w"
v=$(py 'import json, re, sys
fin = json.loads(open(sys.argv[1]).read().splitlines()[-1])
t = [l for l in open(sys.argv[2]) if l.startswith("Total : ") and " Writing " in l][0]
mb = float(re.search(r"([0-9.]+) MB/sec", t).group(1))
want = fin["kinds"]["insert"]["count"] * 256 / 1048576 / fin["seconds"]
print(1 if abs(mb - want) <= 0.01 * want + 0.005 else "%s vs %s" % (mb, want))' "$J/sbk.json" "$J/sbk.txt")
expect_eq "sbk: Total MB/s = records x size / seconds (1%)" "$v" 1
# beside a writer the reader runs until the end (it waited at the table's
# end for new records): its Total rate is its records over the run's
# seconds, and it read every record the writer wrote before the last window
v=$(py 'import json, re, sys
fin = json.loads(open(sys.argv[1]).read().splitlines()[-1])
t = [l for l in open(sys.argv[2]) if l.startswith("Total : ") and " Reading " in l][0]
n, rate = re.search(r"Reading ([0-9]+) records, ([0-9.]+) records/sec", t).groups()
want = int(n) / fin["seconds"]
print(1 if abs(float(rate) - want) <= 0.01 * want + 0.05 and fin["types"]["read"]["count"] == int(n) else "%s vs %s" % (rate, want))' "$J/sbk.json" "$J/sbk.txt")
expect_eq "sbk: reader's Total rate = records read / the run's seconds" "$v" 1
expect_eq "sbk: the reader read in every window the writer wrote in (it waited at the end, did not stop)" \
    "$(grep -c '^[a-z]* Reading ' "$J/sbk.txt")" "$(grep -c '^[a-z]* Writing ' "$J/sbk.txt")"
grep -q "Reading .* records/sec, .* MB/sec, .* ms 10th, .* ms 99.99th" "$J/sbk.txt" &&
    echo "ok   sbk: Reading lines with SBK's percentiles" || fail "sbk: no Reading line"
checks=$((checks + 1))
expect_range "sbk: window lines" "$(grep -c '^[a-z]* Writing ' "$J/sbk.txt")" 1 5
# a writers-only run reads nothing: no Reading line (the writer's startup
# query for its next id is no record)
sb sbkw --threads=1 --record-size=256 --time=1 --report-interval=1 sbk run
[ $rc = 0 ] || { show_out; fail "sbk writers-only run exited $rc"; }
expect_eq "sbk: Reading lines of a writers-only run" "$(grep -c ' Reading ' "$OUT")" 0
# readers alone stop at the table's end, as SBK's do: they read each
# record once (the table's count), however long --time is
n=$(dbq "SELECT count(*) FROM sbk_records")
t0=$(date +%s)
sb sbkr --threads=2 --readers=2 --record-size=256 --time=60 sbk run
t1=$(date +%s)
[ $rc = 0 ] || { show_out; fail "sbk readers-only run exited $rc"; }
r=$(awk '/^Total : .* Reading/ { for (i = 1; i <= NF; i++) if ($i == "Reading") print $(i + 1) }' "$OUT")
expect_eq "sbk: 2 readers read each record once, then stop (2 x count(*))" "$r" $((2 * n))
expect_range "sbk: readers stopped at the end, not at --time=60 (seconds)" $((t1 - t0)) 0 45
# MB/s from the bytes read, not from the run's --record-size: records of
# 256 bytes read with --record-size=2560 (it once showed 10x the truth)
bytes=$(dbq "SELECT sum(length(data)) FROM sbk_records")
sb sbkr10 --threads=1 --readers=1 --record-size=2560 --time=60 --report-format=json --output="$J/sbk-r.json" sbk run
[ $rc = 0 ] || { show_out; fail "sbk reader run exited $rc"; }
v=$(py 'import json, re, sys
fin = json.loads(open(sys.argv[1]).read().splitlines()[-1])
t = [l for l in open(sys.argv[2]) if l.startswith("Total : ") and " Reading " in l][0]
mb = float(re.search(r"([0-9.]+) MB/sec", t).group(1))
want = int(sys.argv[3]) / 1048576 / fin["seconds"]
print(1 if abs(mb - want) <= 0.01 * want + 0.005 else "%s vs %s" % (mb, want))' "$J/sbk-r.json" "$OUT" "$bytes")
expect_eq "sbk: reader's MB/s = the bytes in the table (sum(length(data)) = $bytes) / seconds" "$v" 1
sb sbkclean sbk cleanup

echo "diag $TARGET: $checks checks, $failures failures"
[ "$failures" = 0 ]
