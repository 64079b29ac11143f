/*
 * sbench.sql: the classes (driver, connection, statement, parameter,
 * result set, SQL error), the driver object, the connection object's
 * lifetime and non-statement methods, sbench.sql.type (sysbench 1.0's
 * numbers), and SQL errors as Lua values.  The methods that run
 * statements are in l_sql_run.c, statements and their parameters in
 * l_sql_stmt.c (both call this file, never the other way), the opener of
 * all three l_sql_open.c; the facade they call is core/db.h.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdlib.h>
#include <string.h>

#include "l_internal.h"
#include "l_sql_int.h"

/* ---- SQL errors ---- */

/* Whether the SQL error table at idx may restart the event, decided where
 * it is raised (so that a script catching it with pcall sees the same
 * verdict, as in sysbench): the core's rule first (a deadlock or
 * serialization failure, a lost connection, a SQLSTATE in
 * --db-ignore-sqlstates: core/event.h), otherwise the script's
 * sbench.hooks.sql_error_ignorable(err), called now, decides. */
static int ignorable(lua_State *L, int idx, int status, const char *sqlstate)
{
    struct l_thread *t = l_thread(L);
    if (sb_event_error_ignorable(t->w->run, status, sqlstate))
        return 1;
    /* the hooks of the code running: a client's own, or the globals' */
    if (t->cur_env_ref != LUA_NOREF && t->cur_env_ref != 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, t->cur_env_ref);
        lua_getfield(L, -1, "sbench");
        lua_remove(L, -2);
    } else {
        lua_getglobal(L, "sbench");
    }
    int found = lua_istable(L, -1) && lua_getfield(L, -1, "hooks") == LUA_TTABLE &&
                lua_getfield(L, -1, "sql_error_ignorable") == LUA_TFUNCTION;
    if (!found) {
        lua_settop(L, idx);
        return 0;
    }
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1); /* an error in the hook is the statement's error */
    int yes = lua_toboolean(L, -1);
    lua_settop(L, idx);
    return yes;
}

int l_sql_raise(lua_State *L, int ci, struct sb_conn *c, int status)
{
    const char *cls = status == SBD_RETRY ? "retry" : status == SBD_CONN_LOST ? "lost" : "error";
    if (ci == L_CONN_OF_ARG1) {
        lua_getiuservalue(L, 1, 1);
        ci = lua_gettop(L);
    } else if (ci != 0) {
        ci = lua_absindex(L, ci);
    }
    const struct sbd_error *err = sb_conn_error(c);
    size_t err_sql_len;
    const char *err_sql = sb_conn_error_sql(c, &err_sql_len);
    lua_createtable(L, 0, 9);
    luaL_where(L, 1); /* the script's line that made the call, as sysbench's error(msg, 2) */
    lua_setfield(L, -2, "where");
    lua_pushinteger(L, err->native_code);
    lua_setfield(L, -2, "sql_errno");
    lua_pushstring(L, err->sqlstate);
    lua_setfield(L, -2, "sql_state");
    lua_pushstring(L, err->message);
    lua_setfield(L, -2, "sql_errmsg");
    lua_pushstring(L, cls);
    lua_setfield(L, -2, "class");
    lua_pushinteger(L, status);
    lua_setfield(L, -2, "status");
    if (err_sql) {
        lua_pushlstring(L, err_sql, err_sql_len > 300 ? 300 : err_sql_len);
        lua_setfield(L, -2, "query");
    }
    if (ci != 0) {
        lua_pushvalue(L, ci);
        lua_setfield(L, -2, "connection");
    } else {
        lua_pushlightuserdata(L, c);
        lua_setfield(L, -2, "sb_conn");
    }
    luaL_setmetatable(L, ERR_MT);
    /* the error's identity now: the script's hook may run statements */
    char sqlstate[sizeof err->sqlstate];
    memcpy(sqlstate, err->sqlstate, sizeof sqlstate);
    sqlstate[sizeof sqlstate - 1] = 0;
    long native = err->native_code;
    if (ignorable(L, lua_gettop(L), status, sqlstate)) { /* sysbench's restart mark */
        lua_pushinteger(L, L_RESTART_EVENT);
        lua_setfield(L, -2, "errcode");
        /* an ignored error counts here, whether it then restarts the
         * event or a pcall in the script catches it (core/event.h) */
        sb_event_error_ignored(l_worker(L), status, sqlstate, native);
    }
    return lua_error(L);
}

static int err_tostring(lua_State *L)
{
    lua_getfield(L, 1, "class");
    if (lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "connect") == 0) {
        lua_getfield(L, 1, "sql_errmsg");
        lua_pushfstring(L, "connection failed: %s", luaL_optstring(L, -1, "?"));
        return 1;
    }
    lua_pop(L, 1);
    /* sysbench's text exactly ("FILE:LINE: SQL error, errno = N, state =
     * 'S': MESSAGE"), for scripts that match it; the statement is in
     * err.query, and in sbench's FATAL line (l_take_error) */
    lua_getfield(L, 1, "sql_errno");
    lua_getfield(L, 1, "sql_state");
    lua_getfield(L, 1, "sql_errmsg");
    lua_getfield(L, 1, "where");
    lua_pushfstring(L, "%sSQL error, errno = %s, state = '%s': %s", luaL_optstring(L, 5, ""),
                    luaL_optstring(L, 2, "0"), luaL_optstring(L, 3, ""),
                    luaL_optstring(L, 4, "?"));
    return 1;
}

