#!/bin/bash
# history.sh: the run history (history/, docs/history.md) with real runs:
# the null driver's runs recorded in a SQLite store and read back against
# their own reports and a SQL count made outside sbench, compare's runs,
# the filters, import (good and bad files), two writers at once, stores
# that cannot be written (corrupt, a directory, a newer schema, a server
# that does not answer, a full disk: the run's report and exit status
# stand), an older store migrated, two "machines" sharing the suite's
# PostgreSQL, sbench pgbench, and history report --html in Chromium.
# Needs the SBT_* PostgreSQL of scripts/test.sh.  (~40 s)
set -u
: "${SBT_BUILD:?}" "${SBT_TMP:?}" "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/wl-lib.sh"
tmp=$(mktemp -d "$SBT_TMP/history.XXXXXX")
unset SBENCH_HISTORY SBENCH_HISTORY_SESSION SBENCH_HISTORY_TARGET
H=$tmp/h.db
RUN="--db-driver=null oltp_read_only --time=0 --threads=2"

sql() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("\n".join("|".join("" if v is None else str(v) for v in r) for r in c.execute(sys.argv[2])))' "$1" "$2"; }
count() { sql "$1" "SELECT count(*) FROM sbench_runs"; }
# one_line WHAT FILE PATTERN: FILE is exactly one line, matching PATTERN
one_line() {
    checks=$((checks + 1))
    if [ "$(wc -l < "$2")" -eq 1 ] && grep -q -- "$3" "$2"; then echo "ok   $1: $(cat "$2")"
    else fail "$1: want one line with '$3', got:"; sed 's/^/     | /' "$2"; fi
}

echo "== runs recorded: counts from --events, figures from each run's own report"
for i in 1 2 3; do
    b=a; [ $i -gt 1 ] && b=b
    $SBENCH --history="$H" $RUN --events=$((i * 400)) --label=build=$b --label=n=$i \
        --pgsql-password=HistSecretX --report-format=json --output="$tmp/r$i.json" run >/dev/null 2>"$tmp/err"
    expect_eq "run $i exit status" "$?" 0
done
expect_eq "runs in the store (SQL count)" "$(count "$H")" 3
# reading a store that is not there says so and makes none
$SBENCH history list --history="$tmp/none/h.db" >"$tmp/none.out" 2>&1
expect_eq "list of a missing store: exit status" "$?" 1
one_line "list of a missing store" "$tmp/none.out" "no history store at '$tmp/none/h.db'"
expect_eq "list of a missing store: nothing made" "$(ls "$tmp/none" 2>/dev/null | wc -l)" 0
expect_eq "transactions recorded" "$(sql "$H" "SELECT group_concat(CAST(transactions AS INT)) FROM (SELECT transactions FROM sbench_runs ORDER BY id)")" "400,800,1200"
for i in 1 2 3; do
    got=$(sql "$H" "SELECT tps FROM sbench_runs WHERE id = $i")
    want=$(tail -n 1 "$tmp/r$i.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tps"])')
    expect_eq "run $i tps = its report's" "$(python3 -c "print(abs($got - $want) <= 1e-12 * $want)")" True
done
expect_eq "labels of run 2" "$(sql "$H" "SELECT group_concat(key || '=' || value) FROM (SELECT key, value FROM sbench_run_labels WHERE run = 2 ORDER BY key)")" "build=b,n=2"
expect_eq "the password is nowhere in the store" "$(grep -c HistSecretX "$H")" 0
expect_eq "the command line is recorded, masked" "$(sql "$H" "SELECT count(*) FROM sbench_runs WHERE cmdline LIKE '%--pgsql-password=*** %'")" 3
$SBENCH --history=off $RUN --events=10 run >/dev/null 2>&1
SBENCH_HISTORY=off $SBENCH $RUN --events=10 run >/dev/null 2>&1
SBENCH_HISTORY=$H $SBENCH $RUN --events=10 prepare >/dev/null 2>&1
expect_eq "--history=off, SBENCH_HISTORY=off, prepare: nothing recorded" "$(count "$H")" 3
SBENCH_HISTORY=$H $SBENCH $RUN --events=10 --label=via=env run >/dev/null 2>&1
expect_eq "SBENCH_HISTORY names the store" "$(count "$H")" 4
$SBENCH $RUN --events=10 --label=novalue run >/dev/null 2>"$tmp/err"
expect_eq "--label without = exits 2" "$?" 2

