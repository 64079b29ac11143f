#!/usr/bin/env python3
"""selftest.py: tests/layout/layout.py checked on trees whose answer is known.

A synthetic tree that keeps every rule must pass; the same tree with one
fault put in (a circle of calls, an upward include, a private header named,
a function of MAX_FUNCTION + 1 lines, a file of MAX_FILE + 1 lines) must fail
with that fault named, and only it; each limit itself passes.  Then the
checker's reading of functions is compared with universal-ctags's on the
real tree (SOURCE_ROOT): the same functions, the same first and last lines.
Usage: selftest.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layout  # noqa: E402

problems = []


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def function(name, lines, static=False, calls=()):
    """A function of exactly `lines` lines (signature to closing brace)."""
    body = [f"    {c}();" for c in calls]
    body += ["    (void)0;"] * (lines - 3 - len(body))
    return "\n".join([("static " if static else "") + f"void {name}(void)", "{"] + body + ["}"]) + "\n"


def base_tree(root):
    """Every rule kept: a folder per map row, a header-commented file in each."""
    folders = sorted(set(layout.ALLOWED) | {"include", "workloads", "tests", "sdk", "docs"})
    rows = "\n".join(f"| `{d}/` | x | y |" for d in folders)
    write(root, "docs/ARCHITECTURE.md", f"# map\n\n## The folder map\n\n{rows}\n\n## The rest\n")
    for d in set(layout.ALLOWED) | {"workloads", "tests", "sdk"}:
        write(root, f"{d}/meson.build", f"# {d}/: what it is for\n")
    write(root, "include/sbench/driver.h", "/* the ABI */\n")
    write(root, "lib/text.h", "/* text */\n")
    write(root, "core/db_int.h", "/* private */\n")
    write(root, "core/db.h", '/* public */\n#include "../lib/text.h"\n')
    write(root, "core/db.c", '/* facade */\n#include "db_int.h"\n#include "db.h"\n'
          + function("sb_conn_submit", 10, calls=["sb_stmt_values"]))
    write(root, "core/db_sql.c", '/* lower */\n#include "db_int.h"\n' + function("sb_stmt_values", 5)
          + function("helper", 5, static=True, calls=["sb_conn_submit_not_a_call"]))
    # a static function of the same name in two files is no arrow, nor a
    # call through a pointer: s->sb_conn_submit()
    write(root, "core/other.c", "/* other */\n" + function("sb_stmt_values2", 5, static=True)
          + "static void f(struct x *s)\n{\n    s->sb_conn_submit();\n}\n")
    write(root, "lua/l_a.c", '/* binding */\n#include "../core/db.h"\n' + function("l_a", 5, calls=["sb_conn_submit"]))
    write(root, "drivers/null/null.c", '/* a driver */\n#include <sbench/driver.h>\n' + function("nd_a", 5))
    write(root, "drivers/common/buf.c", "/* common */\n" + function("sbd_buf", 5))


def run_case(name, fault, expected):
    root = tempfile.mkdtemp(prefix="layout-selftest-")
    try:
        base_tree(root)
        for rel, text in fault.items():
            write(root, rel, text)
        got = layout.Tree(root).check()
        if expected is None:
            expect(got == [], f"{name}: passes" + ("" if got == [] else f" (got {got})"))
        else:
            hit = [g for g in got if expected in g]
            expect(len(got) == 1 and hit, f"{name}: fails naming '{expected}'" +
                   ("" if len(got) == 1 and hit else f" (got {got})"))
    finally:
        shutil.rmtree(root)


N, F = layout.MAX_FUNCTION, layout.MAX_FILE
run_case("the clean tree", {}, None)
run_case("a circle of calls in core/",
         {"core/db_sql.c": "/* lower */\n" + function("sb_stmt_values", 5, calls=["sb_conn_submit"])},
         "a circle of calls in core/: core/db.c -> core/db_sql.c")
run_case("a circle of three files in drivers/common/",
         {"drivers/common/a.c": "/* a */\n" + function("sbd_a", 5, calls=["sbd_b"]),
          "drivers/common/b.c": "/* b */\n" + function("sbd_b", 5, calls=["sbd_c"]),
          "drivers/common/c.c": "/* c */\n" + function("sbd_c", 5, calls=["sbd_a"])},
         "a circle of calls in drivers/common/")
run_case("an upward include (core/ naming lua/)",
         {"core/up.c": '/* up */\n#include "../lua/l_internal.h"\n', "lua/l_internal.h": "/* x */\n"},
         "core/ may not name lua/ (an upward arrow)")
run_case("a private header named from lua/",
         {"lua/l_b.c": '/* b */\n#include "../core/db_int.h"\n'}, "private to core/")
run_case(f"a function of {N} lines", {"core/long.c": "/* long */\n" + function("sb_long", N)}, None)
run_case(f"a function of {N + 1} lines", {"core/long.c": "/* long */\n" + function("sb_long", N + 1)},
         f"sb_long() is {N + 1} lines")
run_case(f"a static function of {N + 1} lines in a driver",
         {"drivers/null/long.c": "/* long */\n" + function("nd_long", N + 1, static=True)},
         f"nd_long() is {N + 1} lines")
run_case(f"a file of {F} lines", {"builtin/big.c": "/* big */\n" + "int x;\n" * (F - 1)}, None)
run_case(f"a file of {F + 1} lines", {"builtin/big.c": "/* big */\n" + "int x;\n" * F},
         f"builtin/big.c: {F + 1} lines")
run_case(f"a header of {F + 1} lines", {"core/big.h": "/* big */\n" + "int x;\n" * F},
         f"core/big.h: {F + 1} lines")
run_case("a folder missing from the map", {"newfolder/x.txt": "x\n"}, "map misses newfolder/")

# the checker's functions against universal-ctags's on the real tree
src = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
ctags = shutil.which("ctags")
if ctags is None:
    expect(False, "universal-ctags (ctags) is installed, to check the reading of functions")
else:
    tree = layout.Tree(src)
    mine, theirs, nfiles = set(), set(), 0
    for folder in layout.PRODUCTION:
        for path in tree.c_files(folder):
            if not path.endswith(".c"):
                continue
            nfiles += 1
            rel = tree.rel(path)
            for name, first, last, _ in layout.functions(layout.strip_code(open(path, errors="replace").read())):
                mine.add((rel, name, first, last))
            out = subprocess.run([ctags, "--c-kinds=f", "--fields=+ne", "-o", "-", path],
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                f = line.split("\t")
                fields = dict(x.split(":", 1) for x in f[3:] if ":" in x)
                if "line" in fields and "end" in fields:
                    theirs.add((rel, f[0], int(fields["line"]), int(fields["end"])))
    only_mine, only_theirs = sorted(mine - theirs)[:5], sorted(theirs - mine)[:5]
    expect(not only_mine and not only_theirs and len(mine) > 500,
           f"{len(mine)} functions in {nfiles} files read as universal-ctags reads them"
           + (f" (only layout.py: {only_mine}; only ctags: {only_theirs})" if only_mine or only_theirs else ""))

print(f"layout selftest: {len(problems)} problem(s)" if problems else "layout selftest: ok")
sys.exit(1 if problems else 0)
