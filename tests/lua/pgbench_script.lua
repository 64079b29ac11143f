-- pgbench_script.lua WORKLOADS_DIR: the pgbench script parser and expression
-- language (workloads/pgbench_script.lua, pgbench_expr.lua) under plain
-- lua5.4, no server: statement splitting and line numbers (dollar quoting,
-- E'' strings, comments, backslash-newline continuation), :variables,
-- column names for \gset on any query shape (PostgreSQL's names, checked
-- against the server in tests/integration/pgbench_conformance.sh), \sleep
-- as pgbench reads it, boolean spellings, pipeline misuse, \if linking,
-- refusals with FILE:LINE, and
-- expression values whose right answer is pgbench's documented rule (C
-- truncating division, rint for int(), overflow errors).  The values
-- against pgbench itself are tests/integration/pgbench.sh's.
package.path = arg[1] .. "/?.lua;" .. package.path
local S = require("pgbench_script")
local E = require("pgbench_expr")
local R = require("pgbench_rand")

local passed, failed = 0, 0
local function check(what, got, want)
   if got == want then passed = passed + 1; print("ok   " .. what)
   else failed = failed + 1; print("FAIL " .. what .. ": got " .. tostring(got) .. ", want " .. tostring(want)) end
end
local function refused(what, text, want)
   local ok, err = pcall(S.parse, text, "t.sql")
   check(what, ok and "accepted" or err, want)
end
local function value(ex, vars)
   local f = E.compile(ex)
   local ok, v = pcall(f, { vars = vars or {}, rs = R.new(1) })
   if not ok then return "error: " .. (type(v) == "table" and v.expr_error or tostring(v)) end
   return E.to_text(v)
end

-- statements, lines, variables
local sc = S.parse("-- a comment\n\\set x 1\nSELECT a,\n  :x::int\n  FROM t; UPDATE t SET a = ':x' WHERE b = :x;\n" ..
                   "SELECT 1 AS one, 2 two \\gset p_\nSELECT 1 \\; SELECT 2 AS b \\aset\n", "t.sql")
