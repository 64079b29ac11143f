-- diag_json: JSON for the diagnostic workloads: encode a result table as
-- one line, and decode the final report of an sbench run (the sweep reads
-- each step's report).  A pure module.
--
--   local json = require("diag_json")
--   json.encode({ type = "diag", qps = 1.5 })   --> '{"qps":1.5,"type":"diag"}'
--   json.decode('{"a":[1,2]}')                  --> { a = {1, 2} }
--
-- Keys are written sorted, so the same table gives the same line; a table
-- with [1] is an array.  decode raises on malformed text.

local M = {}

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function encode_string(s)
   return '"' .. s:gsub('[%c"\\]', function(c)
      return escapes[c] or string.format("\\u%04x", c:byte())
   end) .. '"'
end

local function encode(v, out)
   local t = type(v)
   if t == "table" then
      if v[1] ~= nil or next(v) == nil and getmetatable(v) == M.array_mt then
         out[#out + 1] = "["
         for i, x in ipairs(v) do
            if i > 1 then out[#out + 1] = "," end
            encode(x, out)
         end
         out[#out + 1] = "]"
      else
         local keys = {}
         for k in pairs(v) do keys[#keys + 1] = tostring(k) end
         table.sort(keys)
         out[#out + 1] = "{"
         for i, k in ipairs(keys) do
            if i > 1 then out[#out + 1] = "," end
            out[#out + 1] = encode_string(k) .. ":"
            encode(v[k], out)
         end
         out[#out + 1] = "}"
      end
   elseif t == "string" then
      out[#out + 1] = encode_string(v)
   elseif t == "number" then
      if v ~= v or v == math.huge or v == -math.huge then v = 0 end
      if math.type(v) == "integer" then
         out[#out + 1] = string.format("%d", v)
      elseif v == math.floor(v) and math.abs(v) < 9e15 then
         out[#out + 1] = string.format("%.0f", v)
      else
         out[#out + 1] = string.format("%.15g", v)
      end
   elseif t == "boolean" then
      out[#out + 1] = tostring(v)
   else
      out[#out + 1] = "null"
   end
end

-- An empty table with this metatable encodes as [] rather than {}.
M.array_mt = {}

function M.encode(v)
   local out = {}
   encode(v, out)
   return table.concat(out)
end

-- ---- decode ----

local function decode_error(s, i, what)
   error(string.format("JSON: %s at byte %d", what, i), 0)
end

local decode_value

local function skip(s, i)
   return s:find("[^ \t\r\n]", i) or #s + 1
end

local function decode_string(s, i)
   local out, j = {}, i + 1
   while true do
      local c = s:sub(j, j)
      if c == "" then decode_error(s, j, "unterminated string") end
      if c == '"' then return table.concat(out), j + 1 end
      if c == "\\" then
         local e = s:sub(j + 1, j + 1)
         local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
         if e == "u" then
            local cp = tonumber(s:sub(j + 2, j + 5), 16)
            if not cp then decode_error(s, j, "bad \\u escape") end
            out[#out + 1] = utf8.char(cp)
            j = j + 6
         else
            out[#out + 1] = map[e] or e
            j = j + 2
         end
      else
         out[#out + 1] = c
         j = j + 1
      end
   end
end

function decode_value(s, i)
   i = skip(s, i)
   local c = s:sub(i, i)
   if c == "{" then
      local obj = {}
      i = skip(s, i + 1)
      if s:sub(i, i) == "}" then return obj, i + 1 end
      while true do
         if s:sub(i, i) ~= '"' then decode_error(s, i, "expected a key") end
         local k
         k, i = decode_string(s, i)
         i = skip(s, i)
         if s:sub(i, i) ~= ":" then decode_error(s, i, "expected ':'") end
         obj[k], i = decode_value(s, i + 1)
         i = skip(s, i)
         local d = s:sub(i, i)
         if d == "}" then return obj, i + 1 end
         if d ~= "," then decode_error(s, i, "expected ',' or '}'") end
         i = skip(s, i + 1)
      end
   elseif c == "[" then
      local arr = {}
      i = skip(s, i + 1)
      if s:sub(i, i) == "]" then return arr, i + 1 end
      while true do
         arr[#arr + 1], i = decode_value(s, i)
         i = skip(s, i)
         local d = s:sub(i, i)
         if d == "]" then return arr, i + 1 end
         if d ~= "," then decode_error(s, i, "expected ',' or ']'") end
         i = i + 1
      end
   elseif c == '"' then
      return decode_string(s, i)
   elseif s:sub(i, i + 3) == "true" then
      return true, i + 4
   elseif s:sub(i, i + 4) == "false" then
      return false, i + 5
   elseif s:sub(i, i + 3) == "null" then
      return nil, i + 4
   end
   local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
   if not num or num == "" then decode_error(s, i, "unexpected character") end
   return tonumber(num), i + #num
end

function M.decode(s)
   local v, i = decode_value(s, 1)
   if skip(s, i) <= #s then decode_error(s, i, "text after the value") end
   return v
end

return M