echo "== list, filters, export"
$SBENCH history list --history="$H" --label=build=b > "$tmp/list"
expect_eq "list --label=build=b: runs" "$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /-/ {print $1}' "$tmp/list" | tr '\n' ' ')" "2 3 "
expect_eq "list --last=2 --label=build=b --label=n=3" "$($SBENCH history list --history="$H" --last=2 --label=build=b --label=n=3 | awk '$1 ~ /^[0-9]+$/ && $2 ~ /-/ {print $1}')" 3
expect_eq "list --since=1d --workload (all four)" "$($SBENCH history list --history="$H" --since=1d --workload=oltp_read_only | grep -c '^[0-9][0-9]* *20[0-9][0-9]-')" 4
expect_eq "list --until=2001-01-01" "$($SBENCH history list --history="$H" --until=2001-01-01 | grep -c '^[0-9][0-9]* *20[0-9][0-9]-')" 0
$SBENCH history export --history="$H" --format=json --output="$tmp/e.json"
expect_eq "export JSON: transactions by run" "$(python3 -c 'import json,sys; print(",".join(str(int(r["transactions"])) for r in json.load(open(sys.argv[1]))))' "$tmp/e.json")" "400,800,1200,10"
checks=$((checks + 1))
if python3 - "$tmp/e.json" "$here/../../docs/history.schema.json" "$here/../../docs/report.schema.json" <<'PY'; then echo "ok   export JSON valid against docs/history.schema.json"; else fail "export JSON against the schemas"; fi
import json, sys, jsonschema
runs, schema, line = (json.load(open(p)) for p in sys.argv[1:4])
assert len(runs) == 4
for r in runs:
    jsonschema.validate(r, schema)
    assert "report" not in r
PY
$SBENCH history export --history="$H" --format=json --with-report --last=1 --output="$tmp/e1.json"
checks=$((checks + 1))
if python3 - "$tmp/e1.json" "$here/../../docs/history.schema.json" "$here/../../docs/report.schema.json" <<'PY'; then echo "ok   export --with-report: the run's report lines valid against report.schema.json"; else fail "export --with-report"; fi
import json, sys, jsonschema
runs, schema, line = (json.load(open(p)) for p in sys.argv[1:4])
assert len(runs) == 1 and runs[0]["transactions"] == 10
jsonschema.validate(runs[0], schema)
assert [l["type"] for l in runs[0]["report"]][-1] == "final"
for l in runs[0]["report"]:
    jsonschema.validate(l, line)
PY
expect_eq "export CSV: lines" "$($SBENCH history export --history="$H" --format=csv | python3 -c 'import csv,sys; print(len(list(csv.reader(sys.stdin))))')" 5
$SBENCH history show --history="$H" 2 > "$tmp/show"
expect_eq "show 2: transactions" "$(grep -c 'transactions:   800 in' "$tmp/show")" 1
$SBENCH history diff --history="$H" 1 2 > "$tmp/diff"
expect_eq "diff 1 2 names the changed option" "$(grep -c '^  events  *400 -> 800' "$tmp/diff")" 1
$SBENCH history show --history="$H" 99 2>"$tmp/err"
expect_eq "show of a missing run exits 1" "$?" 1

echo "== import: a run's own report adds nothing, bad files are named"
$SBENCH history import --history="$H" "$tmp/r1.json" > "$tmp/out"
expect_eq "import of run 1's report" "$(cat "$tmp/out")" "$tmp/r1.json: already in the history as run 1"
head -c 200 "$tmp/r2.json" > "$tmp/bad-truncated.json"
python3 - "$tmp/r2.json" "$tmp/bad-tps.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
fin = json.loads(lines[-1]); fin["tps"] = fin["tps"] * 1.5
open(sys.argv[2], "w").write("\n".join(lines[:-1] + [json.dumps(fin)]) + "\n")
PY
echo '{"a": 1}' > "$tmp/bad-other.json"
: > "$tmp/bad-empty.json"
mkdir -p "$tmp/nothing"
$SBENCH history import --history="$H" "$tmp/bad-truncated.json" "$tmp/bad-tps.json" "$tmp/bad-other.json" \
    "$tmp/bad-empty.json" "$tmp/nothing" /dev/null >/dev/null 2>"$tmp/err"
