#!/usr/bin/env python3
"""jsonw_utf8.py: lib/jsonw.c's strings against Python's own UTF-8 decoder.

Usage: jsonw_utf8.py JSONW_TEST (the binary of tests/unit/jsonw_test.c).

Every string of one or two bytes (no NUL), every lead byte >= 0x80 before
each of a set of second and third bytes, and sequences of up to four bytes
around each boundary of the well-formed table (E0/ED/F0/F4 and their
continuation limits) is written by sb_jw_str (jsonw_test --dump).  Each
output line must be valid UTF-8 (decoded strictly: no surrogates), parse
with json.loads (strict: no raw control characters), and hold exactly what
Python's decoder makes of the bytes with errors="replace" (one U+FFFD per
maximal subpart, the Unicode standard's recommended practice).
"""
import itertools
import json
import subprocess
import sys


def cases():
    for a in range(1, 256):
        yield bytes([a])
        for b in range(1, 256):
            yield bytes([a, b])
    edges = [0x01, 0x22, 0x41, 0x5c, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
             0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff]
    for a in range(0x80, 0x100):
        for rest in itertools.product(edges, repeat=2):
            yield bytes([a, *rest])
    for lead in (0xe0, 0xe1, 0xed, 0xee, 0xf0, 0xf1, 0xf4, 0xf5):
        for rest in itertools.product(edges, repeat=3):
            yield bytes([lead, *rest])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    inputs = list(cases())
    data = "".join(c.hex() + "\n" for c in inputs).encode()
    out = subprocess.run([sys.argv[1], "--dump"], input=data, stdout=subprocess.PIPE, check=True).stdout
    lines = out.split(b"\n")
    if lines[-1] != b"" or len(lines) - 1 != len(inputs):
        sys.exit(f"FAIL: {len(lines) - 1} lines written for {len(inputs)} strings")
    bad = 0
    for raw, line in zip(inputs, lines):
        try:
            got = json.loads(line.decode("utf-8", errors="strict"), strict=True)["s"]
        except (UnicodeDecodeError, ValueError) as e:
            bad += 1
            if bad <= 10:
                print(f"FAIL {raw.hex()}: not valid UTF-8 JSON ({e}): {line!r}")
            continue
        want = raw.decode("utf-8", errors="replace")
        if got != want:
            bad += 1
            if bad <= 10:
                print(f"FAIL {raw.hex()}: wrote {got!r}, Python decodes {want!r}")
    print(f"{len(inputs) - bad} of {len(inputs)} strings valid and as Python decodes them")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
