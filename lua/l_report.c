/*
 * Reports seen from Lua: the sysbench 1.0 report hooks
 * (sbench.hooks.report_intermediate / report_cumulative, called on the
 * control state with a stat table), the built-in reporters a hook can call
 * (sbench.report_default, report_csv, report_json: one per report format
 * of core/report.c, which writes the line), and
 * sbench.histogram.new() for scripts that keep their own latency
 * distribution.  The stat table also carries the event types' counts
 * (stat.types), and sbench.hooks.report_extra(stat) is called after the
 * final text report to add lines to it.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/histogram.h"
#include "../core/report.h"
#include "l_internal.h"

#define HIST_MT "sbench.histogram"

/* ---- the stat table ---- */

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

/* SBK's percentiles, always in stat.kinds (with --percentiles). */
static const double kind_pcts[] = {10, 25, 50, 75, 90, 95, 99, 99.9, 99.99};

static void set_pct(lua_State *L, const sb_histogram *h, double p)
{
    char key[32];
    snprintf(key, sizeof key, "%g", p);
    lua_pushnumber(L, (double)sb_histogram_percentile(h, p) / 1e6);
    lua_setfield(L, -2, key);
}

/* stat.kinds: for each statement kind that ran in the window, its count
 * and latency in ms (min, avg, max, and percentiles keyed "10" ... "99.99"
 * and by the --percentiles list).  sbench's addition to sysbench's table,
 * for scripts that report per kind (workloads/sbk.lua). */
static void push_kinds(lua_State *L, const struct sb_report *r)
{
    lua_createtable(L, 0, SB_Q_NKINDS);
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        const sb_histogram *h = r->kind[k];
        if (h == NULL || r->d.queries[k] == 0 || sb_histogram_count(h) == 0)
            continue;
        lua_createtable(L, 0, 5);
        set_int(L, "count", r->d.queries[k]);
        set_num(L, "min", (double)sb_histogram_min(h) / 1e6);
        set_num(L, "avg", sb_histogram_mean(h) / 1e6);
        set_num(L, "max", (double)sb_histogram_max(h) / 1e6);
        lua_createtable(L, 0, 12);
        for (size_t i = 0; i < sizeof kind_pcts / sizeof kind_pcts[0]; i++)
            set_pct(L, h, kind_pcts[i]);
        for (int i = 0; i < r->npercentiles; i++)
            set_pct(L, h, r->percentiles[i]);
        lua_setfield(L, -2, "percentiles");
        lua_setfield(L, -2, sb_qkind_names[k]);
    }
    lua_setfield(L, -2, "kinds");
}

/* sbench's additions for pgbench's report (workloads/pgbench.lua), in
 * seconds: latency_stddev; connects and connect_time (their total open
 * time); late (events over --latency-limit) and latency_limit; failed
 * and retried (events), failed_by_sqlstate[state] = events; with
 * --rate, lag_avg and lag_max (schedule lag); named[name] = {count, avg,
 * stddev} of the statements the workload named (con:prepare(sql, name));
 * in a window's report, named[name] = {count} in the window. */