expect_eq "import of bad files exits 1" "$?" 1
expect_eq "one line per bad file" "$(wc -l < "$tmp/err")" 6
expect_eq "the tps that is not count/seconds is named" "$(grep -c 'bad-tps.json: line [0-9]*: "tps"' "$tmp/err")" 1
expect_eq "nothing imported from them" "$(count "$H")" 4

echo "== compare's runs: one session, each repeat of each target"
C=$tmp/c.db
$SBENCH compare --target=a:--db-driver=null --target=b:'--db-driver=null --null-delay-us=200' --repeats=2 \
    --time=1 --warmup-time=0 --prepare=off --quiet --results="$tmp/cmp" --history="$C" oltp_read_only >/dev/null 2>&1
expect_eq "compare exit status" "$?" 0
expect_eq "compare's runs recorded" "$(sql "$C" "SELECT count(DISTINCT session) || ' ' || group_concat(target || repeat_index, ',') FROM (SELECT * FROM sbench_runs WHERE source = 'compare' ORDER BY target, repeat_index)")" "1 a0,a1,b0,b1"
C2=$tmp/c2.db
$SBENCH history import --history="$C2" "$tmp/cmp" >/dev/null 2>&1
expect_eq "its results directory imported: same runs, targets, repeats" \
    "$(sql "$C2" "SELECT group_concat(run_id || target || repeat_index, ',') FROM (SELECT * FROM sbench_runs ORDER BY run_id)")" \
    "$(sql "$C" "SELECT group_concat(run_id || target || repeat_index, ',') FROM (SELECT * FROM sbench_runs ORDER BY run_id)")"

$SBENCH compare --target=a:--db-driver=null --repeats=1 --time=1 --warmup-time=0 --prepare=off --quiet \
    --results="$tmp/cmp-pw" --history="postgresql://u:HistSecretX@127.0.0.1:1/none" oltp_read_only >/dev/null 2>"$tmp/err"
expect_eq "compare with a history URI's password: exit status" "$?" 0
expect_eq "the password is in none of its files" "$(grep -rl HistSecretX "$tmp/cmp-pw" "$tmp/err" | wc -l)" 0

echo "== two writers at once, one holding the store locked for 2 s: nothing lost"
W=$tmp/w.db
$SBENCH --history="$W" $RUN --events=10 run >/dev/null 2>&1
python3 -c 'import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("BEGIN EXCLUSIVE"); time.sleep(2); c.execute("COMMIT")' "$W" &
sleep 0.3
pids=
for i in 1 2 3 4 5 6; do
    $SBENCH --history="$W" $RUN --events=$((100 + i)) run >/dev/null 2>"$tmp/w$i.err" & pids="$pids $!"
done
st=0; for p in $pids; do wait "$p" || st=1; done; wait
expect_eq "six writers' exit status" "$st" 0
expect_eq "six writers' records" "$(sql "$W" "SELECT group_concat(CAST(transactions AS INT)) FROM (SELECT transactions FROM sbench_runs WHERE transactions > 100 ORDER BY transactions)")" "101,102,103,104,105,106"
expect_eq "no writer complained" "$(cat "$tmp"/w*.err | wc -l)" 0

echo "== stores that cannot be written: one line, the run's report and status stand"
head -c 4096 /dev/urandom > "$tmp/corrupt.db"
sum=$(md5sum < "$tmp/corrupt.db")
mkdir -p "$tmp/adir.db"
cp "$H" "$tmp/newer.db"; python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE sbench_history_meta SET value = 99"); c.commit()' "$tmp/newer.db"
for store in "$tmp/corrupt.db" "$tmp/adir.db" "$tmp/newer.db" "postgresql://sbtest:HistSecretX@127.0.0.1:1/none"; do
    $SBENCH --history="$store" $RUN --events=50 run >"$tmp/out" 2>"$tmp/err"
    expect_eq "store $store: exit status" "$?" 0
    expect_eq "store $store: the report" "$(grep -c 'transactions: *50 ' "$tmp/out")" 1
    one_line "store $store: stderr" "$tmp/err" "not recorded in the history"
    expect_eq "store $store: no password" "$(grep -c HistSecretX "$tmp/err")" 0
