#!/bin/bash
# compare-known.sh: a known difference is found, on the PostgreSQL of
# scripts/test.sh.  The same server twice, once limited by --rate=100
# (a fraction of what it does unlimited): the limited target is reported
# slower with a 95% interval that excludes zero; --fail-slower=50 exits 3,
# --fail-slower=99.9 does not.  Then the regression flow of a CI pipeline:
# the first comparison's runs of 'pg' are the saved baseline of a second
# comparison that runs only the new (rate-limited) target, and gates it.
# Needs SBT_PGHOST, SBT_PGPORT, SBT_PGPASSWORD.
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/compare-lib.sh" "$1"
: "${SBT_PGHOST:?}" "${SBT_PGPORT:?}" "${SBT_PGPASSWORD:?}"
export PGPASSWORD=$SBT_PGPASSWORD
pg="--db-driver=pgsql --pgsql-host=$SBT_PGHOST --pgsql-port=$SBT_PGPORT --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=disable"
wl="--tables=1 --table-size=1000"
"$SB" compare --target="pg:$pg" --target="pg_rate:$pg --rate=100" --prepare=on --threads=1 --time=2 \
    --warmup-time=1 --repeats=4 --results=known --quiet oltp_point_select $wl >known.md 2>known.err
expect_eq "exit status" "$?" 0
# past 2x the verdict is a ratio ("pg has 9.1x the throughput of pg_rate"), below it a percentage
if [ "$(pyq known/summary.json 'd["verdicts"][0]["ratio"] <= 0.5')" = True ]; then
    expect_grep "verdict: pg has Nx the throughput" "^- 1 threads: pg has [0-9.]*x the throughput of pg_rate (95% CI [0-9.]*x to [0-9.]*x; Mann-Whitney test)" known.md
else
    expect_grep "verdict: pg_rate is slower" "^- 1 threads: pg_rate is [0-9.]*% slower than pg (95% CI [0-9.]*% to [0-9.]*%; Mann-Whitney test)" known.md
fi
expect_eq "interval excludes zero" "$(pyq known/summary.json 'd["verdicts"][0]["high_pct"] < 0 and d["verdicts"][0]["significant"]')" True
"$SB" report known --fail-slower=50 >gate.md 2>&1
expect_eq "report --fail-slower=50: exit status" "$?" 3
expect_grep "gate says FAIL" "Regression gate .*: FAIL" gate.md
expect_eq "summary: gate status" "$(pyq known/summary.json 'd["regression"]["status"]')" fail
"$SB" report known --fail-slower=99.9 >gate2.md 2>&1
expect_eq "report --fail-slower=99.9: exit status" "$?" 0
"$SB" report known --baseline=pg_rate --fail-slower=50 >gate3.md 2>&1
expect_eq "baseline pg_rate: pg is faster, no regression" "$?" 0

# the saved baseline: only 'new' runs, against the runs of 'pg' in known/.
# A saved target's session is the unit: the run history (a new file of
# this test's) holds no earlier session of its configuration, so the drift
# between sessions is unknown: it cannot tell and the gate passes
# (compare-saved-sessions.sh gates with a history).
export SBENCH_HISTORY=$T/ci-history.db
"$SB" compare --target="base:@known/pg" --target="new:$pg --rate=100" --prepare=off --threads=1 --time=2 \
    --warmup-time=1 --repeats=4 --results=ci --fail-slower=50 --quiet oltp_point_select $wl >ci.md 2>ci.err
expect_eq "saved baseline, --fail-slower=50: exit status" "$?" 0
expect_eq "only the new target ran" "$(ls ci/runs/*.record.json | wc -l | tr -d ' ')" 4
expect_eq "baseline runs taken from known/" "$(pyq ci/summary.json 'sum(1 for r in d["runs"] if r["target"] == "base")')" 4
expect_grep "CI verdict: cannot tell, and why" "cannot tell whether new differs from base (-[0-9.]*%): .*0 earlier sessions of this configuration in the history, 3 needed" ci.md
unset SBENCH_HISTORY
"$SB" $pg $wl oltp_point_select cleanup >/dev/null 2>&1
# ---- two PostgreSQL servers that differ in a setting (environment) ----
# A second server (scripts/pg-server.sh, port SBT_PGPORT+3) with work_mem
# set apart by ALTER SYSTEM; one repeat each, then random_page_cost changed
# on it and the comparison resumed with a second repeat: the settings that
# differ (recomputed in Python from runs/*.json and checked against the
# servers' own pg_settings), the settings_changed warning of the resumed
# run, the highlighted table in chromium's DOM, the schema.
pg2port=$((SBT_PGPORT + 3))
pg2=$(mktemp -d "${SBT_TMP:-/tmp}/pg2.XXXXXX")
trap '"$root/scripts/pg-server.sh" stop "$pg2" >/dev/null 2>&1; rm -rf "$pg2" "$T"' EXIT
psql2() { psql -X -q -At -v ON_ERROR_STOP=1 -h "$pg2" -p "$pg2port" -U postgres -d postgres "$@"; }
if ! "$root/scripts/pg-server.sh" start "$pg2" "$pg2port" >pg2.log 2>&1; then
    fail "second PostgreSQL did not start: $(tail -3 pg2.log)"
