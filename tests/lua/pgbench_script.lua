-- pgbench_script.lua WORKLOADS_DIR: the pgbench script parser and expression
-- language (workloads/pgbench_script.lua, pgbench_expr.lua) under plain
-- lua5.4, no server: statement splitting and line numbers, :variables,
-- column names for \gset, \if linking, refusals with FILE:LINE, and
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
refused("\\gset of SELECT *", "SELECT * FROM t \\gset\n", "t.sql:1: \\gset cannot name the columns of SELECT *")
local ok, err = pcall(S.check_vars, S.parse("\\set a :b + 1\n", "t.sql"), {})
check("undefined variable", err, "t.sql:1: undefined variable \"b\"")
ok = pcall(S.check_vars, S.parse("SELECT 1 AS z \\gset\n\\set a :z\n", "t.sql"), {})
check("a \\gset column defines its variable", ok, true)

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
