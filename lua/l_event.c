/*
 * The one-client event loop of a worker (script_ops.run_events), and the
 * translation of an event's Lua error into the core's failure policy
 * (core/event.h: sb_event_failed; also used by client coroutines,
 * l_client.c).
 *
 * The loop runs many events under one protected call: batch() calls
 * event() with lua_call and does each event's bookkeeping (core/event.h)
 * in between, with one clock read shared by the end of one event and the
 * start of the next.  An error unwinds out of the batch to run_events,
 * which applies the restart rules and enters a new batch; the event that
 * failed stays open (its start time, its retries) until it ends.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

#include "../core/event_types.h"
#include "l_internal.h"

#define EVENT_IDX 2

/* Calls the global `name` (thread_init, thread_done, thread_run) with the
 * worker's thread id, as sysbench passes it.  Returns like l_call_value. */
static int call_with_tid(struct sb_worker *w, const char *name)
{
    struct l_thread *t = w->script;
    lua_getglobal(t->L, name);
    lua_pushinteger(t->L, w->id);
    return l_call_value(t, 1);
}

int l_worker_init(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    if (call_with_tid(w, "thread_init") < 0)
        return -1;
    lua_settop(L, t->traceback_idx);
    /* a script's own thread_run() replaces the event loop, as in sysbench */
    t->own_loop = lua_getglobal(L, "thread_run") == LUA_TFUNCTION;
    lua_pop(L, 1);
    if (lua_getglobal(L, "event") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        if (t->own_loop) { /* its thread_run may do without one */
            lua_pushnil(L);
            return 0;
        }
        snprintf(w->error, sizeof w->error, "%s defines no event() function", w->run->script);
        return -1;
    }
    /* event(thread_id), as sysbench calls it; the id is only pushed for a
     * function that takes it */
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">u", &ar);
    t->event_nargs = ar.nparams > 0 || ar.isvararg;
    return 0;
}

int l_worker_done(struct sb_worker *w)
{
    return call_with_tid(w, "thread_done") < 0 ? -1 : 0;
}

/* Runs events until the run is over (returns), or until one raises an
 * error (which unwinds to run_events).  Under lua_pcall, with the event
 * function as its argument.  An event() that returns a value other than
 * nil or false ends this worker's loop, and is not counted (sysbench's
 * rule). */
static int batch(lua_State *L)
{
    struct l_thread *t = l_thread(L);
    struct sb_worker *w = t->w;
    int nargs = t->event_nargs;
    int64_t now = sb_now_ns();
    t->in_event = 1;
    while (sb_event_next(w, now, &t->ev)) {
        lua_pushvalue(L, 1);
        if (nargs)
            lua_pushinteger(L, w->id);
        lua_call(L, nargs, LUA_MULTRET);
        if (lua_gettop(L) > 1) { /* it returned something */
            int stop = lua_toboolean(L, 2);
            lua_settop(L, 1);
            if (stop) {
                sb_event_abandon(w, &t->ev);
                return 0;
            }
        }
        if (t->npipe_conns > 0 && l_sql_pipe_pending(L))
            l_sql_pipe_sync(L); /* --pipeline: the event ends when every answer is in */
        now = sb_now_ns();
        sb_event_close(w, &t->ev, now);
    }
    return 0;
}

/* ---- a script's own loop ---- */

/* A script's own thread_run(thread_id): it runs the events itself and
 * counts them with sbench.more_events / event_start / event_stop (what
 * sysbench's default loop calls as ffi.C.sb_more_events, sb_event_start,
 * sb_event_stop). */
static int own_loop(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    t->in_event = 1;
    atomic_store_explicit(&w->stats.in_event, 1, memory_order_relaxed);
    int rc = call_with_tid(w, "thread_run");
    atomic_store_explicit(&w->stats.in_event, 0, memory_order_relaxed);
    t->in_event = 0;
    return rc < 0 ? -1 : 0;
}

/* sbench.more_events(): true while the run wants another event (time,
 * --events, a stop request; under --rate it returns when the next arrival
 * is due, which becomes the event's start). */
static int ev_more(lua_State *L)
{
    struct l_thread *t = l_thread(L);
    if (t->w->id < 0)
        return luaL_error(L, "more_events: only in a worker thread (thread_run)");
    sb_event_abandon(t->w, &t->ev); /* an event started and never stopped */
    t->ev_from_more = sb_event_next(t->w, sb_now_ns(), &t->ev);
    lua_pushboolean(L, t->ev_from_more);
    return 1;
}

/* sbench.event_start(): the event starts now (or at its --rate arrival
 * when more_events granted it). */
static int ev_start(lua_State *L)
{
    struct l_thread *t = l_thread(L);
    if (t->w->id < 0)
        return luaL_error(L, "event_start: only in a worker thread (thread_run)");
    if (!t->ev_from_more || !t->ev.open || !t->w->run->rate) {
        t->ev.t0 = sb_now_ns();
        t->ev.open = 1;
    }
    t->ev_from_more = 0;
    return 0;
}

/* sbench.event_stop(): the event ended: it is recorded (after the answers
 * of statements still in flight under --pipeline). */
