/*
 * sbench.sql: drivers, connections, prepared statements, parameters and
 * result sets for Lua, over the connection facade (core/db.h).
 *
 * Userdata and their lifetimes:
 *   sbench.conn   owns a struct sb_conn; freed by __gc/__close.  User value
 *                 1 caches the connection's one result-set object.
 *   sbench.stmt   points at an sb_stmt owned by the connection; user value
 *                 1 keeps the connection alive; s == NULL once closed.
 *   sbench.param  a slot of a statement; user value 1 keeps the statement.
 *   sbench.rs     a view of the connection's current result, valid while
 *                 its generation matches the connection's.
 * Hot path (stmt:execute, param:set): no allocation, no formatting.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdlib.h>
#include <string.h>

#include "../core/db.h"
#include "../core/run.h"
#include "l_internal.h"
#include "lua_env.h"

#define CONN_MT "sbench.conn"
#define STMT_MT "sbench.stmt"
#define PARAM_MT "sbench.param"
#define RS_MT "sbench.rs"
#define DRV_MT "sbench.driver"
#define ERR_MT "sbench.sqlerror"

/* owner: the client whose code opened it (its conns[] lists it), or NULL
 * when it is listed in the worker's conns[] */
struct l_conn { struct sb_conn *c; int closed; struct l_client *owner; };
struct l_rs;
/* rs: the connection's result-set object once the statement has pushed it
 * (then also user value 2), so that execute finds it in one step. */
struct l_stmt { struct sb_stmt *s; struct l_conn *lc; struct l_rs *rs; };
struct l_param { struct l_stmt *ls; int slot; };
struct l_rs { struct sb_conn *c; uint64_t gen; };

/* luaL_checkudata for the methods new_class registers: they have their
 * class's metatable as upvalue 1, so a matching object costs a pointer
 * compare instead of a registry lookup by name (a third of the binding's
 * cost per statement).  Anything else gets luaL_checkudata's error. */
static void *to_class(lua_State *L, int i, const char *tname)
{
    void *p = lua_touserdata(L, i);
    if (p != NULL && lua_getmetatable(L, i)) {
        int same = lua_rawequal(L, -1, lua_upvalueindex(1));
        lua_pop(L, 1);
        if (same)
            return p;
    }
    return luaL_checkudata(L, i, tname);
}

static struct l_conn *check_conn(lua_State *L, int i)
{
    struct l_conn *lc = to_class(L, i, CONN_MT);
    if (lc->c == NULL)
        luaL_error(L, "connection is closed");
    return lc;
}

static struct l_stmt *check_stmt(lua_State *L, int i)
{
    struct l_stmt *ls = to_class(L, i, STMT_MT);
    if (ls->s == NULL)
        luaL_error(L, "statement is closed");
    return ls;
}

/* Raises the SQL error of connection c (its userdata at stack index ci, or
 * ci == 0 when not at hand) as a table with metatable sbench.sqlerror. */
static int raise_sql_error(lua_State *L, int ci, struct sb_conn *c, int status)
{
    const char *cls = status == SBD_RETRY ? "retry" : status == SBD_CONN_LOST ? "lost" : "error";
    if (ci != 0)
        ci = lua_absindex(L, ci);
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, c->err.native_code);
    lua_setfield(L, -2, "sql_errno");
    lua_pushstring(L, c->err.sqlstate);
    lua_setfield(L, -2, "sql_state");
    lua_pushstring(L, c->err.message);
    lua_setfield(L, -2, "sql_errmsg");
    lua_pushstring(L, cls);
    lua_setfield(L, -2, "class");
    lua_pushinteger(L, status);
    lua_setfield(L, -2, "status");
    if (c->err_sql) {
        lua_pushlstring(L, c->err_sql, c->err_sql_len > 300 ? 300 : c->err_sql_len);
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
    lua_getfield(L, 1, "sql_errno");
    lua_getfield(L, 1, "sql_state");
    lua_getfield(L, 1, "sql_errmsg");
    lua_getfield(L, 1, "query");
    lua_pushfstring(L, "SQL error, errno = %s, state = '%s': %s%s%s",
                    luaL_optstring(L, 2, "0"), luaL_optstring(L, 3, ""),
                    luaL_optstring(L, 4, "?"),
                    lua_isstring(L, 5) ? " (query: " : "",
                    lua_isstring(L, 5) ? lua_tostring(L, 5) : "");
    if (lua_isstring(L, 5)) {
        lua_pushliteral(L, ")");
        lua_concat(L, 2);
    }
    return 1;
}

