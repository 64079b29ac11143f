#!/bin/sh
# compare.sh: `sbench compare` of PostgreSQL against MariaDB (the servers of
# scripts/test.sh): oltp_read_only on one small table, 3 interleaved repeats
# of 1 s at 1, 2 and 4 threads, then
#  - every number of summary.json and report.html recomputed from the stored
#    per-run files (compare_check.py: medians, intervals, exact Mann-Whitney
#    by enumeration, latency merged by hdr-histogram-js), the summary valid
#    against docs/compare.schema.json, the password in no file;
#  - each run's transactions against the server's own counters (MariaDB:
#    Com_commit exactly; PostgreSQL: xact_commit = transactions + per
#    connection its startup transaction and 5 DEALLOCATEs, as
#    tests/measure/server_counters.sh explains);
#  - the runs were interleaved: the two targets alternate, each first as
#    often as last;
#  - both targets' text reports have the same sections and labels (what
#    the old examples/compare_pg_mariadb.sh test checked);
#  - `sbench report DIR` redraws the same numbers;
#  - examples/compare_pg_mariadb_sqlite.lua runs as a new user would run it
#    (one repeat, one thread count, 1 s).
. "$(dirname "$0")/wl-lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${SBT_HDR_JS_DIR:=$root/tests/hdr-js}"
wl_setup pgsql
wl_setup mysql
dir=$SBT_TMP/compare-pgmaria
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || die "no $dir"
cat >pgmaria.lua <<EOF
return {
    title = "PostgreSQL vs MariaDB (test)",
    targets = {
        { name = "pg", options = { db_driver = "pgsql", pgsql_host = "$SBT_PGHOST", pgsql_port = $SBT_PGPORT,
          pgsql_user = "sbtest", pgsql_password = os.getenv("SBT_PGPASSWORD"), pgsql_db = "sbtest",
          pgsql_sslmode = "disable" } },
        { name = "maria", options = { db_driver = "mysql", mysql_socket = "$SBT_MYSQL_SOCKET",
          mysql_user = "sbtest", mysql_password = os.getenv("SBT_MYSQL_PASSWORD"), mysql_db = "sbtest" } },
    },
    workloads = { { name = "oltp_read_only", options = { tables = 1, table_size = 500 } } },
    threads = { 1, 2, 4 },
    time = 1, warmup = 0, repeats = 3,
}
EOF
"$SBENCH" compare pgmaria.lua --quiet >out.md 2>err.txt
rc=$?
expect_eq "sbench compare exit status" "$rc" 0
[ "$rc" = 0 ] || { sed 's/^/     | /' err.txt | tail; }
res=$dir/pgmaria-results
expect_eq "runs done" "$(ls "$res"/runs/*.record.json 2>/dev/null | wc -l | tr -d ' ')" 18
checks=$((checks + 1))
if SBT_SECRET=$SBT_PGPASSWORD python3 "$here/compare_check.py" "$res" "$SBT_HDR_JS_DIR" "$root/docs/compare.schema.json" \
    "$here/compare_merge.mjs" >check.txt 2>&1; then
    echo "ok   every number recomputed from the per-run files ($(tail -1 check.txt))"
else
    fail "compare_check.py:"
    grep -v '^ok' check.txt | head -20
fi

# server counters, run by run
checks=$((checks + 1))
if python3 - "$res" >srv.txt 2>&1 <<'PY'; then echo "ok   every run's transactions = the server's counters"; else fail "server counters:"; head srv.txt; fi
import glob, json, os, sys
# MariaDB: Com_commit = transactions.  PostgreSQL: xact_commit counts, on
# top of the transactions, a fixed number per connection (its startup and
# the statements it prepares and deallocates): the same constant for
# every pg run, per thread.
bad, per_conn = 0, set()
for f in sorted(glob.glob(os.path.join(sys.argv[1], "runs", "*_r[0-9].json"))):
    final = [json.loads(l) for l in open(f)][-1]
    t, thr, srv = final["transactions"], final["threads"], final["server"]["commits"]
    print(os.path.basename(f), t, srv)
    bad += t == 0
    if "_maria_" in f:
        bad += srv != t
    else:
        per_conn.add((srv - t) / thr)
