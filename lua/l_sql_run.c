/*
 * The Lua calls that run statements (con:query, con:query_row,
 * con:begin/commit/rollback, stmt:execute, the bulk loads) and the result
 * sets they return, over the facade's one statement path (core/db.h).
 *
 * Every such call goes through run(), whatever the mode:
 *   - blocking (the usual case): sb_conn_submit completes the statement;
 *   - a client coroutine (--clients > --threads): the statement is queued
 *     and the coroutine yields its connection (a light userdata) to the
 *     scheduler (core/clients.c), which resumes it when the answer is in;
 *   - --pipeline inside an event: the statement is queued and the call
 *     returns at once (up to --pipeline in flight).  COMMIT and ROLLBACK,
 *     reading a result, any blocking call and the end of the event wait
 *     for the answers and raise the first failure among them.
 * A call that yields is its own continuation: it is entered again with its
 * phase in the continuation context (RUN_*), rebuilds its request from its
 * arguments, and run() goes on from that phase.
 * Hot path (stmt:execute, blocking): no allocation, no formatting.
 */
#include <lauxlib.h>
#include <lua.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "l_internal.h"
#include "l_sql_int.h"

/* Phases of a call that runs a statement, in the low bits of its
 * continuation context; the bits above are the call's own (a verb). */
enum { RUN_START = 0, RUN_ROOM = 1, RUN_ANSWER = 2 };
#define RUN_PHASE(ctx) ((int)((ctx) & 3))
#define RUN_ARG(ctx) ((int)((ctx) >> 2))
#define RUN_CTX(arg, phase) ((lua_KContext)(((lua_KContext)(arg) << 2) | (phase)))

/* 1 when L is the client coroutine the scheduler resumed: it can yield
 * while the server answers. */
static int may_yield(lua_State *L)
{
    return l_thread(L)->running_co == L && lua_isyieldable(L);
}

/* Waits until at most target statements are in flight on c: yields to the
 * scheduler when it can (self is then entered again with ctx), blocks
 * otherwise.  Returns the outcome of the answers read. */
static int wait_here(lua_State *L, struct sb_conn *c, int target, int yield,
                     lua_KFunction self, lua_KContext ctx)
{
    int want_write;
    int rc = sb_conn_complete(c, target, &want_write);
    if (rc != SBD_AGAIN)
        return rc;
    if (yield) {
        lua_pushlightuserdata(L, c);
        lua_yieldk(L, 1, ctx, self); /* does not return */
    }
    return sb_conn_wait(c, target);
}

/* ---- the worker's connections with statements in flight (--pipeline) ---- */


/* After a statement was queued in a pipeline: the end of L's event reads
 * lc's answers.  The list only grows to the connections with answers
 * pending. */
static void note_inflight(lua_State *L, struct l_conn *lc)
{
    lc->inflight_owner = L;
    if (lc->inflight_listed)
        return;
    struct l_thread *w = l_thread(L);
    if (w->npipe_conns == w->pipe_conns_cap) {
        int cap = w->pipe_conns_cap ? w->pipe_conns_cap * 2 : 8;
        struct l_conn **p = realloc(w->pipe_conns, (size_t)cap * sizeof *p);
        if (p == NULL) {
            luaL_error(L, "out of memory");
            return;
        }
        w->pipe_conns = p;
        w->pipe_conns_cap = cap;
    }
    w->pipe_conns[w->npipe_conns++] = lc;
    lc->inflight_listed = 1;
}

/* ---- the one path ---- */

/* Runs request r on lc's connection for the Lua call self, entered with ctx (its phase
 * in the low bits); ci locates the connection's userdata for errors (see
 * l_sql_raise).  Returns 1 when the statement's answer is in (its result
 * is current), 0 when it is in flight in a pipeline (its result object
 * waits when read).  Raises the statement's error; may yield. */
