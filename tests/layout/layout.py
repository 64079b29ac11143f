#!/usr/bin/env python3
"""layout.py: the folder map of docs/ARCHITECTURE.md, and the size rules, checked on the tree.

Production code is the C under PRODUCTION's folders (not tests/, bench/).
Every #include "..." of a C file is an arrow from its folder to the
folder of the file it names.  The test fails when
  - an arrow points to a folder the map does not allow (arrows go only
    downward: nothing in core/ names cli/, compare/, merge/, results/ or
    lua/; lib/ names nothing of sbench);
  - a header private to its folder (PRIVATE) is named from another one;
  - a circle of modules (a module: NAME.c with NAME.h) spans two folders;
  - a circle of calls between the files of one folder (drivers/ and
    drivers/NAME/ each count as a folder): file A calls a function file B
    defines and B, through any others, calls A's.  Includes cannot show
    these (a folder's files share headers), so the calls are read: a
    definition is a function's name before "(" on a line at column 0 that
    is not static, and a call is that name before "(" anywhere else;
  - a function is longer than MAX_FUNCTION lines (from the line that names
    it to its closing brace at column 0: the tree's style, checked against
    universal-ctags's end lines by tests/layout/selftest.py), or a
    production file is longer than MAX_FILE lines;
  - a folder has no meson.build opening with a comment that says what the
    folder is for, or a C file does not open with a comment;
  - docs/ARCHITECTURE.md's folder map names a folder that does not exist,
    or misses one that does.
Usage: layout.py SOURCE_ROOT   (tests/layout/selftest.py checks this checker)
"""
import os
import re
import sys

MAX_FUNCTION = 100
MAX_FILE = 800