local c = sc.commands
check("commands", #c, 5)
check("SQL over lines: its first line", c[2].line, 3)
check("second statement on the same line as the first's end", c[3].line, 5)
check("variables: pieces", table.concat(c[2].parts[1].pieces, "|"), "SELECT a,\n  |x|::int\n  FROM t")
check("no variable inside quotes", table.concat(c[3].parts[1].pieces, "|"), "UPDATE t SET a = ':x' WHERE b = |x|")
check("\\gset prefix", c[4].prefix, "p_")
check("\\gset names", table.concat(c[4].parts[1].names, ","), "one,two")
check("\\; compound parts", #c[5].parts, 2)
check("\\aset names of every part", c[5].parts[1].names[1] .. "," .. c[5].parts[2].names[1], "?column?,b")
local names = S.select_names("SELECT abalance, count(*), t.bid, sum(x) AS total, (1 + 2) FROM pgbench_accounts")
check("column names as PostgreSQL names them", table.concat(names, ","), "abalance,count,bid,total,?column?")
check("verb END", S.parse("END;\n", "t.sql").commands[1].parts[1].verb, "commit")

-- \if linking
local ifs = S.parse("\\set a 1\n\\if :a = 1\nSELECT 1;\n\\elif :a = 2\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\n", "t.sql").commands
check("\\if -> \\elif", ifs[2].next_branch, 4)
check("\\elif -> \\else", ifs[4].next_branch, 6)
check("\\else -> \\endif", ifs[6].next_branch, 8)
check("every branch knows its \\endif", ifs[2].endif .. ifs[4].endif .. ifs[6].endif, "888")

-- refusals
refused("unknown meta-command", "SELECT 1;\n\\foo\n", "t.sql:2: invalid command \\foo")
refused("unbalanced \\if", "\\if true\nSELECT 1;\n", "t.sql:1: \\if without matching \\endif")
refused("\\elif after \\else", "\\if true\n\\else\n\\elif false\n\\endif\n", "t.sql:3: \\elif after \\else")
refused("\\endif alone", "SELECT 1;\n\\endif\n", "t.sql:2: \\endif without matching \\if")
refused("bad time unit", "\\sleep 5 hours\n", "t.sql:1: unrecognized time unit, must be us, ms or s: hours")
refused("\\set without expression", "\\set x\n", "t.sql:1: missing argument in command \"set\"")
refused("\\gset after nothing", "\\gset\n", "t.sql:1: \\gset must follow an SQL command")
check("\\gset of SELECT *: named by the server's answer at run time",
      S.parse("SELECT * FROM t \\gset\n", "t.sql").commands[1].parts[1].unnamed, true)
local ok, err = pcall(S.check_vars, S.parse("\\set a :b + 1\n", "t.sql"), {})
check("undefined variable", err, "t.sql:1: undefined variable \"b\"")
ok = pcall(S.check_vars, S.parse("SELECT 1 AS z \\gset\n\\set a :z\n", "t.sql"), {})
check("a \\gset column defines its variable", ok, true)
ok = pcall(S.check_vars, S.parse("SELECT * FROM t \\gset\n\\set a :anything\n", "t.sql"), {})
check("with \\gset, variables are checked at run time (as pgbench)", ok, true)

-- issue #41: valid scripts that were refused or cut
local dollar = S.parse("DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;\nSELECT $t$a;b$t$ AS x \\gset\nSELECT 1;\n", "t.sql").commands
check("$$...;...$$ is one statement", #dollar, 3)
check("$$ body kept whole", dollar[1].parts[1].sql, "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$")
check("$tag$ string then \\gset", dollar[2].parts[1].names[1], "x")
check("line after a dollar-quoted body", dollar[3].line, 3)
check("a :variable inside $$...$$ is replaced (as pgbench; tests/pgbench/expr.sql)",
      table.concat(S.split_vars("SELECT $$:x$$"), "|"), "SELECT $$|x|$$")
check("E'' escapes keep a quote", #S.parse("SELECT E'a\\';b';\n", "t.sql").commands, 1)
check("/* ; */ comments", #S.parse("SELECT /* ; */ 1;\n", "t.sql").commands, 1)
local cont = S.parse("\\set c8 1 + \\\n  2 \\\n  * 3\nSELECT :c8;\n", "t.sql").commands
check("backslash-newline continues a meta-command", cont[1].var .. ":" .. E.to_text(cont[1].expr({ vars = {}, rs = R.new(1) })), "c8:7")
check("line after a continued meta-command", cont[2].line, 4)
check("\\setshell continued", table.concat(S.parse("\\setshell v\\\n  echo \\\n    1\n", "t.sql").commands[1].words, " "), "echo 1")
for q, want in pairs({
   ["SELECT 1 AS a LIMIT 1"] = "a", ["SELECT 2 b WHERE true"] = "b",
   ["SELECT 5432 AS f UNION SELECT 5433 ORDER BY 1"] = "f",
   ["WITH w AS (SELECT 1 AS q) SELECT q, q + 1 AS r FROM w"] = "q,r",
   ['SELECT 1 AS "MixedCase"'] = "MixedCase", ["SELECT '1'::int, 2::double precision"] = "int4,float8",
   ["INSERT INTO t VALUES (1) RETURNING id, x AS y"] = "id,y", ["VALUES (1, 2)"] = "column1,column2",
   ["SELECT CASE WHEN true THEN 1 END, cast(a AS text), now()"] = "case,a,now",
   ["DROP TABLE IF EXISTS x"] = "", ["SELECT"] = "",
}) do
   check("\\gset names: " .. q, table.concat(assert(S.select_names(q)), ","), want)
end
check("\\gset names that are no variable", S.parse("SELECT 1 \\gset\n", "t.sql").commands[1].parts[1].valid[1], false)
local sl = S.parse("\\sleep 2ms\n\\sleep 3 us\n\\sleep 1\n\\sleep :v ms\n\\sleep -\n", "t.sql").commands
check("\\sleep 2ms", sl[1].usec, 2000)
check("\\sleep 3 us", sl[2].usec, 3)
check("\\sleep 1 (seconds)", sl[3].usec, 1000000)
check("\\sleep :v ms", sl[4].sleep_var .. sl[4].mult, "v1000")
check("\\sleep - (atoi: 0)", sl[5].usec, 0)
check("atoi of a double variable", S.atoi("1.5"), 1)
check("atoi of a word", S.atoi("abc"), nil)
refused("\\sleep 1.5", "\\sleep 1.5\n", "t.sql:1: unrecognized time unit, must be us, ms or s: .5")
refused("\\sleep x", "\\sleep x\n", "t.sql:1: invalid sleep time, must be an integer: x")
refused("\\sleep too many", "\\sleep 1 2 3\n", "t.sql:1: too many arguments in command \"sleep\"")
for _, b in ipairs({ "t", "tr", "TRUE", "y", "Ye", "on" }) do check("boolean " .. b, E.parse_value(b), true) end
for _, b in ipairs({ "f", "fal", "n", "NO", "off", "of" }) do check("boolean " .. b, E.parse_value(b), false) end
check("\"o\" is no boolean", E.parse_value("o"), nil)
check("\"trueXXX\" is no boolean", E.parse_value("trueXXX"), nil)
-- pipelines
local pl = S.parse("\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\n", "t.sql")
check("\\syncpipeline inside a pipeline", pl.commands[3].kind, "syncpipeline")
check("script.pipeline", pl.pipeline, true)
refused("\\startpipeline twice", "\\startpipeline\n\\startpipeline\n", "t.sql:2: \\startpipeline: already in pipeline mode")
refused("\\endpipeline alone", "\\endpipeline\n", "t.sql:1: \\endpipeline: not in pipeline mode")
refused("\\syncpipeline alone", "SELECT 1;\n\\syncpipeline\n", "t.sql:2: \\syncpipeline: not in pipeline mode")
refused("\\gset in a pipeline", "\\startpipeline\nselect 1 \\gset f\n\\endpipeline\n", "t.sql:2: \\gset is not allowed in pipeline mode")
refused("pipeline open at the end", "\\startpipeline\nSELECT 1;\n", "t.sql:1: end of script reached with pipeline open")
refused("\\gset a b", "SELECT 1 \\gset a b\n", "t.sql:1: too many arguments in command \"gset\"")
check("open transaction at the end", S.open_at_end(S.parse("BEGIN;SELECT 1;", "t.sql")), true)
check("closed transaction", S.open_at_end(S.parse("BEGIN ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\nEND;\n", "t.sql")), false)

-- expressions: pgbench's rules
check("integer division truncates", value("7 / -2"), "-3")
check("% has the dividend's sign", value("-7 % 3"), "-1")
check("int() rounds half to even (rint)", value("int(2.5)") .. value("int(3.5)") .. value("int(-2.5)"), "24-2")
check("double when one side is", value("7 / 2.0"), "3.5")
check("add overflow", value("9223372036854775807 + 1"), "error: bigint add out of range")
check("mul overflow", value("-9223372036854775808 * -1"), "error: bigint mul out of range")
check("min / -1", value("-9223372036854775808 / -1"), "error: bigint out of range")
check("division by zero", value("1 / 0"), "error: division by zero")
check("double division by zero", value("1.0 / 0"), "Infinity")
check("AND needs booleans", value("1 AND true"), "error: cannot coerce int to boolean")
check("NULL propagates", value("NULL + 1"), "NULL")
check("CASE with an int condition", value("case when 2 then 7 else 8 end"), "7")
check("precedence: bit ops below +", value("1 + 2 << 3"), "24")
check("comparison yields a boolean", value("3 >= 3"), "true")
check("variables from -D are parsed", value(":v * 2", { v = "21" }), "42")
check("greatest mixes to double", value("greatest(1, 2.5)"), "2.5")
check("permute stays in range", tonumber(value("permute(5, 7, 3)")) < 7, true)
check("syntax error", select(2, pcall(E.compile, "1 +")), "syntax error near EOF")

print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
