/*
 * pgbench's transaction logs (pgbench -l), for workloads/pgbench.lua:
 * sbench.txlog.open(prefix, thread, aggregate_s) opens the log of one
 * worker thread, PREFIX.PID for thread 0 and PREFIX.PID.THREAD for the
 * others, as pgbench names them; log:tx(...) adds one transaction, either
 * as its own line (`client_id transaction_no time script_no time_epoch
 * time_us [retries]`) or, with aggregate_s > 0, into pgbench 15's
 * aggregated line per interval (`interval_start num_transactions
 * sum_latency sum_latency_2 min_latency max_latency sum_lag sum_lag_2
 * min_lag max_lag skipped retried retries serialization_failures
 * deadlock_failures`, microseconds).  Each worker writes its own file
 * through a fixed buffer of its own: no lock, no allocation per
 * transaction; the buffer is written when full, at log:close() and when
 * the state is closed (__gc), so an interrupted run loses nothing.
 */
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "l_internal.h"

#define TXLOG_MT "sbench.txlog"
#define TXLOG_KEY "sbench.txlog.open" /* registry: this state's open log */
#define TXLOG_BUF 65536

struct txlog {
    int fd;                /* -1 once closed */
    int users;             /* open() calls not yet closed (clients of the thread) */
    int64_t interval_us;   /* aggregate: interval length; 0 = one line per transaction */
    int64_t start_s;       /* aggregate: epoch second the current interval starts */
    uint64_t cnt, retried, retries, serialization, deadlock;
    double sum, sum2, min, max;
    size_t len;
    char buf[TXLOG_BUF];
};

