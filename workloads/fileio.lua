-- fileio: the disk under the database (jbench's `io`, sysbench's fileio
-- modes in one command), so a slow database result can be told apart from
-- a slow disk.  No database is touched.
--
--   sbench fileio run                         # seqwr, seqrd, rndrd, rndwr on 256 MiB in .
--   sbench --file-total-size=2G --file-block-size=8K --file-extra-flags=direct \
--          --file-dir=/var/lib/postgresql fileio run
--
-- One file of --file-total-size is written sequentially in blocks of
-- --file-block-size (fsync every --file-fsync-freq blocks and at the end),
-- read sequentially (its cached pages dropped first, so the disk is read),
-- then read and written at random block offsets for --file-rnd-time
-- seconds each.  Each mode reports MB/s, IOPS and the latency of one block
-- (min, avg, percentiles, max); with --report-format=json one JSON object
-- per mode.  The file is removed at the end, after an error and after
-- Ctrl-C too.

local json = require("diag_json")
local lat = require("diag_stats")
local now = sbench.diag.now

sbench.cmdline.options = {
   file_dir = { "Directory of the test file (its file system is what is measured)", "." },
   file_total_size = { "Size of the test file (suffix K, M, G: KiB, MiB, GiB)", "256M" },
   file_block_size = { "Bytes of one read or write (suffix K, M; a multiple of 512)", "16K" },
   file_test_mode = { "Modes, in order: seqwr, seqrd, rndrd, rndwr", { "seqwr", "seqrd", "rndrd", "rndwr" } },
   file_extra_flags = { "direct: open the file with O_DIRECT (bypass the page cache)", "" },
   file_fsync_freq = { "fsync after this many writes (0: only at the end)", 0 },
   file_fsync_end = { "fsync at the end of each writing mode", true },
   file_rnd_time = { "Seconds of each random mode (it also stops after --file-total-size bytes)", 5 },
   file_keep = { "Keep the test file after a run that completes (it is removed after an error or Ctrl-C)", false },
}

