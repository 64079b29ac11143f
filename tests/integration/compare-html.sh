#!/bin/bash
# compare-html.sh: the HTML report in a real browser (Debian's chromium,
# headless).  A null-driver comparison (two targets, 2 thread counts, 4
# repeats: enough for a verdict at 95%), then: a screenshot that is not blank (decoded here with zlib:
# many colours, a fair share of non-white pixels); the DOM after loading
# (--dump-dom) has the charts (throughput, latency percentiles, throughput
# over time per point) with a series per target; and no request leaves the
# file: chromium's net log holds no request made by the page (a control
# page with an external image shows that such a request would be seen).
. "$(dirname "$0")/compare-lib.sh" "$1"
command -v chromium >/dev/null || { fail "chromium is not installed (scripts/install-deps.sh --test)"; finish; exit 1; }
"$SB" compare --prepare=off --target='fast:--db-driver=null --null-delay-us=200' \
    --target='slow:--db-driver=null --null-delay-us=200 --rate=300' --threads=1,2 --time=1 --warmup-time=0 \
    --repeats=4 --results=h --quiet oltp_point_select >h.md 2>h.err
expect_eq "exit status" "$?" 0
html=$T/h/report.html
# the machine's facts (info.json, written by sbench info) against /proc,
# uname, nproc, os-release, stat -f, /sys, as tests/cli/info_fileio.sh does
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
"$SB" info --report-format=json >info-now.json 2>/dev/null
checks=$((checks + 1))
if python3 - h/summary.json "$(uname -r)" "$(uname -m)" "$(uname -n)" "$(nproc)" \
    "$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo)" "$(cat $cs 2>/dev/null)" \
    "$(. /etc/os-release; echo "$PRETTY_NAME")" "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" \
    "$(stat -f -c '%b %S' . | awk '{print $1 * $2}')" "$T" <<'PY'; then echo "ok   environment.machine = /proc, uname, stat -f; drivers = sbench info's"; else fail "environment.machine"; fi
import json, sys
s = json.load(open(sys.argv[1]))
env, m = s["environment"], s["environment"]["machine"]
kernel, arch, name, cpus, mem, clock, os_, model, fs_total, cwd = sys.argv[2:]
got = (m["kernel"], m["arch"], m["name"], str(m["cpus"]), str(m["memory_bytes"]), m["os"], str(m["fs"]["total_bytes"]), m["cwd"])
want = (kernel, arch, name, cpus, mem, os_, fs_total, cwd)
assert got == want, (got, want)
assert not clock or m["clocksource"] == clock, m["clocksource"]
assert not model or m["cpu_model"] == model, m["cpu_model"]
assert len(m["loadavg"]) == 3 and all(x >= 0 for x in m["loadavg"]), m["loadavg"]
assert m["fs"]["free_bytes"] > 0 and env["machine_from"] == "info.json", env["machine_from"]
# the drivers as sbench info lists them now
now = json.load(open("info-now.json"))["drivers"]
strip = lambda ds: sorted((d["name"], d.get("client_version"), d.get("error")) for d in ds)
assert strip(env["drivers"]) == strip(now) and any(d["name"] == "null" for d in now), (env["drivers"], now)
PY
# each target's I/O path: no --clients, so one client per thread in every
# run ("blocking"), in the summary and in the report's environment table
checks=$((checks + 1))
io=$(python3 -c 'import json, sys; print(" ".join(t.get("io", "-") for t in json.load(open(sys.argv[1]))["environment"]["targets"]))' h/summary.json)
if [ "$io" = "blocking blocking" ] && [ "$(grep -o 'I/O blocking' "$html" | wc -l)" = 2 ]; then
    echo "ok   environment.targets[].io: $io, and in the report"
else
    fail "environment.targets[].io: '$io', report: $(grep -o 'I/O [a-z_]*' "$html" | tr '\n' ' ')"
