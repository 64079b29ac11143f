/*
 * Shared between the files of the Lua binding; not used outside lua/.
 * The core reaches the binding only through its table of hooks
 * (core/script.h, filled in l_script.c).
 *
 * Each worker's script state is a struct l_thread (the core's
 * struct sb_worker points at it as `script`; the Lua state's extra space
 * points back at it).  Stack of a worker state while it runs: [1] the
 * message handler, [2] the event function (after worker_init).
 */
#ifndef SB_L_INTERNAL_H
#define SB_L_INTERNAL_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/event.h"
#include "../core/run.h"

struct sb_conn;
struct l_conn;
struct sb_report;
struct sb_options;
struct sb_opt;

/* The binding's state of one worker thread (or of the control worker). */
struct l_thread {
    struct sb_worker *w;
    lua_State *L;
    int traceback_idx;              /* stack slot of the message handler */
    lua_State *running_co;          /* client coroutine being resumed, or NULL */
    int cur_env_ref;                /* the environment of the client whose code
                                       runs (its hooks), or 0 for the globals */
    int in_event;                   /* the one-client loop is inside event() */
    int legacy;                     /* the script declares no options (l_legacy.c) */
    struct sb_event ev;             /* the one-client loop's event */
    int event_nargs;                /* 1 when event() takes the thread id */
    int own_loop;                   /* the script defines thread_run() */
    int ev_from_more;               /* ev was opened by sbench.more_events() */
    int *cur_type;                  /* where sbench.event_type writes: the
                                       running client's type, or NULL for
                                       the worker's own (w->event_type) */
    uint64_t *cur_units;            /* and its units, or NULL for w->event_units */
    /* --pipeline: connections with statements in flight (l_sql_run.c) */
    struct l_conn **pipe_conns;
    int npipe_conns, pipe_conns_cap;
};

/* The binding's state of the worker that owns state L. */
static inline struct l_thread *l_thread(lua_State *L)
{
    return *(struct l_thread **)lua_getextraspace(L);
}

/* The worker that owns state L. */
static inline struct sb_worker *l_worker(lua_State *L)
{
    return l_thread(L)->w;
}

/* ---- l_state.c: states, options, calls ---- */

/* Creates w's state (script_ops.create). */
int l_state_create(struct sb_worker *w, int with_opts);
/* Frees w's state; NULL state is a no-op. */
void l_state_destroy(struct sb_worker *w);
int l_register_options(struct sb_worker *w, struct sb_options *o, char *err, size_t errlen);
void l_set_options(struct sb_worker *w);
int l_call_global(struct sb_worker *w, const char *name);
int l_find_command(struct sb_worker *w, const char *cmd);
int l_call_command(struct sb_worker *w, const char *cmd);
void l_command_names(struct sb_worker *w, char *buf, size_t len);
int l_has_hook(struct sb_worker *w, const char *name);
void l_interrupt(struct sb_worker *w);

/* ---- l_call.c: calls into Lua, and errors ---- */

/* Stores the error on top of t->L into t->w->error and pops it. */
void l_take_error(struct l_thread *t);
/* Calls the value below the nargs arguments on top of t's stack when it
 * is a function, and pops them all: 1 when it is not, 0 when it ran, -1 on
 * error. */
int l_call_value(struct l_thread *t, int nargs);
/* Calls sbench.hooks[name](the value at idx) from the globals' sbench
 * (env_ref LUA_NOREF) or a client environment's.  Returns 1 if it ran and
 * returned true, 0 if it returned false or is absent (*absent set when
 * absent is not NULL), -1 on error (w->error set). */
int l_call_hook(struct l_thread *t, int env_ref, const char *name, int idx, int *absent);

/* ---- l_event.c: the event loop, and an event's error for the core ---- */

int l_worker_init(struct sb_worker *w);
/* Installs sbench.more_events / event_start / event_stop (for a script's
 * own thread_run) into the table on top of the stack. */
void l_open_event(lua_State *L);
/* l_barrier.c: sbench.barrier() */
void l_open_barrier(lua_State *L);
int l_run_events(struct sb_worker *w);
int l_worker_done(struct sb_worker *w);
/* The event failed with the error on top of t->L: translated into the
 * core's failure policy (core/event.h: sb_event_failed), with the
 * script's before_restart_event hook from the client environment env_ref
 * (or the globals for LUA_NOREF).  Returns SB_EVENT_RESTART, SB_EVENT_STOP,
 * SB_EVENT_FAILED (after --max-retries, counted) or SB_EVENT_FATAL
 * (w->error set); the error is popped. */
int l_event_error(struct l_thread *t, int env_ref, int *retries);

/* ---- l_client.c: client coroutines ---- */

void *l_client_create(struct sb_worker *w, int cid);
int l_client_call(struct sb_worker *w, void *client, const char *name);
int l_client_step(struct sb_worker *w, void *client, int start, struct sb_conn **wait);