local function parse_size(what, v)
   local n, suffix = tostring(v):match("^(%d+)([KkMmGgTt]?)[Bb]?$")
   if not n then
      error(string.format("--%s: '%s' is not a size (a number with an optional K, M, G or T)", what, tostring(v)), 0)
   end
   local mult = ({ [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4 })[suffix:lower()]
   return math.tointeger(tonumber(n) * mult)
end

local PCTS = { 50, 95, 99, 99.9 }

local function run_mode(mode, ctx)
   local bs, size, blocks = ctx.bs, ctx.size, ctx.size // ctx.bs
   local l = lat.new()
   local bytes, fsyncs, fsync_s = 0, 0, 0
   local writing = mode == "seqwr" or mode == "rndwr"
   local f
   if mode == "seqwr" then
      f = assert(sbench.diag.open(ctx.path, bs, "c" .. ctx.flags))
   else
      if not ctx.written then
         error(string.format("fileio: %s needs the file that seqwr writes: put seqwr first in --file-test-mode", mode), 0)
      end
      f = assert(sbench.diag.open(ctx.path, bs, (writing and "" or "r") .. ctx.flags))
      if not writing then f:drop_cache() end
   end
   ctx.file = f
   local freq = sbench.opt.file_fsync_freq
   local function sync()
      local t = now()
      f:fsync()
      fsync_s = fsync_s + (now() - t)
      fsyncs = fsyncs + 1
   end
   local t0 = now()
   if mode == "seqwr" or mode == "seqrd" then
      for i = 0, blocks - 1 do
         local t = now()
         local n = writing and f:write(i * bs) or f:read(i * bs)
         if freq > 0 and writing and (i + 1) % freq == 0 then sync() end
         lat.add(l, (now() - t) * 1000)
         bytes = bytes + n
      end
   else
      local t_end = t0 + sbench.opt.file_rnd_time
      local ops = 0
      repeat
         local off = sbench.rand.uniform(0, blocks - 1) * bs
         local t = now()
         local n = writing and f:write(off) or f:read(off)
         ops = ops + 1
         if freq > 0 and writing and ops % freq == 0 then sync() end
         local t1 = now()
         lat.add(l, (t1 - t) * 1000)
         bytes = bytes + n
      until t1 >= t_end or bytes >= size
   end
   if writing and sbench.opt.file_fsync_end then sync() end
   local secs = now() - t0
   local file_size = f:size()
   f:close()
   ctx.file = nil
   if mode == "seqwr" then
      ctx.written = true
      if file_size ~= bytes then
         error(string.format("fileio: wrote %d bytes but the file has %d", bytes, file_size), 0)
      end
   end
   local pct = {}
   for _, p in ipairs(PCTS) do pct[tostring(p)] = l.h:percentile(p) end
   return { type = "diag", test = "fileio", mode = mode, bytes = bytes, file_size = file_size, seconds = secs,
            ops = l.n, mb_s = bytes / 1048576 / secs, iops = l.n / secs, fsyncs = fsyncs,
            fsync_seconds = fsync_s,
            latency_ms = { min = l.n > 0 and l.min or 0, avg = l.n > 0 and l.sum / l.n or 0,
                           max = l.max, percentiles = pct } }
end

local MODE_NAMES = { seqwr = "sequential write", seqrd = "sequential read",
                     rndrd = "random read", rndwr = "random write" }

local function text_lines(r)
   local p = r.latency_ms.percentiles
   return {
      string.format("+++ %s (%s): %.2f MB/s, %.0f IOPS", r.mode, MODE_NAMES[r.mode], r.mb_s, r.iops),
      string.format("    %.1f MB in %.3f s (%d blocks%s)", r.bytes / 1048576, r.seconds, r.ops,
                    r.fsyncs > 0 and string.format(", %d fsyncs taking %.3f s", r.fsyncs, r.fsync_seconds) or ""),
      string.format("    latency (ms): min %.3f  avg %.3f  50th %.3f  95th %.3f  99th %.3f  99.9th %.3f  max %.3f",
                    r.latency_ms.min, r.latency_ms.avg, p["50"], p["95"], p["99"], p["99.9"], r.latency_ms.max),
   }
end

local function fileio_run()
   local json_out = sbench.opt.report_format == "json"
   local bs = parse_size("file-block-size", sbench.opt.file_block_size)
   local size = parse_size("file-total-size", sbench.opt.file_total_size)
   if bs < 512 or bs % 512 ~= 0 then
      error("--file-block-size: " .. bs .. " bytes is not a multiple of 512", 0)
   end
   if size < bs then error("--file-total-size must be at least one block (--file-block-size)", 0) end
   size = size // bs * bs
   local flags = ""
   local extra = sbench.opt.file_extra_flags
   if extra == "direct" then flags = "d" elseif extra ~= "" then
      error("--file-extra-flags: '" .. extra .. "' is not known (direct, or empty)", 0)
   end
   for _, m in ipairs(sbench.opt.file_test_mode) do
      if not MODE_NAMES[m] then
         error("--file-test-mode: '" .. m .. "' is not a mode (seqwr, seqrd, rndrd, rndwr)", 0)
      end
   end
   local dir = sbench.opt.file_dir
   local free, ferr = sbench.diag.free_bytes(dir)
   if not free then error("--file-dir: " .. ferr, 0) end
   if free < size + 64 * 1048576 then
      error(string.format("--file-dir: %s has %.0f MB free, the test needs %.0f MB and a margin", dir,
                          free / 1048576, size / 1048576), 0)
   end
   local path = string.format("%s/sbench-fileio-%d-%d.tmp", dir, os.time(), sbench.rand.uniform(1, 1 << 30))
   local ctx = { bs = bs, size = size, path = path, flags = flags }
   local head = string.format("File I/O test: %.0f MB file in %s, blocks of %d bytes, O_DIRECT %s, fsync %s",
                              size / 1048576, dir, bs, flags == "d" and "on" or "off",
                              (sbench.opt.file_fsync_freq > 0 and "every " .. sbench.opt.file_fsync_freq ..
                               " writes" or "") .. (sbench.opt.file_fsync_end and
                               (sbench.opt.file_fsync_freq > 0 and " and " or "") .. "at the end" or
                               (sbench.opt.file_fsync_freq > 0 and "" or "never")))
   if not json_out then print(head) end
   local ok, err = pcall(function()
      for _, m in ipairs(sbench.opt.file_test_mode) do
         local r = run_mode(m, ctx)
         r.block_size, r.direct, r.dir = bs, flags == "d", dir
         if json_out then print(json.encode(r)) else
            for _, l in ipairs(text_lines(r)) do print(l) end
         end
      end
   end)
   -- whatever happened: close and remove the file (kept on request after a
   -- complete run)
   if ctx.file then ctx.file:close() end
   if ok and sbench.opt.file_keep then
      if not json_out then print("Test file kept: " .. path) end
      return
   end
   local removed, uerr = sbench.diag.unlink(path)
   if not json_out and removed then print("Test file removed: " .. path) end
   if not removed then io.stderr:write("sbench: fileio: cannot remove " .. uerr .. "\n") end
   if not ok then error(err, 0) end
end

sbench.cmdline.commands = {
   run = { fileio_run },
}