done
expect_eq "the corrupt file is left as it was" "$(md5sum < "$tmp/corrupt.db")" "$sum"
# a full disk: the store may not grow (RLIMIT_FSIZE, SIGXFSZ ignored: each
# write past it fails as a full disk's would)
F=$tmp/full.db
$SBENCH --history="$F" $RUN --events=50 run >/dev/null 2>&1
fsum=$(md5sum < "$F")
(trap '' XFSZ; ulimit -f $(($(stat -c %s "$F") / 1024)); exec $SBENCH --history="$F" $RUN --events=60 run) >"$tmp/out" 2>"$tmp/err"
expect_eq "full disk: exit status" "$?" 0
expect_eq "full disk: the report" "$(grep -c 'transactions: *60 ' "$tmp/out")" 1
one_line "full disk: stderr" "$tmp/err" "not recorded in the history"
expect_eq "full disk: the store is as it was, whole" "$(md5sum < "$F") $(sql "$F" "PRAGMA integrity_check")" "$fsum ok"
$SBENCH history list --history="$tmp/corrupt.db" >/dev/null 2>"$tmp/err"
expect_eq "history list of a corrupt store exits 1" "$?" 1
one_line "history list of a corrupt store" "$tmp/err" "corrupt.db"

echo "== an older store (schema version 1) is migrated"
M=$tmp/v1.db
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read())' "$M" "$here/history-v1.sql"
$SBENCH --history="$M" $RUN --events=77 run >/dev/null 2>"$tmp/err"
expect_eq "run on a version 1 store: stderr" "$(cat "$tmp/err")" ""
expect_eq "schema version after" "$(sql "$M" "SELECT value FROM sbench_history_meta WHERE key = 'schema_version'")" 2
expect_eq "old and new runs listed" "$($SBENCH history list --history="$M" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /-/ {print $1 ":" $7}' | tr '\n' ' ')" "1:1234.50 2:$(sql "$M" "SELECT printf('%.2f', tps) FROM sbench_runs WHERE id = 2") "
expect_eq "the new run's host load is recorded" "$(sql "$M" "SELECT host_load IS NOT NULL FROM sbench_runs WHERE id = 2")" 1

echo "== two machines share one PostgreSQL history"
export PGPASSWORD=$SBT_PGPASSWORD
PSQL="psql -X -q -t -A -h $SBT_PGHOST -p $SBT_PGPORT -U sbtest -d sbtest"
$PSQL -c "DROP TABLE IF EXISTS sbench_run_labels, sbench_runs, sbench_history_meta" 2>/dev/null
URI="postgresql://sbtest:$SBT_PGPASSWORD@$SBT_PGHOST:$SBT_PGPORT/sbtest?sslmode=disable"
DSN="host=$SBT_PGHOST port=$SBT_PGPORT user=sbtest password=$SBT_PGPASSWORD dbname=sbtest sslmode=disable"
unset PGPASSWORD
for i in 1 2 3; do
    $SBENCH --history="$URI" $RUN --events=$((200 + i)) --label=machine=a run >/dev/null 2>"$tmp/pa$i.err" &
    $SBENCH --history="$DSN" $RUN --events=$((300 + i)) --label=machine=b run >/dev/null 2>"$tmp/pb$i.err" &
done
wait
expect_eq "no writer complained" "$(cat "$tmp"/p*.err | wc -l)" 0
export PGPASSWORD=$SBT_PGPASSWORD
expect_eq "PostgreSQL's count by machine" "$($PSQL -c "SELECT string_agg(l.value || ':' || r.transactions::int, ',' ORDER BY r.transactions) FROM sbench_runs r JOIN sbench_run_labels l ON l.run = r.id AND l.key = 'machine'")" \
    "a:201,a:202,a:203,b:301,b:302,b:303"
