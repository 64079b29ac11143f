/*
 * Calling into Lua from the binding, and what an error leaves: the
 * worker's error from the error value (l_take_error), a protected call of
 * a value (l_call_value) and of a script hook (l_call_hook).  A leaf of
 * lua/: it calls no other file of the binding but l_compat.c's hint, so
 * the event loop and the state's setup both use it without a circle.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>

#include "l_internal.h"

void l_take_error(struct l_thread *t)
{
    struct sb_worker *w = t->w;
    lua_State *L = t->L;
    const char *msg;
    if (lua_istable(L, -1)) {
        luaL_tolstring(L, -1, NULL);
        if (lua_getfield(L, -2, "query") == LUA_TSTRING) { /* an SQL error names its statement */
            lua_pushliteral(L, " (query: ");
            lua_insert(L, -2);
            lua_pushliteral(L, ")");
            lua_concat(L, 4);
        } else {
            lua_pop(L, 1);
        }
        lua_getfield(L, -2, "no_traceback");
        int plain = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -2, "traceback");
        if (lua_isstring(L, -1) && !plain) {
            lua_pushliteral(L, "\n");
            lua_insert(L, -2);
            lua_concat(L, 3);
        } else {
            lua_pop(L, 1);
        }
        msg = lua_tostring(L, -1);
        snprintf(w->error, sizeof w->error, "%s", msg ? msg : "?");
        lua_pop(L, 2);
        return;
    }
    l_compat_hint(L);
    msg = lua_tostring(L, -1);
    snprintf(w->error, sizeof w->error, "%s", msg ? msg : "(non-string error)");
    lua_pop(L, 1);
}

int l_call_value(struct l_thread *t, int nargs)
{
    lua_State *L = t->L;
    if (lua_type(L, -1 - nargs) != LUA_TFUNCTION) {
        lua_pop(L, 1 + nargs);
        return 1;
    }
    if (lua_pcall(L, nargs, 0, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        return -1;
    }
    return 0;
}

int l_call_hook(struct l_thread *t, int env_ref, const char *name, int idx, int *absent)
{
    lua_State *L = t->L;
    idx = lua_absindex(L, idx);
    if (env_ref == LUA_NOREF) {
        lua_getglobal(L, "sbench");
    } else { /* a client's own sbench table (its hooks) */
        lua_rawgeti(L, LUA_REGISTRYINDEX, env_ref);
        lua_getfield(L, -1, "sbench");
        lua_remove(L, -2);
    }
    lua_getfield(L, -1, "hooks");
    lua_remove(L, -2);
    if (!lua_istable(L, -1) || lua_getfield(L, -1, name) != LUA_TFUNCTION) {
        lua_pop(L, lua_istable(L, -1) ? 1 : 1);
        if (lua_gettop(L) > idx)
            lua_settop(L, idx);
        if (absent)
            *absent = 1;
        return 0;
    }
    lua_remove(L, -2);
    if (absent)
        *absent = 0;
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        return -1;
    }
    int r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
}