fi
chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --user-data-dir="$T/chrome" "$@" 2>/dev/null; }
chrome --window-size=1200,2400 --screenshot="$T/shot.png" "file://$html" >/dev/null
checks=$((checks + 1))
if python3 - "$T/shot.png" <<'PY'; then echo "ok   screenshot is not blank"; else fail "screenshot"; fi
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, nonwhite = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        line[i] = (line[i] + [0, a, b, (a + b) // 2, pr][f]) & 255
    for x in range(0, stride, bpp * 4):  # every 4th pixel
        px = bytes(line[x:x + 3])
        colours.add(px)
        nonwhite += px != b"\xff\xff\xff"
    prev = line
share = nonwhite / (h * w / 4)
print("     %dx%d, %d colours, %.1f%% not white" % (w, h, len(colours), 100 * share))
sys.exit(0 if len(colours) > 20 and share > 0.02 else 1)
PY
chrome --log-net-log="$T/net.json" --net-log-capture-mode=Everything --dump-dom "file://$html" >dom.html
checks=$((checks + 1))
if python3 - dom.html <<'PY'; then echo "ok   the DOM has every chart with a series per target"; else fail "DOM"; fi
import re, sys
dom = open(sys.argv[1]).read()
want = ["chart-tps-oltp_point_select"] + ["chart-%s-oltp_point_select-t%d" % (k, t) for k in ("lat", "time") for t in (1, 2)]
ok = True
for fid in want:
    m = re.search(r'<figure[^>]*id="%s".*?</figure>' % fid, dom, re.S)
    if not m or "<svg" not in m.group(0):
        print("     | missing chart", fid); ok = False; continue
    titles = re.findall(r"<title>([^<]*)</title>", m.group(0))
    need = ["fast", "slow"] if "time" not in fid else ["fast r1", "fast r2", "slow r1", "slow r2"]
    if not all(n in titles for n in need):
        print("     | %s series %s, want %s" % (fid, titles, need)); ok = False
ok = ok and len(re.findall(r"<figure", dom)) == 5 and 'class="points"' in dom
sys.exit(0 if ok else 1)
PY
netcheck() { # NETLOG -> the URLs the page requested, one per line
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inv = {v: k for k, v in d["constants"]["logEventTypes"].items()}
for e in d["events"]:
    p = e.get("params") or {}
    # chromium's own background requests carry no origin; the page's do
    if inv.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p and p.get("initiator") != "not an origin":
        print(p["url"])
PY
}
netcheck "$T/net.json" >page-requests.txt
expect_eq "requests made by the report page" "$(wc -l <page-requests.txt | tr -d ' ')" 0
echo '<html><body><img src="http://127.0.0.1:9/x.png"></body></html>' >control.html
chrome --log-net-log="$T/net2.json" --net-log-capture-mode=Everything --dump-dom "file://$T/control.html" >/dev/null
expect_eq "control page: its external image is seen" "$(netcheck "$T/net2.json")" "http://127.0.0.1:9/x.png"
checks=$((checks + 1))
if grep -Eq '(src|href)="(https?:|//)|@import|url\((https?:|//)' "$html"; then fail "report.html refers to something outside"
else echo "ok   report.html refers to nothing outside itself"; fi
# the machine table of the report, as chromium reads it
checks=$((checks + 1))
if python3 - dom.html "$(uname -r)" "$(nproc)" <<'PY'; then echo "ok   report: machine table"; else fail "report machine table"; fi
import re, sys
dom, kernel, cpus = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
t = re.search(r'<table class="env" id="machine" data-from="info.json">(.*?)</table>', dom, re.S).group(1)
cell = dict(re.findall(r'<td data-key="([^"]*)">([^<]*)</td>', t))
assert kernel in cell["kernel"] and cell["cpus"].startswith(cpus + " online"), cell
for k in ("os", "cpu_model", "memory_bytes", "fs", "clocksource", "loadavg"):
    assert k in cell, k
assert re.search(r'<tr data-driver="null"><th>null</th><td>null [0-9]', dom), "drivers table"
PY
# a results directory of an older sbench (no info.json): the machine is
# the first run's run.host
cp -r h old && rm old/info.json
"$SB" report old >old.md 2>old.err
expect_eq "older results directory: sbench report exit status" "$?" 0
expect_eq "older directory: machine from the first run" \
    "$(pyq old/summary.json '[d["environment"]["machine_from"], d["environment"]["machine"]["kernel"], d["environment"]["drivers"]]')" \
    "['$(pyq h/summary.json '[r["id"] for r in d["runs"] if r["order"] == 0][0]')', '$(uname -r)', None]"
# The first screen answers "which is faster, by how much, how sure": the
# report printed by chromium to PDF, its first page's text (pdftotext):
# the answer section comes before any pairwise verdict and chart, ranks
# fast (no --rate) above slow (--rate=300, known to be slower) at both
# thread counts, with slow's ratio to fast as the summary's verdict says;
# in the DOM, every row's ratio and interval = the verdict's, its verdict
# word as its significance and repeats allow; Scaling and Limits headed.
chrome --no-pdf-header-footer --print-to-pdf="$T/report.pdf" "file://$html" >/dev/null
pdftotext -f 1 -l 1 "$T/report.pdf" page1.txt 2>/dev/null || fail "pdftotext of the report's first page"
checks=$((checks + 1))
if python3 - page1.txt dom.html h/summary.json <<'PY'; then echo "ok   first screen: the targets ranked per point, ratios = the verdicts'"; else fail "first screen: the answer"; fi
import html, json, re, sys
page, dom, s = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
i = page.find("Which is faster, by how much, how sure")
assert i >= 0, page[:400]
assert "Every verdict" not in page[:i], "a pairwise verdict before the answer"
rows = re.findall(r'<tr data-workload="([^"]*)" data-threads="(\d+)" data-target="([^"]*)" data-rank="(\d+)">(.*?)</tr>', dom, re.S)
assert len(rows) == 4, rows
for wl, th, target, rank, cells in rows:
    want_rank = "1" if target == "fast" else "2"
    assert rank == want_rank, (th, target, rank)
    v = [x for x in s["verdicts"] if x["threads"] == int(th)][0]
    ratio = v["ratio"] if (v["a"], v["b"]) == ("fast", "slow") else 1 / v["ratio"]
    text = html.unescape(re.sub(r"<[^>]*>", " ", cells))
    if target == "slow":
        m = re.search(r'data-value="([^"]+)">([0-9.]+)x', cells)
        assert m and abs(float(m.group(1)) - ratio) < 1e-9 * ratio and ratio < 1, (cells, ratio)
        assert m.group(2) in page, ("ratio not on the first page", m.group(2))
        lo = 1 + (v["low_pct"] if v["a"] == "fast" else -v["high_pct"] / (100 + v["high_pct"]) * 100) / 100
        m2 = re.search(r'data-low="([^"]+)"', cells)
        assert m2 and abs(float(m2.group(1)) - lo) < 1e-6, (cells, lo)
    word = ("slower" if target == "slow" else "faster than every other target") if v["significant"] else \
           ("cannot tell: too few repeats" if not v["achievable"] else "no significant difference" if target == "slow" else "not significantly faster than the next")
    assert word in text, (text, word)
body = re.sub(r"<[^>]*>", "", dom)
assert "Scaling" in body and "Limits: what limited each point" in body
PY
finish
