-- fileio: sysbench's fileio test, the disk under the database.  `prepare`
-- writes --file-num files (test_file.0, ...) of --file-total-size in all,
-- `run` makes one I/O request per event (--file-test-mode: seqwr, seqrewr,
-- seqrd, rndrd, rndwr, rndrw) for --time (or --events) in --threads
-- threads, `cleanup` removes the files.  No database is touched.
--
--   sbench --file-total-size=2G fileio prepare
--   sbench --file-total-size=2G --file-test-mode=rndrw --threads=4 --time=60 fileio run
--   sbench --file-total-size=2G fileio cleanup
--
-- As sysbench: every --file-fsync-freq reads or writes (of all threads
-- together) queue one fsync of each file, which the next events of any
-- thread take before new requests (sbench.builtin.fsync_count/fsync_take),
-- each fsync one event (measured: --file-fsync-freq=10
-- --events=100 on 4 files is 72 writes and 28 fsyncs, then the 4 fsyncs of
-- --file-fsync-end, counted in fsyncs/s but not as events); sequential modes go round the files again when
-- they reach the end (the threads take turns, block by block); rndrw reads
-- while reads < --file-rw-ratio x writes (all threads together, as sysbench
-- counts them: sbench.builtin.rw_is_read).  The events are typed read,
-- write and fsync (sbench.event_type): "File operations:" and
-- "Throughput:" come from their counts, and the JSON report, merge and
-- compare see them as any workload's.  --validate (sysbench's) checks every
-- block read against the pattern prepare and the writes put there.  --file-dir is sbench's (the
-- directory of the files, "." as sysbench); --file-io-mode is sync only.

local builtin = require("builtin_common")
local diag = sbench.diag -- now
local test_files = sbench.builtin -- open, unlink (builtin/fileio.c)

sysbench.cmdline.database = false
sysbench.cmdline.options = {
   file_num = { "number of files to create", 128 },
   file_block_size = { "block size to use in all IO operations", 16384 },
   file_total_size = { "total size of files to create", "2G", sysbench.cmdline.ARG_SIZE },
   file_test_mode = { "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", nil, sysbench.cmdline.ARG_STRING },
   file_io_mode = { "file operations mode {sync,async,mmap}", "sync" },
   file_async_backlog = { "number of asynchronous operatons to queue per thread", 128 },
   file_extra_flags = { "list of additional flags to use to open files {sync,dsync,direct}", {} },
   file_fsync_freq = { "do fsync() after this number of requests (0 - don't use fsync())", 100 },
   file_fsync_all = { "do fsync() after each write operation", false },
   file_fsync_end = { "do fsync() at the end of test", true },
   file_fsync_mode = { "which method to use for synchronization {fsync, fdatasync}", "fsync" },
   file_merged_requests = { "merge at most this number of IO requests if possible (0 - don't merge)", 0 },
   file_rw_ratio = { "reads/writes ratio for combined test", 1.5 },
   file_dir = { "directory of the test files (sbench's; sysbench uses the current one)", "." },
}

builtin.commands("fileio", { prepare = true, cleanup = true })

local MODES = {
   seqwr = "sequential write (creation)", seqrewr = "sequential rewrite",
   seqrd = "sequential read", rndrd = "random read", rndwr = "random write", rndrw = "random r/w",
}
local FLAGS = { direct = "d", sync = "s", dsync = "y" }