/* ---- l_report.c ---- */

int l_report_hook(struct sb_worker *w, const char *hook, const struct sb_report *r);
/* core/script.h's server_settings (l_settings.c). */
int l_server_settings(struct sb_worker *w, char *buf, size_t len);

/* ---- the sbench API ---- */

/* sbench.cmdline.ARG_*: option types a declaration may give as its third
 * member, with sysbench 1.0's numbers. */
enum { L_ARG_NULL, L_ARG_BOOL, L_ARG_INT, L_ARG_SIZE, L_ARG_DOUBLE, L_ARG_STRING, L_ARG_LIST,
       L_ARG_FILE, L_ARG_MAX };

/* sbench.error.RESTART_EVENT, sysbench 1.0's value: a table raised with
 * errcode == it restarts the event (also DB_ERROR_RESTART_TRANSACTION). */
enum { L_RESTART_EVENT = 1 };
/* Builds the sbench table; sets globals sbench and sysbench. */
void l_open_sbench(lua_State *L, struct sb_worker *w);
/* Installs sbench.sql into the table on top of the stack (l_sql_open.c). */
void l_open_sql(lua_State *L);
/* Installs sbench.rand into the table on top of the stack. */
void l_open_rand(lua_State *L);
/* Installs sbench.pgbench_rand (l_pgrand.c): pgbench's random draws in C. */
void l_open_pgrand(lua_State *L);
/* pgbench's random(lo, hi) drawn from the state st = { s0, s1 } (as
 * sbench.pgbench_rand.uniform_fast): 1 and *out, st advanced; or 0 and
 * no draw when lo > hi or the range is too large (the caller's general path). */
int l_pgrand_uniform(uint64_t st[2], lua_Integer lo, lua_Integer hi, lua_Integer *out);
/* Installs sbench.pgbench_script (l_pgscript.c): a pgbench script's
 * plain commands run in C. */
void l_open_pgscript(lua_State *L);
/* Installs sbench.histogram and the built-in reporters on the table on
 * top of the stack. */
void l_open_report(lua_State *L);
/* sbench.txlog: pgbench's per-thread transaction logs (l_txlog.c). */
void l_open_txlog(lua_State *L);
/* l_section.c: sbench.report_section{...} */
void l_open_section(lua_State *L);
/* l_opt.c: pushes option p's value v as sbench.opt holds it (nil for NULL). */
void l_push_opt_value(lua_State *L, const struct sb_opt *p, const char *v);
/* Writes option p's name as Lua names it ('_' for '-') into key. */
void l_opt_lua_name(const struct sb_opt *p, char *key, size_t len);
/* Installs sbench.diag (l_diag.c) into the table on top of the stack. */
void l_open_diag(lua_State *L);
/* Installs sbench.builtin (l_builtin.c) into the table on top of the stack. */
void l_open_builtin(lua_State *L);
/* Sets the fileio test's calls (open, unlink, free_bytes: l_builtin.c) on
 * the table on top of the stack: sbench.builtin's, and sbench.diag's. */
void l_builtin_file_fields(lua_State *L);
/* ---- LuaJIT compatibility (l_compat.c, l_bit.c, l_format.c, l_ffi.c) ---- */

/* Installs what scripts written for sysbench's LuaJIT expect: the Lua 5.1
 * globals, bit, ffi, LuaJIT's string.format and print.  Needs the sbench
 * table (ffi.C takes sbench.rand's functions). */
void l_open_compat(lua_State *L);
void l_open_bit(lua_State *L);
void l_open_format(lua_State *L);
void l_open_ffi(lua_State *L);
/* Argument i for a C integer parameter, as LuaJIT's FFI converts a number:
 * truncated toward zero; raises luaL_checkinteger's error when it is not
 * a number or out of range. */
lua_Integer l_luajit_int(lua_State *L, int i);
/* Adds a hint line to the error message on top of the stack when it comes
 * from something LuaJIT has and Lua 5.4 lacks (before its traceback). */
void l_compat_hint(lua_State *L);
/* sbench.shard (l_shard.c), into the table on top of the stack */
void l_open_shard(lua_State *L);
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

/* ---- l_legacy.c: sysbench's legacy (0.5-style) API ---- */

/* Sets the legacy globals and functions of every script (after
 * l_open_sbench). */
void l_legacy_open(lua_State *L, struct sb_worker *w);
/* After the script ran: t->legacy = 1 when it declared no options. */
void l_legacy_detect(struct l_thread *t);
/* Sets thread_id in a client's environment (at idx env) before its
 * script runs there. */
void l_legacy_client(lua_State *L, int env, int cid);
/* For a legacy script: sets every option, num_threads, db_driver and test
 * as globals of the table at idx (0: the globals), as sysbench 1.0 does
 * before thread_init and commands.  Nothing for other scripts. */
void l_legacy_export(struct l_thread *t, int idx);

#endif