static inline int run(lua_State *L, int ci, struct l_conn *lc, const struct sb_req *r,
                      lua_KFunction self, lua_KContext ctx)
{
    struct l_thread *w = l_thread(L);
    struct sb_conn *c = lc->c;
    int yield = w->running_co == L && lua_isyieldable(L);
    int pipelines = sb_conn_pipelines(c);
    int queue = yield || (pipelines && w->in_event && L == w->L);
    int rc;
    if (!queue) { /* the usual case: the statement completes here */
        if ((rc = sb_conn_submit(c, r, 0, NULL)) != SBD_OK)
            l_sql_raise(L, ci, c, rc);
        return 1;
    }
    lua_KContext base = ctx & ~(lua_KContext)3;
    switch (RUN_PHASE(ctx)) {
    case RUN_ANSWER:
        rc = sb_conn_outcome(c);
        goto answered;
    case RUN_ROOM: /* waited for room: the answers read may have failed */
        if ((rc = sb_conn_outcome(c)) != SBD_OK)
            goto answered;
        break;
    default: {
        int target;
        if (yield && (target = sb_conn_submit_target(c, r, queue)) >= 0) {
            rc = wait_here(L, c, target, yield, self, base | RUN_ROOM);
            if (rc != SBD_OK)
                goto answered;
        }
    }
    }
    int queued;
    rc = sb_conn_submit(c, r, queue, &queued);
    if (rc == SBD_OK && queued) {
        if (pipelines) {
            note_inflight(L, lc);
            if (!sb_req_ends_txn(r))
                return 0;
        }
        rc = wait_here(L, c, 0, yield, self, base | RUN_ANSWER);
    }
answered:
    if (rc != SBD_OK)
        l_sql_raise(L, ci, c, rc);
    return !(pipelines && queue);
}

static int conn_query_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_conn *lc = l_sql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    struct sb_req r = sb_req_query(sql, len);
    run(L, 1, lc, &r, conn_query_k, ctx);
    return l_sql_push_rs(L, 1, lc->c);
}

static int conn_query(lua_State *L) { return conn_query_k(L, LUA_OK, RUN_START); }

static int conn_txn_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_conn *lc = l_sql_check_conn(L, 1);
    struct sb_req r = sb_req_txn((enum sb_txn)RUN_ARG(ctx));
    run(L, 1, lc, &r, conn_txn_k, ctx);
    return 0;
}

static int conn_begin(lua_State *L) { return conn_txn_k(L, LUA_OK, RUN_CTX(SB_TXN_BEGIN, RUN_START)); }
static int conn_commit(lua_State *L) { return conn_txn_k(L, LUA_OK, RUN_CTX(SB_TXN_COMMIT, RUN_START)); }
static int conn_rollback(lua_State *L)
{
    return conn_txn_k(L, LUA_OK, RUN_CTX(SB_TXN_ROLLBACK, RUN_START));
}

static int stmt_execute_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_stmt *ls = l_sql_check_stmt(L, 1);
    struct sb_conn *c = ls->lc->c;
    struct sb_req r = ls->req;
    run(L, L_CONN_OF_ARG1, ls->lc, &r, stmt_execute_k, ctx);
    if (ls->rs != NULL) {
        /* what push_rs does, with the result object at hand */
        lua_getiuservalue(L, 1, 2);
        ls->rs->c = c;
        ls->rs->gen = sb_conn_result_gen(c);
        ls->rs->freed = 0;
        return 1;
    }
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, 1);
    l_sql_push_rs(L, 2, c);
    ls->rs = lua_touserdata(L, -1);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, 2);
    return 1;
}

static int stmt_execute(lua_State *L) { return stmt_execute_k(L, LUA_OK, RUN_START); }

/* con:query_row(sql): the first row's values, blocking. */
static int conn_query_row(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    struct sb_conn *c = lc->c;
    int rc = sb_conn_query(c, sql, len);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, c, rc);
    if (!sb_conn_has_result(c) || (rc = sb_conn_fetch(c)) == SBD_DONE) {
        sb_conn_free_result(c);
        lua_pushnil(L); /* no row: nil, as sysbench */
        return 1;
    }
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, c, rc);
    int n = sb_conn_result_info(c)->nfields;
    luaL_checkstack(L, n, "too many columns");
    const struct sbd_value *row = sb_conn_row(c);
    for (int i = 0; i < n; i++)
        l_sql_push_value(L, &row[i]);
    sb_conn_free_result(c);
    return n;
}

/* ---- the end of an event with --pipeline ---- */

int l_sql_pipe_pending(lua_State *L)
{
    struct l_thread *w = l_thread(L);
    for (int i = 0; i < w->npipe_conns; i++)
        if (w->pipe_conns[i]->inflight_owner == L)
            return 1;
    return 0;
}

/* Reads the answers of every connection L sent statements on, one
 * connection after the other, and raises the first failure.  Entered again
 * after a yield with the connection it waited for as ctx. */