/* Pushes the connection's result-set object (user value 1 of the
 * connection at ci), now a view of the current result. */
static int push_rs(lua_State *L, int ci, struct sb_conn *c)
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
    rs->gen = c->result_gen;
    return 1;
}

/* Returns the connection's result-set object (or the affected rows when
 * there is no result set). */
static int push_result(lua_State *L, int ci, struct sb_conn *c)
{
    if (!c->has_result) {
        lua_pushinteger(L, c->info.affected_rows);
        return 1;
    }
    return push_rs(L, ci, c);
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

static int drv_connect(lua_State *L)
{
    luaL_checkudata(L, 1, DRV_MT);
    struct sb_worker *w = l_worker(L);
    struct l_conn *lc = lua_newuserdatauv(L, sizeof *lc, 1);
    lc->c = NULL;
    lc->closed = 1;
    lc->owner = NULL;
    luaL_setmetatable(L, CONN_MT);
    struct sbd_error err;
    int64_t t0 = sb_now_ns();
    lc->c = sb_conn_open(w->id < 0 ? 0 : w->id, &w->stats, &err);
    l_note_connect_time(w, sb_now_ns() - t0);
    if (lc->c == NULL)
    {
        /* an error object like an SQL error's, printed as one line: the
         * message names what was tried, a traceback adds nothing */
        lua_createtable(L, 0, 6);
        lua_pushstring(L, err.message);
        lua_setfield(L, -2, "sql_errmsg");
        lua_pushstring(L, err.sqlstate);
        lua_setfield(L, -2, "sql_state");
        lua_pushinteger(L, err.native_code);
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
    lc->closed = 0;
    struct l_client *cl = w->cur_client;
    if (cl != NULL) {
        if (cl->nconns < (int)(sizeof cl->conns / sizeof cl->conns[0])) {
            cl->conns[cl->nconns++] = lc->c;
            lc->owner = cl;
        }
    } else if (w->nconns < (int)(sizeof w->conns / sizeof w->conns[0])) {
        w->conns[w->nconns++] = lc->c;
    }
    return 1;
}

/* Removes c from list (n entries). */
static void unlist(struct sb_conn **list, int *n, const struct sb_conn *c)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == c) {
            list[i] = list[--*n];
            return;
        }
}

/* ---- connection ---- */

static void pipe_unlist(struct sb_worker *w, struct sb_conn *c);

static int conn_gc(lua_State *L)
{
    struct l_conn *lc = luaL_checkudata(L, 1, CONN_MT);
    struct sb_worker *w = l_worker(L);
    if (lc->c && lc->c->pipe_listed)
        pipe_unlist(w, lc->c);
    if (lc->owner)
        unlist(lc->owner->conns, &lc->owner->nconns, lc->c);
    else
        unlist(w->conns, &w->nconns, lc->c);
    lc->owner = NULL;
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
    struct l_conn *lc = check_conn(L, 1);
    int rc = sb_conn_reconnect(lc->c);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    lc->closed = 0;
    return 0;
}

static int conn_dialect(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    lua_pushstring(L, lc->c->dc ? lc->c->drv->dialect(lc->c->dc) : "ansi");
    return 1;
}

static int conn_server_version(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    const struct sbd_driver *d = lc->c->drv;
    lua_pushstring(L, (lc->c->dc && d->server_version) ? d->server_version(lc->c->dc) : "");
    return 1;
}