print("pg: commits - transactions per connection:", per_conn)
bad += len(per_conn) != 1 or not 1 <= min(per_conn) <= 20
sys.exit(1 if bad else 0)
PY

# interleaving: by run order, the targets alternate in pairs (A B, B A, ...)
order=$(python3 - "$res/summary.json" <<'PY'
import json, sys
runs = sorted(json.load(open(sys.argv[1]))["runs"], key=lambda r: r["order"])
print(" ".join(r["target"][0] for r in runs))
PY
)
expect_eq "run order (p = pg, m = maria)" "$order" "p m m p p m m p p m m p p m m p p m"

expect_eq "markdown verdict lines" "$(grep -c '^- [124] threads: ' out.md)" 3
# the "Server (sampled)" block (--server-metrics) is each server's own
# evidence, its lines differ by design: left out, up to its blank line;
# so are sbench's own notices ("sbench: server metrics: ... performance_schema
# is off", MariaDB's only), which are messages, not report labels
labels() { sed '/^Server (sampled/,/^$/d' "$1" | sed -n 's/^ *\([A-Za-z0-9][A-Za-z (/)0-9]*\):.*/\1/p' |
    grep -v -e '^Connection time' -e '^ *commits' -e '^ *rollbacks' -e '^ *selects' -e '^ *statements' -e '^sbench$'; }
labels "$res/runs/oltp_read_only_t2_pg_r1.out" >labels-pg
labels "$res/runs/oltp_read_only_t2_maria_r1.out" >labels-my
checks=$((checks + 1))
if cmp -s labels-pg labels-my && grep -q "95th percentile" labels-pg; then echo "ok   same report sections and labels"
else fail "report labels differ"; diff labels-pg labels-my | head; fi

# sbench report redraws the same numbers
cp "$res/summary.json" summary.first
"$SBENCH" report "$res" >report.md 2>&1
expect_eq "sbench report exit status" "$?" 0
checks=$((checks + 1))
if python3 -c "
import json,sys
a, b = json.load(open('summary.first')), json.load(open('$res/summary.json'))
for k in ('generated', 'results_dir'): a.pop(k); b.pop(k)
for k in a:
    if a[k] != b[k]: print('     | differs:', k, json.dumps(a[k])[:200], json.dumps(b[k])[:200])
sys.exit(a != b)"; then echo "ok   sbench report: the same summary"; else fail "sbench report changed the summary"; fi

# the example, as a new user runs it (sizes from the file: 4 x 10000 rows)
PGHOST=$SBT_PGHOST PGPORT=$SBT_PGPORT PGPASSWORD=$SBT_PGPASSWORD MYSQL_SOCKET=$SBT_MYSQL_SOCKET \
    MYSQL_PWD=$SBT_MYSQL_PASSWORD SQLITE_DB=$dir/example.db \
    "$SBENCH" compare "$root/examples/compare_pg_mariadb_sqlite.lua" --repeats=1 --threads=1 --time=1 \
    --warmup-time=0 --quiet >example.md 2>example.err
rc=$?
expect_eq "examples/compare_pg_mariadb_sqlite.lua exit status" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/     | /' example.err | tail -5
checks=$((checks + 1))
if grep -q '^| 1 | [0-9.]* \[.*| [0-9.]* \[.*| [0-9.]* \[' example.md && [ -s compare_pg_mariadb_sqlite-results/report.html ]; then
    echo "ok   the example reports all three targets"
else fail "example output:"; head -20 example.md; fi

for t in pgsql mysql; do
    wl_setup $t
    sb cleanup --tables=4 oltp_read_only cleanup
done
echo "$checks checks, $failures failed"
[ "$failures" = 0 ]
