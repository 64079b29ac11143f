/*
 * The one-client event loop of a worker (script_ops.run_events) and the
 * restart rules every event follows when it raises an error (also used by
 * client coroutines, l_client.c).
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
#include <time.h>

#include "../core/options.h"
#include "l_internal.h"

#define EVENT_IDX 2

int l_worker_init(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    if (l_call_global(w, "thread_init") < 0)
        return -1;
    lua_settop(t->L, t->traceback_idx);
    if (lua_getglobal(t->L, "event") != LUA_TFUNCTION) {
        lua_pop(t->L, 1);
        snprintf(w->error, sizeof w->error, "%s defines no event() function", w->run->script);
        return -1;
    }
    return 0;
}

int l_worker_done(struct sb_worker *w)
{
    return l_call_global(w, "thread_done") < 0 ? -1 : 0;
}

/* Runs events until the run is over (returns), or until one raises an
 * error (which unwinds to run_events).  Under lua_pcall, with the event
 * function as its argument. */
static int batch(lua_State *L)
{
    struct l_thread *t = l_thread(L);
    struct sb_worker *w = t->w;
    int64_t now = sb_now_ns();
    t->in_event = 1;
    while (sb_event_next(w, now, &t->ev)) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 0);
        if (t->npipe_conns > 0 && l_sql_pipe_pending(L))
            l_sql_pipe_sync(L); /* --pipeline: the event ends when every answer is in */
        now = sb_now_ns();
        sb_event_close(w, &t->ev, now);
    }
    return 0;
}

int l_run_events(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
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

/* ---- restart rules ---- */

/* 1 if the SQL error at idx has a SQLSTATE in the comma list. */
static int sqlstate_listed(lua_State *L, int idx, const char *list)
{
    if (list == NULL || *list == 0)
        return 0;
    lua_getfield(L, idx, "sql_state");
    size_t n;
    const char *st = lua_tolstring(L, -1, &n);
    int found = 0;
    if (st && n == 5) {
        for (const char *p = list; (p = strstr(p, st)) != NULL; p += 5)
            if ((p == list || p[-1] == ',') && (p[5] == 0 || p[5] == ','))
                found = 1;
    }
    lua_pop(L, 1);
    return found;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Reconnects c with a bounded backoff.  Returns SBD_OK or the last error. */
static int reconnect(struct sb_worker *w, struct sb_conn *c)
{
    int delay = 10;
    int rc = SBD_CONN_LOST;
    for (int attempt = 0; attempt < 20; attempt++) {
        rc = sb_conn_reconnect(c, 1);
        if (rc == SBD_OK)
            return rc;
        if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            return rc;
        sleep_ms(delay);
        delay = delay * 2 > 1000 ? 1000 : delay * 2;
    }
    return rc;
}

/* Counts the SQL error at idx in w's error table. */
static void count_error(struct l_thread *t, int idx, int status, int fatal)
{
    lua_State *L = t->L;
    lua_getfield(L, idx, "sql_state");
    lua_getfield(L, idx, "sql_errno");
    sb_stats_count_error(&t->w->stats, lua_tostring(L, -2), (long)lua_tointeger(L, -1), status,
                         fatal);
    lua_pop(L, 2);
}

/* An ignorable error: the connection it came from rolled back, or
 * reconnected when it was lost.  SB_EVENT_RESTART, or the outcome that
 * ends the event. */
static int recover(struct l_thread *t, int top, int status)
{
    struct sb_worker *w = t->w;
    lua_State *L = t->L;
    struct sb_conn *c = l_error_connection(L, top);
    if (c && status != SBD_CONN_LOST &&
        sb_conn_run(c, sb_req_txn(SB_TXN_ROLLBACK)) == SBD_CONN_LOST)
        status = SBD_CONN_LOST;
    if (c == NULL || status != SBD_CONN_LOST)
        return SB_EVENT_RESTART;
    if (!sb_opt_bool(w->run->opts, "db-reconnect")) {
        snprintf(w->error, sizeof w->error,
                 "lost the connection (%s) and --db-reconnect=off: stopping", c->err.message);
        return SB_EVENT_FATAL;
    }
    if (reconnect(w, c) != SBD_OK) {
        if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            return SB_EVENT_STOP;
        snprintf(w->error, sizeof w->error, "lost the connection and could not reconnect: %s",
                 c->err.message);
        return SB_EVENT_FATAL;
    }
    return SB_EVENT_RESTART;
}

int l_event_error(struct l_thread *t, int env_ref, int *retries)
{
    lua_State *L = t->L;
    struct sb_worker *w = t->w;
    struct sb_run *run = w->run;
    int top = lua_gettop(L);
    if (lua_touserdata(L, top) == &l_restart_marker) {
        lua_pop(L, 1);
        SB_ADD(w->stats.ignored_errors, 1);
        if (atomic_load_explicit(&run->stop, memory_order_relaxed))
            return SB_EVENT_STOP;
        return SB_EVENT_RESTART;
    }
    if (!l_is_sql_error(L, top)) {
        l_take_error(t);
        return SB_EVENT_FATAL;
    }
    lua_getfield(L, top, "status");
    int status = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    int absent = 1;
    int ignorable = l_call_hook(t, env_ref, "sql_error_ignorable", top, &absent);
    if (ignorable < 0)
        return SB_EVENT_FATAL;
    if (absent)
        ignorable = status == SBD_RETRY || status == SBD_CONN_LOST ||
                    sqlstate_listed(L, top, sb_opt_str(run->opts, "db-ignore-sqlstates"));
    if (!ignorable) {
        count_error(t, top, status, 1);
        l_take_error(t);
        return SB_EVENT_FATAL;
    }
    count_error(t, top, status, 0);
    int r = recover(t, top, status);
    if (r != SB_EVENT_RESTART) {
        lua_settop(L, top - 1);
        return r;
    }
    SB_ADD(w->stats.ignored_errors, 1);
    if (l_call_hook(t, env_ref, "before_restart_event", top, NULL) < 0)
        return SB_EVENT_FATAL;
    lua_settop(L, top - 1);
    if (atomic_load_explicit(&run->stop, memory_order_relaxed))
        return SB_EVENT_STOP;
    (*retries)++;
    if (run->max_retries > 0 && *retries > run->max_retries) {
        SB_ADD(w->stats.failed_events, 1);
        return SB_EVENT_FAILED;
    }
    return SB_EVENT_RESTART;
}
