#!/bin/bash
# json_utf8.sh: a JSON report stays valid JSON and valid UTF-8 when the
# strings in it are not (no server needed): a script whose file name has
# an invalid byte (the run's metadata, lib/jsonw.c) and an event type
# named with an invalid byte, a quote and a control character
# (core/report_json.c).  Python reads every line strictly (UTF-8 without
# surrogates, json.loads strict) and compares the strings with its own
# decoding of the bytes (errors="replace": U+FFFD per maximal subpart).
# Usage: json_utf8.sh BUILD_DIR
set -u
build=$(cd "${1:-${SBT_BUILD:-build}}" && pwd) || { echo "no build dir"; exit 1; }
S=$build/cli/sbench
tmp=$(mktemp -d "${SBT_TMP:-/tmp}/sbench-json-utf8.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
script=$tmp/$(printf 'w\377\303x.lua')
# the type name: 0xFF, a quote, 0x01, then e-acute cut after its first byte
printf 'function event()\n  sbench.event_type("t\\255\\"\\1\\195")\nend\n' > "$script"
"$S" --db-driver=null --threads=1 --events=20 --report-format=json --output="$tmp/r.json" \
    "$script" run > "$tmp/out" 2>&1 || { echo "FAIL: sbench exited $?: $(tail -3 "$tmp/out")"; exit 1; }
python3 - "$tmp/r.json" "$script" <<'PY'
import json, os, sys
lines = open(sys.argv[1], "rb").read().splitlines()
fail = 0
for i, raw in enumerate(lines, 1):
    try:
        json.loads(raw.decode("utf-8", errors="strict"), strict=True)
    except ValueError as e:
        print(f"FAIL: line {i} is not valid UTF-8 JSON: {e}")
        fail = 1
fin = json.loads(lines[-1].decode("utf-8"))
want_type = b't\xff"\x01\xc3'.decode("utf-8", errors="replace")
types = list(fin.get("types", {}))
if types == [want_type]:
    print(f"ok   event type {want_type!r} as Python decodes its bytes")
else:
    print(f"FAIL: event types {types!r}, want [{want_type!r}]")
    fail = 1
want_script = os.fsencode(sys.argv[2]).decode("utf-8", errors="replace")
got = fin["run"].get("script")
if got == want_script:
    print(f"ok   run.script {got!r} as Python decodes the file name")
else:
    print(f"FAIL: run.script {got!r}, want {want_script!r}")
    fail = 1
print(f"{'FAIL' if fail else 'ok  '} {len(lines)} report lines valid UTF-8 JSON")
sys.exit(fail)
PY