static int pipe_sync_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_thread *w = l_thread(L);
    if (ctx != 0) { /* resumed: that connection's answers are in */
        struct l_conn *lc = (struct l_conn *)ctx;
        l_sql_unlist(L, lc);
        if (sb_conn_outcome(lc->c) != SBD_OK)
            return l_sql_raise(L, 0, lc->c, sb_conn_outcome(lc->c));
    }
    int yield = may_yield(L);
    for (int i = 0; i < w->npipe_conns;) {
        struct l_conn *lc = w->pipe_conns[i];
        struct sb_conn *c = lc->c;
        if (lc->inflight_owner != L) {
            i++;
            continue;
        }
        int rc = wait_here(L, c, 0, yield, pipe_sync_k, (lua_KContext)lc);
        l_sql_unlist(L, lc); /* moves another connection to i */
        if (rc != SBD_OK)
            return l_sql_raise(L, 0, c, rc);
    }
    return 0;
}

int l_sql_pipe_sync(lua_State *L) { return pipe_sync_k(L, LUA_OK, RUN_START); }

/* ---- result sets ---- */

static struct l_rs *check_rs(lua_State *L)
{
    return l_sql_to_class(L, 1, RS_MT);
}

/* A result of a pipelined statement not answered yet: waits for every
 * answer on its connection and raises the first failure (the method self
 * is entered again with RUN_ANSWER after a yield). */
static void rs_settle(lua_State *L, struct l_rs *rs, lua_KFunction self, lua_KContext ctx)
{
    struct sb_conn *c = rs->c;
    int rc;
    if (ctx == RUN_ANSWER)
        rc = sb_conn_outcome(c);
    else if (rs->gen != sb_conn_result_gen(c) || !sb_conn_busy(c))
        return;
    else
        rc = wait_here(L, c, 0, may_yield(L), self, RUN_ANSWER);
    if (rc != SBD_OK)
        l_sql_raise(L, L_CONN_OF_ARG1, c, rc);
}

static int rs_fetch_row_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_rs *rs = check_rs(L);
    rs_settle(L, rs, rs_fetch_row_k, ctx);
    struct sb_conn *c = rs->c;
    if (rs->gen != sb_conn_result_gen(c) || !sb_conn_has_result(c))
        return 0;
    int rc = sb_conn_fetch(c);
    if (rc == SBD_DONE)
        return 0;
    if (rc != SBD_OK)
        return l_sql_raise(L, L_CONN_OF_ARG1, c, rc);
    int n = sb_conn_result_info(c)->nfields;
    const struct sbd_value *row = sb_conn_row(c);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        l_sql_push_value(L, &row[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int rs_fetch_row(lua_State *L) { return rs_fetch_row_k(L, LUA_OK, RUN_START); }

/* rs:field_name(i): the name the server gave column i (from 1) of the
 * result, or nil (out of range, the result no longer current or read to
 * its end, a driver that cannot name columns).  Read from the driver only
 * when asked. */
static int rs_field_name_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_rs *rs = check_rs(L);
    lua_Integer i = luaL_checkinteger(L, 2);
    rs_settle(L, rs, rs_field_name_k, ctx);
    const char *name = rs->gen == sb_conn_result_gen(rs->c) && i >= 1 && i <= INT_MAX
                           ? sb_conn_field_name(rs->c, (int)(i - 1)) : NULL;
    if (name == NULL)
        lua_pushnil(L);
    else
        lua_pushstring(L, name);
    return 1;
}

static int rs_field_name(lua_State *L) { return rs_field_name_k(L, LUA_OK, RUN_START); }

static int rs_free_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_rs *rs = check_rs(L);
    rs_settle(L, rs, rs_free_k, ctx);
    if (rs->freed) { /* as sysbench 1.0.20: an alert, then an error */
        fprintf(stderr, "ALERT: attempt to free an invalid result set\n");
        lua_pushliteral(L, "db_free_results() failed");
        return lua_error(L);
    }
    rs->freed = 1;
    if (rs->gen == sb_conn_result_gen(rs->c))
        sb_conn_free_result(rs->c);
    /* sysbench 1.0.20 returns true and its failure text (an assert's
     * second value) */
    lua_pushboolean(L, 1);
    lua_pushliteral(L, "db_free_results() failed");
    return 2;
}

static int rs_free(lua_State *L) { return rs_free_k(L, LUA_OK, RUN_START); }