/* Client coroutines (--clients > --threads): when L is the coroutine the
 * worker's scheduler resumed and the driver can, statements are sent and
 * the coroutine yields the connection (a light userdata) to the scheduler,
 * which resumes it once the answer is in c->async_rc; the continuation
 * then finishes like the blocking call. */
static int can_yield(lua_State *L, struct sb_conn *c)
{
    return l_worker(L)->running_co == L && lua_isyieldable(L) && sb_conn_can_send(c);
}

static int wait_for_ctx(lua_State *L, struct sb_conn *c, lua_KContext ctx, lua_KFunction k)
{
    lua_pushlightuserdata(L, c);
    return lua_yieldk(L, 1, ctx, k);
}

static int wait_for(lua_State *L, struct sb_conn *c, lua_KFunction k)
{
    return wait_for_ctx(L, c, 0, k);
}

/* ---- --pipeline ----
 * Inside an event, statements on a pipelining connection are sent without
 * waiting (up to --pipeline in flight); COMMIT and ROLLBACK, reading a
 * result, any blocking call and the end of the event wait for the answers
 * and raise the first failure among them. */

static int pipe_here(lua_State *L, struct sb_conn *c)
{
    if (c->pipe_max == 0 || !sb_pipe_enabled(c))
        return 0;
    struct sb_worker *w = l_worker(L);
    return w->running_co == L || (w->in_event && L == w->L);
}

static void pipe_unlist(struct sb_worker *w, struct sb_conn *c)
{
    for (int i = 0; i < w->npipe_conns; i++)
        if (w->pipe_conns[i] == c) {
            w->pipe_conns[i] = w->pipe_conns[--w->npipe_conns];
            break;
        }
    c->pipe_listed = 0;
}

/* After a pipelined send: the end of the event reads c's answers.  The
 * list only grows to the number of connections with answers pending. */
static void pipe_note(lua_State *L, struct sb_conn *c)
{
    c->pipe_owner = L;
    if (c->pipe_listed)
        return;
    struct sb_worker *w = l_worker(L);
    if (w->npipe_conns == w->pipe_conns_cap) {
        int cap = w->pipe_conns_cap ? w->pipe_conns_cap * 2 : 8;
        struct sb_conn **p = realloc(w->pipe_conns, (size_t)cap * sizeof *p);
        if (p == NULL) {
            luaL_error(L, "out of memory");
            return;
        }
        w->pipe_conns = p;
        w->pipe_conns_cap = cap;
    }
    w->pipe_conns[w->npipe_conns++] = c;
    c->pipe_listed = 1;
}

/* Waits until at most target statements are in flight on c.  Returns the
 * outcome, or SBD_AGAIN when L is a client coroutine that must yield:
 * `return wait_for(L, c, k)`, and k finds the outcome in c->async_rc. */
static int pipe_wait(lua_State *L, struct sb_conn *c, int target)
{
    int rc = sb_pipe_wait_start(c, target);
    if (rc == SBD_AGAIN && !can_yield(L, c))
        rc = sb_pipe_wait(c, target);
    return rc;
}

static int conn_query_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_conn *lc = check_conn(L, 1);
    int rc = lc->c->async_rc;
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return push_result(L, 1, lc->c);
}

static int conn_query_pipe(lua_State *L);

/* After waiting for room in the pipeline: send the query now. */
static int conn_query_pipe_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_conn *lc = check_conn(L, 1);
    if (lc->c->async_rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, lc->c->async_rc);
    return conn_query_pipe(L);
}

/* After waiting for every answer (the query ended a transaction). */
static int conn_query_sync_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_conn *lc = check_conn(L, 1);
    if (lc->c->async_rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, lc->c->async_rc);
    return push_rs(L, 1, lc->c);
}

/* Pipelined con:query: returns a result object at once (reading it waits
 * for the answer); COMMIT, ROLLBACK and the like wait for every answer. */
