"""trace_check.py KIND TRACE.jsonl[,TRACE2.jsonl...] SERVERLOG: the statements of a trace
(sbench WORKLOAD trace --trace-output) against the server's own record.

KIND pg: SERVERLOG is the PostgreSQL log of the traced role's sessions
(log_statement = all): `statement: SQL` for a text, `execute NAME: SQL`
with `DETAIL:  parameters: $1 = '...'` for a prepared statement.  KIND
maria: SERVERLOG is MariaDB's general log (thread_id, command_type,
argument, tab-separated): Query, Prepare, Close stmt, and Execute with the
values in the text.  Each connection's statements in the trace, in order, must be
one session's statements in the log, in order, values included; every
session of the log must be a connection of the trace.  Prints the counts
compared; exits 1 with the first difference."""
import json
import re
import sys
from collections import defaultdict


def trace_sessions(paths):
    conns = defaultdict(list)
    for i, path in enumerate(paths.split(",")):  # the traces of several runs
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            if "conn" not in r or r.get("status") == "unsupported":
                continue
            conns[(i, r["thread"], r["conn"])].append(r)
    return list(conns.values())


def pg_param(p):
    if p["value"] is None:
        return "NULL"
    return "'" + str(p["value"]).replace("'", "''") + "'"


def dollar(sql):
    n = [0]

    def one(_):
        n[0] += 1
        return "$%d" % n[0]
    return re.sub(r"\?", one, sql)


def pg_expected(recs):
    out = []
    for r in recs:
        if r["kind"] == "prepare":
            continue  # a Parse message: log_statement does not log it
        if r["kind"] == "close":
            out.append(("statement", "DEALLOCATE", ""))  # its name is the driver's
        elif r["kind"] == "execute":
            ps = ", ".join("$%d = %s" % (i + 1, pg_param(p)) for i, p in enumerate(r["params"]))
            out.append(("execute", dollar(r["sql"]), ps))
        else:
            out.append(("statement", r.get("sql") or r["kind"].upper(), ""))
    return out


def pg_log(path):
    sessions = defaultdict(list)
    head = re.compile(r"^.*?\[(\d+)\] (LOG|DETAIL|ERROR|STATEMENT|HINT):  (.*)$")
    last = None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = head.match(line)
        if not m:
            if line.startswith("\t") and last is not None and last[1] == "LOG":
                s = sessions[last[0]]
                s[-1] = (s[-1][0], s[-1][1] + "\n" + line[1:], s[-1][2])
            continue
        pid, level, text = m.groups()
        last = (pid, level)
        if level == "LOG" and text.startswith("statement: DEALLOCATE "):
            sessions[pid].append(("statement", "DEALLOCATE", ""))
        elif level == "LOG" and text.startswith("statement: "):
            sessions[pid].append(("statement", text[len("statement: "):], ""))
        elif level == "LOG" and text.startswith("execute "):
            sessions[pid].append(("execute", text.split(": ", 1)[1], ""))
        elif level == "DETAIL" and text.startswith("parameters: ") and sessions[pid]:
            s = sessions[pid]
            s[-1] = (s[-1][0], s[-1][1], text[len("parameters: "):])
    return [s for s in sessions.values() if s]


def maria_literal(p):
    v = p["value"]
    if v is None:
        return "NULL"
    if p["type"] in ("int", "double"):
        return str(v)
    return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"


def maria_expected(recs):
    out = []
    for r in recs:
        if r["kind"] == "prepare":
            out.append(("Prepare", r["sql"]))
        elif r["kind"] == "close":
            out.append(("Close stmt", ""))
        elif r["kind"] == "execute":
            vals = iter(r["params"])
            out.append(("Execute", re.sub(r"\?", lambda _: maria_literal(next(vals)), r["sql"])))
        else:
            out.append(("Query", r.get("sql") or r["kind"].upper()))
    return out


def maria_log(path):
    sessions = defaultdict(list)
    for line in open(path, encoding="utf-8", errors="replace"):
        parts = line.rstrip("\n").split("\t", 2)
        if len(parts) == 3 and parts[1] in ("Query", "Prepare", "Execute", "Close stmt"):
            text = parts[2].replace("\\n", "\n").replace("\\\\", "\\")
            text = "" if parts[1] == "Close stmt" else text
            sessions[parts[0]].append((parts[1], text))
    return [s for s in sessions.values() if s]


def main():
    kind, trace, log = sys.argv[1:4]
    expected = pg_expected if kind == "pg" else maria_expected
    want = sorted(expected(recs) for recs in trace_sessions(trace))
    got = sorted(pg_log(log) if kind == "pg" else maria_log(log))
    n = sum(len(s) for s in want)
    if n == 0:
        sys.exit("the trace has no statements")
    if len(want) != len(got):
        sys.exit("%d connections traced, %d sessions in the server's log" % (len(want), len(got)))
    for w, g in zip(want, got):
        for i, (a, b) in enumerate(zip(w, g)):
            if a != b:
                sys.exit("statement %d of a session: traced %r, the server logged %r" % (i, a, b))
        if len(w) != len(g):
            sys.exit("a session: %d statements traced, %d logged" % (len(w), len(g)))
    print("%d statements on %d connections, each as the server logged it" % (n, len(want)))


main()
