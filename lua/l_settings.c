/*
 * The server's settings for every run's JSON metadata (run.server_settings,
 * docs/report-json.md): before the run, the control state opens a
 * connection of its own and calls workloads/diag_sql.lua's read_params,
 * the same reader `sbench params` uses, so a report says what the server
 * was set to when it was measured.  Nothing here runs while measuring.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>

#include "../lib/jsonw.h"
#include "../core/run.h"
#include "l_internal.h"

static const char reader_chunk[] =
    "local m = require('diag_sql')\n"
    "local con = sbench.sql.driver():connect()\n"
    "local ok, r = pcall(m.read_params, con)\n"
    "con:disconnect()\n"
    "if not ok then error(r, 0) end\n"
    "return r\n";

/* t[k] as a string, or "" (strings and numbers only). */
static const char *field_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *s = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1)
                                                                                        : "";
    lua_pop(L, 1); /* the string stays referenced by t */
    return s;
}

/* The table on top of the stack (read_params' result) as
 * {"version":..,"settings":{NAME:{"value":..,"unit":..},...}}. */
static void write_settings(lua_State *L, struct sb_jw *j)
{
    int r = lua_gettop(L);
    sb_jw_raw(j, "{");
    sb_jw_key(j, "version", 1);
    const char *version = field_str(L, r, "version");
    sb_jw_str(j, *version ? version : field_str(L, r, "server"));
    sb_jw_key(j, "settings", 0);
    sb_jw_raw(j, "{");
    lua_getfield(L, r, "settings");
    int n = lua_istable(L, -1) ? (int)luaL_len(L, -1) : 0;
    for (int i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        if (lua_istable(L, -1)) {
            int s = lua_gettop(L);
            sb_jw_key(j, field_str(L, s, "name"), i == 1);
            sb_jw_raw(j, "{");
            sb_jw_key(j, "value", 1);
            sb_jw_str(j, field_str(L, s, "value"));
            sb_jw_key(j, "unit", 0);
            sb_jw_str(j, field_str(L, s, "unit"));
            sb_jw_raw(j, "}");
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    sb_jw_raw(j, "}}");
}

int l_server_settings(struct sb_worker *w, char *buf, size_t len)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    int top = lua_gettop(L);
    struct sb_jw j;
    sb_jw_init(&j, buf, len);
    int rc = 0;
    if (luaL_loadbufferx(L, reader_chunk, sizeof reader_chunk - 1, "=server_settings", "t") != LUA_OK ||
        lua_pcall(L, 0, 1, t->traceback_idx) != LUA_OK || !lua_istable(L, -1)) {
        const char *m = lua_tostring(L, -1);
        snprintf(w->error, sizeof w->error, "%s", m ? m : "read_params returned no table");
        char *nl = strchr(w->error, '\n'); /* the message, not its traceback */
        if (nl)
            *nl = 0;
        sb_jw_raw(&j, "{");
        sb_jw_key(&j, "error", 1);
        sb_jw_str(&j, w->error);
        sb_jw_raw(&j, "}");
        rc = -1;
    } else {
        write_settings(L, &j);
    }
    lua_settop(L, top);
    if (j.truncated) {
        snprintf(buf, len, "{\"error\":\"the settings did not fit\"}");
        return -1;
    }
    return rc;
}
