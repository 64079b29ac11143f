/*
 * sysbench's legacy (0.5-style) API, as sysbench 1.0.20 still gives it to
 * every script: the globals thread_id, test, DB_ERROR_*, mysql_table_engine,
 * myisam_max_rows and the db_* functions (also as sbench.db.*; sb_rand*
 * and sb_rnd are l_sbench.c's); and, for a legacy script (one that
 * declares no options), every command-line option as a global
 * (--oltp-table-size=N as oltp_table_size, a string), num_threads and
 * db_driver.
 *
 * The db_* functions are Lua (l_legacy.lua, compiled in as a string):
 * each global is a C function that loads them the first time one of them
 * is called in a state and forwards its calls there, so a script that
 * never calls them pays nothing.  A legacy connection belongs to the code
 * that opened it, the worker's or a client's (--clients), as a sysbench
 * connection belongs to its thread: it is found by the worker's list of
 * connections of the moment (w->conn_list).
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>

#include "../lib/options.h"
#include "l_internal.h"
#include "l_legacy_lua.h" /* L_LEGACY_LUA: the text of l_legacy.lua */

/* Registry keys (their addresses): the table of Lua functions once loaded,
 * the contexts by connection list, the sbench.cmdline.options table the
 * binding made (a script that leaves it empty is a legacy script). */
static const char impl_key, ctx_key, opts_key;

/* sysbench's DB_ERROR_* values; DB_ERROR_RESTART_TRANSACTION is the
 * errcode of an SQL error that restarts the event, sbench.error.RESTART_EVENT
 * (1 in sysbench, where the two are the same). */
enum { DB_ERROR_NONE = 0, DB_ERROR_FAILED = 2 };

/* ---- the Lua functions, loaded on first use ---- */

/* ctx(): the table of the code running now (its connection: field con). */
static int ctx_of(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &ctx_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &ctx_key);
    }
    void *owner = l_worker(L)->conn_list;
    if (lua_rawgetp(L, -1, owner) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, -3, owner);
    }
    return 1;
}

/* Pushes the table of Lua functions, loading it the first time.  Raises
 * an error if the compiled-in text does not load (a build defect). */
static void push_impl(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &impl_key) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    static const char src[] = L_LEGACY_LUA;
    if (luaL_loadbufferx(L, src, sizeof src - 1, "=[sbench legacy API]", "t") != LUA_OK)
        lua_error(L);
    lua_pushcfunction(L, ctx_of);
    lua_getglobal(L, "sbench");
    lua_call(L, 2, 1);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &impl_key);
}

static int forward_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L);
}

/* Calls the Lua function `name` with the arguments and returns its
 * results; it may yield (a statement of a client coroutine). */
static int forward(lua_State *L, const char *name)
{
    push_impl(L);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, forward_k);
    return lua_gettop(L);
}

#define STUB(name) \
    static int stub_##name(lua_State *L) { return forward(L, #name); }
STUB(db_connect)
STUB(db_disconnect)
STUB(db_query)
STUB(db_bulk_insert_init)
STUB(db_bulk_insert_next)
STUB(db_bulk_insert_done)
STUB(db_prepare)
STUB(db_bind_param)
STUB(db_bind_result)
STUB(db_execute)
STUB(db_close)
STUB(db_store_results)
STUB(db_free_results)
#undef STUB

/* The db_* functions: global name, name in sbench.db. */
static const struct { const char *global, *field; lua_CFunction f; } db_funcs[] = {
    {"db_connect", "connect", stub_db_connect},
    {"db_disconnect", "disconnect", stub_db_disconnect},
    {"db_query", "query", stub_db_query},
    {"db_bulk_insert_init", "bulk_insert_init", stub_db_bulk_insert_init},
    {"db_bulk_insert_next", "bulk_insert_next", stub_db_bulk_insert_next},
    {"db_bulk_insert_done", "bulk_insert_done", stub_db_bulk_insert_done},
    {"db_prepare", "prepare", stub_db_prepare},
    {"db_bind_param", "bind_param", stub_db_bind_param},
    {"db_bind_result", "bind_result", stub_db_bind_result},
    {"db_execute", "execute", stub_db_execute},
    {"db_close", "close", stub_db_close},
    {"db_store_results", "store_results", stub_db_store_results},
    {"db_free_results", "free_results", stub_db_free_results},
};

/* ---- globals ---- */

static void set_int(lua_State *L, int idx, const char *name, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, idx, name);
}

