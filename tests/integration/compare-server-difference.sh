#!/bin/bash
# compare-server-difference.sh: compare names the difference of the
# servers' own evidence beside a verdict (--server-metrics; #43 item 5),
# on a case whose answer is known.  Two targets on the same PostgreSQL run
# the same workload (BEGIN; UPDATE one row picked at random; pg_sleep 5 ms;
# COMMIT) with 4 threads: "hot" picks among 1 row, so every event waits for
# the row lock the others hold (the server sees Lock:* waits), "spread"
# among 1000 rows, so its sessions mostly sleep (Timeout:PgSleep).  Known
# apart from compare: the hot point's cause names lock waits and the
# spread one's does not; each point's cause is the one most of its own
# run reports named (read here from the runs' files); the verdict's
# server_difference names hot's top wait (a Lock:) and spread's
# (Timeout:PgSleep) and both causes; the text report prints them.
# Needs SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.  ~30 s.
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/compare-lib.sh" "$1"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
export PGPASSWORD=$SBT_PGPASSWORD
pg="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=disable"
psql -X -qAt -v ON_ERROR_STOP=1 -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c \
    "DROP TABLE IF EXISTS sbdiff; CREATE TABLE sbdiff (id int PRIMARY KEY, v int NOT NULL DEFAULT 0);
     INSERT INTO sbdiff (id) SELECT generate_series(1, 1000)" || { echo "FAIL: create sbdiff"; exit 1; }
cat >rows.lua <<'LUA'
sysbench.cmdline.options = { hot_rows = {"rows the events update, one picked at random", 1000} }
function thread_init() con = sysbench.sql.driver():connect() end
function event()
    con:query("BEGIN")
    con:query("UPDATE sbdiff SET v = v + 1 WHERE id = " .. math.random(sysbench.opt.hot_rows))
    con:query("SELECT pg_sleep(0.005)")
    con:query("COMMIT")
end
function thread_done() con:disconnect() end
LUA
"$SB" compare --prepare=off --target="hot:$pg --hot-rows=1" --target="spread:$pg --hot-rows=1000" --threads=4 \
    --time=2 --warmup-time=0 --repeats=2 --results=sd --quiet "$T/rows.lua" >sd.md 2>sd.err
expect_eq "exit status" "$?" 0
S=sd/summary.json
cause() { pyq $S "[p['server']['cause'] for p in d['points'] if p['target'] == '$1'][0]"; }
expect_eq "hot: the cause names lock waits" "$(cause hot | grep -c 'lock waits')" 1
expect_eq "spread: the cause names no lock waits" "$(cause spread | grep -c 'lock wait')" 0
expect_eq "both points: every run named the same cause (figures aside)" \
    "$(pyq $S "[p['server']['cause_runs'] == p['server']['runs'] == 2 for p in d['points']]")" "[True, True]"
expect_eq "hot: the top wait is a lock" \
    "$(pyq $S "[p['server']['top_waits'][0]['name'].startswith('Lock:') for p in d['points'] if p['target'] == 'hot']")" "[True]"
# each target's causes, as its own run reports named them (the runs'
# files, read apart from compare's summary): the point's is one of them
own_causes() {
    python3 - "$1" <<'PY'
import glob, json, sys
causes = set()
for f in glob.glob('sd/runs/*_%s_r*.json' % sys.argv[1]):
    if f.endswith('.record.json'):
        continue
    for line in open(f):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        c = (o.get('server_metrics') or {}).get('cause') if isinstance(o, dict) else None
        if c:
            causes.add(c)
print('\n'.join(sorted(causes)))
PY
}
for t in hot spread; do
    own_causes $t >causes.$t
    expect_eq "$t: its runs' reports named a cause" "$([ -s causes.$t ] && echo yes)" yes
    expect_eq "$t: the point's cause is one its own runs named" "$(grep -cxF -- "$(cause $t)" causes.$t)" 1
done
diff_text=$(pyq $S "d['verdicts'][0]['server_difference']")
expect_eq "the difference names hot's top wait (a lock)" "$(echo "$diff_text" | grep -c 'hot waited on Lock:')" 1
expect_eq "the difference names spread's (pg_sleep)" "$(echo "$diff_text" | grep -c 'spread on Timeout:PgSleep')" 1
expect_eq "the difference names hot's cause" "$(echo "$diff_text" | grep -cF -- "hot's server named: $(cause hot);")" 1
expect_eq "the difference names spread's cause" "$(echo "$diff_text" | grep -cF -- "spread's: $(cause spread))")" 1
expect_grep "the text report prints it under the verdict" "  - the servers' own evidence: hot waited on Lock:" sd.md
expect_grep "the HTML report prints it under the verdict" "The servers' own evidence: hot waited on Lock:" sd/report.html
expect_grep "the text report's per-point evidence" "^- 4 threads, spread: sampled session time Timeout:PgSleep" sd.md
checks=$((checks + 1))
if python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
' $S "$root/docs/compare.schema.json"; then echo "ok   summary.json valid"; else fail "schema"; fi
psql -X -qAt -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest -c "DROP TABLE sbdiff" >/dev/null
finish
