#!/bin/bash
# signals.sh: SIGINT/SIGTERM/SIGPIPE handling, on SQLite (no server).
#  - SIGINT and SIGTERM at 2 s of a --time=30 run: exit status 130 within a
#    few seconds (bounds plus multiples of a trivial run's time, lib.sh), the final text report printed, the message naming the
#    signal (SIGTERM is not "Ctrl-C");
#  - the same with --report-format=json --output=F: F exists, every line is
#    JSON, the last line is the "final" one, no F.tmp is left;
#  - SIGINT during a prepare that takes several seconds: death by SIGINT
#    (sbench installs no handler outside `run`; the shell reports it), or a
#    non-zero exit with a message, within 5 s, no hang;
#    with --hdr-log=H as well: H whole (one window per interval line of the
#    JSON, their lengths adding up to the run's seconds), no H.partial;
#  - a second SIGINT right after the first: exits at once (< 1 s after it),
#    and --hdr-log=H (an old H there before) leaves H.partial, starting
#    with the log's header, and no H: an end that never closed the log;
#  - `sbench ... run | head -1`: sbench not killed by SIGPIPE (status != 141)
#    and it still ends in bounded time.
# Every command runs under sigrun (tests/reliability/sigrun.c) or timeout.
source "$(dirname "$0")/lib.sh"
R=$SBT_BUILD/tests/sigrun
[ -x "$R" ] || { echo "FAIL: $R not built"; exit 1; }
cd "$T" || exit 1
DB="--sqlite-db=$T/sig.db"
timeout 120 "$S" $DB --tables=2 --table-size=10000 oltp_read_write prepare >/dev/null 2>&1 ||
    { fail "prepare"; finish; }

field() { sed -n "s/\(^\|.* \)$1=\([0-9.-]*\).*/\2/p" <<<"$2"; }

for sig in INT TERM; do
    line=$($R -a 2:$sig -l 20 -o "$T/o.$sig" -e "$T/e.$sig" -- \
        "$S" $DB --threads=4 --time=30 oltp_read_write run)
    ex=$(field exit "$line"); el=$(field elapsed "$line")
    if [ "$ex" != 130 ]; then fail "SIG$sig during run: $line"; cat "$T/e.$sig"
    elif ! grep -q '^Threads fairness:' "$T/o.$sig"; then fail "SIG$sig during run: no final report"
    elif ! within 5.9 10 "$el"; then fail "SIG$sig during run: took ${el}s (bound $(bound 5.9 10)s)"
    else ok "SIG$sig during run: $line"; fi
    # the message names the signal: Ctrl-C only for SIGINT
    want="interrupted, finishing" notwant=SIGTERM
    [ "$sig" = TERM ] && want="terminated (SIGTERM)" notwant=Ctrl-C
    if grep -qF "$want" "$T/e.$sig" && ! grep -qF "$notwant" "$T/e.$sig"; then
        ok "SIG$sig: message says '$want'"
    else fail "SIG$sig: no '$want' (or a '$notwant') in: $(tr '\n' '|' <"$T/e.$sig" | head -c 300)"; fi

    F=$T/rep.$sig.json
    line=$($R -a 2:$sig -l 20 -o "$T/oj.$sig" -e "$T/ej.$sig" -- \
        "$S" $DB --threads=4 --time=30 --report-interval=1 --report-format=json --output="$F" \
        --hdr-log="$T/h.$sig.hlog" oltp_read_write run)
    ex=$(field exit "$line")
    [ "$ex" = 130 ] || { fail "SIG$sig json run: $line"; cat "$T/ej.$sig"; }
    [ -s "$F" ] || fail "SIG$sig json: $F missing or empty"
    ls "$T"/rep.$sig.json.* >/dev/null 2>&1 && fail "SIG$sig json: left $(ls "$T"/rep.$sig.json.*)"
    # one signal: the log was closed whole, under its name: one window per
    # interval line of the JSON report, their lengths adding up to the
    # final report's seconds (to 10 ms: the log has milliseconds)
    if [ ! -s "$T/h.$sig.hlog" ] || [ -e "$T/h.$sig.hlog.partial" ]; then
        fail "SIG$sig --hdr-log: $(ls "$T" | grep "h.$sig" | tr '\n' ' ')"
    elif python3 - "$T/h.$sig.hlog" "$F" <<'PY'
