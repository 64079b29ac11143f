/*
 * Reports seen from Lua: the sysbench 1.0 report hooks
 * (sbench.hooks.report_intermediate / report_cumulative, called on the
 * control state with a stat table), the built-in reporters a hook can call
 * (sbench.report_default, report_csv, report_json), and
 * sbench.histogram.new() for scripts that keep their own latency
 * distribution.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

#include "../core/histogram.h"
#include "../core/report.h"
#include "../core/run.h"
#include "l_internal.h"
#include "lua_env.h"

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

/* Pushes the stat table sysbench 1.0 hooks receive. */
static void push_stat(lua_State *L, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    lua_createtable(L, 0, 14);
    set_num(L, "time_interval", r->seconds);
    set_num(L, "time_total", r->elapsed);
    set_int(L, "threads_running", (uint64_t)r->threads);
    set_int(L, "events", d->events);
    set_int(L, "reads", sb_snap_reads(d));
    set_int(L, "writes", sb_snap_writes(d));
    set_int(L, "other", sb_snap_other(d));
    set_int(L, "errors", d->ignored_errors);
    set_int(L, "reconnects", d->reconnects);
    set_int(L, "queue_length", 0);
    set_int(L, "concurrency", 0);
    double pct = 0, mn = 0, avg = 0, mx = 0, sum = 0;
    if (r->latency && sb_histogram_count(r->latency) > 0) {
        if (r->percentile > 0)
            pct = (double)sb_histogram_percentile(r->latency, r->percentile) / 1e6;
        mn = (double)sb_histogram_min(r->latency) / 1e6;
        avg = sb_histogram_mean(r->latency) / 1e6;
        mx = (double)sb_histogram_max(r->latency) / 1e6;
        sum = (double)sb_histogram_sum(r->latency) / 1e6;
    }
    set_num(L, "latency_pct", pct);
    set_num(L, "latency_min", mn);
    set_num(L, "latency_avg", avg);
    set_num(L, "latency_max", mx);
    set_num(L, "latency_sum", sum);
}

int l_report_hook(struct sb_worker *w, const char *hook, const struct sb_report *r)
{
    lua_State *L = w->L;
    int top = lua_gettop(L);
    lua_getglobal(L, "sbench");
    if (!lua_istable(L, -1) || lua_getfield(L, -1, "hooks") != LUA_TTABLE ||
        lua_getfield(L, -1, hook) != LUA_TFUNCTION) {
        lua_settop(L, top);
        return 0;
    }
    push_stat(L, r);
    if (lua_pcall(L, 1, 0, w->traceback_idx) != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        snprintf(w->error, sizeof w->error, "%s", m ? m : "error in a report hook");
        lua_settop(L, top);
        return -1;
    }
    lua_settop(L, top);
    return 1;
}

/* ---- built-in reporters ---- */

static double field(lua_State *L, const char *k)
{
    lua_getfield(L, 1, k);
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static double rate(double n, double secs) { return secs > 0 ? n / secs : 0; }

static int report_default(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double s = field(L, "time_interval");
    double rd = field(L, "reads"), wr = field(L, "writes"), ot = field(L, "other");
    printf("[ %.0fs ] thds: %.0f tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,%g%%): %.2f "
           "err/s: %.2f reconn/s: %.2f\n",
           field(L, "time_total"), field(L, "threads_running"), rate(field(L, "events"), s),
           rate(rd + wr + ot, s), rate(rd, s), rate(wr, s), rate(ot, s),
           sb_current_run ? sb_current_run->percentile : 95.0, field(L, "latency_pct"),
           rate(field(L, "errors"), s), rate(field(L, "reconnects"), s));
    fflush(stdout);
    return 0;
}

static int report_csv(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double s = field(L, "time_interval");
    double rd = field(L, "reads"), wr = field(L, "writes"), ot = field(L, "other");
    printf("%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", field(L, "time_total"),
           field(L, "threads_running"), rate(field(L, "events"), s), rate(rd + wr + ot, s),
           rate(rd, s), rate(wr, s), rate(ot, s), field(L, "latency_pct"),
           rate(field(L, "errors"), s), rate(field(L, "reconnects"), s));
    fflush(stdout);
    return 0;
}

static int report_json(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double s = field(L, "time_interval");
    double rd = field(L, "reads"), wr = field(L, "writes"), ot = field(L, "other");
    printf("{\"time\":%.0f,\"threads\":%.0f,\"tps\":%.2f,\"qps\":{\"total\":%.2f,\"reads\":%.2f,"
           "\"writes\":%.2f,\"other\":%.2f},\"latency\":%.2f,\"errors\":%.2f,\"reconnects\":%.2f}\n",
           field(L, "time_total"), field(L, "threads_running"), rate(field(L, "events"), s),
           rate(rd + wr + ot, s), rate(rd, s), rate(wr, s), rate(ot, s), field(L, "latency_pct"),
           rate(field(L, "errors"), s), rate(field(L, "reconnects"), s));
    fflush(stdout);
    return 0;
}

/* ---- sbench.histogram ---- */

static sb_histogram **check_hist(lua_State *L)
{
    return luaL_checkudata(L, 1, HIST_MT);
}

/* sbench.histogram.new([precision]): values are milliseconds (as
 * sysbench's), kept in ns from 1 us to 1 h. */
static int hist_new(lua_State *L)
{
    double precision = luaL_optnumber(L, 1, 0.01);
    sb_histogram **h = lua_newuserdatauv(L, sizeof *h, 0);
    *h = NULL;
    luaL_setmetatable(L, HIST_MT);
    *h = sb_histogram_create(1000, 3600LL * 1000000000LL, precision);
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
    lua_pushcfunction(L, report_default);
    lua_setfield(L, -2, "report_default");
    lua_pushcfunction(L, report_csv);
    lua_setfield(L, -2, "report_csv");
    lua_pushcfunction(L, report_json);
    lua_setfield(L, -2, "report_json");
}
