/*
 * sbench.diag: the few system calls the diagnostic workloads need and Lua
 * lacks (workloads/diag.lua, workloads/fileio.lua): the monotonic clock,
 * the running executable's path (to run sbench again for a sweep step),
 * and files for the I/O test, written and read block by block with
 * pwrite/pread from one aligned buffer, optionally O_DIRECT, with fsync.
 *
 *   sbench.diag.now()                    -> seconds (monotonic clock, a float)
 *   sbench.diag.exe()                    -> path of the sbench executable
 *   sbench.diag.free_bytes(dir)          -> bytes available to this user in dir's file system
 *   sbench.diag.open(path, block, flags) -> file, or nil, message
 *       flags: a string of letters: c create (truncate), d O_DIRECT, r read only,
 *       s O_SYNC, y O_DSYNC
 *   f:write(offset)  -> bytes written (one block; raises on an error)
 *   f:read(offset)   -> bytes read (one block, fewer at the end; raises on an error)
 *   f:verify()       -> whether the block last read is the pattern f:write writes
 *   f:fsync(["fdatasync"]), f:size() -> bytes, f:close()   (closing twice is fine; __gc and __close close)
 *   f:drop_cache()   asks the kernel to drop the file's clean cached pages
 *                    (posix_fadvise DONTNEED), so a read test reads the disk
 *   sbench.diag.unlink(path)             -> true, or nil, message
 *
 * Failures that the user can fix (a directory that does not exist, O_DIRECT
 * refused by the file system) come back as nil, message; an I/O error in
 * the middle of a test raises.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../core/clock.h"
#include "l_internal.h"

#define FILE_MT "sbench.diag.file"
#define ALIGN 4096

struct dfile {
    int fd;          /* -1 when closed */
    size_t block;
    char *buf;       /* block bytes, ALIGN-aligned; owned */
};

static int d_now(lua_State *L)
{
    lua_pushnumber(L, (double)sb_now_ns() / 1e9);
    return 1;
}

static int d_exe(lua_State *L)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return luaL_error(L, "cannot read /proc/self/exe: %s", strerror(errno));
    lua_pushlstring(L, path, (size_t)n);
    return 1;
}

static int d_free_bytes(lua_State *L)
{
    const char *dir = luaL_checkstring(L, 1);
    struct statvfs v;
    if (statvfs(dir, &v) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", dir, strerror(errno));
        return 2;
    }
    lua_pushinteger(L, (lua_Integer)((unsigned long long)v.f_bavail * v.f_frsize));
    return 1;
}

static struct dfile *check_file(lua_State *L)
{
    struct dfile *f = luaL_checkudata(L, 1, FILE_MT);
    if (f->fd < 0)
        luaL_error(L, "the file is closed");
    return f;
}

static int f_close(lua_State *L)
{
    struct dfile *f = luaL_checkudata(L, 1, FILE_MT);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->buf);
    f->buf = NULL;
    return 0;
}

/* sbench.diag.open(path, block, flags): the userdata is made closed first,
 * then the buffer and the file are acquired. */
static int d_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer block = luaL_checkinteger(L, 2);
    const char *flags = luaL_optstring(L, 3, "");
    /* any size, as sysbench's fileio: O_DIRECT's alignment is the kernel's
     * to refuse (EINVAL at the first write) */
    luaL_argcheck(L, block >= 1 && block <= (1 << 30), 2, "block size must be 1 byte to 1 GiB");
    struct dfile *f = lua_newuserdatauv(L, sizeof *f, 0);
    f->fd = -1;
    f->block = (size_t)block;
    f->buf = NULL;
    luaL_setmetatable(L, FILE_MT);
    f->buf = aligned_alloc(ALIGN, ((size_t)block + ALIGN - 1) / ALIGN * ALIGN);
    if (f->buf == NULL)
        return luaL_error(L, "out of memory for a %d-byte block", (int)block);
    for (size_t i = 0; i < f->block; i++) /* not zeros: no file system may compress them away */
        f->buf[i] = (char)('a' + (i * 7 + i / 4096) % 26);
    int of = strchr(flags, 'r') ? O_RDONLY : O_RDWR;
    if (strchr(flags, 'c'))
        of |= O_CREAT | O_TRUNC;
    if (strchr(flags, 'd'))
        of |= O_DIRECT;
    if (strchr(flags, 's'))
        of |= O_SYNC;
    if (strchr(flags, 'y'))
        of |= O_DSYNC;
    f->fd = open(path, of | O_CLOEXEC, 0600);
    if (f->fd < 0) {
        int e = errno;
        lua_pushnil(L);
        if (e == EINVAL && strchr(flags, 'd'))
            lua_pushfstring(L, "%s: the file system refuses O_DIRECT (%s)", path, strerror(e));
        else
            lua_pushfstring(L, "%s: %s", path, strerror(e));
        return 2;
    }
    return 1;
}