import json, sys
rows = [l.split(",") for l in open(sys.argv[1]) if l[0].isdigit()]
recs = [json.loads(l) for l in open(sys.argv[2])]
wins = [r for r in recs if r["type"] == "interval"]
total = sum(float(r[1]) for r in rows)
sys.exit(0 if len(rows) == len(wins) and abs(total - recs[-1]["seconds"]) < 0.01 else 1)
PY
    then ok "SIG$sig --hdr-log: whole, one window per interval line, lengths add up to the run"
    else fail "SIG$sig --hdr-log: windows differ from the JSON report's intervals"; fi
done

# the JSON files: complete lines, the last one "final" (one python3 for
# both: it can take seconds to start)
if python3 - "$T/rep.INT.json" "$T/rep.TERM.json" <<'PY'
import json, sys
bad = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().split("\n")
        assert lines[-1] == "", "no newline at the end"
        recs = [json.loads(l) for l in lines[:-1]]
        assert recs and recs[-1].get("type") == "final", "last line is not final"
        assert all(r.get("type") in ("interval", "final") for r in recs), "unknown type"
        print("ok: %s: %d JSON lines, ends with final" % (path, len(recs)))
    except Exception as e:
        print("FAIL: %s: %s" % (path, e))
        bad = 1
sys.exit(bad)
PY
then :; else fail "JSON output after a signal"; fi

# a second SIGINT exits at once; the HdrHistogram log it never closed is
# left as H.partial (the header and the windows written), no H, not even
# the H of an earlier run.  Each event is one statement of seconds (a
# recursive count), so that the second SIGINT surely comes while the
# first still waits for the events in flight (oltp_read_write's finish in
# a few ms, and the run then ended whole before the second came)
cat >"$T/slow.lua" <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c") end
function thread_done() con:disconnect() end
LUA
H=$T/h2.hlog
echo "an earlier run's log" >"$H"
line=$($R -a 2:INT -a 2.05:INT -l 20 -o "$T/o2" -e "$T/e2" -- \
    "$S" $DB --threads=4 --time=30 --report-interval=1 --hdr-log="$H" "$T/slow.lua" run)
s=$(field since_last_signal "$line"); ex=$(field exit "$line")
if [ "$ex" = 130 ] && within 0.99 2 "$s"; then ok "second SIGINT: $line"
else fail "second SIGINT: $line"; fi
if [ -e "$H" ] || ! head -n 1 "$H.partial" 2>/dev/null | grep -qF '#[Histogram log format version'; then
    fail "second SIGINT --hdr-log: $(ls "$T" | grep h2 | tr '\n' ' ')"
else ok "second SIGINT --hdr-log: $H.partial ($(grep -c '^[0-9]' "$H.partial") windows), no $H"; fi

# SIGINT during a long prepare
rm -f "$T"/big.db*
line=$($R -a 1:INT -l 30 -o "$T/op" -e "$T/ep" -- \
    "$S" --sqlite-db="$T/big.db" --tables=1 --table-size=5000000 oltp_read_write prepare)
ex=$(field exit "$line"); sg=$(field signal "$line"); s=$(field since_last_signal "$line")
if [ "$s" = "-1.00" ]; then fail "prepare finished before the signal (make it bigger): $line"
elif [ "$ex" = 0 ]; then fail "prepare after SIGINT: exit 0: $line"
elif [ "$sg" != 2 ] && [ ! -s "$T/ep" ]; then fail "prepare after SIGINT: exit $ex without a message"
elif ! within 4.99 10 "$s"; then fail "prepare after SIGINT: took ${s}s (bound $(bound 4.99 10)s): $line"
else ok "SIGINT during prepare: $line ($(tail -n 1 "$T/ep"))"; fi
rm -f "$T"/big.db*

# SIGPIPE: stdout closed by the reader
t0=$SECONDS
timeout -k 5 30 env --default-signal=PIPE "$S" $DB --threads=2 --time=3 --report-interval=1 \
    oltp_read_write run 2>"$T/epipe" | head -n 1 >/dev/null
st=${PIPESTATUS[0]}
if [ "$st" = 141 ] || [ "$st" -ge 124 ]; then fail "run | head -1: sbench status $st"
else ok "run | head -1: status $st, $((SECONDS - t0))s"; fi
timeout 20 env --default-signal=PIPE "$S" --help 2>/dev/null | head -c 1 >/dev/null
st=${PIPESTATUS[0]}
[ "$st" = 141 ] && fail "--help | head -c 1: killed by SIGPIPE"

finish
