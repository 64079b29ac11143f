/*
 * What scripts written for sysbench's LuaJIT (Lua 5.1 with LuaJIT's
 * extensions) find missing in Lua 5.4, given back where it can be given
 * faithfully, and a one-line hint where it cannot.
 *
 * Given: the Lua 5.1 globals unpack, loadstring, newproxy, gcinfo,
 * table.getn/maxn/foreach/foreachi, math.pow and the other 5.1 math
 * functions where this Lua 5.4 lacks them; LuaJIT's `bit` (l_bit.c); the
 * global `ffi` (l_ffi.c); LuaJIT's string.format and print for numbers
 * (l_format.c).
 *
 * Not given (Lua 5.4 cannot): setfenv/getfenv, module, the jit module,
 * LuaJIT's FFI itself.  A script that uses one, or that hits another
 * difference Lua 5.4 reports with a generic message (a non-integral
 * number where an integer is expected, a '%' in a gsub replacement,
 * string.format flags Lua 5.4 refuses), gets a hint line under the error
 * (l_compat_hint).
 */
#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <string.h>

#include "l_internal.h"

/* table.getn(t): the raw length, as Lua 5.1's (no __len). */
static int t_getn(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

/* table.maxn(t): the largest positive numeric key, or 0. */
static int t_maxn(lua_State *L)
{
    lua_Number max = 0;
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) > max)
            max = lua_tonumber(L, -1);
    }
    lua_Integer i;
    if (lua_numbertointeger(max, &i) && (lua_Number)i == max)
        lua_pushinteger(L, i);
    else
        lua_pushnumber(L, max);
    return 1;
}

/* table.foreach(t, f): f(k, v) for each pair until f returns non-nil. */
static int t_foreach(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pushvalue(L, 2);
        lua_pushvalue(L, -3);
        lua_pushvalue(L, -3);
        lua_call(L, 2, 1);
        if (!lua_isnil(L, -1))
            return 1;
        lua_pop(L, 2);
    }
    return 0;
}

/* table.foreachi(t, f): f(i, t[i]) for i = 1..getn(t) until non-nil. */
static int t_foreachi(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_pushvalue(L, 2);
        lua_pushinteger(L, i);
        lua_rawgeti(L, 1, i);
        lua_call(L, 2, 1);
        if (!lua_isnil(L, -1))
            return 1;
        lua_pop(L, 1);
    }
    return 0;
}

/* newproxy([true | proxy]): an empty userdata, with a new metatable
 * (true) or the metatable of another proxy. */
static int g_newproxy(lua_State *L)
{
    lua_settop(L, 1);
    lua_newuserdatauv(L, 0, 0);
    if (lua_toboolean(L, 1) == 0)
        return 1;
    if (lua_isboolean(L, 1)) {
        lua_newtable(L);
    } else {
        luaL_argcheck(L, lua_type(L, 1) == LUA_TUSERDATA && lua_getmetatable(L, 1), 1,
                      "boolean or proxy expected");
    }
    lua_setmetatable(L, 2);
    return 1;
}

/* gcinfo(): kilobytes in use. */
static int g_gcinfo(lua_State *L)
{
    lua_pushinteger(L, lua_gc(L, LUA_GCCOUNT, 0));
    return 1;
}

/* Lua 5.1's math functions, for a Lua 5.4 built without them. */
static int m_pow(lua_State *L) { lua_pushnumber(L, pow(luaL_checknumber(L, 1), luaL_checknumber(L, 2))); return 1; }
static int m_log10(lua_State *L) { lua_pushnumber(L, log10(luaL_checknumber(L, 1))); return 1; }
static int m_ldexp(lua_State *L) { lua_pushnumber(L, ldexp(luaL_checknumber(L, 1), (int)luaL_checkinteger(L, 2))); return 1; }
static int m_cosh(lua_State *L) { lua_pushnumber(L, cosh(luaL_checknumber(L, 1))); return 1; }
static int m_sinh(lua_State *L) { lua_pushnumber(L, sinh(luaL_checknumber(L, 1))); return 1; }
static int m_tanh(lua_State *L) { lua_pushnumber(L, tanh(luaL_checknumber(L, 1))); return 1; }
static int m_frexp(lua_State *L)
{
    int e;
    lua_pushnumber(L, frexp(luaL_checknumber(L, 1), &e));
    lua_pushinteger(L, e);
    return 2;
}