static int64_t epoch_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Writes the buffer out; 0, or -1 with errno. */
static int flush_buf(struct txlog *g)
{
    size_t off = 0;
    while (off < g->len) {
        ssize_t n = write(g->fd, g->buf + off, g->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    g->len = 0;
    return 0;
}

/* Room for one line (at most 256 bytes), flushing first if needed. */
static int room(struct txlog *g)
{
    return g->len + 256 > sizeof g->buf ? flush_buf(g) : 0;
}

static void put_line(struct txlog *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(struct txlog *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g->buf + g->len, sizeof g->buf - g->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        g->len += (size_t)n;
}

/* The aggregated line of the current interval, then the next interval. */
static void write_interval(struct txlog *g)
{
    if (room(g) != 0)
        return;
    put_line(g, "%lld %llu %.0f %.0f %.0f %.0f 0 0 0 0 0 %llu %llu %llu %llu\n",
             (long long)g->start_s, (unsigned long long)g->cnt, g->sum, g->sum2,
             g->cnt ? g->min : 0, g->cnt ? g->max : 0, (unsigned long long)g->retried,
             (unsigned long long)g->retries, (unsigned long long)g->serialization,
             (unsigned long long)g->deadlock);
    g->start_s += g->interval_us / 1000000;
    g->cnt = g->retried = g->retries = g->serialization = g->deadlock = 0;
    g->sum = g->sum2 = g->min = g->max = 0;
}

static struct txlog *check_log(lua_State *L)
{
    struct txlog *g = luaL_checkudata(L, 1, TXLOG_MT);
    if (g->fd < 0)
        luaL_error(L, "txlog: the log is closed");
    return g;
}

/* log:tx(client_id, transaction_no, latency_ns, script_no, retries
 * [, failure]): retries < 0 leaves out that column (pgbench's
 * --max-tries=1); failure (a failed transaction) is "failed",
 * "serialization", "deadlock" or "other", written in place of the time,
 * and counted apart in the aggregated line. */
static int txlog_tx(lua_State *L)
{
    struct txlog *g = check_log(L);
    lua_Integer client = luaL_checkinteger(L, 2), txno = luaL_checkinteger(L, 3);
    int64_t lat_us = (int64_t)luaL_checkinteger(L, 4) / 1000;
    lua_Integer script = luaL_checkinteger(L, 5), retries = luaL_optinteger(L, 6, -1);
    const char *failure = luaL_optstring(L, 7, NULL);
    int64_t now = epoch_us();
    if (g->interval_us > 0) {
        while (now / 1000000 >= g->start_s + g->interval_us / 1000000)
            write_interval(g);
        if (retries > 0) {
            g->retried++;
            g->retries += (uint64_t)retries;
        }
        if (failure != NULL) { /* not among the transactions' latencies */
            if (strcmp(failure, "serialization") == 0)
                g->serialization++;
            else if (strcmp(failure, "deadlock") == 0)
                g->deadlock++;
            return 0;
        }
        double x = (double)lat_us;
        if (g->cnt == 0 || x < g->min) g->min = x;
        if (g->cnt == 0 || x > g->max) g->max = x;
        g->cnt++;
        g->sum += x;
        g->sum2 += x * x;
        return 0;
    }
    if (room(g) != 0)
        return luaL_error(L, "txlog: write failed: %s", strerror(errno));
    if (failure != NULL)
        put_line(g, "%lld %lld %s %lld %lld %lld", (long long)client, (long long)txno, failure,
                 (long long)script, (long long)(now / 1000000), (long long)(now % 1000000));
    if (failure != NULL)
        put_line(g, retries >= 0 ? " %lld\n" : "\n", (long long)retries);
    else if (retries >= 0)
        put_line(g, "%lld %lld %lld %lld %lld %lld %lld\n", (long long)client, (long long)txno,
                 (long long)lat_us, (long long)script, (long long)(now / 1000000),
                 (long long)(now % 1000000), (long long)retries);
    else
        put_line(g, "%lld %lld %lld %lld %lld %lld\n", (long long)client, (long long)txno,
                 (long long)lat_us, (long long)script, (long long)(now / 1000000),
                 (long long)(now % 1000000));
    return 0;
}

/* Writes what is left (the last interval) and closes the file; 0 or -1. */
static int finish(struct txlog *g)
{
    if (g->fd < 0)
        return 0;
    if (g->interval_us > 0)
        write_interval(g);
    int rc = flush_buf(g);
    if (close(g->fd) != 0)
        rc = -1;
    g->fd = -1;
    return rc;
}

/* log:close(): one user less; the last one writes out and closes. */
static int txlog_close(lua_State *L)
{
    struct txlog *g = luaL_checkudata(L, 1, TXLOG_MT);
    if (g->fd >= 0 && --g->users <= 0 && finish(g) != 0)
        return luaL_error(L, "txlog: writing the log failed: %s", strerror(errno));
    return 0;
}

static int txlog_gc(lua_State *L)
{
    finish(luaL_checkudata(L, 1, TXLOG_MT));
    return 0;
}

/* sbench.txlog.open(prefix, thread, aggregate_s) -> the log of this
 * worker (the same one for each of its clients; owned by the Lua state,
 * closed by the last log:close() or by the collector); raises naming the
 * file when it cannot be created. */
static int txlog_open(lua_State *L)
{
    const char *prefix = luaL_checkstring(L, 1);
    lua_Integer thread = luaL_checkinteger(L, 2);
    lua_Number agg = luaL_optnumber(L, 3, 0);
    if (lua_getfield(L, LUA_REGISTRYINDEX, TXLOG_KEY) == LUA_TUSERDATA) {
        struct txlog *g = luaL_checkudata(L, -1, TXLOG_MT);
        if (g->fd >= 0) {
            g->users++;
            return 1;
        }
    }
    lua_pop(L, 1);
    char path[4096];
    if (thread > 0)
        snprintf(path, sizeof path, "%s.%ld.%lld", prefix, (long)getpid(), (long long)thread);
    else
        snprintf(path, sizeof path, "%s.%ld", prefix, (long)getpid());
    struct txlog *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->fd = -1;
    luaL_setmetatable(L, TXLOG_MT);
    g->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (g->fd < 0)
        return luaL_error(L, "could not open the transaction log %s: %s", path, strerror(errno));
    g->users = 1;
    g->interval_us = agg > 0 ? (int64_t)agg * 1000000 : 0;
    g->start_s = epoch_us() / 1000000;
    g->cnt = g->retried = g->retries = g->serialization = g->deadlock = 0;
    g->sum = g->sum2 = g->min = g->max = 0;
    g->len = 0;
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, TXLOG_KEY);
    return 1;
}

void l_open_txlog(lua_State *L)
{
    static const luaL_Reg m[] = {{"tx", txlog_tx}, {"close", txlog_close}, {NULL, NULL}};
    luaL_newmetatable(L, TXLOG_MT);
    lua_newtable(L);
    luaL_setfuncs(L, m, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, txlog_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    /* sbench.txlog (the sbench table is on top of the stack) */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, txlog_open);
    lua_setfield(L, -2, "open");
    lua_setfield(L, -2, "txlog");
}
