/*
 * sbench.builtin: the C loops of sysbench's built-in tests (builtin/) as
 * the workloads cpu, memory, threads and mutex call them, one call per
 * event:
 *   sbench.builtin.cpu(max_prime)                 -> primes found
 *   sbench.builtin.memory(block, scope, oper, mode, seed) -> m; m:event()
 *   sbench.builtin.locks(n)                       -> true (n shared mutexes made)
 *   sbench.builtin.threads(lock, yields)          -> nothing
 *   sbench.builtin.mutex(num, locks, loops, seed) -> x; x:event()
 *   sbench.builtin.fsync_count(freq, nfiles)      fileio: a request counted (all threads')
 *   sbench.builtin.fsync_take(nfiles)             -> index of the file to fsync now, or nil
 *   sbench.builtin.rw_is_read(ratio)              -> rndrw: whether the next request reads
 *   sbench.builtin.limit_events(n [, replace])    -> the run's event limit, at most n
 *                                                    (replace: exactly n, 0 = none)
 * and fileio's files (builtin/fileio.c; also on sbench.diag, their first home):
 *   sbench.builtin.free_bytes(dir)          -> bytes available to this user in dir's file system
 *   sbench.builtin.open(path, block, flags) -> file, or nil, message
 *       flags: a string of letters: c create (truncate), d O_DIRECT, r read only,
 *       s O_SYNC, y O_DSYNC
 *   f:write(offset)  -> bytes written (one block; raises on an error)
 *   f:read(offset)   -> bytes read (one block, fewer at the end; raises on an error)
 *   f:verify()       -> whether the block last read is the pattern f:write writes
 *   f:fsync(["fdatasync"]), f:size() -> bytes, f:close()   (closing twice is fine; __gc and __close close)
 *   f:drop_cache()   asks the kernel to drop the file's clean cached pages
 *   sbench.builtin.unlink(path)             -> true, or nil, message
 * Bad arguments raise a Lua error naming them; nothing allocates per event.
 * Failures the user can fix (a directory that does not exist, O_DIRECT
 * refused by the file system) come back as nil, message; an I/O error in
 * the middle of a test raises.
 */
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <string.h>

#include "../builtin/builtin.h"
#include "../core/run.h"
#include "l_internal.h"

#define MEM_MT "sbench.builtin.memory"
#define MUTEX_MT "sbench.builtin.mutex"
#define FILE_MT "sbench.diag.file"

struct l_mem {
    size_t *block;      /* the global block, or local[] */
    size_t words;
    int oper, rnd;
    uint64_t seed;
    size_t local[];     /* --memory-scope=local: this thread's block */
};

struct l_mutex {
    int num;
    long locks, loops;
    uint64_t seed;
};

static int b_cpu(lua_State *L)
{
    lua_Integer max = luaL_checkinteger(L, 1);
    luaL_argcheck(L, max >= 0, 1, "--cpu-max-prime must not be negative");
    lua_pushinteger(L, (lua_Integer)sb_cpu_event((uint64_t)max));
    return 1;
}

static int b_memory(lua_State *L)
{
    lua_Integer bytes = luaL_checkinteger(L, 1);
    const char *scope = luaL_checkstring(L, 2), *oper = luaL_checkstring(L, 3);
    const char *mode = luaL_checkstring(L, 4);
    lua_Integer seed = luaL_optinteger(L, 5, 1);
    luaL_argcheck(L, bytes >= (lua_Integer)sizeof(size_t) && bytes <= ((lua_Integer)1 << 40), 1,
                  "--memory-block-size must be at least 8 bytes and at most 1T");
    int global = strcmp(scope, "global") == 0;
    luaL_argcheck(L, global || strcmp(scope, "local") == 0, 2, "--memory-scope: global or local");
    int op = strcmp(oper, "read") == 0 ? SB_MEM_READ : strcmp(oper, "write") == 0 ? SB_MEM_WRITE
           : strcmp(oper, "none") == 0 ? SB_MEM_NONE : -1;
    luaL_argcheck(L, op >= 0, 3, "--memory-oper: read, write or none");
    luaL_argcheck(L, strcmp(mode, "seq") == 0 || strcmp(mode, "rnd") == 0, 4,
                  "--memory-access-mode: seq or rnd");
    size_t words = (size_t)bytes / sizeof(size_t);
    struct l_mem *m = lua_newuserdatauv(L, sizeof *m + (global ? 0 : words * sizeof(size_t)), 0);
    m->words = words;
    m->oper = op;
    m->rnd = strcmp(mode, "rnd") == 0;
    m->seed = (uint64_t)seed;
    if (global) {
        m->block = sb_mem_global_block(words * sizeof(size_t));
        if (m->block == NULL)
            return luaL_error(L, "memory: cannot allocate the global block of %I bytes", bytes);
    } else {
        m->block = m->local;
        memset(m->local, 0, words * sizeof(size_t));
    }
    luaL_setmetatable(L, MEM_MT);
    return 1;
}