/* Sets table[-1].name = f unless it has one. */
static void set_missing(lua_State *L, const char *name, lua_CFunction f)
{
    if (lua_getfield(L, -1, name) == LUA_TNIL) {
        lua_pushcfunction(L, f);
        lua_setfield(L, -3, name);
    }
    lua_pop(L, 1);
}

void l_open_compat(lua_State *L)
{
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "unpack");
    lua_setglobal(L, "unpack");
    set_missing(L, "getn", t_getn);
    set_missing(L, "maxn", t_maxn);
    set_missing(L, "foreach", t_foreach);
    set_missing(L, "foreachi", t_foreachi);
    lua_pop(L, 1);

    lua_getglobal(L, "math");
    static const luaL_Reg m[] = {{"pow", m_pow}, {"log10", m_log10}, {"ldexp", m_ldexp},
                                 {"frexp", m_frexp}, {"cosh", m_cosh}, {"sinh", m_sinh},
                                 {"tanh", m_tanh}, {NULL, NULL}};
    for (const luaL_Reg *r = m; r->name; r++)
        set_missing(L, r->name, r->func);
    lua_pop(L, 1);

    lua_getglobal(L, "load");
    lua_setglobal(L, "loadstring");
    lua_pushcfunction(L, g_newproxy);
    lua_setglobal(L, "newproxy");
    lua_pushcfunction(L, g_gcinfo);
    lua_setglobal(L, "gcinfo");

    l_open_bit(L);
    l_open_format(L);
    l_open_ffi(L);
}

/* ---- hints under errors ---- */

/* The hint for error message msg, or NULL. */
static const char *hint_for(const char *msg)
{
    static const struct { const char *match, *hint; } h[] = {
        {"number has no integer representation",
         "LuaJIT truncates a non-integral number where an integer is expected, Lua 5.4 "
         "raises: use math.floor(x) or x // 1"},
        {"'setfenv')", "setfenv is Lua 5.1/LuaJIT only: in Lua 5.4 pass an environment to load() or use _ENV"},
        {"'getfenv')", "getfenv is Lua 5.1/LuaJIT only: in Lua 5.4 use _ENV"},
        {"(global 'module')", "module() is Lua 5.1 only: make the module file return a table"},
        {"(global 'jit')", "the jit module is LuaJIT's own; sbench runs PUC Lua 5.4"},
        {"module 'jit", "the jit module is LuaJIT's own; sbench runs PUC Lua 5.4"},
        {"module 'table.new'", "table.new is LuaJIT's own; in Lua 5.4 use {}"},
        {"module 'table.clear'", "table.clear is LuaJIT's own; in Lua 5.4 assign a new {}"},
        {"module 'string.buffer'", "string.buffer is LuaJIT's own; in Lua 5.4 use table.concat"},
        {"invalid use of '%' in replacement string",
         "LuaJIT's gsub copies '%' followed by a non-digit as that character, Lua 5.4 raises: write %% for '%'"},
        {"invalid conversion",
         "Lua 5.4's string.format accepts fewer flags than LuaJIT's (no '+' or ' ' with %x/%o, no '#' with %d)"},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        if (strstr(msg, h[i].match))
            return h[i].hint;
    return NULL;
}

void l_compat_hint(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    const char *hint = msg ? hint_for(msg) : NULL;
    if (hint == NULL)
        return;
    const char *tb = strstr(msg, "\nstack traceback:");
    size_t head = tb ? (size_t)(tb - msg) : strlen(msg);
    lua_pushlstring(L, msg, head);
    lua_pushfstring(L, "\nhint: %s", hint);
    lua_pushstring(L, msg + head);
    lua_concat(L, 3);
    lua_replace(L, -2);
}
