#!/usr/bin/env python3
"""layout.py: the folder map of docs/ARCHITECTURE.md, checked on the tree.

Every #include "..." of a C file is an arrow from its folder to the
folder of the file it names.  The test fails when
  - an arrow points to a folder the map does not allow (arrows go only
    downward: nothing in core/ names cli/, compare/, merge/, results/ or
    lua/; lib/ names nothing of sbench);
  - a header private to its folder (PRIVATE) is named from another one;
  - a circle of modules (a module: NAME.c with NAME.h) spans two folders;
  - in a folder of CALL_FLAT (lua/, whose files share one header, so that
    includes show nothing), a circle of calls between its files: file A
    calls a function file B defines and B, through any others, calls A's;
  - a folder has no meson.build opening with a comment that says what the
    folder is for, or a C file does not open with a comment;
  - docs/ARCHITECTURE.md's folder map names a folder that does not exist,
    or misses one that does.
Usage: layout.py SOURCE_ROOT
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
ROOT = os.path.abspath(ROOT)

# folder -> the folders its files may include (besides itself)
ALLOWED = {
    "lib": set(),
    "builtin": set(),
    "drivers": {"lib", "include"},
    "core": {"lib", "include"},
    "results": {"core", "lib", "include"},
    "lua": {"builtin", "core", "lib", "include"},
    "merge": {"results", "core", "lib", "include"},
    "compare": {"results", "core", "lib", "include"},
    "cli": {"compare", "merge", "results", "lua", "builtin", "core", "lib", "include"},
}
# folders whose files include core/ only for these headers
NARROW = {"results": {"core/histogram.h"}}
# headers no other folder may name: the connection's insides (lua/ and the
# rest see struct sb_conn through core/db.h's accessors)
PRIVATE = {"core/db_int.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
failures = []


def fail(msg):
    failures.append(msg)


def top(path):
    rel = os.path.relpath(path, ROOT)
    return rel.split(os.sep)[0]


def c_files(folder):
    for dp, _, fn in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(fn):
            if f.endswith((".c", ".h")):
                yield os.path.join(dp, f)


def resolve(src, name, incdirs):
    for d in [os.path.dirname(src)] + incdirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.exists(p):
            return p
    return None


edges = {}  # module -> set of modules
for folder in ALLOWED:
    incdirs = [os.path.join(ROOT, "include"), os.path.join(ROOT, "drivers"), os.path.join(ROOT, "lib")]
    for src in c_files(folder):
        text = open(src, encoding="utf-8", errors="replace").read()
        if not text.lstrip().startswith("/*"):
            fail(f"{os.path.relpath(src, ROOT)}: does not open with a comment saying what it is for")
        mod = os.path.splitext(os.path.relpath(src, ROOT))[0]
        for name in INCLUDE.findall(text):
            dst = resolve(src, name, incdirs)
            if dst is None:
                continue  # generated (l_legacy_lua.h) or a system header in quotes
            to = top(dst)
            rel = os.path.relpath(dst, ROOT)
            if to != folder and to not in ALLOWED[folder]:
                fail(f"{os.path.relpath(src, ROOT)} includes {rel}: {folder}/ may not name {to}/")
            if folder in NARROW and to == "core" and rel not in NARROW[folder]:
                fail(f"{os.path.relpath(src, ROOT)} includes {rel}: {folder}/ takes only "
                     f"{', '.join(sorted(NARROW[folder]))} from core/")
            if rel in PRIVATE and to != folder:
                fail(f"{os.path.relpath(src, ROOT)} includes {rel}: private to {to}/")
            dmod = os.path.splitext(rel)[0]
            if dmod != mod:
                edges.setdefault(mod, set()).add(dmod)

# circles of modules (strongly connected components) spanning two folders
index, low, stack, on, sccs = {}, {}, [], set(), []
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(comp)


for v in list(edges):
    if v not in index:
        strong(v)
for comp in sccs:
    folders = {c.split(os.sep)[0] for c in comp}
    if len(folders) > 1:
        fail("a circle of includes spans " + ", ".join(sorted(folders)) + ": " + " -> ".join(sorted(comp)))

# circles of calls between the files of one folder whose files share a
# header (so that the include arrows above cannot show them): a function's
# definition is a line at column 0 that names it before "(" and is not
# static nor a declaration; a call is its name before "("
CALL_FLAT = ["lua"]
DEFN = re.compile(r"^(?!static\b)[A-Za-z_][^;=()\n]*?\b((?:l|sb)_\w+)\(([^;\n]*)$", re.M)
CALL = re.compile(r"\b((?:l|sb)_\w+)\s*\(")
for folder in CALL_FLAT:
    texts, defined = {}, {}
    for src in c_files(folder):
        if not src.endswith(".c"):
            continue
        text = re.sub(r"/\*.*?\*/", "", open(src, encoding="utf-8", errors="replace").read(), flags=re.S)
        texts[src] = text
        for m in DEFN.finditer(text):
            defined.setdefault(m.group(1), src)
    edges = {}
    for src, text in texts.items():
        for m in CALL.finditer(text):
            dst = defined.get(m.group(1))
            if dst and dst != src:
                edges.setdefault(src, set()).add(dst)
    index, low, stack, on, sccs = {}, {}, [], set(), []
    for v in list(edges):
        if v not in index:
            strong(v)
    for comp in sccs:
        if len(comp) > 1:
            fail(f"a circle of calls in {folder}/: " +
                 " -> ".join(sorted(os.path.relpath(c, ROOT) for c in comp)))

# every folder opens with a meson.build that says what it is for
for folder in list(ALLOWED) + ["workloads", "tests", "sdk"]:
    mb = os.path.join(ROOT, folder, "meson.build")
    if not os.path.exists(mb):
        fail(f"{folder}/: no meson.build")
    elif not open(mb).readline().startswith("#"):
        fail(f"{folder}/meson.build: does not open with a comment saying what the folder is for")

# the folder map of docs/ARCHITECTURE.md against the tree
arch = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
m = re.search(r"## The folder map\n(.*?)\n## ", arch, re.S)
if not m:
    fail("docs/ARCHITECTURE.md: no '## The folder map' section")
else:
    named = set(re.findall(r"^\| `([a-z_]+)/` \|", m.group(1), re.M))
    try:  # the folders git tracks (a build tree or a scratch folder is not part of the map)
        import subprocess
        files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split("\n")
        tracked = {f.split("/")[0] for f in files if "/" in f and not f.startswith(".")}
    except (OSError, subprocess.CalledProcessError):
        tracked = {d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
                   and not d.startswith((".", "build", "obj-"))}
    for d in sorted(named - tracked):
        fail(f"docs/ARCHITECTURE.md's map names {d}/, which is not in the tree")
    for d in sorted(tracked - named):
        fail(f"docs/ARCHITECTURE.md's map misses {d}/")

for f in failures:
    print("FAIL:", f)
print(f"layout: {len(failures)} problem(s)" if failures else "layout: ok")
sys.exit(1 if failures else 0)
