/*
 * Shared between the files of the Lua binding; not used outside lua/.
 */
#ifndef SB_L_INTERNAL_H
#define SB_L_INTERNAL_H

#include <lua.h>
#include <stdint.h>

struct sb_worker;
struct sb_conn;

/* The worker that owns state L (stored in the state's extra space). */
static inline struct sb_worker *l_worker(lua_State *L)
{
    return *(struct sb_worker **)lua_getextraspace(L);
}

/* Its address is sbench.error.RESTART_EVENT. */
extern int l_restart_marker;
/* Builds the sbench table; sets globals sbench and sysbench. */
void l_open_sbench(lua_State *L, struct sb_worker *w);
/* Installs sbench.sql into the table on top of the stack. */
void l_open_sql(lua_State *L);
/* Installs sbench.rand into the table on top of the stack. */
void l_open_rand(lua_State *L);
/* Installs sbench.histogram and the built-in reporters on the table on
 * top of the stack. */
void l_open_report(lua_State *L);
/* Installs unpack and the minimal ffi module. */
void l_open_compat(lua_State *L);
/* Pushes the sbench.sql.type table. */
void l_push_sql_types(lua_State *L);
/* Maps a sbench.sql.type value to enum sbd_type. */
int l_sql_type_to_sbd(int t);
/* The connection named by an SQL error table at idx, or NULL. */
struct sb_conn *l_error_connection(lua_State *L, int idx);
/* --pipeline: 1 when connections that L sent statements on still have
 * answers to read.  l_sql_pipe_sync (a lua_CFunction, yields in a client
 * coroutine) reads them all and raises the first failure as an SQL
 * error; the end of every event runs it. */
int l_sql_pipe_pending(lua_State *L);
int l_sql_pipe_sync(lua_State *L);
/* 1 if the value at idx is an SQL error raised by the binding. */
int l_is_sql_error(lua_State *L, int idx);
/* Records how long a connect took (connection-time statistics). */
void l_note_connect_time(struct sb_worker *w, int64_t ns);

#endif
