/*
 * SQL errors as sysbench's scripts read them: sysbench raises a string
 * ("FILE:LINE: SQL error, errno = N, state = 'S': MESSAGE"), sbench a table
 * with the same text as its tostring (l_sql.c) and the fields sbench's
 * scripts use.  So that code written for the string works on the table,
 * the error's metatable concatenates as its text (err .. ""), gives the
 * string methods (err:find, err:match) and string.find/match/gmatch/gsub/
 * sub/len/lower/upper take it as its text.  Nothing here runs unless a
 * script calls those functions (a C check of the first argument's type).
 */
#include <lauxlib.h>
#include <lua.h>

#include "l_sql_int.h"

/* Whether the value at idx is an SQL error table (sbench.sqlerror). */
static int is_sql_error(lua_State *L, int idx)
{
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx))
        return 0;
    luaL_getmetatable(L, ERR_MT);
    int yes = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return yes;
}

static int err_concat(lua_State *L)
{
    luaL_tolstring(L, 1, NULL);
    luaL_tolstring(L, 2, NULL);
    lua_concat(L, 2);
    return 1;
}

/* string.NAME with an SQL error as its first argument: its text instead;
 * upvalue 1 is the original function. */
static int string_on_text(lua_State *L)
{
    if (is_sql_error(L, 1)) {
        luaL_tolstring(L, 1, NULL);
        lua_replace(L, 1);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* err:find(...) and the other string methods: string.NAME on its text;
 * any other missing field is nil. */
static int err_index(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    lua_getglobal(L, "string");
    if (!lua_istable(L, -1) || lua_getfield(L, -1, lua_tostring(L, 2)) != LUA_TFUNCTION)
        return 0;
    return 1;
}

void l_sql_open_errstr(lua_State *L)
{
    luaL_getmetatable(L, ERR_MT);
    lua_pushcfunction(L, err_concat);
    lua_setfield(L, -2, "__concat");
    lua_pushcfunction(L, err_index);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    static const char *const wrapped[] = {"find", "match", "gmatch", "gsub", "sub", "len",
                                          "lower", "upper"};
    lua_getglobal(L, "string");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    for (size_t i = 0; i < sizeof wrapped / sizeof wrapped[0]; i++) {
        if (lua_getfield(L, -1, wrapped[i]) != LUA_TFUNCTION) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushcclosure(L, string_on_text, 1);
        lua_setfield(L, -2, wrapped[i]);
    }
    lua_pop(L, 1);
}
