/*
 * sbench.diag: the few system calls the diagnostic workloads need and Lua
 * lacks (workloads/diag.lua): the monotonic clock and the running
 * executable's path (to run sbench again for a sweep step).
 *
 *   sbench.diag.now()                    -> seconds (monotonic clock, a float)
 *   sbench.diag.exe()                    -> path of the sbench executable
 *
 * sbench.diag.open, unlink and free_bytes, the fileio test's files, are
 * sbench.builtin's (lua/l_builtin.c over builtin/fileio.c) under the
 * names they had before.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "../core/clock.h"
#include "l_internal.h"

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

void l_open_diag(lua_State *L)
{
    static const luaL_Reg f[] = {{"now", d_now}, {"exe", d_exe}, {NULL, NULL}};
    luaL_newlib(L, f); /* on the sbench table (below it on the stack) */
    l_builtin_file_fields(L); /* open, unlink, free_bytes: their older names */
    lua_setfield(L, -2, "diag");
}