static int mem_event(lua_State *L)
{
    struct l_mem *m = luaL_checkudata(L, 1, MEM_MT);
    lua_pushinteger(L, (lua_Integer)sb_mem_event(m->block, m->words, m->oper, m->rnd, &m->seed));
    return 1;
}

/* fileio's periodic fsync, one queue for all threads (builtin/requests.c):
 * fsync_count(freq, nfiles) counts a read or write; fsync_take(nfiles) ->
 * the 0-based index of the file to fsync now, or nil */
static int b_fsync_count(lua_State *L)
{
    lua_Integer freq = luaL_checkinteger(L, 1), n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, freq >= 0, 1, "--file-fsync-freq must not be negative");
    luaL_argcheck(L, n > 0 && n <= 1000000000, 2, "the number of files must be 1 to 10^9");
    sb_requests_count((uint64_t)freq, (int)n);
    return 0;
}

static int b_rw_is_read(lua_State *L)
{
    lua_Number ratio = luaL_checknumber(L, 1);
    luaL_argcheck(L, ratio >= 0, 1, "--file-rw-ratio must not be negative");
    lua_pushboolean(L, sb_requests_rw_is_read((double)ratio));
    return 1;
}

static int b_fsync_take(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n > 0 && n <= 1000000000, 1, "the number of files must be 1 to 10^9");
    int i = sb_requests_take_fsync((int)n);
    if (i < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, i);
    return 1;
}

static int b_locks(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n > 0 && n <= 1000000, 1, "the number of mutexes must be 1 to 1000000");
    if (sb_locks_init((int)n) != 0)
        return luaL_error(L, "cannot make %I mutexes", n);
    lua_pushboolean(L, 1);
    return 1;
}

static int b_threads(lua_State *L)
{
    lua_Integer lock = luaL_checkinteger(L, 1), yields = luaL_checkinteger(L, 2);
    luaL_argcheck(L, lock >= 0 && sb_locks_init((int)lock + 1) == 0, 1, "no such mutex (call locks(n) first)");
    luaL_argcheck(L, yields >= 0 && yields <= 1000000000, 2, "--thread-yields out of range");
    sb_threads_event((int)lock, (int)yields);
    return 0;
}

static int b_mutex(lua_State *L)
{
    lua_Integer num = luaL_checkinteger(L, 1), locks = luaL_checkinteger(L, 2);
    lua_Integer loops = luaL_checkinteger(L, 3), seed = luaL_optinteger(L, 4, 1);
    luaL_argcheck(L, num > 0 && sb_locks_init((int)num) == 0, 1, "--mutex-num: call locks(n) with n >= it first");
    luaL_argcheck(L, locks >= 0, 2, "--mutex-locks must not be negative");
    luaL_argcheck(L, loops >= 0, 3, "--mutex-loops must not be negative");
    struct l_mutex *x = lua_newuserdatauv(L, sizeof *x, 0);
    x->num = (int)num;
    x->locks = (long)locks;
    x->loops = (long)loops;
    x->seed = (uint64_t)seed;
    luaL_setmetatable(L, MUTEX_MT);
    return 1;
}

static int mutex_event(lua_State *L)
{
    struct l_mutex *x = luaL_checkudata(L, 1, MUTEX_MT);
    sb_mutex_event(x->num, x->locks, x->loops, &x->seed);
    return 0;
}

/* The memory test stops after --memory-total-size bytes, the mutex test
 * after one event per thread: the run's event limit becomes n, or stays
 * below it when --events is smaller; with `replace` true it becomes n
 * whatever --events says (0: no limit), as sysbench's memory test ignores
 * --events.  Called from init(). */
static int b_limit_events(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    int replace = lua_toboolean(L, 2);
    luaL_argcheck(L, n >= 0, 1, "the event limit must not be negative");
    struct sb_run *run = l_thread(L)->w->run;
    if (replace)
        run->event_limit = (uint64_t)n;
    else if (n > 0 && (run->event_limit == 0 || (uint64_t)n < run->event_limit))
        run->event_limit = (uint64_t)n;
    lua_pushinteger(L, (lua_Integer)run->event_limit);
    return 1;
}

/* ---- fileio's files ---- */

static struct sb_file *check_file(lua_State *L)
{
    struct sb_file *f = luaL_checkudata(L, 1, FILE_MT);
    if (f->fd < 0)
        luaL_error(L, "the file is closed");
    return f;
}

static int f_close(lua_State *L)
{
    sb_file_close(luaL_checkudata(L, 1, FILE_MT));
    return 0;
}

/* open(path, block, flags): the userdata is made closed first, then the
 * buffer and the file are acquired. */