static void push_pgbench_fields(lua_State *L, const struct sb_report *r)
{
    int has = r->latency && sb_histogram_count(r->latency) > 0;
    set_num(L, "latency_stddev", has ? sb_histogram_stddev(r->latency) / 1e9 : 0);
    set_int(L, "connects", r->d.connects);
    set_num(L, "connect_time", (double)r->d.connect_ns / 1e9);
    set_int(L, "late", r->d.late_events);
    set_int(L, "failed", r->d.failed_events);
    set_int(L, "retried", r->d.retried_events);
    lua_createtable(L, 0, 2); /* failures (not retried) by SQLSTATE */
    for (int i = 0; i < r->d.nerrors; i++) {
        if (r->d.errors[i].fatal == 0 || r->d.errors[i].sqlstate[0] == '\0')
            continue;
        const char *state = r->d.errors[i].sqlstate;
        lua_Integer before = lua_getfield(L, -1, state) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        lua_pushinteger(L, before + (lua_Integer)r->d.errors[i].fatal);
        lua_setfield(L, -2, state);
    }
    lua_setfield(L, -2, "failed_by_sqlstate");
    set_num(L, "latency_limit", r->latency_limit_ms / 1e3);
    if (r->lag && sb_histogram_count(r->lag) > 0) {
        set_num(L, "lag_avg", sb_histogram_mean(r->lag) / 1e9);
        set_num(L, "lag_max", (double)sb_histogram_max(r->lag) / 1e9);
    }
    lua_createtable(L, 0, r->nnamed + r->window_nnamed);
    for (int i = 0; i < r->window_nnamed; i++) { /* a window: its counts */
        lua_createtable(L, 0, 1);
        set_int(L, "count", r->window_named_count[i]);
        lua_setfield(L, -2, r->window_named_name[i]);
    }
    for (int i = 0; i < r->nnamed; i++) {
        const sb_histogram *h = r->named_latency[i];
        int hn = h && sb_histogram_count(h) > 0;
        lua_createtable(L, 0, 3);
        set_int(L, "count", r->named_count[i]);
        set_num(L, "avg", hn ? sb_histogram_mean(h) / 1e9 : 0);
        set_num(L, "stddev", hn ? sb_histogram_stddev(h) / 1e9 : 0);
        lua_setfield(L, -2, r->named_name[i]);
    }
    lua_setfield(L, -2, "named");
}

/* Pushes the stat table sysbench 1.0 hooks receive. */
static void push_stat(lua_State *L, const struct sb_report *r)
{
    struct sb_report_stat st = sb_report_stat_of(r);
    lua_createtable(L, 0, 14);
    set_num(L, "time_interval", st.time_interval);
    set_num(L, "time_total", st.time_total);
    set_int(L, "threads_running", (uint64_t)st.threads_running);
    set_int(L, "events", (uint64_t)st.events);
    set_int(L, "reads", (uint64_t)st.reads);
    set_int(L, "writes", (uint64_t)st.writes);
    set_int(L, "other", (uint64_t)st.other);
    set_int(L, "errors", (uint64_t)st.errors);
    set_int(L, "reconnects", (uint64_t)st.reconnects);
    set_int(L, "queue_length", 0);
    set_int(L, "concurrency", 0);
    set_num(L, "latency_pct", st.latency_pct);
    set_num(L, "latency_min", st.latency_min);
    set_num(L, "latency_avg", st.latency_avg);
    set_num(L, "latency_max", st.latency_max);
    set_num(L, "latency_sum", st.latency_sum);
    push_kinds(L, r);
    push_pgbench_fields(L, r);
    /* stat.types[name] = {count, retries, failed, units, latency_min, latency_avg,
     * latency_stddev, latency_pct, latency_max, percentiles = {["10"] .. ["99.99"]}}
     * (sbench.event_type; ms) */
    lua_createtable(L, 0, r->ntypes);
    for (int ty = 0; ty < r->ntypes; ty++) {
        const sb_histogram *h = r->type_latency[ty];
        int has = h && sb_histogram_count(h) > 0;
        lua_createtable(L, 0, 9);
        set_int(L, "count", r->d.type_count[ty]);
        set_num(L, "latency_min", has ? (double)sb_histogram_min(h) / 1e6 : 0);
        set_int(L, "retries", r->d.type_retries[ty]);
        set_int(L, "failed", r->d.type_failed[ty]);
        set_int(L, "units", r->d.type_units[ty]);
        set_num(L, "latency_avg", has ? sb_histogram_mean(h) / 1e6 : 0);
        set_num(L, "latency_stddev", has ? sb_histogram_stddev(h) / 1e6 : 0);
        set_num(L, "latency_pct",
                has && st.percentile > 0 ? (double)sb_histogram_percentile(h, st.percentile) / 1e6 : 0);
        set_num(L, "latency_max", has ? (double)sb_histogram_max(h) / 1e6 : 0);
        if (has) { /* SBK's percentiles, as stat.kinds has them */
            lua_createtable(L, 0, 9);
            for (size_t i = 0; i < sizeof kind_pcts / sizeof kind_pcts[0]; i++)
                set_pct(L, h, kind_pcts[i]);
            lua_setfield(L, -2, "percentiles");
        }
        lua_setfield(L, -2, r->type_name[ty]);
    }
    lua_setfield(L, -2, "types");
}