static int conn_query_pipe(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    struct sb_conn *c = lc->c;
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    int rc = SBD_OK;
    if (!sb_pipe_has_room(c)) {
        rc = pipe_wait(L, c, c->pipe_max - 1);
        if (rc == SBD_AGAIN)
            return wait_for(L, c, conn_query_pipe_k);
    }
    if (rc == SBD_OK)
        rc = sb_conn_query_pipe(c, sql, len);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, c, rc);
    pipe_note(L, c);
    if (sb_sql_ends_txn(sql, len)) { /* a pipeline waits after these */
        rc = pipe_wait(L, c, 0);
        if (rc == SBD_AGAIN)
            return wait_for(L, c, conn_query_sync_k);
        if (rc != SBD_OK)
            return raise_sql_error(L, 1, c, rc);
    }
    return push_rs(L, 1, c);
}

static int conn_query(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    if (pipe_here(L, lc->c))
        return conn_query_pipe(L);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    if (can_yield(L, lc->c)) {
        /* sql stays anchored on this stack until the continuation */
        int rc = sb_conn_query_send(lc->c, sql, len);
        if (rc != SBD_OK)
            return raise_sql_error(L, 1, lc->c, rc);
        return wait_for(L, lc->c, conn_query_k);
    }
    int rc = sb_conn_query(lc->c, sql, len);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return push_result(L, 1, lc->c);
}

static void push_value(lua_State *L, const struct sbd_value *v)
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

static int conn_query_row(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    struct sb_conn *c = lc->c;
    int rc = sb_conn_query(c, sql, len);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, c, rc);
    if (!c->has_result)
        return 0;
    rc = sb_conn_fetch(c);
    if (rc == SBD_DONE) {
        sb_conn_free_result(c);
        return 0;
    }
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, c, rc);
    int n = c->info.nfields;
    luaL_checkstack(L, n, "too many columns");
    for (int i = 0; i < n; i++)
        push_value(L, &c->row[i]);
    sb_conn_free_result(c);
    return n;
}

static int conn_txn_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_conn *lc = check_conn(L, 1);
    int rc = lc->c->async_rc;
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_txn(lua_State *L, int (*fn)(struct sb_conn *), int which);

/* After waiting for room in the pipeline: send BEGIN/COMMIT/ROLLBACK. */
static int conn_txn_pipe_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_conn *lc = check_conn(L, 1);
    if (lc->c->async_rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, lc->c->async_rc);
    int which = (int)ctx;
    return conn_txn(L, which == 0 ? sb_conn_begin : which == 1 ? sb_conn_commit : sb_conn_rollback,
                    which);
}

