-- io_big.lua (tests/integration/io_uring.sh): statements whose request or
-- answer is far larger than one read or one socket buffer, so that the
-- host's I/O (--io=uring) must send in pieces, receive in pieces and grow
-- the connection's buffer: a 3 MiB parameter, a 300 kB value, 2,000 rows
-- of sbtest1 (prepared with --table-size=2000).  Every event checks what
-- came back; a wrong value raises an error, which ends the run with a
-- non-zero exit.
local REQ = 3 * 1024 * 1024 -- bytes of the parameter and the literal sent
local ANS = 300000          -- bytes of the value received
local ROWS = 2000

function thread_init()
    drv = sysbench.sql.driver()
    con = drv:connect()
    big = string.rep("a", REQ)
    len_stmt = con:prepare("SELECT length(?)")
    len_param = len_stmt:bind_create(sysbench.sql.type.VARCHAR, REQ + 1)
    len_stmt:bind_param(len_param)
    len_param:set(big)
    rows_stmt = con:prepare("SELECT id, k, c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY id")
    local lo = rows_stmt:bind_create(sysbench.sql.type.INT)
    local hi = rows_stmt:bind_create(sysbench.sql.type.INT)
    rows_stmt:bind_param(lo, hi)
    lo:set(1)
    hi:set(ROWS)
end

local function fail(what, got)
    error(what .. ": wrong answer: " .. tostring(got))
end

function event()
    local row = con:query("SELECT length('" .. big .. "'), repeat('b', " .. ANS .. ")"):fetch_row()
    if tonumber(row[1]) ~= REQ or #row[2] ~= ANS or row[2]:find("[^b]") then
        fail("literal", row[1])
    end
    row = len_stmt:execute():fetch_row()
    if tonumber(row[1]) ~= REQ then
        fail("parameter", row[1])
    end
    local rs = rows_stmt:execute()
    local n, sum = 0, 0
    for _ = 1, rs.nrows do
        local r = rs:fetch_row()
        n = n + 1
        sum = sum + tonumber(r[1])
        if #r[3] < 119 then -- CHAR(120): PostgreSQL pads it, MariaDB strips the pad
            fail("row " .. r[1] .. " column c", #r[3])
        end
    end
    if n ~= ROWS or sum ~= ROWS * (ROWS + 1) / 2 then
        fail("rows", n .. " rows, ids summing to " .. sum)
    end
end

function thread_done()
    len_stmt:close()
    rows_stmt:close()
    con:disconnect()
end
