#!/usr/bin/env python3
"""result_files_bad.py: the bad files of tests/cli/result_files_bad.sh,
written from good ones (a synthetic sharded run of shard_gen, a comparison
on the null driver).  Each edit is a lie a reader must refuse:

  hist-overflow FILE.hlog   the first interval's histogram replaced by one
                            whose counts are 2^63-1, 2^63-1 and N + 2: the
                            total wraps (mod 2^64) back to the true N
  set FILE.json LINE KEY V  line LINE's (1-based; -1: the last) member KEY
                            (dotted) set to the JSON value V
  huge FILE BYTES           FILE becomes one JSON line of BYTES bytes
  set-doc FILE KEY V        a JSON document's member KEY set to V
  scale FILE F              every report line's transactions (and tps)
                            times F: F times its latencies
  inflate FILE F            the first interval line's transactions and
                            latencies (count, sum; tps) times F: a line
                            that agrees with itself, but not with the final
  shift FILE                one transaction with its latency moved from the
                            second interval line to the first: each line
                            and the sums agree, the log's windows do not
  loop FILE                 FILE becomes a symbolic link to itself

The HdrHistogram V2 layout (cookie, zlib, ZigZag LEB128-64b9B) follows the
published format description, as core/hdr_log.c's header comment gives it.
"""
import base64
import json
import os
import struct
import sys
import zlib


def zigzag_leb(v):
    u = (v << 1) ^ (-1 if v < 0 else 0)
    u &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if u < 0x80:
            out.append(u)
            return bytes(out)
        out.append((u & 0x7F) | 0x80)
        u >>= 7
    out.append(u & 0xFF)
    return bytes(out)


def leb_counts(payload):
    """The counts of a V2 payload (runs of zeros expanded)."""
    counts, i = [], 0
    while i < len(payload):
        u, shift = 0, 0
        for k in range(9):
            b = payload[i]
            i += 1
            if k == 8:
                u |= b << 56
                break
            u |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        v = (u >> 1) ^ -(u & 1)
        counts.extend([0] * -v if v < 0 else [v])
    return counts


def hist_overflow(path):
    lines = open(path).read().split("\n")
    for n, line in enumerate(lines):
        if line and not line.startswith("#") and not line.startswith('"'):
            fields = line.split(",")
            z = base64.b64decode(fields[3])
            raw = zlib.decompress(z[8:])
            total = sum(leb_counts(raw[40:]))
            top = (1 << 63) - 1
            payload = zigzag_leb(top) + zigzag_leb(top) + zigzag_leb(total + 2)
            assert (top + top + total + 2) % (1 << 64) == total
            raw = raw[:4] + struct.pack(">I", len(payload)) + raw[8:40] + payload
            body = zlib.compress(raw)
            z = z[:4] + struct.pack(">I", len(body)) + body
            fields[3] = base64.b64encode(z).decode()
            lines[n] = ",".join(fields)
            open(path, "w").write("\n".join(lines))
            print(n + 1)  # the line edited, for the expected message
            return
    sys.exit("no interval in " + path)


def set_member(obj, key, value):
    *path, last = key.split(".")
    for k in path:
        obj = obj[k]
    obj[last] = value


def move(d, n):
    """Line d's transactions and latencies: n more (n < 0: fewer) of its
    mean latency; its rates follow."""
    lat = d["latency_ms"]
    d["transactions"] += n
    lat["count"] += n
    lat["sum"] = lat["avg"] * lat["count"]
    d["tps"] = d["transactions"] / d["seconds"]


def edit_lines(path, cmd, f):
    lines = [json.loads(x) for x in open(path).read().splitlines()]
    iv = [d for d in lines if d["type"] == "interval"]
    if cmd == "scale":
        for d in lines:
            d["transactions"] = int(d["transactions"] * f)
            d["tps"] = d["transactions"] / d["seconds"]
    elif cmd == "inflate":
        move(iv[0], int(iv[0]["transactions"] * (f - 1)))
    else:
        move(iv[0], 1)
        move(iv[1], -1)
    open(path, "w").write("".join(json.dumps(d) + "\n" for d in lines))
    if cmd == "scale":
        print(lines[0]["transactions"])


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "hist-overflow":
        hist_overflow(path)
    elif cmd == "set":
        line, key, value = int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
        lines = open(path).read().splitlines()
        i = line - 1 if line > 0 else len(lines) + line
        d = json.loads(lines[i])
        set_member(d, key, value)
        lines[i] = json.dumps(d)
        open(path, "w").write("\n".join(lines) + "\n")
        print(i + 1)
    elif cmd == "set-doc":
        d = json.load(open(path))
        set_member(d, sys.argv[3], json.loads(sys.argv[4]))
        json.dump(d, open(path, "w"))
    elif cmd in ("scale", "inflate", "shift"):
        edit_lines(path, cmd, float(sys.argv[3]) if cmd != "shift" else 1)
    elif cmd == "loop":
        os.remove(path)
        os.symlink(os.path.basename(path), path)
    elif cmd == "huge":
        n = int(sys.argv[3])
        with open(path, "w") as f:
            f.write('{"type":"interval","pad":"')
            chunk = "x" * (1 << 20)
            left = n - 30
            while left > 0:
                f.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
            f.write('"}\n')
    else:
        sys.exit("unknown command " + cmd)


main()
