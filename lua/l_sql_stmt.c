/*
 * Prepared statements and their parameters for Lua: con:prepare,
 * stmt:bind_create / bind_param / close, param:set / set_rand_str (running
 * a statement is l_sql_run.c's, but for con:query_stream, here).  Hot path (param:set of an integer): no
 * allocation, no formatting.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

#include "l_internal.h"
#include "l_sql_int.h"

static int conn_prepare(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    const char *name = luaL_optstring(L, 3, NULL);
    lua_settop(L, 3);
    struct l_stmt *ls = lua_newuserdatauv(L, sizeof *ls, 2);
    ls->s = NULL;
    ls->lc = lc;
    ls->rs = NULL;
    luaL_setmetatable(L, STMT_MT);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    ls->s = sb_stmt_prepare(lc->c, sql, len);
    if (ls->s == NULL) {
        int status = sb_conn_error(lc->c)->status;
        return l_sql_raise(L, 1, lc->c, status ? status : SBD_ERROR);
    }
    ls->req = sb_stmt_request(ls->s);
    if (name && sb_stmt_set_name(ls->s, name) != 0)
        return luaL_error(L, "prepare: too many statement names (at most %d)", SB_MAX_NAMED);
    return 1;
}

static int stmt_bind_create(lua_State *L)
{
    struct l_stmt *ls = l_sql_check_stmt(L, 1);
    int t = l_sql_type_to_sbd((int)luaL_checkinteger(L, 2));
    lua_Integer maxlen = luaL_optinteger(L, 3, 0);
    /* one more parameter than placeholders: sysbench still returns a
     * parameter; setting it does nothing, binding it is an error */
    int room = sb_stmt_ncreated(ls->s) < sb_stmt_nparams(ls->s);
    int slot = room ? sb_stmt_param_create(ls->s, t, maxlen > 0 ? (size_t)maxlen : 0) : -1;
    if (slot < 0 && room)
        return luaL_error(L, "bind_create: out of memory");
    struct l_param *p = lua_newuserdatauv(L, sizeof *p, 1);
    p->ls = ls;
    p->slot = slot;
    p->v = slot >= 0 ? sb_stmt_param(ls->s, slot) : NULL;
    p->maxlen = slot >= 0 ? sb_stmt_param_maxlen(ls->s, slot) : 0;
    luaL_setmetatable(L, PARAM_MT);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int stmt_bind_param(lua_State *L)
{
    struct l_stmt *ls = l_sql_check_stmt(L, 1);
    int n = lua_gettop(L) - 1;
    int order[256];
    if (n > 256)
        return luaL_error(L, "bind_param: too many parameters");
    for (int i = 0; i < n; i++) {
        struct l_param *p = luaL_checkudata(L, i + 2, PARAM_MT);
        if (p->ls != ls)
            return luaL_error(L, "bind_param: parameter %d belongs to another statement", i + 1);
        if (p->slot < 0)
            return luaL_error(L, "bind_param: parameter %d has no placeholder (the statement "
                              "has %d)", i + 1, sb_stmt_nparams(ls->s));
        order[i] = p->slot;
    }
    if (sb_stmt_bind(ls->s, order, n) != 0)
        return luaL_error(L, "bind_param: %d parameters for %d placeholders", n, sb_stmt_nparams(ls->s));
    if (n == 0) /* sysbench 1.0.20: nil without parameters, else 0 */
        lua_pushnil(L);
    else
        lua_pushinteger(L, 0);
    return 1;
}

static int stmt_close(lua_State *L)
{
    struct l_stmt *ls = luaL_checkudata(L, 1, STMT_MT);
    if (ls->s) {
        sb_stmt_close(ls->s);
        ls->s = NULL;
    }
    return 0;
}

static struct l_param *check_param(lua_State *L)
{
    struct l_param *p = l_sql_to_class(L, 1, PARAM_MT);
    if (p->ls->s == NULL)
        luaL_error(L, "parameter of a closed statement");
    return p;
}

