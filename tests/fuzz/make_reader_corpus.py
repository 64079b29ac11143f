#!/usr/bin/env python3
"""make_reader_corpus.py: writes the seed corpora of the reader fuzz targets,
corpus/hdr_read/ and corpus/json_read/, from real outputs and a few that lie:

  - an HdrHistogram log of known intervals (tests/unit/hdr_log_test --log);
  - a null-driver run with --report-format=json --report-interval=1
    --hdr-log (the files `sbench compare` reads), and shards of one
    (--shard=I/2: the files `sbench merge` reads), one with event types;
  - copies of those that lie: truncated, a tagged interval, other histogram
    settings, zero runs and counts past the buckets, a bad cookie, a NUL;
    reports whose counts disagree, a line after the final one, a second
    final, numbers past 64 bits, bad UTF-8, deep nesting.

Usage: make_reader_corpus.py SBENCH HDR_LOG_TEST [CORPUS_DIR]
(from a build: build/cli/sbench build/tests/hdr_log_test).  The inputs
that once failed (crash-*) are kept; everything else is rewritten.
"""
import base64
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def hist_text(payload, sig=2, lowest=10, highest=3600 * 10**9):
    """A V2 compressed histogram, base64, around payload (raw counts)."""
    raw = struct.pack(">IIIIqqd", 0x1c849313, len(payload), 0, sig, lowest, highest, 1.0) + payload
    z = zlib.compress(raw)
    return base64.b64encode(struct.pack(">II", 0x1c849314, len(z)) + z).decode()


def zigzag(v):
    u = (v << 1) ^ (v >> 63) if v < 0 else v << 1
    u &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if u < 0x80:
            out.append(u)
            return bytes(out)
        out.append((u & 0x7f) | 0x80)
        u >>= 7
    out.append(u & 0xff)
    return bytes(out)


def payload_of(text):
    """The raw counts inside a base64 V2 compressed histogram."""
    b = base64.b64decode(text)
    return zlib.decompress(b[8:])[40:]


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def hdr_seeds(d, logs):
    known = logs["known"]
    write(d, "log-known", known)
    write(d, "log-run", logs["run"])
    write(d, "log-shard", logs["shard"])
    lines = known.decode().splitlines(keepends=True)
    head = "".join(l for l in lines if l.startswith(("#", '"')))
    first = next(l for l in lines if l[0].isdigit())
    hist = first.rstrip("\n").split(",")[3]
    write(d, "lie-truncated", known[:-20])
    write(d, "lie-tagged", head + "Tag=a," + first)
    write(d, "lie-five-fields", head + first.rstrip("\n") + ",1\n")
    write(d, "lie-negative-start", head + "-1.000" + first[first.index(","):])
    write(d, "lie-nul", head + first.replace(",", "\0,", 1))
    write(d, "lie-long-comment", "#[sbench " + "x" * 300 + "]\n" + first)
    write(d, "lie-settings", head + "0.000,1.000,1.000," + hist_text(payload_of(hist), sig=3) + "\n")
    write(d, "lie-run-past-end", head + "0.000,1.000,1.000," + hist_text(zigzag(-(1 << 40)) + zigzag(5)) + "\n")
    write(d, "lie-count-cut", head + "0.000,1.000,1.000," + hist_text(zigzag(7) + b"\x80\x80") + "\n")
    write(d, "lie-min-run", head + "0.000,1.000,1.000," + hist_text(zigzag(-(1 << 63))) + "\n")
    big = hist_text(zigzag((1 << 63) - 1) * 3)
    write(d, "lie-huge-counts", head + "0.000,1.000,1.000," + big + "\n")
    b = bytearray(base64.b64decode(hist))
    b[0] ^= 0x40
    write(d, "lie-cookie", head + "0.000,1.000,1.000," + base64.b64encode(bytes(b)).decode() + "\n")
    b = bytearray(base64.b64decode(hist))
    b[7] ^= 1
    write(d, "lie-zlen", head + "0.000,1.000,1.000," + base64.b64encode(bytes(b)).decode() + "\n")
    write(d, "lie-not-base64", head + "0.000,1.000,1.000,HIST*AAA\n")
    # the target also reads an input as raw counts (it wraps them itself)
    write(d, "payload-known", payload_of(hist))
    write(d, "payload-runs", zigzag(3) + zigzag(-100) + zigzag(1) + zigzag(0) + zigzag(-2) + zigzag(9))


def report_lines(data):
    return [json.loads(l) for l in data.decode().splitlines()]


