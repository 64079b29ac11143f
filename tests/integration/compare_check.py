#!/usr/bin/python3
"""compare_check.py: every number of an `sbench compare` summary and HTML
report recomputed from the stored per-run files, independently of sbench:

  - summary.json is valid against docs/compare.schema.json;
  - per point: the repeats' throughput (runs/ID.json final lines), their
    median, the order-statistic interval of the median (binomial sums here);
  - per pair: the exact Mann-Whitney p-value, Hodges-Lehmann estimate and
    its interval by brute-force enumeration of the rank splits, or with 8
    or more interleaved pairs the signed-rank test's (every sign pattern
    enumerated); the Benjamini-Hochberg adjustment over all verdicts;
  - per point: the merged latency percentiles from the HdrHistogram logs
    decoded by hdr-histogram-js (compare_merge.mjs), clamped to the exact
    [min, max] of the runs' reports;
  - report.html: every data-value of the points table and every verdict's
    data attributes equal the summary's; the verdict texts are there;
  - no file of the results directory holds $SBT_SECRET (when set).

usage: compare_check.py RESULTS_DIR HDR_JS_DIR SCHEMA MERGE_MJS
Prints one line per check and "N checks, M failed"; exit 1 on a failure.
"""
import glob
import html.parser
import itertools
import json
import math
import os
import subprocess
import sys

import jsonschema

checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if ok:
        print("ok   " + what)
    else:
        failures += 1
        print("FAIL " + what)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def final_of(path):
    final = None
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d["type"] == "final":
                final = d
    return final


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_ci(v, conf=0.95):
    s = sorted(v)
    n = len(s)
    cdf = lambda k: sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    k = 1
    for kk in range(1, (n + 1) // 2 + 1):
        if 1 - 2 * cdf(kk - 1) >= conf:
            k = kk
    return s[k - 1], s[n - k], 1 - 2 * cdf(k - 1)


def mw(a, b, conf=0.95):
    """exact Mann-Whitney by enumeration; Hodges-Lehmann and its interval"""
    n, m = len(a), len(b)
    counts = {}
    for comb in itertools.combinations(range(1, n + m + 1), n):
        u = sum(comb) - n * (n + 1) // 2
        counts[u] = counts.get(u, 0) + 1
    total = sum(counts.values())
    u = sum(1 if y > x else 0.5 if y == x else 0 for x in a for y in b)
    lo = sum(c for k, c in counts.items() if k <= math.floor(u))
    hi = sum(c for k, c in counts.items() if k >= math.ceil(u))
    p = min(1.0, 2 * min(lo, hi) / total)
    d = sorted(math.log(y) - math.log(x) for x in a for y in b)
    nm = n * m
    est = d[nm // 2] if nm % 2 else (d[nm // 2 - 1] + d[nm // 2]) / 2
    crit, cum = -1, 0
    for k in range(nm + 1):
        cum += counts.get(k, 0)
        if cum / total <= (1 - conf) / 2 + 1e-12:
            crit = k
        else:
            break
    if crit >= 0 and crit < nm - crit:
        low, high, ach = d[crit], d[nm - crit - 1], True
    else:
        low, high, ach = d[0], d[-1], False
    sig = ach and (low > 0 or high < 0)
    pct = lambda x: (math.exp(x) - 1) * 100
    return dict(p_value=p, change_pct=pct(est), low_pct=pct(low), high_pct=pct(high), achievable=ach, significant=sig)


def signed_rank(a, b, conf=0.95):
    """exact Wilcoxon signed-rank by enumeration of every sign pattern (mid
    ranks, zeros dropped); Hodges-Lehmann on the Walsh averages and its
    interval from the untied distribution of n pairs"""
    d = [math.log(y) - math.log(x) for x, y in zip(a, b)]
    nz = [x for x in d if x != 0]
    absd = sorted(abs(x) for x in nz)
    rank = lambda v: sum(x < v for x in absd) + (sum(x == v for x in absd) + 1) / 2
    r = [rank(abs(x)) for x in nz]
    t = sum(q for q, x in zip(r, nz) if x > 0)
    sums = [sum(q for q, s in zip(r, signs) if s) for signs in itertools.product([0, 1], repeat=len(nz))]
    p = min(1.0, 2 * min(sum(s <= t + 1e-9 for s in sums), sum(s >= t - 1e-9 for s in sums)) / len(sums)) if nz else 1.0
    n = len(d)
    w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    nw = len(w)
    est = w[nw // 2] if nw % 2 else (w[nw // 2 - 1] + w[nw // 2]) / 2
    counts = {}
    for signs in itertools.product([0, 1], repeat=n):
        k = sum(i + 1 for i, s in enumerate(signs) if s)
        counts[k] = counts.get(k, 0) + 1
    crit, cum = -1, 0
    for k in range(nw + 1):
        cum += counts.get(k, 0)
        if cum / 2 ** n <= (1 - conf) / 2 + 1e-12:
            crit = k
        else:
            break
    if crit >= 0 and crit < nw - crit:
        low, high, ach = w[crit], w[nw - crit - 1], True
    else:
        low, high, ach = w[0], w[-1], False
    sig = ach and (low > 0 or high < 0)
    pct = lambda x: (math.exp(x) - 1) * 100
    return dict(p_value=p, change_pct=pct(est), low_pct=pct(low), high_pct=pct(high), achievable=ach, significant=sig)


def benjamini_hochberg(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q, running = [0.0] * m, 1.0
    for r in range(m, 0, -1):
        running = min(running, p[order[r - 1]] * m / r)
        q[order[r - 1]] = running
    return q


class DataCells(html.parser.HTMLParser):
    """data-* attributes of the points tables' rows and cells, and of the
    verdict items"""

    def __init__(self):
        super().__init__()
        self.row = None
        self.cells = {}       # (workload, threads, target, key) -> value
        self.verdicts = []    # attribute dicts
        self.workload = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("class") == "points":
            self.workload = a["data-workload"]
        elif tag == "tr" and "data-target" in a and self.workload:
            self.row = (self.workload, int(a["data-threads"]), a["data-target"])
        elif tag == "td" and self.row and "data-key" in a:
            self.cells[self.row + (a["data-key"],)] = float(a["data-value"])
        elif tag == "li" and "data-change" in a:
            self.verdicts.append(a)

    def handle_endtag(self, tag):
        if tag == "table":
            self.workload = None
            self.row = None

    def handle_data(self, data):
        self.text.append(data)


def main():
    rdir, jsdir, schema_path, merge = sys.argv[1:5]
    summary = json.load(open(os.path.join(rdir, "summary.json")))
    schema = json.load(open(schema_path))
    try:
        jsonschema.validate(summary, schema, cls=jsonschema.Draft202012Validator)
        check(True, "summary.json is valid against compare.schema.json")
    except jsonschema.ValidationError as e:
        check(False, "summary.json against the schema: %s at %s" % (e.message, list(e.absolute_path)))

    spec = summary["spec"]
    by_point = {}
    for rec in glob.glob(os.path.join(rdir, "runs", "*.record.json")):
        rid = os.path.basename(rec)[: -len(".record.json")]
        final = final_of(os.path.join(rdir, "runs", rid + ".json"))
        wl, rest = rid.rsplit("_t", 1)[0], rid.rsplit("_t", 1)[1]
        threads, target_rep = rest.split("_", 1)
        target, rep = target_rep.rsplit("_r", 1)
        by_point.setdefault((wl, int(threads), target), []).append((int(rep), final, rid))
    check(len(summary["runs"]) == sum(len(v) for v in by_point.values()),
          "the summary has every stored run (%d)" % len(summary["runs"]))

    for p in summary["points"]:
        key = (p["workload"], p["threads"], p["target"])
        runs = sorted(by_point.get(key, []), key=lambda r: r[0])
        tps = [r[1]["tps"] for r in runs]
        name = "%s/%d/%s" % key
        check(len(tps) == p["tps"]["n"] and all(close(x, y) for x, y in zip(tps, p["tps"]["values"])),
              name + ": throughput of each repeat = the runs' final reports")
        lo, hi, lvl = median_ci(tps)
        check(close(median(tps), p["tps"]["median"]) and close(lo, p["tps"]["low"]) and close(hi, p["tps"]["high"])
              and close(lvl, p["tps"]["level"]),
              name + ": median %.2f [%.2f, %.2f] at %.4f recomputed" % (median(tps), lo, hi, lvl))
        # latency: the reference decoder, sbench's rank rule, clamped
        out = subprocess.run(["node", merge, jsdir] + [os.path.join(rdir, "runs", r[2] + ".hlog") for r in runs],
                             capture_output=True, text=True)
        f = out.stdout.split()
        lat = p["latency_ms"]
        count = sum(r[1]["latency_ms"]["count"] for r in runs)
        mn = min(r[1]["latency_ms"]["min"] for r in runs)
        mx = max(r[1]["latency_ms"]["max"] for r in runs)
        check(len(f) == 5 and int(f[0]) == count == lat["count"],
              name + ": %s latencies in the logs = the reports' count = the summary's" % (f[0] if f else "?"))
        if len(f) == 5:
            want = [min(max(int(v) / 1e6, mn), mx) for v in f[1:]]
            got = [lat["percentiles"][k] for k in ("50", "95", "99", "99.9")]
            check(all(close(x, y) for x, y in zip(want, got)),
                  name + ": p50/p95/p99/p99.9 %s = hdr-histogram-js's merge %s" % (got, want))
        mean = sum(r[1]["latency_ms"]["sum"] for r in runs) / count if count else 0
        check(close(mean, lat["mean"]) and close(mn, lat["min"]) and close(mx, lat["max"]),
              name + ": mean, min, max of the merged latency")

    def pairs(v):
        """the runs of a and b at v's point with the same repeat, tps"""
        by = {}
        for r in summary["runs"]:
            if (r["workload"], r["threads"]) == (v["workload"], v["threads"]) and r["target"] in (v["a"], v["b"]):
                by.setdefault(r["repeat"], {})[r["target"]] = r["tps"]
        both = [by[k] for k in sorted(by) if len(by[k]) == 2]
        return [x[v["a"]] for x in both], [x[v["b"]] for x in both]

    wants = []
    for v in summary["verdicts"]:
        a = [x["tps"] for x in summary["points"] if (x["workload"], x["threads"], x["target"]) == (v["workload"], v["threads"], v["a"])][0]["values"]
        b = [x["tps"] for x in summary["points"] if (x["workload"], x["threads"], x["target"]) == (v["workload"], v["threads"], v["b"])][0]["values"]
        pa, pb = pairs(v)
        saved = any(t.get("from") for t in summary["spec"]["targets"] if t["name"] in (v["a"], v["b"]))
        paired = not saved and len(pa) >= 8
        check(v["test"] == ("signed-rank" if paired else "mann-whitney"),
              "%s/%d %s vs %s: test %s (%d pairs)" % (v["workload"], v["threads"], v["b"], v["a"], v["test"], len(pa)))
        wants.append(signed_rank(pa, pb) if paired else mw(a, b))
    qs = benjamini_hochberg([w["p_value"] for w in wants])
    for v, want, q in zip(summary["verdicts"], wants, qs):
        ok = all(close(want[k], v[k]) for k in ("p_value", "change_pct", "low_pct", "high_pct")) and \
            want["achievable"] == v["achievable"] and want["significant"] == v["significant_unadjusted"] and \
            close(q, v["p_adjusted"]) and v["significant"] == (want["significant"] and q <= 0.05)
        check(ok, "%s/%d %s vs %s: verdict recomputed, Benjamini-Hochberg over %d (%s)" %
              (v["workload"], v["threads"], v["b"], v["a"], len(wants), v["text"]))

    parser = DataCells()
    parser.feed(open(os.path.join(rdir, "report.html")).read())
    text = "".join(parser.text)
    bad = 0
    for p in summary["points"]:
        row = (p["workload"], p["threads"], p["target"])
        want = {"tps.median": p["tps"]["median"], "tps.low": p["tps"]["low"], "tps.high": p["tps"]["high"],
                "tps.min": p["tps"]["min"], "tps.max": p["tps"]["max"], "tps.n": p["tps"]["n"],
                "tps.level": p["tps"]["level"] * 100, "latency_ms.mean": p["latency_ms"]["mean"]}
        for k in ("50", "95", "99", "99.9"):
            want["latency_ms." + k] = p["latency_ms"]["percentiles"][k]
        for k, x in want.items():
            if not close(parser.cells.get(row + (k,), float("nan")), x):
                bad += 1
                print("     | %s %s: html %s, summary %s" % (row, k, parser.cells.get(row + (k,)), x))
    check(bad == 0 and parser.cells, "report.html: every number of the points tables = summary.json (%d cells)" % len(parser.cells))
    hv = {(a["data-workload"], int(a["data-threads"]), a["data-a"], a["data-b"]): a for a in parser.verdicts}
    bad = 0
    for v in summary["verdicts"]:
        a = hv.get((v["workload"], v["threads"], v["a"], v["b"]))
        if a is None or not (close(float(a["data-change"]), v["change_pct"]) and close(float(a["data-low"]), v["low_pct"])
                             and close(float(a["data-high"]), v["high_pct"]) and v["text"] in text):
            bad += 1
    check(bad == 0, "report.html: every verdict, its numbers and its text = summary.json (%d)" % len(summary["verdicts"]))

    secret = os.environ.get("SBT_SECRET")
    if secret:
        leaks = []
        for root, _, files in os.walk(rdir):
            for fn in files:
                if secret.encode() in open(os.path.join(root, fn), "rb").read():
                    leaks.append(fn)
        check(not leaks, "the password is in no file of the results directory %s" % (leaks or ""))

    print("%d checks, %d failed" % (checks, failures))
    sys.exit(1 if failures else 0)


main()
