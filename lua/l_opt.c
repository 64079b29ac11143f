/*
 * Options as Lua values: an option's value as sbench.opt holds it
 * (l_push_opt_value) and its Lua name (l_opt_lua_name).  A leaf of lua/,
 * used by sbench.opt (l_sbench.c) and the legacy globals (l_legacy.c).
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/options.h"
#include "l_internal.h"

void l_push_opt_value(lua_State *L, const struct sb_opt *p, const char *v)
{
    if (v == NULL && p->source == SB_SRC_WORKLOAD && p->kind != SB_OPT_FILE) {
        /* declared with a type and no default: sysbench gives "", 0, {}
         * and, for a boolean, true */
        static const char *const none[] = {[SB_OPT_INT] = "0", [SB_OPT_NUMBER] = "0",
                                           [SB_OPT_SIZE] = "0", [SB_OPT_BOOL] = "on"};
        v = p->kind < (int)(sizeof none / sizeof none[0]) && none[p->kind] ? none[p->kind] : "";
    }
    if (v == NULL) {
        lua_pushnil(L);
        return;
    }
    long long size;
    switch (p->kind) {
    case SB_OPT_SIZE:
        lua_pushinteger(L, sb_parse_size(v, &size) == 0 ? (lua_Integer)size : 0);
        break;
    case SB_OPT_INT:
        lua_pushinteger(L, (lua_Integer)strtoll(v, NULL, 10));
        break;
    case SB_OPT_NUMBER: {
        lua_pushstring(L, v);
        lua_Number d = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (d == (lua_Number)(lua_Integer)d && strchr(v, '.') == NULL && strchr(v, 'e') == NULL)
            lua_pushinteger(L, (lua_Integer)d);
        else
            lua_pushnumber(L, d);
        break;
    }
    case SB_OPT_BOOL:
        lua_pushboolean(L, sb_parse_bool(v) == 1);
        break;
    case SB_OPT_LIST: {
        lua_newtable(L);
        int i = 1;
        const char *s = v;
        while (*s) {
            const char *comma = strchr(s, ',');
            size_t n = comma ? (size_t)(comma - s) : strlen(s);
            lua_pushlstring(L, s, n);
            lua_rawseti(L, -2, i++);
            if (!comma)
                break;
            s = comma + 1;
        }
        break;
    }
    default:
        lua_pushstring(L, v);
    }
}

void l_opt_lua_name(const struct sb_opt *p, char *key, size_t len)
{
    snprintf(key, len, "%s", p->name);
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
}