expect_eq "no password stored" "$($PSQL -c "SELECT count(*) FROM sbench_runs WHERE cmdline LIKE '%$SBT_PGPASSWORD%' OR report LIKE '%$SBT_PGPASSWORD%'")" 0
unset PGPASSWORD
$SBENCH history list --history="$URI" --label=machine=b > "$tmp/list" 2>&1
expect_eq "machine b's runs listed from the shared store" "$(grep -c '^[0-9][0-9]* *20[0-9][0-9]-' "$tmp/list")" 3
expect_eq "list shows no password" "$(grep -c "$SBT_PGPASSWORD" "$tmp/list")" 0

echo "== sbench pgbench is recorded as pgbench"
P=$tmp/p.db
echo 'SELECT 1;' > "$tmp/one.sql"
PGPASSWORD=$SBT_PGPASSWORD SBENCH_HISTORY=$P $SBENCH pgbench -n -f "$tmp/one.sql" -t 40 -c 2 \
    -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest sbtest >/dev/null 2>"$tmp/err"
expect_eq "pgbench exit status" "$?" 0
expect_eq "pgbench's record" "$(sql "$P" "SELECT source || ' ' || CAST(transactions AS INT) || ' ' || driver || ' ' || (cmdline LIKE '%pgbench -n -f%') FROM sbench_runs")" "pgbench 80 pgsql 1"
# diff names a server setting changed between two runs (work_mem, set for
# the role's new sessions, which sbench's settings session is)
export PGPASSWORD=$SBT_PGPASSWORD
$PSQL -c "ALTER ROLE sbtest SET work_mem = '7MB'"
SBENCH_HISTORY=$P $SBENCH pgbench -n -f "$tmp/one.sql" -t 40 -c 2 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest sbtest >/dev/null 2>&1
$PSQL -c "ALTER ROLE sbtest RESET work_mem"
unset PGPASSWORD
$SBENCH history diff --history="$P" 1 2 > "$tmp/diff"
checks=$((checks + 1))
if sed -n '/^server settings:/,/^[a-z]/p' "$tmp/diff" | grep -q '^  work_mem  *4096 kB -> 7168 kB$'; then echo "ok   diff names work_mem 4096 kB -> 7168 kB"
else fail "diff of the server settings:"; sed 's/^/     | /' "$tmp/diff"; fi

echo "== history report --html in headless Chromium"
R=$tmp/r.db
for i in 1 2 3; do
    $SBENCH --history="$R" --db-driver=null --null-delay-us=300 oltp_point_select --time=2 --report-interval=1 \
        --label=build=v$i run >/dev/null 2>&1
done
$SBENCH history report --history="$R" --html="$tmp/h.html" >/dev/null 2>"$tmp/err"
expect_eq "report exit status" "$?" 0
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --user-data-dir="$tmp/chrome" --dump-dom "file://$tmp/h.html" >"$tmp/dom.html" 2>/dev/null
$SBENCH history export --history="$R" --format=json --output="$tmp/r.json"
checks=$((checks + 1))
if python3 - "$tmp/dom.html" "$tmp/r.json" <<'PY'; then echo "ok   the page's charts and rows are the store's runs"; else fail "the page in Chromium"; fi
import html.parser, json, sys
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.svg = {}; self.fig = None; self.rows = []; self.cell = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure": self.fig = a.get("id")
        if tag == "svg" and self.fig: self.svg[self.fig] = self.svg.get(self.fig, 0) + 1
        if tag == "tr": self.rows.append([])
        if tag == "td": self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td": self.rows[-1].append(self.cell); self.cell = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = Page(); p.feed(open(sys.argv[1]).read())
runs = json.load(open(sys.argv[2]))
rows = [r for r in p.rows if r]
assert p.svg == {"chart-tps": 1, "chart-p95": 1}, p.svg
assert [r[0] for r in rows] == [str(x["id"]) for x in runs], rows
assert [r[2] for r in rows] == ["%.2f" % x["tps"] for x in runs], (rows, runs)
assert rows[1][7] == "labels: build=v1 \u2192 build=v2", rows[1][7]
PY

rm -rf "$tmp"
echo "history: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