/* rs.nrows, rs.nfields, rs.affected_rows, rs.result_rows (sbench's: the
 * rows of an answer, one without columns too, -1 when not yet known), and
 * the methods. */
static int rs_index_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    struct l_rs *rs = check_rs(L);
    const char *k = luaL_checkstring(L, 2);
    int nrows = strcmp(k, "nrows") == 0, nfields = !nrows && strcmp(k, "nfields") == 0;
    int affected = !nrows && !nfields && strcmp(k, "affected_rows") == 0;
    int rows = !nrows && !nfields && !affected && strcmp(k, "result_rows") == 0;
    if (nrows || nfields || affected || rows) {
        rs_settle(L, rs, rs_index_k, ctx);
        const struct sbd_result_info *in = sb_conn_result_info(rs->c);
        int current = rs->gen == sb_conn_result_gen(rs->c);
        lua_pushinteger(L, !current ? 0 : rows ? in->nrows : nrows ? (in->nfields ? in->nrows : 0)
                                      : nfields ? in->nfields : in->affected_rows);
        return 1;
    }
    lua_getfield(L, lua_upvalueindex(2), k);
    return 1;
}

static int rs_index(lua_State *L) { return rs_index_k(L, LUA_OK, RUN_START); }

/* ---- bulk loads (blocking) ---- */

static int conn_bulk_insert_init(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    size_t len;
    const char *p = luaL_checklstring(L, 2, &len);
    int rc = sb_conn_bulk_insert_init(lc->c, p, len);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_insert_next(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    if (!sb_conn_bulk_inserting(lc->c))
        return luaL_error(L, "bulk_insert_next without bulk_insert_init (or after bulk_insert_done)");
    size_t len;
    const char *p = luaL_checklstring(L, 2, &len);
    int rc = sb_conn_bulk_insert_next(lc->c, p, len);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_insert_done(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    int rc = sb_conn_bulk_insert_done(lc->c);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_load_init(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
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
        lua_pop(L, 2); /* the name stays referenced by the table */
    }
    int rc = sb_conn_bulk_load_begin(lc->c, table, cols, types, n);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    return 0;
}

static int conn_bulk_load_row(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    struct sb_conn *c = lc->c;
    int n;
    const int *types = sb_conn_bulk_load_types(c, &n);
    if (types == NULL)
        return luaL_error(L, "bulk_load_row without bulk_load_init");
    if (lua_gettop(L) - 1 != n)
        return luaL_error(L, "bulk_load_row: %d values expected, got %d", n, lua_gettop(L) - 1);
    struct sbd_value v[32];
    for (int i = 0; i < n; i++) {
        int idx = i + 2;
        v[i].type = types[i];
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
        return l_sql_raise(L, 1, c, rc);
    return 0;
}

static int conn_bulk_load_done(lua_State *L)
{
    struct l_conn *lc = l_sql_check_conn(L, 1);
    int rc = sb_conn_bulk_load_end(lc->c);
    if (rc != SBD_OK)
        return l_sql_raise(L, 1, lc->c, rc);
    return 0;
}

void l_sql_open_run(lua_State *L)
{
    static const luaL_Reg conn_m[] = {
        {"query", conn_query}, {"query_row", conn_query_row},
        {"begin", conn_begin}, {"commit", conn_commit}, {"rollback", conn_rollback},
        {"bulk_insert_init", conn_bulk_insert_init}, {"bulk_insert_next", conn_bulk_insert_next},
        {"bulk_insert_done", conn_bulk_insert_done}, {"bulk_load_init", conn_bulk_load_init},
        {"bulk_load_row", conn_bulk_load_row}, {"bulk_load_done", conn_bulk_load_done},
        {NULL, NULL}};
    static const luaL_Reg stmt_m[] = {{"execute", stmt_execute}, {NULL, NULL}};
    static const luaL_Reg rs_m[] = {{"fetch_row", rs_fetch_row}, {"free", rs_free},
                                    {"field_name", rs_field_name}, {NULL, NULL}};
    l_sql_add_methods(L, CONN_MT, conn_m);
    l_sql_add_methods(L, STMT_MT, stmt_m);
    l_sql_add_methods(L, RS_MT, rs_m);
    /* a result set's __index also answers nrows and nfields: upvalue 1 is
     * the metatable (l_sql_to_class), 2 the methods */
    luaL_getmetatable(L, RS_MT);
    lua_pushvalue(L, -1);
    lua_getfield(L, -2, "methods");
    lua_pushcclosure(L, rs_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