struct sb_conn *l_error_connection(lua_State *L, int idx)
{
    if (!lua_istable(L, idx))
        return NULL;
    lua_getfield(L, idx, "connection");
    struct l_conn *lc = luaL_testudata(L, -1, CONN_MT);
    lua_pop(L, 1);
    if (lc != NULL)
        return lc->c;
    lua_getfield(L, idx, "sb_conn"); /* raised by the end-of-event sync */
    struct sb_conn *c = lua_islightuserdata(L, -1) ? lua_touserdata(L, -1) : NULL;
    lua_pop(L, 1);
    return c;
}

int l_is_sql_error(lua_State *L, int idx)
{
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx))
        return 0;
    luaL_getmetatable(L, ERR_MT);
    int eq = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return eq;
}

/* ---- sbench.sql.type ---- */

/* sysbench 1.0's numbers (its db_bind_type_t): scripts may store them. */
enum { T_NONE, T_TINYINT, T_SMALLINT, T_INT, T_BIGINT, T_FLOAT, T_DOUBLE, T_TIME, T_DATE,
       T_DATETIME, T_TIMESTAMP, T_CHAR, T_VARCHAR, T_BLOB /* sbench's own */ };

void l_push_sql_types(lua_State *L)
{
    static const struct { const char *n; int v; } types[] = {
        {"NONE", T_NONE}, {"INT", T_INT}, {"TINYINT", T_TINYINT}, {"SMALLINT", T_SMALLINT},
        {"BIGINT", T_BIGINT}, {"FLOAT", T_FLOAT}, {"DOUBLE", T_DOUBLE}, {"TIME", T_TIME},
        {"DATE", T_DATE}, {"DATETIME", T_DATETIME}, {"TIMESTAMP", T_TIMESTAMP},
        {"CHAR", T_CHAR}, {"VARCHAR", T_VARCHAR}, {"BLOB", T_BLOB}};
    lua_createtable(L, 0, 14);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        lua_pushinteger(L, types[i].v);
        lua_setfield(L, -2, types[i].n);
    }
}

int l_sql_type_to_sbd(int t)
{
    switch (t) {
    case T_INT: case T_TINYINT: case T_SMALLINT: case T_BIGINT: return SBD_TYPE_INT;
    case T_FLOAT: case T_DOUBLE: return SBD_TYPE_DOUBLE;
    case T_TIME: return SBD_TYPE_TIME;
    case T_DATE: return SBD_TYPE_DATE;
    case T_DATETIME: case T_TIMESTAMP: return SBD_TYPE_DATETIME;
    case T_BLOB: return SBD_TYPE_BYTES;
    default: return SBD_TYPE_STRING;
    }
}

/* ---- results as Lua values ---- */

int l_sql_push_rs(lua_State *L, int ci, struct sb_conn *c)
{
    lua_getiuservalue(L, ci, 1);
    struct l_rs *rs = lua_touserdata(L, -1);
    if (rs == NULL) {
        lua_pop(L, 1);
        rs = lua_newuserdatauv(L, sizeof *rs, 1);
        luaL_setmetatable(L, RS_MT);
        lua_pushvalue(L, ci);
        lua_setiuservalue(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, ci, 1);
    }
    rs->c = c;
    rs->gen = sb_conn_result_gen(c);
    rs->freed = 0;
    return 1;
}

void l_sql_push_value(lua_State *L, const struct sbd_value *v)
{
    if (v->is_null || v->type == SBD_TYPE_NULL)
        lua_pushnil(L);
    else if (v->type == SBD_TYPE_INT)
        lua_pushinteger(L, v->i);
    else if (v->type == SBD_TYPE_DOUBLE)
        lua_pushnumber(L, v->d);
    else
        lua_pushlstring(L, v->s ? v->s : "", v->len);
}

/* ---- driver ---- */

static int l_sql_driver(lua_State *L)
{
    const struct sbd_driver *d = sb_db_driver();
    if (d == NULL)
        return luaL_error(L, "no database driver is loaded");
    const char *want = luaL_optstring(L, 1, NULL);
    if (want && strcmp(want, d->name) != 0)
        return luaL_error(L, "driver '%s' requested, but --db-driver is '%s'", want, d->name);
    const struct sbd_driver **ud = lua_newuserdatauv(L, sizeof *ud, 0);
    *ud = d;
    luaL_setmetatable(L, DRV_MT);
    return 1;
}

static int drv_name(lua_State *L)
{
    const struct sbd_driver **d = luaL_checkudata(L, 1, DRV_MT);
    lua_pushstring(L, (*d)->name);
    return 1;
}

/* Raises a failed connect as an error object like an SQL error's, printed
 * as one line: the message names what was tried, a traceback adds
 * nothing. */
