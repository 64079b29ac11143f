/*
 * The `ffi` of scripts written for sysbench's LuaJIT, as far as it can be
 * given faithfully without LuaJIT's FFI: the global `ffi` (sysbench makes
 * it one) and require("ffi"); ffi.cdef accepts any declaration and does
 * nothing; ffi.C holds the C functions sysbench 1.0.20 exports that
 * scripts call, with the same results, and the enum constants of its
 * cdefs:
 *
 *   sb_counter_inc(tid, type)   SB_CNT_READ/WRITE/OTHER count as read,
 *                               write (as an update), other queries;
 *                               SB_CNT_TRX as an event (sysbench 1.0.20's
 *                               value 3 is its event counter); SB_CNT_ERROR
 *                               as an ignored error; SB_CNT_RECONNECT as a
 *                               reconnect.  Always the calling thread's
 *                               counters: tid is not used.
 *   sb_rand_default/uniform/gaussian/special/pareto/unique/
 *   uniform_double/uniform_uint64   sbench.rand's functions
 *   usleep(us)                  sleeps (scripts declare it themselves)
 *
 * A number given for a C integer parameter is truncated, as LuaJIT's FFI
 * converts it (l_luajit_int).  Every other name sysbench declares (db_*,
 * sb_event_*, sb_histogram_*, sb_rand_str, ...) and any other symbol
 * raises, when the script reads it (when LuaJIT would also fail), one line
 * that says what to use instead; so do ffi.new, ffi.cast and the rest of
 * LuaJIT's FFI when called.
 */
#include <lauxlib.h>
#include <lua.h>

#include <string.h>
#include <time.h>

#include "../core/stats.h"
#include "l_internal.h"

#define NO_FFI "sbench runs Lua 5.4, which has no LuaJIT FFI"

lua_Integer l_luajit_int(lua_State *L, int i)
{
    int ok;
    lua_Integer v = lua_tointegerx(L, i, &ok);
    if (ok)
        return v;
    lua_Number n = lua_tonumberx(L, i, &ok);
    if (ok && n > -9223372036854775808.0 && n < 9223372036854775808.0)
        return (lua_Integer)n;             /* truncation toward zero */
    return luaL_checkinteger(L, i);        /* raises Lua's own message */
}

static int f_cdef(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TSTRING);
    return 0;
}

