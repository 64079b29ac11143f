/*
 * Shared between the files of sbench.sql (l_sql.c: classes, driver and
 * connection objects, errors; l_sql_run.c: the one statement path of every
 * Lua call that runs a statement, and result sets; l_sql_stmt.c: prepared
 * statements and parameters).  Not used outside lua/.
 *
 * Userdata and their lifetimes:
 *   sbench.conn   owns a struct sb_conn; freed by __gc/__close.  User value
 *                 1 caches the connection's one result-set object.
 *   sbench.stmt   points at an sb_stmt owned by the connection; user value
 *                 1 keeps the connection alive, user value 2 caches the
 *                 result-set object once pushed; s == NULL once closed.
 *   sbench.param  a slot of a statement; user value 1 keeps the statement.
 *   sbench.rs     a view of the connection's current result, valid while
 *                 its generation matches the connection's.
 */
#ifndef SB_L_SQL_INT_H
#define SB_L_SQL_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>

#include "../core/db.h"

#define CONN_MT "sbench.conn"
#define STMT_MT "sbench.stmt"
#define PARAM_MT "sbench.param"
#define RS_MT "sbench.rs"
#define DRV_MT "sbench.driver"
#define ERR_MT "sbench.sqlerror"

/* The binding's per-connection state.  list: the core's list of
 * connections that the code which opened it owns (the worker's or a
 * client's), for --reconnect=transaction.  inflight_owner: the state or
 * coroutine whose statements are in flight on it (--pipeline), and
 * inflight_listed: whether it is on its worker's list of those
 * (l_thread.pipe_conns). */
struct l_conn {
    struct sb_conn *c;
    int closed;
    struct sb_conn_list *list;
    lua_State *inflight_owner;
    int inflight_listed;
};
struct l_rs { struct sb_conn *c; uint64_t gen; int freed; /* rs:free() called (sysbench's ALERT on a second) */ };
/* rs: the connection's result-set object once the statement has pushed it
 * (then also user value 2), so that execute finds it in one step. */
/* req: the request that runs s (sb_stmt_request, read once at prepare).
 * A parameter keeps its slot's value (sb_stmt_param: written in place, no
 * call per set) and limit, read once at bind_create; slot -1: the
 * parameter has no placeholder. */
struct l_stmt { struct sb_stmt *s; struct l_conn *lc; struct l_rs *rs; struct sb_req req; };
struct l_param { struct l_stmt *ls; int slot; struct sbd_value *v; size_t maxlen; };

/* Makes SQL errors (ERR_MT, made first) usable where sysbench's scripts
 * expect its string: .., err:find, string.find(err, ...) (l_sql_errstr.c). */
void l_sql_open_errstr(lua_State *L);

/* luaL_checkudata for methods registered by l_sql_add_methods: they have
 * their class's metatable as upvalue 1, so a matching object costs a
 * pointer compare instead of a registry lookup by name (a third of the
 * binding's cost per statement).  Anything else gets luaL_checkudata's
 * error. */
static inline void *l_sql_to_class(lua_State *L, int i, const char *tname)
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

/* An open connection / statement at index i, or a Lua error. */
static inline struct l_conn *l_sql_check_conn(lua_State *L, int i)
{
    struct l_conn *lc = l_sql_to_class(L, i, CONN_MT);
    if (lc->c == NULL)
        luaL_error(L, "connection is closed");
    return lc;
}

static inline struct l_stmt *l_sql_check_stmt(lua_State *L, int i)
{
    struct l_stmt *ls = l_sql_to_class(L, i, STMT_MT);
    if (ls->s == NULL)
        luaL_error(L, "statement is closed");
    return ls;
}

/* Where l_sql_raise finds the connection's userdata: a stack index, this
 * value (user value 1 of the statement or result at index 1), or 0 (not at
 * hand: the error carries the sb_conn as a light userdata). */
#define L_CONN_OF_ARG1 (-100000)
/* Raises the SQL error of connection c (status and c->err) as a table with
 * metatable sbench.sqlerror.  Does not return. */
int l_sql_raise(lua_State *L, int ci, struct sb_conn *c, int status);

/* Pushes the connection's result-set object (user value 1 of the
 * connection at ci), now a view of the current result: what con:query and
 * stmt:execute return for every statement, as sysbench's (rs.nrows 0 and
 * rs.affected_rows for one without a result set). */
int l_sql_push_rs(lua_State *L, int ci, struct sb_conn *c);
/* Pushes one column value. */
void l_sql_push_value(lua_State *L, const struct sbd_value *v);

/* Creates the metatable `name` with an empty methods table (its __index,
 * also kept at its field "methods") and, when gc, __gc and __close. */
void l_sql_new_class(lua_State *L, const char *name, lua_CFunction gc);
/* Adds methods to class `name`, each with the metatable as upvalue 1. */
void l_sql_add_methods(lua_State *L, const char *name, const luaL_Reg *methods);

/* The classes, the driver and connection methods and sbench.sql itself
 * (l_sql.c; expects sbench on top), then the methods of l_sql_run.c and
 * l_sql_stmt.c: what l_open_sql (l_sql_open.c) calls, in that order. */
void l_sql_open_base(lua_State *L);
void l_sql_open_run(lua_State *L);
void l_sql_open_stmt(lua_State *L);

/* Takes connection lc off its worker's list of connections with
 * statements in flight (when its answers are read, or it is closed). */
void l_sql_unlist(lua_State *L, struct l_conn *lc);

#endif