int l_report_hook(struct sb_worker *w, const char *hook, const struct sb_report *r)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    int top = lua_gettop(L);
    lua_getglobal(L, "sbench");
    if (!lua_istable(L, -1) || lua_getfield(L, -1, "hooks") != LUA_TTABLE ||
        lua_getfield(L, -1, hook) != LUA_TFUNCTION) {
        lua_settop(L, top);
        return 0;
    }
    push_stat(L, r);
    if (strcmp(hook, "report_cumulative") == 0) { /* as sysbench: the threads are done */
        lua_pushinteger(L, 0);
        lua_setfield(L, -2, "threads_running");
    }
    if (lua_pcall(L, 1, 0, t->traceback_idx) != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        snprintf(w->error, sizeof w->error, "%s", m ? m : "error in a report hook");
        lua_settop(L, top);
        return -1;
    }
    lua_settop(L, top);
    return 1;
}

/* ---- built-in reporters: one per report format (core/report.c) ---- */

static double field(lua_State *L, const char *k)
{
    lua_getfield(L, 1, k);
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* A reporter's state in one Lua state: its format and how many reports it
 * wrote; when the state closes (the end of the run), what ends the output
 * (sysbench's report_json closes its array then). */
struct reporter {
    const struct sb_report_format *fmt;
    int n;
};

static int reporter_gc(lua_State *L)
{
    struct reporter *rp = lua_touserdata(L, 1);
    if (rp->n > 0 && rp->fmt->hook_end)
        rp->fmt->hook_end(stdout);
    rp->n = 0;
    return 0;
}

/* sbench.report_<format>(stat): the format's report of a stat table
 * (upvalue 1: its struct reporter). */
static int report_line(lua_State *L)
{
    struct reporter *rp = lua_touserdata(L, lua_upvalueindex(1));
    const struct sb_report_format *fmt = rp->fmt;
    luaL_checktype(L, 1, LUA_TTABLE);
    struct sb_report_stat st = {
        .time_interval = field(L, "time_interval"),
        .time_total = field(L, "time_total"),
        .threads_running = field(L, "threads_running"),
        .events = field(L, "events"),
        .reads = field(L, "reads"),
        .writes = field(L, "writes"),
        .other = field(L, "other"),
        .errors = field(L, "errors"),
        .reconnects = field(L, "reconnects"),
        .latency_pct = field(L, "latency_pct"),
        .latency_min = field(L, "latency_min"),
        .latency_avg = field(L, "latency_avg"),
        .latency_max = field(L, "latency_max"),
        .latency_sum = field(L, "latency_sum"),
        .percentile = l_worker(L)->run->percentile,
    };
    fmt->hook_line(stdout, &st, rp->n++);
    return 0;
}

/* ---- sbench.histogram ---- */

static sb_histogram **check_hist(lua_State *L)
{
    return luaL_checkudata(L, 1, HIST_MT);
}

/* sbench.histogram.new([precision]): values are milliseconds (as
 * sysbench's), kept in ns from 1 us to 1 h; or sysbench's
 * new(size, range_min, range_max): values from range_min to range_max. */
static int hist_new(lua_State *L)
{
    double precision = 0.01;
    int64_t lowest = 1000, highest = 3600LL * 1000000000LL;
    if (lua_gettop(L) >= 3) {
        /* sysbench's form: new(size, range_min, range_max), values in the
         * caller's unit (kept as if milliseconds, like ours) */
        double mn = luaL_checknumber(L, 2), mx = luaL_checknumber(L, 3);
        luaL_argcheck(L, mx > mn && mx * 1e6 < 9e18, 3, "need range_min < range_max");
        lowest = mn * 1e6 >= 1 ? (int64_t)(mn * 1e6) : 1;
        highest = (int64_t)(mx * 1e6);
        if (highest < 2 * lowest)
            highest = 2 * lowest;
    } else {
        precision = luaL_optnumber(L, 1, 0.01);
    }
    sb_histogram **h = lua_newuserdatauv(L, sizeof *h, 0);
    *h = NULL;
    luaL_setmetatable(L, HIST_MT);
    *h = sb_histogram_create(lowest, highest, precision);
    if (*h == NULL)
        return luaL_error(L, "histogram.new: bad precision or out of memory");
    return 1;
}

static int hist_update(lua_State *L)
{
    sb_histogram **h = check_hist(L);
    sb_histogram_record(*h, (int64_t)(luaL_checknumber(L, 2) * 1e6));
    return 0;
}

static int hist_percentile(lua_State *L)
{
    sb_histogram **h = check_hist(L);
    lua_pushnumber(L, (double)sb_histogram_percentile(*h, luaL_checknumber(L, 2)) / 1e6);
    return 1;
}

static int hist_count(lua_State *L)
{
    sb_histogram **h = check_hist(L);
    lua_pushinteger(L, (lua_Integer)sb_histogram_count(*h));
    return 1;
}

static int hist_print(lua_State *L)
{
    sb_histogram **h = check_hist(L);
    sb_report_histogram_text(stdout, *h);
    return 0;
}

static int hist_gc(lua_State *L)
{
    sb_histogram **h = check_hist(L);
    sb_histogram_destroy(*h);
    *h = NULL;
    return 0;
}

/* ---- timed steps of the workload's own (pgbench -r) ---- */

/* sbench.clock_ns() -> the monotonic clock in ns (an integer). */
static int clock_ns(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)sb_now_ns());
    return 1;
}