static int conn_txn(lua_State *L, int (*fn)(struct sb_conn *), int which)
{
    struct l_conn *lc = check_conn(L, 1);
    if (pipe_here(L, lc->c)) {
        /* BEGIN is sent behind the others; COMMIT and ROLLBACK wait for
         * every answer */
        struct sb_conn *c = lc->c;
        int rc = SBD_OK;
        if (!sb_pipe_has_room(c)) {
            rc = pipe_wait(L, c, c->pipe_max - 1);
            if (rc == SBD_AGAIN)
                return wait_for_ctx(L, c, which, conn_txn_pipe_k);
        }
        if (rc == SBD_OK)
            rc = sb_conn_txn_pipe(c, which);
        if (rc == SBD_OK) {
            pipe_note(L, c);
            if (which == 0)
                return 0;
            rc = pipe_wait(L, c, 0);
            if (rc == SBD_AGAIN)
                return wait_for(L, c, conn_txn_k);
        }
        if (rc != SBD_UNSUPPORTED) {
            if (rc != SBD_OK)
                return raise_sql_error(L, 1, c, rc);
            return 0;
        }
    }
    if (can_yield(L, lc->c)) {
        int rc = sb_conn_txn_send(lc->c, which);
        if (rc == SBD_OK)
            return wait_for(L, lc->c, conn_txn_k);
        if (rc != SBD_UNSUPPORTED)
            return raise_sql_error(L, 1, lc->c, rc);
    }
    int rc = fn(lc->c);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_begin(lua_State *L) { return conn_txn(L, sb_conn_begin, 0); }
static int conn_commit(lua_State *L) { return conn_txn(L, sb_conn_commit, 1); }
static int conn_rollback(lua_State *L) { return conn_txn(L, sb_conn_rollback, 2); }

static int conn_prepare(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
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
    if (ls->s == NULL)
        return raise_sql_error(L, 1, lc->c, SBD_ERROR);
    if (name && sb_stmt_set_name(ls->s, name) != 0)
        return luaL_error(L, "prepare: too many statement names (at most %d)", SB_MAX_NAMED);
    return 1;
}

static int conn_bulk_insert_init(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    size_t len;
    const char *p = luaL_checklstring(L, 2, &len);
    int rc = sb_conn_bulk_insert_init(lc->c, p, len);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_insert_next(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    size_t len;
    const char *p = luaL_checklstring(L, 2, &len);
    int rc = sb_conn_bulk_insert_next(lc->c, p, len);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_insert_done(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    int rc = sb_conn_bulk_insert_done(lc->c);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_load_init(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    const char *table = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    int n = (int)luaL_len(L, 3);
    if (n < 1 || n > 32 || luaL_len(L, 4) != n)
        return luaL_error(L, "bulk_load_init: 1 to 32 columns, one type per column");
    const char *cols[32];
    int types[32];
    for (int i = 0; i < n; i++) {
        lua_geti(L, 3, i + 1);
        cols[i] = luaL_checkstring(L, -1);
        lua_geti(L, 4, i + 1);
        types[i] = l_sql_type_to_sbd((int)luaL_checkinteger(L, -1));
        lua_pop(L, 1); /* the name stays referenced by the table */
        lua_pop(L, 1);
    }
    int rc = sb_conn_bulk_load_begin(lc->c, table, cols, types, n);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_load_row(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    struct sb_conn *c = lc->c;
    int n = c->bl_ncols;
    if (!c->bl_active)
        return luaL_error(L, "bulk_load_row without bulk_load_init");
    if (lua_gettop(L) - 1 != n)
        return luaL_error(L, "bulk_load_row: %d values expected, got %d", n, lua_gettop(L) - 1);
    struct sbd_value v[32];
    for (int i = 0; i < n; i++) {
        int idx = i + 2;
        v[i].type = c->bl_types[i];
        v[i].is_null = lua_isnil(L, idx);
        if (v[i].is_null)
            continue;
        if (v[i].type == SBD_TYPE_INT)
            v[i].i = luaL_checkinteger(L, idx);
        else if (v[i].type == SBD_TYPE_DOUBLE)
            v[i].d = luaL_checknumber(L, idx);
        else
            v[i].s = luaL_checklstring(L, idx, &v[i].len);
    }
    int rc = sb_conn_bulk_load_row(c, v);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, c, rc);
    return 0;
}

static int conn_bulk_load_done(lua_State *L)
{
    struct l_conn *lc = check_conn(L, 1);
    int rc = sb_conn_bulk_load_end(lc->c);
    if (rc != SBD_OK)
        return raise_sql_error(L, 1, lc->c, rc);
    return 0;
}

/* ---- statements and parameters ---- */

static int stmt_bind_create(lua_State *L)
{
    struct l_stmt *ls = check_stmt(L, 1);
    int t = l_sql_type_to_sbd((int)luaL_checkinteger(L, 2));
    lua_Integer maxlen = luaL_optinteger(L, 3, 0);
    int slot = sb_stmt_param_create(ls->s, t, maxlen > 0 ? (size_t)maxlen : 0);
    if (slot < 0)
        return luaL_error(L, "bind_create: the statement has only %d placeholders", ls->s->nparams);
    struct l_param *p = lua_newuserdatauv(L, sizeof *p, 1);
    p->ls = ls;
    p->slot = slot;
    luaL_setmetatable(L, PARAM_MT);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int stmt_bind_param(lua_State *L)
{
    struct l_stmt *ls = check_stmt(L, 1);
    int n = lua_gettop(L) - 1;
    int order[256];
    if (n > 256)
        return luaL_error(L, "bind_param: too many parameters");
    for (int i = 0; i < n; i++) {
        struct l_param *p = luaL_checkudata(L, i + 2, PARAM_MT);
        if (p->ls != ls)
            return luaL_error(L, "bind_param: parameter %d belongs to another statement", i + 1);
        order[i] = p->slot;
    }
    if (sb_stmt_bind(ls->s, order, n) != 0)
        return luaL_error(L, "bind_param: %d parameters for %d placeholders", n, ls->s->nparams);
    return 0;
}

static int stmt_execute_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_stmt *ls = check_stmt(L, 1);
    struct sb_conn *c = ls->s->c;
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, 1);
    if (c->async_rc != SBD_OK)
        return raise_sql_error(L, 2, c, c->async_rc);
    return push_result(L, 2, c);
}

static int stmt_execute_pipe(lua_State *L);

/* After waiting for room in the pipeline: send the execute now. */
static int stmt_execute_pipe_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct l_stmt *ls = check_stmt(L, 1);
    struct sb_conn *c = ls->s->c;
    if (c->async_rc != SBD_OK) {
        lua_getiuservalue(L, 1, 1);
        return raise_sql_error(L, -1, c, c->async_rc);
    }
    return stmt_execute_pipe(L);
}

/* Pipelined stmt:execute: returns a result object at once; reading it
 * waits for the answer. */
static int stmt_execute_pipe(lua_State *L)
{
    struct l_stmt *ls = check_stmt(L, 1);
    struct sb_conn *c = ls->s->c;
    int rc = SBD_OK;
    /* preparing needs every answer in: wait here, where a client can
     * yield (a blocked thread could hold the lock another statement of
     * its own waits for) */
    int target = sb_pipe_needs_prepare(ls->s) ? 0 : sb_pipe_has_room(c) ? -1 : c->pipe_max - 1;
    if (target >= 0) {
        rc = pipe_wait(L, c, target);
        if (rc == SBD_AGAIN)
            return wait_for(L, c, stmt_execute_pipe_k);
    }
    if (rc == SBD_OK)
        rc = sb_stmt_execute_pipe(ls->s);
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, 1);
    if (rc != SBD_OK)
        return raise_sql_error(L, 2, c, rc);
    pipe_note(L, c);
    return push_rs(L, 2, c);
}

static int stmt_execute(lua_State *L)
{
    struct l_stmt *ls = check_stmt(L, 1);
    struct sb_conn *c = ls->s->c;
    if (pipe_here(L, c))
        return stmt_execute_pipe(L);
    if (can_yield(L, c)) {
        int rc = sb_stmt_execute_send(ls->s);
        if (rc == SBD_OK)
            return wait_for(L, c, stmt_execute_k);
        lua_getiuservalue(L, 1, 1);
        return raise_sql_error(L, -1, c, rc);
    }
    int rc = sb_stmt_execute(ls->s);
    if (rc != SBD_OK) {
        lua_getiuservalue(L, 1, 1);
        return raise_sql_error(L, -1, c, rc);
    }
    if (c->has_result && ls->rs != NULL) {
        /* what push_result does, with the result object at hand */
        lua_getiuservalue(L, 1, 2);
        ls->rs->c = c;
        ls->rs->gen = c->result_gen;
        return 1;
    }
    lua_getiuservalue(L, 1, 1);
    push_result(L, lua_gettop(L), c);
    if (c->has_result) {
        ls->rs = lua_touserdata(L, -1);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 2);
    }
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
    struct l_param *p = to_class(L, 1, PARAM_MT);
    if (p->ls->s == NULL)
        luaL_error(L, "parameter of a closed statement");
    return p;
}