static int ev_stop(lua_State *L)
{
    struct l_thread *t = l_thread(L);
    if (t->w->id < 0 || !t->ev.open)
        return luaL_error(L, "event_stop without event_start");
    if (t->npipe_conns > 0 && l_sql_pipe_pending(L))
        l_sql_pipe_sync(L);
    sb_event_close(t->w, &t->ev, sb_now_ns());
    return 0;
}

/* sbench.event_type(name [, units]): the current event is of type `name`
 * (the final report gives each type's count, latency, retries and
 * failures) and counts `units` toward the type's units (a whole number
 * >= 0, default 1: what a report section's share with units = true adds
 * up, such as the districts a TPC-C Delivery skipped); the last call in an
 * event wins.  Looks the name up among a few short strings: no allocation
 * after a name's first use. */
static int ev_type(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_Integer units = luaL_optinteger(L, 2, 1);
    struct l_thread *t = l_thread(L);
    if (units < 0)
        return luaL_error(L, "event_type: units must be a whole number >= 0 (got %d)", (int)units);
    int ty = sb_event_type_find(name);
    if (ty < 0)
        return luaL_error(L, "event_type: '%s': names are 1 to %d characters, at most %d types",
                          name, SB_TYPE_NAME_MAX - 1, SB_MAX_TYPES);
    *(t->cur_type ? t->cur_type : &t->w->event_type) = ty;
    *(t->cur_units ? t->cur_units : &t->w->event_units) = (uint64_t)units;
    return 0;
}

/* sbench.stopping(): true once the run was told to stop (its --time is
 * up, Ctrl-C, another thread's failure): the event running goes on to its
 * end, but a restart is not run (pgbench's timer_exceeded). */
static int ev_stopping(lua_State *L)
{
    struct sb_worker *w = l_worker(L);
    lua_pushboolean(L, w && atomic_load_explicit(&w->run->stop, memory_order_relaxed));
    return 1;
}

void l_open_event(lua_State *L)
{
    static const luaL_Reg f[] = {{"more_events", ev_more}, {"event_start", ev_start},
                                 {"event_stop", ev_stop},   {"event_type", ev_type},
                                 {"stopping", ev_stopping}, {NULL, NULL}};
    luaL_setfuncs(L, f, 0);
}

int l_run_events(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    if (t->own_loop)
        return own_loop(w);
    /* a worker inside this loop is inside an event, but for the moment
     * between two (what a forced shutdown counts as unfinished) */
    atomic_store_explicit(&w->stats.in_event, 1, memory_order_relaxed);
    int rc = 0;
    for (;;) {
        lua_pushcfunction(L, batch);
        lua_pushvalue(L, EVENT_IDX);
        int st = lua_pcall(L, 1, 0, t->traceback_idx);
        t->in_event = 0;
        if (st == LUA_OK)
            break;
        int o = l_event_error(t, LUA_NOREF, &t->ev.retries);
        if (o == SB_EVENT_RESTART) /* the same event, still open */
            continue;
        sb_event_abandon(w, &t->ev);
        if (o == SB_EVENT_FAILED) /* counted as failed */
            continue;
        rc = o == SB_EVENT_STOP ? 0 : -1; /* a stop: not counted */
        break;
    }
    atomic_store_explicit(&w->stats.in_event, 0, memory_order_relaxed);
    return rc;
}

/* ---- a failed event: the Lua error translated for the core's policy ---- */

/* The script's before_restart_event hook, from the client environment
 * env_ref (LUA_NOREF: the globals), given the error at top. */
struct restart_hook {
    struct l_thread *t;
    int env_ref, top;
};

static int call_restart_hook(void *ctx)
{
    struct restart_hook *h = ctx;
    return l_call_hook(h->t, h->env_ref, "before_restart_event", h->top, NULL) < 0 ? -1 : 0;
}

int l_event_error(struct l_thread *t, int env_ref, int *retries)
{
    lua_State *L = t->L;
    int top = lua_gettop(L);
    struct sb_event_error e = {0};
    /* sysbench's restart: a table raised with errcode ==
     * sysbench.error.RESTART_EVENT (an SQL error gets it where it is
     * raised when it is ignorable, l_sql.c); a table with give_up = true
     * fails the event now (core/event.h); anything else is fatal */
    if (lua_istable(L, top)) {
        lua_getfield(L, top, "errcode");
        e.restart = lua_isinteger(L, -1) && lua_tointeger(L, -1) == L_RESTART_EVENT;
        lua_getfield(L, top, "give_up"); /* sbench's: count the event failed now */
        e.give_up = lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    if (l_is_sql_error(L, top)) {
        e.sql = 1;
        lua_getfield(L, top, "status");
        lua_getfield(L, top, "sql_state");
        lua_getfield(L, top, "sql_errno");
        e.status = (int)lua_tointeger(L, -3);
        e.sqlstate = lua_tostring(L, -2); /* stays on the stack while used */
        e.native = (long)lua_tointeger(L, -1);
        e.conn = l_error_connection(L, top);
    }
    struct restart_hook h = {t, env_ref, top};
    int r = sb_event_failed(t->w, &e, retries, call_restart_hook, &h);
    lua_settop(L, top);
    if (!e.restart && !e.give_up)
        l_take_error(t); /* the error's text is the worker's error; pops it */
    else
        lua_settop(L, top - 1);
    return r;
}