static int f_write(lua_State *L)
{
    struct dfile *f = check_file(L);
    lua_Integer off = luaL_checkinteger(L, 2);
    size_t done = 0;
    while (done < f->block) {
        ssize_t n = pwrite(f->fd, f->buf + done, f->block - done, (off_t)off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return luaL_error(L, "write at offset %I: %s", off + (lua_Integer)done,
                              n < 0 ? strerror(errno) : "nothing written");
        done += (size_t)n;
    }
    lua_pushinteger(L, (lua_Integer)done);
    return 1;
}

static int f_read(lua_State *L)
{
    struct dfile *f = check_file(L);
    lua_Integer off = luaL_checkinteger(L, 2);
    size_t done = 0;
    while (done < f->block) {
        ssize_t n = pread(f->fd, f->buf + done, f->block - done, (off_t)off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return luaL_error(L, "read at offset %I: %s", off + (lua_Integer)done, strerror(errno));
        if (n == 0)
            break;
        done += (size_t)n;
    }
    lua_pushinteger(L, (lua_Integer)done);
    return 1;
}

/* f:verify(): whether the buffer (the last block read) is the pattern
 * f:write writes (fileio --validate). */
static int f_verify(lua_State *L)
{
    struct dfile *f = check_file(L);
    int same = 1;
    for (size_t i = 0; i < f->block && same; i++)
        same = f->buf[i] == (char)('a' + (i * 7 + i / 4096) % 26);
    lua_pushboolean(L, same);
    return 1;
}

static int f_fsync(lua_State *L)
{
    struct dfile *f = check_file(L);
    int data_only = strcmp(luaL_optstring(L, 2, "fsync"), "fdatasync") == 0;
    if ((data_only ? fdatasync(f->fd) : fsync(f->fd)) != 0)
        return luaL_error(L, "%s: %s", data_only ? "fdatasync" : "fsync", strerror(errno));
    return 0;
}

static int f_size(lua_State *L)
{
    struct dfile *f = check_file(L);
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return luaL_error(L, "fstat: %s", strerror(errno));
    lua_pushinteger(L, (lua_Integer)st.st_size);
    return 1;
}

static int f_drop_cache(lua_State *L)
{
    struct dfile *f = check_file(L);
    int e = posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
    if (e != 0)
        return luaL_error(L, "posix_fadvise: %s", strerror(e));
    return 0;
}

static int d_unlink(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (unlink(path) != 0 && errno != ENOENT) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

void l_open_diag(lua_State *L)
{
    static const luaL_Reg fm[] = {{"write", f_write}, {"read", f_read}, {"verify", f_verify}, {"fsync", f_fsync},
                                  {"size", f_size}, {"close", f_close},
                                  {"drop_cache", f_drop_cache}, {NULL, NULL}};
    luaL_newmetatable(L, FILE_MT);
    luaL_newlib(L, fm);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, f_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, f_close);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    static const luaL_Reg f[] = {{"now", d_now}, {"exe", d_exe}, {"free_bytes", d_free_bytes},
                                 {"open", d_open}, {"unlink", d_unlink}, {NULL, NULL}};
    luaL_newlib(L, f); /* on the sbench table (below it on the stack) */
    lua_setfield(L, -2, "diag");
}