-- the settings every command and thread reads, checked (FATAL, exit 1)
local function settings()
   local o, c = sysbench.opt, {}
   c.num, c.bs, c.total = o.file_num, o.file_block_size, o.file_total_size
   if c.num < 1 then builtin.fatal("Invalid value for file-num: " .. c.num) end
   -- any size, as sysbench (O_DIRECT's alignment is the kernel's to refuse)
   if c.bs < 1 or c.bs > 1 << 30 then builtin.fatal("Invalid value for file-block-size: " .. c.bs .. ".") end
   c.file_size = c.total // c.num
   c.blocks = c.file_size // c.bs -- blocks per file the requests go to
   c.prepared_blocks = (c.file_size + c.bs - 1) // c.bs -- what prepare writes (sysbench: rounded up)
   c.flags, c.flag_names = "", {}
   for _, f in ipairs(o.file_extra_flags) do
      if not FLAGS[f] then builtin.fatal("Invalid value for file-extra-flags: " .. f) end
      c.flags = c.flags .. FLAGS[f]
      c.flag_names[#c.flag_names + 1] = f == "direct" and "directio" or f
   end
   c.flag_text = #c.flag_names > 0 and table.concat(c.flag_names, " ") or "(none)"
   if o.file_fsync_mode ~= "fsync" and o.file_fsync_mode ~= "fdatasync" then
      builtin.fatal("Invalid value for file-fsync-mode: " .. o.file_fsync_mode)
   end
   -- "test_file.N" in the current directory, as sysbench names it in messages
   c.path = function(i) return (o.file_dir == "." and "" or o.file_dir .. "/") .. "test_file." .. i end
   return c
end

-- sysbench's sizes in the run's header and messages: the largest binary
-- unit the value reaches, 5 significant digits ("48.828KiB", "1000B")
local function size_text(bytes)
   local units, u = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" }, 1
   while bytes >= 1024 and u < #units do bytes, u = bytes / 1024, u + 1 end
   return string.format("%.5g%s", bytes, units[u])
end

-- the size of an existing file, or nil
local function file_size(path)
   local f = io.open(path, "r")
   if not f then return nil end
   local size = f:seek("end")
   f:close()
   return size
end

-- As sysbench 1.0.20: a file as large as the settings say is reused (not
-- opened, not written), a shorter one is extended (the missing blocks
-- appended after its end), a missing one created (whole blocks, the last
-- one past --file-total-size / --file-num when the block does not divide it).
local function prepare_file(c, i)
   local path, name, size = c.path(i), "test_file." .. i, file_size(c.path(i))
   if size and size >= c.file_size then
      print("Reusing existing file " .. name)
      return 0
   end
   print((size and "Extending existing file " or "Creating file ") .. name)
   local f, err = test_files.open(path, c.bs, (size and "" or "c") .. c.flags)
   if not f then builtin.fatal("Cannot open file: " .. err) end
   local bytes, from = 0, size or 0
   for b = 0, c.prepared_blocks - from // c.bs - 1 do
      local ok, n = pcall(f.write, f, from + b * c.bs)
      if not ok then builtin.fatal("Failed to write file! " .. tostring(n):gsub("^.-:%d+: ", "")) end
      bytes = bytes + n
   end
   f:fsync()
   f:close()
   return bytes
end

function prepare()
   local c = settings()
   print(string.format("%d files, %dKb each, %dMb total", c.num, c.file_size // 1024, c.total // 1048576))
   print("Creating files for the test...")
   print("Extra file open flags: " .. c.flag_text)
   local t0, bytes = diag.now(), 0
   for i = 0, c.num - 1 do
      bytes = bytes + prepare_file(c, i)
   end
   local secs = math.max(diag.now() - t0, 1e-9)
   if bytes == 0 then
      print("No bytes written.")
   else
      print(string.format("%d bytes written in %.2f seconds (%.2f MiB/sec).", bytes, secs, bytes / 1048576 / secs))
   end
end

function cleanup()
   local c = settings()
   print("Removing test files...")
   for i = 0, c.num - 1 do
      local ok, err = test_files.unlink(c.path(i))
      if not ok then builtin.fatal(err) end
   end
end

local function mode()
   local m = sysbench.opt.file_test_mode
   if m == nil or m == "" then builtin.fatal("Missing required argument: --file-test-mode") end
   if not MODES[m] then builtin.fatal("Invalid IO operations mode: " .. m .. ".") end
   return m
end

-- run's checks and header: the files must be there, as large as the settings say
function init()
   local c, m, o = settings(), mode(), sysbench.opt
   if o.file_io_mode ~= "sync" then
      builtin.fatal("--file-io-mode=" .. o.file_io_mode .. " is not supported by sbench (sync only)")
   end
   if o.file_merged_requests > 0 then
      io.stderr:write("sbench: note: --file-merged-requests is accepted and ignored: each request is its own\n")
   end
   for i = 0, c.num - 1 do
      -- seqwr is sysbench's "(creation)" test: it starts from empty files
      -- (truncated here, once, before the threads open them)
      local f = io.open(c.path(i), m == "seqwr" and "w" or "r")
      if not f then
         builtin.fatal(string.format("Cannot open file '%s': run 'sbench fileio prepare' with the same "
                                     .. "--file-num and --file-total-size first", c.path(i)))
      end
      local size = f:seek("end")
      f:close()
      if m ~= "seqwr" and size < c.file_size then
         builtin.fatal(string.format("Size of file '%s' is %s, but at least %s is expected.",
                                     c.path(i), size_text(size), size_text(c.file_size)))
      end
   end
   local n = builtin.notice
   n("Extra file open flags: " .. c.flag_text)
   n(string.format("%d files, %s each", c.num, size_text(c.file_size)))
   n(string.format("%s total file size", size_text(c.total)))
   n(string.format("Block size %s", size_text(c.bs)))
   n("Number of IO requests: " .. o.events)
   n(string.format("Read/Write ratio for combined random IO test: %.2f", o.file_rw_ratio))
   if o.file_fsync_freq > 0 then
      n(string.format("Periodic FSYNC enabled, calling fsync() each %d requests.", o.file_fsync_freq))
   end
   n("Calling fsync() at the end of test, " .. (o.file_fsync_end and "Enabled." or "Disabled."))
   n("Using synchronous I/O mode")
   n("Doing " .. MODES[m] .. " test")
end

-- one thread's state
local c, files, m, seq, writes_any, periodic, pos, step, nblocks
local fsync_mode, fsync_freq, fsync_all, ratio, validate
local event_type = sbench.event_type
local fsync_count, fsync_take = sbench.builtin.fsync_count, sbench.builtin.fsync_take
local rw_is_read = sbench.builtin.rw_is_read
local random = sysbench.rand.uniform

function thread_init()
   c, m = settings(), mode()
   local o = sysbench.opt
   writes_any = m ~= "seqrd" and m ~= "rndrd"
   seq = m:sub(1, 3) == "seq"
   files = {}
   for i = 0, c.num - 1 do
      local f, err = test_files.open(c.path(i), c.bs, (writes_any and "" or "r") .. c.flags)
      if not f then error("fileio: " .. err, 0) end
      files[i] = f
   end
   nblocks = c.num * c.blocks
   step = sysbench.opt.threads
   pos = sysbench.tid % math.max(nblocks, 1)
   fsync_mode, fsync_freq, fsync_all, ratio = o.file_fsync_mode, o.file_fsync_freq, o.file_fsync_all, o.file_rw_ratio
   validate = o.validate
   periodic = writes_any and fsync_freq > 0
end

-- the file and offset of the next request
local function next_block()
   local g
   if seq then
      g = pos
      pos = (pos + step) % nblocks
   else
      g = random(0, nblocks - 1)
   end
   return files[g // c.blocks], (g % c.blocks) * c.bs, g // c.blocks
end

function event()
   if periodic then -- a queued fsync first: one file per event, as sysbench
      local fi = fsync_take(c.num)
      if fi then
         files[fi]:fsync(fsync_mode)
         event_type("fsync")
         return
      end
   end
   local f, off, fi = next_block()
   local read = m == "seqrd" or m == "rndrd" or (m == "rndrw" and rw_is_read(ratio))
   if read then
      f:read(off)
      if validate and not f:verify() then -- sysbench's --validate
         error(string.format("Validation failed on file %s, block offset %d", c.path(fi), off), 0)
      end
      event_type("read")
   else
      f:write(off)
      event_type("write")
      if fsync_all then f:fsync(fsync_mode) end
   end
   if periodic then fsync_count(fsync_freq, c.num) end
end

function thread_done()
   if files == nil then return end
   for i = 0, c.num - 1 do
      if writes_any and sysbench.opt.file_fsync_end then files[i]:fsync(fsync_mode) end
      files[i]:close()
   end
end

sysbench.hooks.report_lead = function(stat)
   local secs, t = stat.time_interval, stat.types or {}
   local function count(name) return t[name] and t[name].count or 0 end
   local o = sysbench.opt
   local bs = o.file_block_size
   local function line(label, v) print(string.format("    %-30s%4.2f", label, v)) end
   -- thread_done's fsyncs count too, as sysbench counts them (not events):
   -- every thread fsyncs each of its files once in a mode that writes
   local m = o.file_test_mode
   local final = (o.file_fsync_end and m ~= "seqrd" and m ~= "rndrd") and o.threads * o.file_num or 0
   print("File operations:")
   line("reads/s:", count("read") / secs)
   line("writes/s:", count("write") / secs)
   line("fsyncs/s:", (count("fsync") + final) / secs)
   print()
   print("Throughput:")
   line("read, MiB/s:", count("read") * bs / 1048576 / secs)
   line("written, MiB/s:", count("write") * bs / 1048576 / secs)
end