else
    psql2 -c "ALTER SYSTEM SET work_mem = '7MB'" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
    pgb="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$pg2port --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=disable"
    envcmp() { # REPEATS
        "$SB" compare --target="pg:$pg" --target="pg2:$pgb" --prepare=on --threads=1 --time=1 --warmup-time=0 \
            --repeats="$1" --results=env --quiet oltp_point_select $wl >env.md 2>env.err
    }
    envcmp 1
    expect_eq "two servers, 1 repeat: exit status" "$?" 0
    psql2 -c "ALTER SYSTEM SET random_page_cost = 1.7" -c "SELECT pg_reload_conf()" >/dev/null
    sleep 0.5
    envcmp 2
    expect_eq "resumed with a changed setting: exit status" "$?" 0
    # the servers' own view: pg_settings of each, independent of sbench
    for s in work_mem random_page_cost; do
        PGPASSWORD=$SBT_PGPASSWORD psql -X -At -h "$SBT_PGHOST" -p "$SBT_PGPORT" -U sbtest -d sbtest \
            -c "SELECT setting, coalesce(unit, '') FROM pg_settings WHERE name = '$s'" >"pg1.$s"
        psql2 -c "SELECT setting, coalesce(unit, '') FROM pg_settings WHERE name = '$s'" >"pg2.$s"
    done
    checks=$((checks + 1))
    if python3 - env "$root/docs/compare.schema.json" <<'PY'; then echo "ok   settings_differ = recomputation from runs/*.json"; else fail "settings_differ"; fi
import glob, json, os, sys
import jsonschema
rdir, schema = sys.argv[1], json.load(open(sys.argv[2]))
s = json.load(open(rdir + "/summary.json"))
jsonschema.validate(s, schema, cls=jsonschema.Draft202012Validator)
env = s["environment"]
targets = [t["name"] for t in s["spec"]["targets"]]
# every run's settings, from its own final report line and record
runs = {}
for f in glob.glob(rdir + "/runs/*.record.json"):
    rid = os.path.basename(f)[:-len(".record.json")]
    order = json.load(open(f))["order"]
    final = [json.loads(l) for l in open(rdir + "/runs/" + rid + ".json") if l.strip()][-1]
    runs[rid] = (order, final["run"]["server_settings"]["settings"])
def target(rid):
    return [t for t in targets if rid.endswith("_%s_r1" % t) or rid.endswith("_%s_r2" % t)][0]
first = {}
for rid, (order, st) in sorted(runs.items(), key=lambda x: x[1][0]):
    first.setdefault(target(rid), (rid, st))
want = []
for name in sorted(set(n for _, st in first.values() for n in st)):
    have = {t: first[t][1][name] for t in targets if name in first[t][1]}
    if len(have) >= 2 and len(set((v["value"], v["unit"]) for v in have.values())) > 1:
        want.append({"name": name, "values": {t: have[t]["value"] if t in have else None for t in targets},
                     "units": {t: have[t]["unit"] if t in have else None for t in targets}})
assert env["settings_differ"] == want, (env["settings_differ"], want)
names = [d["name"] for d in want]
assert "work_mem" in names and "random_page_cost" not in names, names
# the servers' own values of work_mem, random_page_cost (pg2's now changed)
own = {(t, n): open("%s.%s" % ("pg1" if t == "pg" else "pg2", n)).read().strip().split("|") for t in targets for n in ("work_mem", "random_page_cost")}
wm = [d for d in want if d["name"] == "work_mem"][0]
for t in targets:
    assert [wm["values"][t], wm["units"][t]] == own[(t, "work_mem")], (t, wm, own)
assert own[("pg", "work_mem")] != own[("pg2", "work_mem")]
assert first["pg2"][1]["random_page_cost"]["value"] != own[("pg2", "random_page_cost")][0]
# per target: the first run's settings and their run
for t in env["targets"]:
    assert t["server_settings_run"] == first[t["name"]][0], t["server_settings_run"]
    assert t["server_settings"]["settings"] == first[t["name"]][1]
assert env["settings_targets"] == 2
# the resumed run of pg2 is warned about, with both values; nothing else
ch = [w for w in s["warnings"] if w["kind"] == "settings_changed"]
assert [(w["target"], w["run"]) for w in ch] == [("pg2", "oltp_point_select_t1_pg2_r2")], ch
assert "random_page_cost 4 -> 1.7" in ch[0]["text"], ch[0]["text"]
print("     settings_differ:", names)
PY
    expect_grep "markdown: work_mem row" "^| work_mem | 4096 kB | 7168 kB |" env.md
    chromium_dom() { timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --user-data-dir="$T/chrome" --dump-dom "file://$1" 2>/dev/null; }
    chromium_dom "$T/env/report.html" >env-dom.html
    checks=$((checks + 1))
    if python3 - env-dom.html <<'PY'; then echo "ok   report: work_mem highlighted, settings per target collapsed"; else fail "report DOM"; fi
import re, sys
dom = open(sys.argv[1]).read()
t = re.search(r'<table class="differs" id="settings-differ">(.*?)</table>', dom, re.S)
assert t, "no table.differs"
row = re.search(r'<tr class="differs" data-setting="work_mem">(.*?)</tr>', t.group(1), re.S)
assert row, "work_mem not in table.differs"
cells = re.findall(r'<td data-target="([^"]*)" data-value="([^"]*)">', row.group(1))
assert cells == [("pg", "4096"), ("pg2", "7168")], cells
assert ".differs td{background:" in dom, "no highlight style"
det = re.findall(r'<details class="settings" data-target="([^"]*)">(.*?)</details>', dom, re.S)
assert [d[0] for d in det] == ["pg", "pg2"], det
for name, body in det:
    assert '<tr class="differs" data-setting="work_mem">' in body, name
    assert 'data-setting="random_page_cost"' in body and "open" not in name
PY
    "$SB" $pgb $wl oltp_point_select cleanup >/dev/null 2>&1
    "$SB" $pg $wl oltp_point_select cleanup >/dev/null 2>&1
fi
finish

