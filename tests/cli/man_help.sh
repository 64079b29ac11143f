#!/bin/bash
# man_help.sh: the man page and --help stay in step.  The options
# `sbench --help` lists must be exactly those the man page's GENERAL
# OPTIONS and SHARDS sections document, and for every driver --help finds, the options
# `sbench --db-driver=NAME --help` adds must be exactly those of its
# section NAME OPTIONS (an option of the man page is a --name in a .TP
# item's tag line).  Generic: a new option or driver without its man entry
# fails here, naming it, and so does a man entry whose option is gone.
#
# Usage: man_help.sh BUILD_DIR [MAN_PAGE] (default: docs/sbench.1)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${SBT_BUILD:-$src/build}}
man=${2:-$src/docs/sbench.1}
sb=$build/cli/sbench
[ -x "$sb" ] || { echo "FAIL no sbench at $sb"; echo "0 passed, 1 failed"; exit 1; }
[ -f "$man" ] || { echo "FAIL no man page at $man"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d /tmp/sbench-manhelp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$sb" --help </dev/null >"$tmp/general" 2>&1 || { echo "FAIL sbench --help exited $?"; echo "0 passed, 1 failed"; exit 1; }
drivers=$(sed -n '/^Drivers found/,/^$/p' "$tmp/general" | awk '/^  [^ -]/ { print $1 }')
[ -n "$drivers" ] || { echo "FAIL sbench --help lists no driver"; echo "0 passed, 1 failed"; exit 1; }
for d in $drivers; do
    "$sb" --db-driver="$d" --help </dev/null >"$tmp/driver-$d" 2>&1 ||
        echo "sbench --db-driver=$d --help exited $?" >>"$tmp/errors"
done

python3 - "$man" "$tmp" $drivers <<'PY'
import os, re, sys

man, tmp, drivers = sys.argv[1], sys.argv[2], sys.argv[3:]
passed = failed = 0

def result(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what + (": " + detail if detail else ""))

def help_options(path):
    """--name of every option line of a --help listing."""
    out = set()
    for line in open(path, errors="replace"):
        m = re.match(r"  (--[A-Za-z0-9][\w-]*)", line)
        if m:
            out.add(m.group(1))
    return out

# the man page: section title -> options in its .TP tag lines
sections, title, prev = {}, None, ""
for line in open(man, errors="replace"):
    line = line.rstrip("\n")
    if line.startswith(".SH "):
        title = line[4:].strip().strip('"')
        sections.setdefault(title, set())
    elif prev.strip() == ".TP" and title is not None:
        tag = line.replace("\\-", "-")
        sections[title].update(re.findall(r"(--[A-Za-z0-9][\w-]*)", tag))
    prev = line

if os.path.exists(os.path.join(tmp, "errors")):
    result(False, "--help of every driver", open(os.path.join(tmp, "errors")).read().strip())

general = help_options(os.path.join(tmp, "general"))

def compare(what, listed, documented, section):
    missing = sorted(listed - documented)
    extra = sorted(documented - listed)
    result(not missing, f"{what}: every option --help lists is in {section} "
           f"({len(listed)} options)", "not documented: " + " ".join(missing))
    result(not extra, f"{what}: every option {section} documents is in --help",
           "not in --help (gone or misspelt?): " + " ".join(extra))

# the general options are documented in GENERAL OPTIONS, those of a run made
# of several processes in SHARDS
compare("sbench --help", general,
        sections.get("GENERAL OPTIONS", set()) | sections.get("SHARDS", set()),
        "the man page's GENERAL OPTIONS and SHARDS")

for d in drivers:
    own = help_options(os.path.join(tmp, "driver-" + d)) - general
    section = d.upper() + " OPTIONS"
    if section not in sections:
        result(False, f"driver {d}", f"the man page has no section {section} "
               f"for its options: {' '.join(sorted(own))}")
        continue
    compare(f"sbench --db-driver={d} --help", own, sections[section], section)

# a NAME OPTIONS section for a driver --help does not find is stale
for title in sorted(sections):
    m = re.fullmatch(r"([A-Z0-9_]+) OPTIONS", title)
    if m and title != "GENERAL OPTIONS":
        result(m.group(1).lower() in drivers, f"man section {title} is a driver sbench finds",
               "no driver " + m.group(1).lower())

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