static void set_str(lua_State *L, int idx, const char *name, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, idx, name);
}

void l_legacy_open(lua_State *L, struct sb_worker *w)
{
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    set_int(L, g, "thread_id", w->id < 0 ? 0 : w->id);
    set_str(L, g, "test", w->run->script_name);
    set_str(L, g, "mysql_table_engine", "innodb");
    set_int(L, g, "myisam_max_rows", 1000000);
    lua_getglobal(L, "sbench");
    int sb = lua_gettop(L);
    /* sbench.db: the db_* functions and the error codes */
    lua_createtable(L, 0, 16);
    int db = lua_gettop(L);
    for (size_t i = 0; i < sizeof db_funcs / sizeof db_funcs[0]; i++) {
        lua_pushcfunction(L, db_funcs[i].f);
        lua_pushvalue(L, -1);
        lua_setfield(L, g, db_funcs[i].global);
        lua_setfield(L, -2, db_funcs[i].field);
    }
    set_int(L, g, "DB_ERROR_NONE", DB_ERROR_NONE);
    set_int(L, db, "DB_ERROR_NONE", DB_ERROR_NONE);
    set_int(L, g, "DB_ERROR_FAILED", DB_ERROR_FAILED);
    set_int(L, db, "DB_ERROR_FAILED", DB_ERROR_FAILED);
    lua_getfield(L, sb, "error");
    lua_getfield(L, -1, "RESTART_EVENT");
    lua_pushvalue(L, -1);
    lua_setfield(L, g, "DB_ERROR_RESTART_TRANSACTION");
    lua_setfield(L, db, "DB_ERROR_RESTART_TRANSACTION");
    lua_pop(L, 1);
    lua_setfield(L, sb, "db");
    /* the options table as made, to tell a legacy script */
    lua_getfield(L, sb, "cmdline");
    lua_getfield(L, -1, "options");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &opts_key);
    lua_settop(L, g - 1);
}

void l_legacy_detect(struct l_thread *t)
{
    lua_State *L = t->L;
    int top = lua_gettop(L);
    t->legacy = 0;
    if (lua_getglobal(L, "sbench") == LUA_TTABLE && lua_getfield(L, -1, "cmdline") == LUA_TTABLE) {
        int opts = lua_getfield(L, -1, "options");
        lua_rawgetp(L, LUA_REGISTRYINDEX, &opts_key);
        if (opts == LUA_TNIL) {
            t->legacy = 1;
        } else if (lua_rawequal(L, -1, -2)) {
            lua_pushnil(L);
            t->legacy = lua_next(L, -3) == 0;
        }
    }
    lua_settop(L, top);
}

void l_legacy_client(lua_State *L, int env, int cid)
{
    set_int(L, env, "thread_id", cid);
}

void l_legacy_export(struct l_thread *t, int idx)
{
    if (!t->legacy)
        return;
    lua_State *L = t->L;
    const struct sb_run *run = t->w->run;
    const struct sb_options *o = run->opts;
    int top = lua_gettop(L);
    idx = idx ? lua_absindex(L, idx) : 0;
    if (idx == 0) {
        lua_pushglobaltable(L);
        idx = lua_gettop(L);
    }
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *p = sb_options_at(o, i);
        char key[160];
        l_opt_lua_name(p, key, sizeof key);
        /* as sysbench: a name the script uses for a function stays its;
         * a table stays too (a library: --io must not hide io.write) */
        int kind = lua_getfield(L, idx, key);
        lua_pop(L, 1);
        if (kind == LUA_TFUNCTION || kind == LUA_TTABLE)
            continue;
        const char *v = p->value ? p->value : p->def;
        if (v == NULL && p->kind == SB_OPT_LIST)
            lua_newtable(L);
        else if (v == NULL && p->kind != SB_OPT_INT && p->kind != SB_OPT_NUMBER &&
                 p->kind != SB_OPT_BOOL)
            lua_pushliteral(L, "");
        else
            l_push_opt_value(L, p, v);
        lua_setfield(L, idx, key);
    }
    /* what the options' values do not say: the driver in use, the number
     * of connections the run drives (sysbench's threads), the script */
    set_str(L, idx, "db_driver", run->driver_name);
    set_int(L, idx, "num_threads", run->clients > 0 ? run->clients : run->threads);
    set_str(L, idx, "test", run->script_name);
    lua_settop(L, top);
}