static int raise_connect_error(lua_State *L, const struct sbd_error *err)
{
    lua_createtable(L, 0, 6);
    lua_pushstring(L, err->message);
    lua_setfield(L, -2, "sql_errmsg");
    lua_pushstring(L, err->sqlstate);
    lua_setfield(L, -2, "sql_state");
    lua_pushinteger(L, err->native_code);
    lua_setfield(L, -2, "sql_errno");
    lua_pushstring(L, "connect");
    lua_setfield(L, -2, "class");
    lua_pushinteger(L, SBD_ERROR);
    lua_setfield(L, -2, "status");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "no_traceback");
    luaL_setmetatable(L, ERR_MT);
    return lua_error(L);
}

static int drv_connect(lua_State *L)
{
    luaL_checkudata(L, 1, DRV_MT);
    struct sb_worker *w = l_worker(L);
    struct l_conn *lc = lua_newuserdatauv(L, sizeof *lc, 1);
    lc->c = NULL;
    lc->closed = 1;
    lc->list = NULL;
    lc->inflight_owner = NULL;
    lc->inflight_listed = 0;
    luaL_setmetatable(L, CONN_MT);
    struct sbd_error err;
    int64_t t0 = sb_now_ns();
    lc->c = sb_conn_open(w->id < 0 ? 0 : w->id, &w->stats, &err);
    sb_stats_note_connect(&w->stats, sb_now_ns() - t0);
    if (lc->c == NULL)
        return raise_connect_error(L, &err);
    sb_conn_note_phases(lc->c);
    lc->closed = 0;
    /* listed as the connections of the code running now (the worker's,
     * or a client's), for --reconnect=transaction */
    if (sb_conn_list_add(w->conn_list, lc->c) != 0) {
        sb_conn_close(lc->c);
        lc->c = NULL;
        return luaL_error(L, "out of memory");
    }
    lc->list = w->conn_list;
    return 1;
}

/* ---- connection ---- */

void l_sql_unlist(lua_State *L, struct l_conn *lc)
{
    struct l_thread *w = l_thread(L);
    for (int i = 0; i < w->npipe_conns; i++)
        if (w->pipe_conns[i] == lc) {
            w->pipe_conns[i] = w->pipe_conns[--w->npipe_conns];
            break;
        }
    lc->inflight_listed = 0;
}


static int conn_gc(lua_State *L)
{
    struct l_conn *lc = luaL_checkudata(L, 1, CONN_MT);
    if (lc->c && lc->inflight_listed)
        l_sql_unlist(L, lc);
    if (lc->list)
        sb_conn_list_remove(lc->list, lc->c);
    lc->list = NULL;
    sb_conn_close(lc->c);
    lc->c = NULL;
    return 0;
}

static int conn_disconnect(lua_State *L)
{
    struct l_conn *lc = luaL_checkudata(L, 1, CONN_MT);
    if (lc->c)
        sb_conn_disconnect(lc->c);
    lc->closed = 1;
    return 0;
}

static int conn_reconnect(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    int rc = sb_conn_reconnect(lc->c, 1);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    lc->closed = 0;
    return 0;
}

static int conn_dialect(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    lua_pushstring(L, sb_conn_dialect(lc->c));
    return 1;
}

static int conn_server_version(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    lua_pushstring(L, sb_conn_server_version(lc->c));
    return 1;
}

/* ---- registration ---- */

void l_sql_new_class(lua_State *L, const char *name, lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "methods");
    lua_setfield(L, -2, "__index");
    if (gc) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
}

void l_sql_add_methods(lua_State *L, const char *name, const luaL_Reg *methods)
{
    luaL_getmetatable(L, name);
    lua_getfield(L, -1, "methods");
    lua_pushvalue(L, -2); /* the metatable, upvalue 1 of each method */
    luaL_setfuncs(L, methods, 1);
    lua_pop(L, 2);
}

void l_sql_open_base(lua_State *L)
{
    static const luaL_Reg drv_m[] = {{"name", drv_name}, {"connect", drv_connect}, {NULL, NULL}};
    static const luaL_Reg conn_m[] = {
        {"disconnect", conn_disconnect}, {"reconnect", conn_reconnect},
        {"dialect", conn_dialect}, {"server_version", conn_server_version}, {NULL, NULL}};

    l_sql_new_class(L, DRV_MT, NULL);
    l_sql_new_class(L, CONN_MT, conn_gc);
    l_sql_new_class(L, STMT_MT, NULL);
    l_sql_new_class(L, PARAM_MT, NULL);
    l_sql_new_class(L, RS_MT, NULL);
    l_sql_add_methods(L, DRV_MT, drv_m);
    l_sql_add_methods(L, CONN_MT, conn_m);
    luaL_newmetatable(L, ERR_MT);
    lua_pushcfunction(L, err_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    l_sql_open_errstr(L); /* sysbench's string view of the error (l_sql_errstr.c) */

    /* sbench.sql = { driver = ..., type = {...} } ; expects sbench on top */
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, l_sql_driver);
    lua_setfield(L, -2, "driver");
    l_push_sql_types(L);
    lua_setfield(L, -2, "type");
    lua_setfield(L, -2, "sql");
}