static int b_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer block = luaL_checkinteger(L, 2);
    const char *flags = luaL_optstring(L, 3, "");
    /* any size, as sysbench's fileio: O_DIRECT's alignment is the kernel's
     * to refuse (EINVAL at the first write) */
    luaL_argcheck(L, block >= 1 && block <= (1 << 30), 2, "block size must be 1 byte to 1 GiB");
    struct sb_file *f = lua_newuserdatauv(L, sizeof *f, 0);
    f->fd = -1;
    f->buf = NULL;
    luaL_setmetatable(L, FILE_MT);
    int e = sb_file_open(f, path, (size_t)block, flags);
    if (f->buf == NULL)
        return luaL_error(L, "out of memory for a %d-byte block", (int)block);
    if (e != 0) {
        lua_pushnil(L);
        if (e == EINVAL && strchr(flags, 'd'))
            lua_pushfstring(L, "%s: the file system refuses O_DIRECT (%s)", path, strerror(e));
        else
            lua_pushfstring(L, "%s: %s", path, strerror(e));
        return 2;
    }
    return 1;
}

/* f:write(offset) and f:read(offset): one block, the bytes moved; raises
 * on an I/O error. */
static int block_io(lua_State *L, int write)
{
    struct sb_file *f = check_file(L);
    lua_Integer off = luaL_checkinteger(L, 2);
    size_t done;
    int e = (write ? sb_file_write : sb_file_read)(f, (int64_t)off, &done);
    if (e != 0)
        return luaL_error(L, "%s at offset %I: %s", write ? "write" : "read", off + (lua_Integer)done,
                          e > 0 ? strerror(e) : "nothing written");
    lua_pushinteger(L, (lua_Integer)done);
    return 1;
}

static int f_write(lua_State *L) { return block_io(L, 1); }
static int f_read(lua_State *L) { return block_io(L, 0); }

/* f:verify(): whether the buffer (the last block read) is the pattern
 * f:write writes (fileio --validate). */
static int f_verify(lua_State *L)
{
    lua_pushboolean(L, sb_file_verify(check_file(L)));
    return 1;
}

static int f_fsync(lua_State *L)
{
    struct sb_file *f = check_file(L);
    int data_only = strcmp(luaL_optstring(L, 2, "fsync"), "fdatasync") == 0;
    int e = sb_file_sync(f, data_only);
    if (e != 0)
        return luaL_error(L, "%s: %s", data_only ? "fdatasync" : "fsync", strerror(e));
    return 0;
}

static int f_size(lua_State *L)
{
    int64_t size;
    int e = sb_file_size(check_file(L), &size);
    if (e != 0)
        return luaL_error(L, "fstat: %s", strerror(e));
    lua_pushinteger(L, (lua_Integer)size);
    return 1;
}

static int f_drop_cache(lua_State *L)
{
    int e = sb_file_drop_cache(check_file(L));
    if (e != 0)
        return luaL_error(L, "posix_fadvise: %s", strerror(e));
    return 0;
}

static int b_unlink(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int e = sb_file_unlink(path);
    if (e != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(e));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int b_free_bytes(lua_State *L)
{
    const char *dir = luaL_checkstring(L, 1);
    uint64_t bytes;
    int e = sb_free_bytes(dir, &bytes);
    if (e != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", dir, strerror(e));
        return 2;
    }
    lua_pushinteger(L, (lua_Integer)bytes);
    return 1;
}

void l_builtin_file_fields(lua_State *L)
{
    if (luaL_newmetatable(L, FILE_MT)) {
        static const luaL_Reg fm[] = {{"write", f_write}, {"read", f_read}, {"verify", f_verify},
                                      {"fsync", f_fsync}, {"size", f_size}, {"close", f_close},
                                      {"drop_cache", f_drop_cache}, {NULL, NULL}};
        luaL_newlib(L, fm);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, f_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, f_close);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
    static const luaL_Reg f[] = {{"open", b_open}, {"unlink", b_unlink}, {"free_bytes", b_free_bytes},
                                 {NULL, NULL}};
    luaL_setfuncs(L, f, 0);
}

void l_open_builtin(lua_State *L)
{
    static const luaL_Reg mem_m[] = {{"event", mem_event}, {NULL, NULL}};
    static const luaL_Reg mutex_m[] = {{"event", mutex_event}, {NULL, NULL}};
    luaL_newmetatable(L, MEM_MT);
    luaL_newlib(L, mem_m);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_newmetatable(L, MUTEX_MT);
    luaL_newlib(L, mutex_m);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    static const luaL_Reg f[] = {{"cpu", b_cpu}, {"memory", b_memory}, {"locks", b_locks},
                                 {"threads", b_threads}, {"mutex", b_mutex},
                                 {"limit_events", b_limit_events}, {"fsync_count", b_fsync_count},
                                 {"fsync_take", b_fsync_take}, {"rw_is_read", b_rw_is_read},
                                 {NULL, NULL}};
    luaL_newlib(L, f); /* on the sbench table (below it on the stack) */
    l_builtin_file_fields(L);
    lua_setfield(L, -2, "builtin");
}