static int param_set(lua_State *L)
{
    struct l_param *p = check_param(L);
    struct sb_stmt *s = p->ls->s;
    struct sbd_value *v = &s->vals[p->slot];
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
        const char *str = luaL_tolstring(L, 2, &len);
        if (sb_stmt_set_str(s, p->slot, str, len) != 0)
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
    char *buf = sb_stmt_str_buf(s, p->slot, len);
    if (buf == NULL)
        return luaL_error(L, "out of memory");
    sb_rand_string(&l_worker(L)->rand, tmpl, len, buf);
    buf[len] = 0;
    sb_stmt_set_len(s, p->slot, len);
    return 0;
}

/* ---- result sets ---- */

static struct l_rs *check_rs(lua_State *L)
{
    return to_class(L, 1, RS_MT);
}

static int rs_again_k(lua_State *L, int status, lua_KContext ctx);

/* The result of a pipelined statement not answered yet: waits for every
 * answer on its connection and raises the first failure.  In a client
 * coroutine it yields instead, and the method `which` (0 fetch_row,
 * 1 free, 2 __index) runs again once the answers are in. */
static void rs_settle(lua_State *L, struct l_rs *rs, int which)
{
    struct sb_conn *c = rs->c;
    if (rs->gen != c->result_gen || (c->pipe_n == 0 && c->pipe_rc == SBD_OK))
        return;
    int rc = pipe_wait(L, c, 0);
    if (rc == SBD_AGAIN)
        wait_for_ctx(L, c, which, rs_again_k); /* does not return */
    if (rc != SBD_OK) {
        lua_getiuservalue(L, 1, 1);
        raise_sql_error(L, -1, c, rc);
    }
}