# folder -> the folders its files may include (besides itself)
ALLOWED = {
    "lib": set(),
    "builtin": set(),
    "drivers": {"lib", "include"},
    "core": {"lib", "include"},
    "results": {"core", "lib", "include"},
    "lua": {"builtin", "core", "lib", "include"},
    "merge": {"results", "core", "lib", "include"},
    "compare": {"history", "results", "core", "lib", "include"},
    "history": {"results", "core", "lib", "include"},
    "cli": {"compare", "merge", "history", "results", "lua", "builtin", "core", "lib", "include", "author"},
    "author": {"lua", "core", "lib", "include"},
}
PRODUCTION = list(ALLOWED) + ["include"]
# folders whose files include core/ only for these headers
NARROW = {"results": {"core/histogram.h"}}
# headers no other folder may name: the connection's and the statement's
# insides (lua/ and the rest see struct sb_conn and struct sb_stmt through
# core/db.h's accessors)
PRIVATE = {"core/db_int.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a function's first line: at column 0, a name before "(", no ";" after
SIGNATURE = re.compile(r"^(?!typedef\b|struct\b[^(]*$|#)[A-Za-z_][^;=\n]*?\b([A-Za-z_]\w*)\(")
CALL = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*\(")


def strip_code(text):
    """Comments, strings and character constants blanked, line count kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)


def functions(code):
    """(name, first line, last line, static) of each function defined in code (stripped)."""
    out, lines, pending = [], code.split("\n"), None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = SIGNATURE.match(line)
        if m and not line.rstrip().endswith(";"):
            pending = (m.group(1), i, line.startswith("static"))
            if line.rstrip().endswith("}") and "{" in line:  # int f(void) { return x; }
                out.append((m.group(1), i + 1, i + 1, line.startswith("static")))
                pending = None
            elif line.rstrip().endswith("{"):  # its body opens on the same line
                lines[i] = "{"
                continue
        elif line.startswith("{") and pending:
            name, start, static = pending
            j = i + 1
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            out.append((name, start + 1, j + 1, static))
            pending, i = None, j
        elif line[:1] not in (" ", "\t", "") or line.rstrip().endswith(";"):
            pending = None
        i += 1
    return out


def strong_components(edges):
    """Tarjan's strongly connected components of a graph {v: set(w)}, iteratively."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    for root in list(edges):
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(comp)
    return comps


class Tree:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.failures = []

    def fail(self, msg):
        self.failures.append(msg)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def c_files(self, folder):
        for dp, dn, fn in os.walk(os.path.join(self.root, folder)):
            dn.sort()
            for f in sorted(fn):
                if f.endswith((".c", ".h")):
                    yield os.path.join(dp, f)

    def resolve(self, src, name, incdirs):
        for d in [os.path.dirname(src)] + incdirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.exists(p):
                return p
        return None

    def check_includes(self):
        edges = {}  # module -> set of modules
        incdirs = [os.path.join(self.root, d) for d in ("include", "drivers", "lib")]
        for folder in ALLOWED:
            for src in self.c_files(folder):
                text = open(src, encoding="utf-8", errors="replace").read()
                if not text.lstrip().startswith("/*"):
                    self.fail(f"{self.rel(src)}: does not open with a comment saying what it is for")
                mod = os.path.splitext(self.rel(src))[0]
                for name in INCLUDE.findall(text):
                    dst = self.resolve(src, name, incdirs)
                    if dst is None:
                        continue  # generated (l_legacy_lua.h) or a system header in quotes
                    rel = self.rel(dst)
                    to = rel.split(os.sep)[0]
                    if to != folder and to not in ALLOWED[folder]:
                        self.fail(f"{self.rel(src)} includes {rel}: {folder}/ may not name {to}/ "
                                  "(an upward arrow)")
                    if folder in NARROW and to == "core" and rel not in NARROW[folder]:
                        self.fail(f"{self.rel(src)} includes {rel}: {folder}/ takes only "
                                  f"{', '.join(sorted(NARROW[folder]))} from core/")
                    if rel in PRIVATE and to != folder:
                        self.fail(f"{self.rel(src)} includes {rel}: private to {to}/")
                    dmod = os.path.splitext(rel)[0]
                    if dmod != mod:
                        edges.setdefault(mod, set()).add(dmod)
        for comp in strong_components(edges):
            folders = {c.split(os.sep)[0] for c in comp}
            if len(folders) > 1:
                self.fail("a circle of includes spans " + ", ".join(sorted(folders)) + ": "
                          + " -> ".join(sorted(comp)))

    def check_calls_and_sizes(self):
        """Circles of calls inside each folder; function and file lengths."""
        by_folder = {}
        for folder in PRODUCTION:
            for src in self.c_files(folder):
                raw = open(src, encoding="utf-8", errors="replace").read()
                nlines = raw.count("\n") + (0 if raw.endswith("\n") or not raw else 1)
                if nlines > MAX_FILE:
                    self.fail(f"{self.rel(src)}: {nlines} lines, over the {MAX_FILE}-line limit "
                              "of a production file (two jobs live in it: split it)")
                if not src.endswith(".c"):
                    continue
                code = strip_code(raw)
                fns = functions(code)
                for name, first, last, _ in fns:
                    if last - first + 1 > MAX_FUNCTION:
                        self.fail(f"{self.rel(src)}:{first}: {name}() is {last - first + 1} lines, "
                                  f"over the {MAX_FUNCTION}-line limit of a function")
                by_folder.setdefault(os.path.dirname(src), {})[src] = (code, fns)
        for folder, files in sorted(by_folder.items()):
            defined = {}
            for src, (_, fns) in files.items():
                for name, _, _, static in fns:
                    if not static:
                        defined.setdefault(name, src)
            edges = {}
            for src, (code, _) in files.items():
                code = "\n".join(l for l in code.split("\n") if not l.lstrip().startswith("#"))
                for m in CALL.finditer(code):
                    dst = defined.get(m.group(1))
                    if dst and dst != src:
                        edges.setdefault(src, set()).add(dst)
            circles = [c for c in strong_components(edges) if len(c) > 1]
            for comp in circles:
                self.fail(f"a circle of calls in {self.rel(folder)}/: " + " -> ".join(
                    sorted(self.rel(c) for c in comp)))

    def check_meson(self):
        for folder in list(ALLOWED) + ["workloads", "tests", "sdk"]:
            mb = os.path.join(self.root, folder, "meson.build")
            if not os.path.exists(mb):
                self.fail(f"{folder}/: no meson.build")
            elif not open(mb).readline().startswith("#"):
                self.fail(f"{folder}/meson.build: does not open with a comment saying what the folder is for")

    def check_map(self):
        path = os.path.join(self.root, "docs", "ARCHITECTURE.md")
        arch = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        m = re.search(r"## The folder map\n(.*?)\n## ", arch, re.S)
        if not m:
            self.fail("docs/ARCHITECTURE.md: no '## The folder map' section")
            return
        named = set(re.findall(r"^\| `([a-z_]+)/` \|", m.group(1), re.M))
        import subprocess
        try:  # the folders git tracks (a build tree or a scratch folder is not part of the map)
            files = subprocess.run(["git", "-C", self.root, "ls-files"], capture_output=True, text=True,
                                   check=True).stdout.split("\n")
            tracked = {f.split("/")[0] for f in files if "/" in f and not f.startswith(".")}
        except (OSError, subprocess.CalledProcessError):
            tracked = set()
        if not tracked:  # not a git tree (the self-test's)
            tracked = {d for d in os.listdir(self.root) if os.path.isdir(os.path.join(self.root, d))
                       and not d.startswith((".", "build", "obj-"))}
        for d in sorted(named - tracked):
            self.fail(f"docs/ARCHITECTURE.md's map names {d}/, which is not in the tree")
        for d in sorted(tracked - named):
            self.fail(f"docs/ARCHITECTURE.md's map misses {d}/")

    def check(self):
        self.check_includes()
        self.check_calls_and_sizes()
        self.check_meson()
        self.check_map()
        return self.failures


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    tree = Tree(root)
    failures = tree.check()
    for f in failures:
        print("FAIL:", f)
    print(f"layout: {len(failures)} problem(s)" if failures else "layout: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