static int f_usleep(lua_State *L)
{
    lua_Integer us = l_luajit_int(L, 1);
    if (us > 0) {
        struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    lua_pushinteger(L, 0);
    return 1;
}

/* sysbench 1.0.20's sb_counter_type, as its Lua cdef names it. */
enum { CNT_OTHER, CNT_READ, CNT_WRITE, CNT_TRX, CNT_ERROR, CNT_RECONNECT, CNT_MAX };

static int f_counter_inc(lua_State *L)
{
    (void)l_luajit_int(L, 1);              /* thread id: this thread's own */
    lua_Integer type = l_luajit_int(L, 2);
    struct sb_thread_stats *st = &l_worker(L)->stats;
    switch (type) {
    case CNT_OTHER: SB_ADD(st->queries[SB_Q_OTHER], 1); SB_ADD(st->script_queries[SB_Q_OTHER], 1); break;
    case CNT_READ: SB_ADD(st->queries[SB_Q_SELECT], 1); SB_ADD(st->script_queries[SB_Q_SELECT], 1); break;
    case CNT_WRITE: SB_ADD(st->queries[SB_Q_UPDATE], 1); SB_ADD(st->script_queries[SB_Q_UPDATE], 1); break;
    case CNT_TRX: SB_ADD(st->events, 1); SB_ADD(st->script_events, 1); break;
    case CNT_ERROR: SB_ADD(st->ignored_errors, 1); break;
    case CNT_RECONNECT: SB_ADD(st->reconnects, 1); break;
    case 6: case 7: break;                 /* bytes read/written: not reported */
    default: return luaL_argerror(L, 2, "not an sb_counter_type (0..7)");
    }
    return 0;
}

/* What to use instead of a symbol of ffi.C that is not provided. */
static const char *instead(const char *name)
{
    static const struct { const char *prefix, *hint; } h[] = {
        {"db_", "use sysbench.sql (sysbench.sql.driver():connect(), con:query(), ...)"},
        {"sb_histogram_", "use sysbench.histogram.new()"},
        {"sb_rand_str", "use sysbench.rand.string(template)"},
        {"sb_lua_set_test_args", "set sysbench.cmdline.options"},
        {"sb_print_test_options", "run `sbench SCRIPT help`"},
        {"sb_counter_val", "read the counters in a report hook (sysbench.hooks.report_*)"},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        if (strncmp(name, h[i].prefix, strlen(h[i].prefix)) == 0)
            return h[i].hint;
    return "ffi.C has only sysbench's sb_counter_inc, sb_rand_*, sb_more_events, "
           "sb_event_start, sb_event_stop and usleep";
}

/* ffi.C's __index: any name not provided. */
static int c_missing(lua_State *L)
{
    const char *name = lua_tostring(L, 2);
    name = name ? name : "?";
    return luaL_error(L, "ffi.C.%s is not available in sbench (" NO_FFI "): %s", name,
                      instead(name));
}

/* ffi.new, ffi.cast, ...: raise when called. */
static int f_missing(lua_State *L)
{
    return luaL_error(L, "ffi.%s() is not available in sbench (" NO_FFI
                      "; ffi.cdef is accepted and ignored, ffi.C has sysbench's "
                      "sb_counter_inc, sb_rand_*, the event loop's calls and usleep)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

static void set_int(lua_State *L, const char *name, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, name);
}

/* ffi.C on top of the stack: sbench.rand's functions and the event loop's
 * calls (a script's own thread_run counts its events with them) under
 * sysbench's C names, and the enum constants of sysbench's cdefs. */
static void fill_c(lua_State *L)
{
    static const char *const loop[][2] = {
        {"sb_more_events", "more_events"}, {"sb_event_start", "event_start"},
        {"sb_event_stop", "event_stop"}};
    static const char *const rand[][2] = {
        {"sb_rand_default", "default"}, {"sb_rand_uniform", "uniform"},
        {"sb_rand_gaussian", "gaussian"}, {"sb_rand_special", "special"},
        {"sb_rand_pareto", "pareto"}, {"sb_rand_unique", "unique"},
        {"sb_rand_uniform_double", "uniform_double"},
        {"sb_rand_uniform_uint64", "uniform_uint64"}};
    static const char *const cnt[] = {"SB_CNT_OTHER", "SB_CNT_READ", "SB_CNT_WRITE",
                                      "SB_CNT_TRX", "SB_CNT_ERROR", "SB_CNT_RECONNECT",
                                      "SB_CNT_MAX"};
    static const char *const arg[] = {"SB_ARG_TYPE_NULL", "SB_ARG_TYPE_BOOL", "SB_ARG_TYPE_INT",
                                      "SB_ARG_TYPE_SIZE", "SB_ARG_TYPE_DOUBLE",
                                      "SB_ARG_TYPE_STRING", "SB_ARG_TYPE_LIST",
                                      "SB_ARG_TYPE_FILE", "SB_ARG_TYPE_MAX"};
    static const char *const sqltype[] = {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT",
                                          "DOUBLE", "TIME", "DATE", "DATETIME",
                                          "TIMESTAMP", "CHAR", "VARCHAR"};
    lua_pushcfunction(L, f_counter_inc);
    lua_setfield(L, -2, "sb_counter_inc");
    lua_pushcfunction(L, f_usleep);
    lua_setfield(L, -2, "usleep");
    for (int i = 0; i < CNT_MAX + 1; i++)
        set_int(L, cnt[i], i);
    for (int i = 0; i < (int)(sizeof arg / sizeof arg[0]); i++)
        set_int(L, arg[i], i);
    set_int(L, "DB_ERROR_NONE", 0);
    set_int(L, "DB_ERROR_IGNORABLE", 1);
    set_int(L, "DB_ERROR_FATAL", 2);
    set_int(L, "SQL_TYPE_NONE", 0);

    lua_getglobal(L, "sbench");
    for (size_t i = 0; i < sizeof loop / sizeof loop[0]; i++) {
        lua_getfield(L, -1, loop[i][1]);
        lua_setfield(L, -3, loop[i][0]);
    }
    lua_getfield(L, -1, "rand");
    for (size_t i = 0; i < sizeof rand / sizeof rand[0]; i++) {
        if (lua_getfield(L, -1, rand[i][1]) != LUA_TNIL)
            lua_setfield(L, -4, rand[i][0]);
        else
            lua_pop(L, 1);
    }
    lua_getfield(L, -2, "sql");
    lua_getfield(L, -1, "type");
    for (size_t i = 0; i < sizeof sqltype / sizeof sqltype[0]; i++) {
        lua_getfield(L, -1, sqltype[i]);
        lua_pushfstring(L, "SQL_TYPE_%s", sqltype[i]);
        lua_insert(L, -2);
        lua_settable(L, -7);
    }
    lua_pop(L, 4);
}

static int open_ffi(lua_State *L)
{
    static const char *const missing[] = {"new", "cast", "typeof", "metatype", "gc", "sizeof",
                                          "alignof", "offsetof", "istype", "string", "copy",
                                          "fill", "errno", "abi", "load", "tonumber"};
    lua_newtable(L);
    lua_pushcfunction(L, f_cdef);
    lua_setfield(L, -2, "cdef");
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        lua_pushstring(L, missing[i]);
        lua_pushcclosure(L, f_missing, 1);
        lua_setfield(L, -2, missing[i]);
    }
    lua_pushliteral(L, "Linux");
    lua_setfield(L, -2, "os");
#if defined(__x86_64__)
    lua_pushliteral(L, "x64");
#elif defined(__aarch64__)
    lua_pushliteral(L, "arm64");
#elif defined(__i386__)
    lua_pushliteral(L, "x86");
#else
    lua_pushliteral(L, "unknown");
#endif
    lua_setfield(L, -2, "arch");
    lua_newtable(L);
    fill_c(L);
    lua_newtable(L);
    lua_pushcfunction(L, c_missing);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "C");
    return 1;
}

void l_open_ffi(lua_State *L)
{
    luaL_requiref(L, "ffi", open_ffi, 1); /* global `ffi`, as sysbench's, and require("ffi") */
    lua_pop(L, 1);
}