/* sbench.named_slot(name) -> the slot of the named statement `name` in
 * this worker's statistics, created if new (at thread_init: it allocates
 * the slot's histogram once); raises when the table is full. */
static int named_slot(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    struct l_thread *t = l_thread(L);
    if (t == NULL || t->w == NULL)
        return luaL_error(L, "sbench.named_slot: only in a worker (thread_init, event)");
    int slot = sb_stats_named_slot(&t->w->stats, name);
    if (slot < 0)
        return luaL_error(L, "sbench.named_slot(\"%s\"): at most %d named statements",
                          name, SB_MAX_NAMED);
    lua_pushinteger(L, slot);
    return 1;
}

/* sbench.named_record(slot, ns): one run of named slot `slot` that took
 * ns nanoseconds, counted as a named statement's (no allocation). */
static int named_record(lua_State *L)
{
    lua_Integer slot = luaL_checkinteger(L, 1);
    lua_Integer ns = luaL_checkinteger(L, 2);
    struct l_thread *t = l_thread(L);
    if (t == NULL || t->w == NULL || slot < 0 ||
        slot >= atomic_load_explicit(&t->w->stats.nnamed, memory_order_relaxed))
        return luaL_error(L, "sbench.named_record: no slot %d", (int)slot);
    struct sb_named_stat *ns_stat = &t->w->stats.named[slot];
    sb_histogram_record(ns_stat->latency, ns);
    SB_ADD(ns_stat->count, 1);
    return 0;
}

void l_open_report(lua_State *L)
{
    static const luaL_Reg hm[] = {{"update", hist_update}, {"percentile", hist_percentile},
                                  {"count", hist_count}, {"print", hist_print}, {NULL, NULL}};
    luaL_newmetatable(L, HIST_MT);
    lua_newtable(L);
    luaL_setfuncs(L, hm, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, hist_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    /* on the sbench table (top of the stack) */
    lua_newtable(L);
    lua_pushcfunction(L, hist_new);
    lua_setfield(L, -2, "new");
    lua_setfield(L, -2, "histogram");
    lua_pushcfunction(L, clock_ns);
    lua_setfield(L, -2, "clock_ns");
    lua_pushcfunction(L, named_slot);
    lua_setfield(L, -2, "named_slot");
    lua_pushcfunction(L, named_record);
    lua_setfield(L, -2, "named_record");
    l_open_txlog(L);
    for (int i = 0; sb_report_formats[i]; i++) {
        const struct sb_report_format *fmt = sb_report_formats[i];
        if (fmt->hook_line == NULL)
            continue;
        struct reporter *rp = lua_newuserdatauv(L, sizeof *rp, 0);
        rp->fmt = fmt;
        rp->n = 0;
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, reporter_gc);
        lua_setfield(L, -2, "__gc");
        lua_setmetatable(L, -2);
        lua_pushcclosure(L, report_line, 1);
        lua_setfield(L, -2, fmt->hook_name);
    }
}