def dump(objs):
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)


def json_seeds(d, reports):
    write(d, "report-run", reports["run"])
    write(d, "report-shard", reports["shard"])
    write(d, "report-shard-types", reports["typed"])
    sh = report_lines(reports["shard"])
    fin = sh[-1]
    write(d, "json-record", json.dumps({"id": "a-1-t-1", "exit": 0, "seconds": 2.5,
                                        "argv": ["sbench", "--threads=2"]}))
    write(d, "lie-truncated", reports["shard"][:-1])
    f2 = json.loads(json.dumps(fin))
    f2["transactions"] += 1
    write(d, "lie-transactions", dump(sh[:-1] + [f2]))
    f2 = json.loads(json.dumps(fin))
    f2["merge_data"]["latency"]["count"] += 1
    write(d, "lie-hist-count", dump(sh[:-1] + [f2]))
    f2 = json.loads(json.dumps(fin))
    f2["merge_data"]["latency"]["hdr"] = hist_text(zigzag(-(1 << 40)))
    write(d, "lie-hist-hdr", dump(sh[:-1] + [f2]))
    f2 = json.loads(json.dumps(fin))
    f2["threads"] = 0
    write(d, "lie-threads", dump(sh[:-1] + [f2]))
    f2 = json.loads(json.dumps(fin))
    f2["merge_data"]["thread_events"] = [18446744073709551616]
    write(d, "lie-past-u64", dump(sh[:-1] + [f2]).replace("1.8446744073709552e+19", "18446744073709551616"))
    write(d, "lie-after-final", dump(sh + [sh[0]]))
    write(d, "lie-two-finals", dump(sh + [sh[-1]]))
    ty = report_lines(reports["typed"])
    f2 = json.loads(json.dumps(ty[-1]))
    f2["merge_data"]["types"][0]["count"] += 1
    write(d, "lie-type-count", dump(ty[:-1] + [f2]))
    write(d, "lie-no-type", dump([{"transactions": 1}]))
    w = json.loads(json.dumps(sh[0]))
    w["seconds"] = -1
    write(d, "lie-window-seconds", dump([w] + sh[1:]))
    write(d, "lie-utf8", b'{"type":"final","run":{"host":{"name":"\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80"}}}\n')
    write(d, "lie-deep", "[" * 5000 + "]" * 5000 + "\n")
    write(d, "lie-null", "null\n")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sbench, hdr_log_test = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "corpus")
    with tempfile.TemporaryDirectory() as t:
        p = lambda n: os.path.join(t, n)
        subprocess.run([hdr_log_test, "--log", p("known.hlog"), "--expect", p("known.exp")], check=True)
        base = [sbench, "--db-driver=null", "--null-delay-us=100", "--threads=2", "--time=2",
                "--report-interval=1", "--report-format=json", "--rand-seed=1"]
        subprocess.run(base + ["--output=" + p("run.json"), "--hdr-log=" + p("run.hlog"),
                               "oltp_point_select", "run"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(base + ["--shard=0/2", "--run-id=fuzzseed", "--output=" + p("shard.json"),
                               "--hdr-log=" + p("shard.hlog"), "oltp_point_select", "run"],
                       check=True, stdout=subprocess.DEVNULL)
        # a shard whose events have types (merge_data.types)
        with open(p("typed.lua"), "w") as f:
            f.write('local n = 0\nfunction event()\n  n = n + 1\n'
                    '  sbench.event_type(n % 3 == 0 and "slow" or "fast")\nend\n')
        subprocess.run(base + ["--shard=1/2", "--run-id=fuzzseed", "--output=" + p("typed.json"),
                               "--hdr-log=" + p("typed.hlog"), p("typed.lua"), "run"],
                       check=True, stdout=subprocess.DEVNULL)
        rd = lambda n: open(p(n), "rb").read()
        for target, fill, files in (("hdr_read", hdr_seeds, {"known": "known.hlog", "run": "run.hlog",
                                                            "shard": "shard.hlog"}),
                                    ("json_read", json_seeds, {"run": "run.json", "shard": "shard.json",
                                                              "typed": "typed.json"})):
            d = os.path.join(corpus, target)
            os.makedirs(d, exist_ok=True)
            for n in os.listdir(d):
                if not n.startswith("crash-"):
                    os.remove(os.path.join(d, n))
            fill(d, {k: rd(v) for k, v in files.items()})
            print(f"{target}: {len(os.listdir(d))} seeds in {d}")


if __name__ == "__main__":
    main()