static int rs_fetch_row(lua_State *L)
{
    struct l_rs *rs = check_rs(L);
    rs_settle(L, rs, 0);
    struct sb_conn *c = rs->c;
    if (rs->gen != c->result_gen || !c->has_result)
        return 0;
    int rc = sb_conn_fetch(c);
    if (rc == SBD_DONE)
        return 0;
    if (rc != SBD_OK) {
        lua_getiuservalue(L, 1, 1);
        return raise_sql_error(L, -1, c, rc);
    }
    int n = c->info.nfields;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_value(L, &c->row[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int rs_free(lua_State *L)
{
    struct l_rs *rs = check_rs(L);
    rs_settle(L, rs, 1);
    if (rs->gen == rs->c->result_gen)
        sb_conn_free_result(rs->c);
    return 0;
}

static int rs_index(lua_State *L)
{
    struct l_rs *rs = check_rs(L);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "nrows") == 0 || strcmp(k, "nfields") == 0)
        rs_settle(L, rs, 2);
    int current = rs->gen == rs->c->result_gen;
    if (strcmp(k, "nrows") == 0) {
        lua_pushinteger(L, current ? rs->c->info.nrows : 0);
        return 1;
    }
    if (strcmp(k, "nfields") == 0) {
        lua_pushinteger(L, current ? rs->c->info.nfields : 0);
        return 1;
    }
    luaL_getmetatable(L, RS_MT);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
    return 1;
}

static int rs_again_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_rs *rs = check_rs(L);
    if (rs->c->async_rc != SBD_OK) {
        lua_getiuservalue(L, 1, 1);
        return raise_sql_error(L, -1, rs->c, rs->c->async_rc);
    }
    return ctx == 0 ? rs_fetch_row(L) : ctx == 1 ? rs_free(L) : rs_index(L);
}

/* ---- registration ---- */

static void new_class(lua_State *L, const char *name, const luaL_Reg *methods,
                      lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    lua_pushvalue(L, -2); /* the metatable, upvalue 1 of each method (to_class) */
    luaL_setfuncs(L, methods, 1);
    if (strcmp(name, RS_MT) == 0) {
        lua_setfield(L, -2, "methods");
        lua_pushvalue(L, -1);
        lua_pushcclosure(L, rs_index, 1);
        lua_setfield(L, -2, "__index");
    } else {
        lua_setfield(L, -2, "__index");
    }
    if (gc) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
}