static int param_set(lua_State *L)
{
    struct l_param *p = check_param(L);
    struct sbd_value *v = p->v;
    if (v == NULL)
        return 0; /* a parameter without a placeholder */
    if (v->type == SBD_TYPE_INT) { /* the common case first */
        int ok;
        lua_Integer i = lua_tointegerx(L, 2, &ok);
        if (ok) {
            v->i = i;
            v->is_null = 0;
            return 0;
        }
    }
    if (lua_isnoneornil(L, 2)) {
        v->is_null = 1;
        return 0;
    }
    switch (v->type) {
    case SBD_TYPE_INT: {
        int ok;
        lua_Integer i = lua_tointegerx(L, 2, &ok);
        if (!ok) {
            lua_Number d = luaL_checknumber(L, 2);
            i = (lua_Integer)d;
        }
        v->i = i;
        v->is_null = 0;
        break;
    }
    case SBD_TYPE_DOUBLE:
        v->d = luaL_checknumber(L, 2);
        v->is_null = 0;
        break;
    default: {
        size_t len;
        const char *str;
        char num[32];
        if (lua_type(L, 2) == LUA_TNUMBER && !lua_isinteger(L, 2)) {
            /* a float as LuaJIT writes it (5, not Lua 5.4's 5.0), as the
             * scripts written for sysbench expect in their strings */
            len = (size_t)snprintf(num, sizeof num, "%.14g", (double)lua_tonumber(L, 2));
            str = num;
        } else {
            str = luaL_tolstring(L, 2, &len);
        }
        if (sb_stmt_set_str(p->ls->s, p->slot, str, len) != 0)
            return luaL_error(L, "out of memory");
        break;
    }
    }
    return 0;
}

static int param_set_rand_str(lua_State *L)
{
    struct l_param *p = check_param(L);
    size_t len;
    const char *tmpl = luaL_checklstring(L, 2, &len);
    struct sb_stmt *s = p->ls->s;
    if (p->slot < 0)
        return 0;
    if (p->maxlen > 0 && len > p->maxlen)
        len = p->maxlen; /* as sysbench: a CHAR(N) parameter holds N */
    char *buf = sb_stmt_str_buf(s, p->slot, len);
    if (buf == NULL)
        return luaL_error(L, "out of memory");
    sb_rand_string(&l_worker(L)->rand, tmpl, len, buf);
    buf[len] = 0;
    sb_stmt_set_len(s, p->slot, len);
    return 0;
}

/* con:query_stream(sql) -> result set, streamed: the query's rows read
 * from the server as fetch_row asks (the driver's query_stream), or, when
 * the driver has none, as con:query (streamed false).  Always blocking. */
static int conn_query_stream(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    struct sb_req r = sb_req_query_stream(sql, len);
    int rc = sb_conn_submit(lc->c, &r, 0, NULL);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    l_sql_push_rs(L, 1, lc->c);
    lua_pushboolean(L, (sb_db_driver()->caps & SBD_CAP_STREAM) != 0);
    return 2;
}

/* param.set_vars(params, vars, names): params[k]:set(vars[names[k]]) for
 * k = 1, 2, ... while the value is a Lua integer and the parameter an
 * integer one (param:set's common case), in one call for a statement's
 * parameters (workloads/pgbench_run.lua); returns the k it stopped at, 0
 * when all are set: the caller sets params[k..] its own way. */
static int param_set_vars(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    for (lua_Integer k = 1; k <= n; k++) {
        lua_rawgeti(L, 1, k);
        struct l_param *p = lua_touserdata(L, 4);
        int mine = p != NULL && lua_getmetatable(L, 4) && lua_rawequal(L, -1, lua_upvalueindex(1));
        lua_rawgeti(L, 3, k);
        lua_rawget(L, 2);
        int is_int = lua_isinteger(L, -1);
        lua_Integer i = is_int ? lua_tointeger(L, -1) : 0;
        lua_settop(L, 3);
        if (!mine || !is_int || p->ls->s == NULL || (p->v != NULL && p->v->type != SBD_TYPE_INT)) {
            lua_pushinteger(L, k);
            return 1;
        }
        if (p->v != NULL) { /* NULL: a parameter without a placeholder */
            p->v->i = i;
            p->v->is_null = 0;
        }
    }
    lua_pushinteger(L, 0);
    return 1;
}

void l_sql_open_stmt(lua_State *L)
{
    static const luaL_Reg conn_m[] = {{"prepare", conn_prepare},
                                      {"query_stream", conn_query_stream}, {NULL, NULL}};
    static const luaL_Reg stmt_m[] = {
        {"bind_create", stmt_bind_create}, {"bind_param", stmt_bind_param},
        {"close", stmt_close}, {NULL, NULL}};
    static const luaL_Reg param_m[] = {
        {"set", param_set}, {"set_rand_str", param_set_rand_str}, {"set_vars", param_set_vars},
        {NULL, NULL}};
    l_sql_add_methods(L, CONN_MT, conn_m);
    l_sql_add_methods(L, STMT_MT, stmt_m);
    l_sql_add_methods(L, PARAM_MT, param_m);
}
