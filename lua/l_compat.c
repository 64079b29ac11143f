/*
 * Lua 5.1 / LuaJIT-isms that existing sysbench scripts rely on: the global
 * `unpack`, and a minimal `ffi` module whose cdef accepts any declaration
 * and whose C.usleep sleeps.  Scripts that really need LuaJIT's FFI will
 * get a clear "attempt to call a nil value" naming the missing function.
 */
#include <lauxlib.h>
#include <lua.h>

#include <time.h>

#include "l_internal.h"

static int ffi_cdef(lua_State *L)
{
    (void)L;
    return 0;
}

static int ffi_usleep(lua_State *L)
{
    lua_Integer us = luaL_checkinteger(L, 1);
    if (us > 0) {
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    lua_pushinteger(L, 0);
    return 1;
}

static int open_ffi(lua_State *L)
{
    lua_newtable(L);
    lua_pushcfunction(L, ffi_cdef);
    lua_setfield(L, -2, "cdef");
    lua_newtable(L);
    lua_pushcfunction(L, ffi_usleep);
    lua_setfield(L, -2, "usleep");
    lua_setfield(L, -2, "C");
    return 1;
}

void l_open_compat(lua_State *L)
{
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "unpack");
    lua_setglobal(L, "unpack");
    lua_pop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, open_ffi);
    lua_setfield(L, -2, "ffi");
    lua_pop(L, 1);
}