void l_open_sql(lua_State *L)
{
    static const luaL_Reg drv_m[] = {{"name", drv_name}, {"connect", drv_connect}, {NULL, NULL}};
    static const luaL_Reg conn_m[] = {
        {"query", conn_query}, {"query_row", conn_query_row}, {"prepare", conn_prepare},
        {"begin", conn_begin}, {"commit", conn_commit}, {"rollback", conn_rollback},
        {"disconnect", conn_disconnect}, {"reconnect", conn_reconnect},
        {"dialect", conn_dialect}, {"server_version", conn_server_version},
        {"bulk_insert_init", conn_bulk_insert_init}, {"bulk_insert_next", conn_bulk_insert_next},
        {"bulk_insert_done", conn_bulk_insert_done}, {"bulk_load_init", conn_bulk_load_init},
        {"bulk_load_row", conn_bulk_load_row}, {"bulk_load_done", conn_bulk_load_done},
        {NULL, NULL}};
    static const luaL_Reg stmt_m[] = {
        {"bind_create", stmt_bind_create}, {"bind_param", stmt_bind_param},
        {"execute", stmt_execute}, {"close", stmt_close}, {NULL, NULL}};
    static const luaL_Reg param_m[] = {
        {"set", param_set}, {"set_rand_str", param_set_rand_str}, {NULL, NULL}};
    static const luaL_Reg rs_m[] = {{"fetch_row", rs_fetch_row}, {"free", rs_free}, {NULL, NULL}};

    new_class(L, DRV_MT, drv_m, NULL);
    new_class(L, CONN_MT, conn_m, conn_gc);
    new_class(L, STMT_MT, stmt_m, NULL);
    new_class(L, PARAM_MT, param_m, NULL);
    new_class(L, RS_MT, rs_m, NULL);
    luaL_newmetatable(L, ERR_MT);
    lua_pushcfunction(L, err_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);

    /* sbench.sql = { driver = ..., type = {...} } ; expects sbench on top */
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, l_sql_driver);
    lua_setfield(L, -2, "driver");
    l_push_sql_types(L);
    lua_setfield(L, -2, "type");
    lua_setfield(L, -2, "sql");
}

/* ---- end of an event with --pipeline ---- */

int l_sql_pipe_pending(lua_State *L)
{
    struct sb_worker *w = l_worker(L);
    for (int i = 0; i < w->npipe_conns; i++)
        if (w->pipe_conns[i]->pipe_owner == L)
            return 1;
    return 0;
}

static int pipe_sync_k(lua_State *L, int status, lua_KContext ctx);

/* Reads the answers of L's first listed connection and unlists it, raising
 * its first failure; in a client coroutine it may yield instead (and
 * pipe_sync_k goes on).  Returns 1 when it read one, 0 when none is left. */
static int pipe_sync_one(lua_State *L)
{
    struct sb_worker *w = l_worker(L);
    for (int i = 0; i < w->npipe_conns; i++) {
        struct sb_conn *c = w->pipe_conns[i];
        if (c->pipe_owner != L)
            continue;
        int rc = pipe_wait(L, c, 0);
        if (rc == SBD_AGAIN)
            return wait_for(L, c, pipe_sync_k); /* does not return */
        pipe_unlist(w, c);
        if (rc != SBD_OK)
            return raise_sql_error(L, 0, c, rc);
        return 1;
    }
    return 0;
}

/* Resumed after a wait: the connection waited for is L's first listed. */
static int pipe_sync_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct sb_worker *w = l_worker(L);
    for (int i = 0; i < w->npipe_conns; i++) {
        struct sb_conn *c = w->pipe_conns[i];
        if (c->pipe_owner != L)
            continue;
        pipe_unlist(w, c);
        if (c->async_rc != SBD_OK)
            return raise_sql_error(L, 0, c, c->async_rc);
        break;
    }
    return l_sql_pipe_sync(L);
}

int l_sql_pipe_sync(lua_State *L)
{
    while (pipe_sync_one(L) == 1)
        ;
    return 0;
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
    lua_getfield(L, idx, "sb_conn"); /* raised by the end-of-event pipeline sync */
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
