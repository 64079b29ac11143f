/*
 * Worker Lua states: creation, script loading, protected calls with a
 * traceback, declared options and commands, and the event call with its
 * restart rules for ignorable SQL errors (see lua_env.h).
 *
 * Stack layout of a worker state while it runs: [1] the message handler,
 * [2] the event function (after l_event_prepare).
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/db.h"
#include "../core/options.h"
#include "../core/paths.h"
#include "../core/run.h"
#include "l_internal.h"
#include "lua_env.h"

#define EVENT_IDX 2

/* Message handler: adds a traceback to string errors; SQL error tables get
 * it as a field; the restart marker passes through. */
static int msgh(lua_State *L)
{
    if (lua_islightuserdata(L, 1))
        return 1;
    if (lua_istable(L, 1)) {
        luaL_traceback(L, L, NULL, 1);
        lua_setfield(L, 1, "traceback");
        lua_settop(L, 1);
        return 1;
    }
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Stores the error on top of the stack into w->error and pops it. */
static void take_error(struct sb_worker *w)
{
    lua_State *L = w->L;
    const char *msg;
    if (lua_istable(L, -1)) {
        luaL_tolstring(L, -1, NULL);
        lua_getfield(L, -2, "no_traceback");
        int plain = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -2, "traceback");
        if (lua_isstring(L, -1) && !plain) {
            lua_pushliteral(L, "\n");
            lua_insert(L, -2);
            lua_concat(L, 3);
        } else {
            lua_pop(L, 1);
        }
        msg = lua_tostring(L, -1);
        snprintf(w->error, sizeof w->error, "%s", msg ? msg : "?");
        lua_pop(L, 2);
        return;
    }
    msg = lua_tostring(L, -1);
    snprintf(w->error, sizeof w->error, "%s", msg ? msg : "(non-string error)");
    lua_pop(L, 1);
}

static void set_package_path(lua_State *L, const char *script)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *slash = strrchr(script, '/');
    if (slash) {
        luaL_addlstring(&b, script, (size_t)(slash - script));
        luaL_addstring(&b, "/?.lua;");
    } else {
        luaL_addstring(&b, "./?.lua;");
    }
    struct sb_dirs dirs;
    sb_workload_dirs(sb_opt_str(sb_current_run->opts, "workload-path"), &dirs);
    for (int i = 0; i < dirs.n; i++) {
        luaL_addstring(&b, dirs.dir[i]);
        luaL_addstring(&b, "/?.lua;");
    }
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    luaL_addstring(&b, lua_tostring(L, -1));
    lua_pop(L, 2);
    luaL_pushresult(&b);
    lua_getglobal(L, "package");
    lua_insert(L, -2);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

lua_State *l_state_create(struct sb_worker *w, int with_opts)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        snprintf(w->error, sizeof w->error, "cannot create a Lua state: out of memory");
        return NULL;
    }
    *(struct sb_worker **)lua_getextraspace(L) = w;
    w->L = L;
    luaL_openlibs(L);
    l_open_compat(L);
    l_open_sbench(L, w);
    if (with_opts)
        l_set_options(w);
    set_package_path(L, w->run->script);
    lua_pushcfunction(L, msgh);
    w->traceback_idx = lua_gettop(L);
    if (luaL_loadfile(L, w->run->script) != LUA_OK) {
        take_error(w);
        lua_close(L);
        w->L = NULL;
        return NULL;
    }
    if (lua_pcall(L, 0, 0, w->traceback_idx) != LUA_OK) {
        take_error(w);
        lua_close(L);
        w->L = NULL;
        return NULL;
    }
    return L;
}

int l_register_options(struct sb_worker *w, struct sb_options *o, char *err, size_t errlen)
{
    lua_State *L = w->L;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "cmdline");
    lua_getfield(L, -1, "options");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 3);
        return 0;
    }
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING || !lua_istable(L, -1)) {
            snprintf(err, errlen, "%s: sbench.cmdline.options entries must be name = {description, default}",
                     w->run->script);
            lua_pop(L, 5);
            return -1;
        }
        const char *name = lua_tostring(L, -2);
        lua_geti(L, -1, 1);
        const char *help = lua_tostring(L, -1);
        lua_geti(L, -2, 2);
        int kind = SB_OPT_STRING;
        char def[1024];
        const char *defp = def;
        long long mn = 0, mx = 0;
        switch (lua_type(L, -1)) {
        case LUA_TNUMBER:
            if (lua_isinteger(L, -1)) {
                kind = SB_OPT_INT;
                mn = 0;
                mx = LLONG_MAX / 4;
                snprintf(def, sizeof def, "%lld", (long long)lua_tointeger(L, -1));
            } else {
                kind = SB_OPT_NUMBER;
                mn = -1000000000000LL;
                mx = 1000000000000LL;
                snprintf(def, sizeof def, "%.17g", lua_tonumber(L, -1));
            }
            break;
        case LUA_TBOOLEAN:
            kind = SB_OPT_BOOL;
            snprintf(def, sizeof def, "%s", lua_toboolean(L, -1) ? "on" : "off");
            break;
        case LUA_TTABLE: {
            kind = SB_OPT_LIST;
            size_t used = 0;
            def[0] = 0;
            lua_Integer n = luaL_len(L, -1);
            for (lua_Integer i = 1; i <= n && used < sizeof def - 64; i++) {
                lua_geti(L, -1, i);
                used += (size_t)snprintf(def + used, sizeof def - used, "%s%s", i > 1 ? "," : "",
                                         lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
                lua_pop(L, 1);
            }
            break;
        }
        case LUA_TSTRING:
            snprintf(def, sizeof def, "%s", lua_tostring(L, -1));
            break;
        default:
            defp = NULL;
        }
        sb_options_add(o, name, kind, SB_SRC_WORKLOAD, defp, help ? help : "", NULL, mn, mx);
        lua_pop(L, 3);
    }
    lua_pop(L, 3);
    return 0;
}

int l_call_global(struct sb_worker *w, const char *name)
{
    lua_State *L = w->L;
    if (lua_getglobal(L, name) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 1;
    }
    if (lua_pcall(L, 0, 0, w->traceback_idx) != LUA_OK) {
        take_error(w);
        return -1;
    }
    return 0;
}

static int push_command(lua_State *L, const char *cmd)
{
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "cmdline");
    lua_getfield(L, -1, "commands");
    if (!lua_istable(L, -1) || lua_getfield(L, -1, cmd) != LUA_TTABLE) {
        lua_pop(L, lua_istable(L, -1) ? 4 : 3);
        return 0;
    }
    lua_replace(L, -4);
    lua_pop(L, 2);
    return 1;
}

int l_find_command(struct sb_worker *w, const char *cmd)
{
    lua_State *L = w->L;
    if (!push_command(L, cmd))
        return 0;
    lua_geti(L, -1, 2);
    int parallel = lua_tointeger(L, -1) == 2;
    lua_pop(L, 2);
    return parallel ? 2 : 1;
}

int l_call_command(struct sb_worker *w, const char *cmd)
{
    lua_State *L = w->L;
    if (!push_command(L, cmd))
        return 1;
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        snprintf(w->error, sizeof w->error, "command '%s' has no function", cmd);
        return -1;
    }
    if (lua_pcall(L, 0, 0, w->traceback_idx) != LUA_OK) {
        take_error(w);
        return -1;
    }
    return 0;
}

int l_has_hook(struct sb_worker *w, const char *name)
{
    lua_State *L = w->L;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "hooks");
    int t = lua_istable(L, -1) ? lua_getfield(L, -1, name) : LUA_TNIL;
    lua_pop(L, lua_istable(L, -2) ? 3 : 2);
    return t == LUA_TFUNCTION;
}

int l_event_prepare(struct sb_worker *w)
{
    lua_State *L = w->L;
    lua_settop(L, w->traceback_idx);
    if (lua_getglobal(L, "event") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        snprintf(w->error, sizeof w->error, "%s defines no event() function", w->run->script);
        return -1;
    }
    return 0;
}

/* Calls sbench.hooks[name](err at idx) if defined.  Returns 1 if it ran and
 * returned true, 0 if it ran and returned false or is absent (*absent set),
 * -1 on error. */
static int call_hook(struct sb_worker *w, int env_ref, const char *name, int idx, int *absent)
{
    lua_State *L = w->L;
    idx = lua_absindex(L, idx);
    if (env_ref == LUA_NOREF) {
        lua_getglobal(L, "sbench");
    } else { /* a client's own sbench table (its hooks) */
        lua_rawgeti(L, LUA_REGISTRYINDEX, env_ref);
        lua_getfield(L, -1, "sbench");
        lua_remove(L, -2);
    }
    lua_getfield(L, -1, "hooks");
    lua_remove(L, -2);
    if (!lua_istable(L, -1) || lua_getfield(L, -1, name) != LUA_TFUNCTION) {
        lua_pop(L, lua_istable(L, -1) ? 1 : 1);
        if (lua_gettop(L) > idx)
            lua_settop(L, idx);
        if (absent)
            *absent = 1;
        return 0;
    }
    lua_remove(L, -2);
    if (absent)
        *absent = 0;
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, w->traceback_idx) != LUA_OK) {
        take_error(w);
        return -1;
    }
    int r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
}

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
static void count_error(struct sb_worker *w, int idx, int status, int fatal)
{
    lua_State *L = w->L;
    lua_getfield(L, idx, "sql_state");
    lua_getfield(L, idx, "sql_errno");
    sb_stats_count_error(&w->stats, lua_tostring(L, -2), (long)lua_tointeger(L, -1), status, fatal);
    lua_pop(L, 2);
}

/* The event failed with the error on top of w->L: counts it and, when it
 * is ignorable, rolls back or reconnects and runs the restart hook (hooks
 * from the client environment env_ref, or the globals for LUA_NOREF).
 * Returns 0 to run the event again, 1 when a stop request cut it short, 2
 * when it failed after --max-retries (counted), -1 on a fatal error
 * (w->error set). */
static int event_error(struct sb_worker *w, int env_ref, int *retries)
{
    lua_State *L = w->L;
    struct sb_run *run = w->run;
    int top = lua_gettop(L);
    if (lua_touserdata(L, top) == &l_restart_marker) {
        lua_pop(L, 1);
        SB_ADD(w->stats.ignored_errors, 1);
        if (atomic_load_explicit(&run->stop, memory_order_relaxed))
            return 1;
        return 0;
    }
    if (!l_is_sql_error(L, top)) {
        take_error(w);
        return -1;
    }
    lua_getfield(L, top, "status");
    int status = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    int absent = 1;
    int ignorable = call_hook(w, env_ref, "sql_error_ignorable", top, &absent);
    if (ignorable < 0)
        return -1;
    if (absent)
        ignorable = status == SBD_RETRY || status == SBD_CONN_LOST ||
                    sqlstate_listed(L, top, sb_opt_str(run->opts, "db-ignore-sqlstates"));
    if (!ignorable) {
        count_error(w, top, status, 1);
        take_error(w);
        return -1;
    }
    count_error(w, top, status, 0);
    struct sb_conn *c = l_error_connection(L, top);
    if (c && status != SBD_CONN_LOST && sb_conn_run(c, sb_req_txn(SB_TXN_ROLLBACK)) == SBD_CONN_LOST)
        status = SBD_CONN_LOST;
    if (c && status == SBD_CONN_LOST) {
        if (!sb_opt_bool(run->opts, "db-reconnect")) {
            snprintf(w->error, sizeof w->error,
                     "lost the connection (%s) and --db-reconnect=off: stopping", c->err.message);
            lua_settop(L, top - 1);
            return -1;
        }
        if (reconnect(w, c) != SBD_OK) {
            lua_settop(L, top - 1);
            if (atomic_load_explicit(&run->stop, memory_order_relaxed))
                return 1;
            snprintf(w->error, sizeof w->error,
                     "lost the connection and could not reconnect: %s", c->err.message);
            return -1;
        }
    }
    SB_ADD(w->stats.ignored_errors, 1);
    if (call_hook(w, env_ref, "before_restart_event", top, NULL) < 0)
        return -1;
    lua_settop(L, top - 1);
    if (atomic_load_explicit(&run->stop, memory_order_relaxed))
        return 1;
    (*retries)++;
    if (run->max_retries > 0 && *retries > run->max_retries) {
        SB_ADD(w->stats.failed_events, 1);
        return 2;
    }
    return 0;
}

int l_event_run(struct sb_worker *w)
{
    lua_State *L = w->L;
    int retries = 0;
    for (;;) {
        lua_pushvalue(L, EVENT_IDX);
        w->in_event = 1;
        int st = lua_pcall(L, 0, 0, w->traceback_idx);
        if (st == LUA_OK && l_sql_pipe_pending(L)) {
            /* --pipeline: the event ends when every answer is in */
            lua_pushcfunction(L, l_sql_pipe_sync);
            st = lua_pcall(L, 0, 0, w->traceback_idx);
        }
        w->in_event = 0;
        if (st == LUA_OK) {
            if (retries > 0)
                SB_ADD(w->stats.retried_events, 1);
            return 0;
        }
        int r = event_error(w, LUA_NOREF, &retries);
        if (r != 0)
            return r;
    }
}

/* ---- client coroutines ---- */

/* Client chunks are compiled once per worker state and shared by its
 * clients.  A text chunk is compiled as the body of `function(_ENV, ...)`
 * and every client calls that function with its own environment: the
 * closures the clients make then share the function prototypes instead of
 * each client holding a compiled copy of the script and of oltp_common and
 * oltp_sql (about 40 KB a client, 40 MB for 1,000 clients).  The text is
 * prefixed on its first line, so line numbers and the chunk name are the
 * file's.  A precompiled (binary) chunk cannot be wrapped: each client
 * loads its own copy. */
static const char chunk_cache_key = 'c';

/* Pushes the shared function of the chunk in file path (call it with the
 * client's environment first), or nil for a binary chunk.  Returns
 * LUA_OK, or an error status with the message pushed (the file's own
 * syntax error, as luaL_loadfile reports it). */
static int push_shared_chunk(lua_State *L, const char *path)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &chunk_cache_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &chunk_cache_key);
    }
    int t = lua_getfield(L, -1, path);
    if (t == LUA_TFUNCTION || t == LUA_TBOOLEAN) {
        if (t == LUA_TBOOLEAN) { /* binary */
            lua_pop(L, 1);
            lua_pushnil(L);
        }
        lua_remove(L, -2);
        return LUA_OK;
    }
    lua_pop(L, 1);
    /* compiling the file as it is gives the syntax errors their usual text */
    int st = luaL_loadfilex(L, path, "bt");
    if (st != LUA_OK) {
        lua_remove(L, -2);
        return st;
    }
    lua_pop(L, 1);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        lua_pushfstring(L, "cannot open %s", path);
        lua_remove(L, -2);
        return LUA_ERRFILE;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n;
    do {
        char *p = luaL_prepbuffer(&b);
        n = fread(p, 1, LUAL_BUFFERSIZE, f);
        luaL_addsize(&b, n);
    } while (n == LUAL_BUFFERSIZE);
    int bad = ferror(f);
    fclose(f);
    luaL_pushresult(&b);
    if (bad) {
        lua_pop(L, 2);
        lua_pushfstring(L, "cannot read %s", path);
        return LUA_ERRFILE;
    }
    size_t len;
    const char *text = lua_tolstring(L, -1, &len), *end = text + len;
    /* what luaL_loadfile skips: a UTF-8 BOM, a first line starting with
     * '#' (its newline stays, for the line numbers) */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3;
    if (text < end && *text == '#') {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        text = nl ? nl : end;
    }
    if (text < end && *text == LUA_SIGNATURE[0]) { /* binary */
        lua_pop(L, 1);
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, path);
        lua_pop(L, 1);
        lua_pushnil(L);
        return LUA_OK;
    }
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "return function(_ENV, ...) ");
    luaL_addlstring(&b, text, (size_t)(end - text));
    luaL_addstring(&b, "\nend");
    luaL_pushresult(&b);
    lua_remove(L, -2); /* the file's text */
    const char *src = lua_tolstring(L, -1, &len);
    lua_pushfstring(L, "@%s", path);
    st = luaL_loadbufferx(L, src, len, lua_tostring(L, -1), "t");
    if (st == LUA_OK)
        st = lua_pcall(L, 0, 1, 0);
    lua_remove(L, -2); /* chunk name */
    lua_remove(L, -2); /* wrapped source */
    if (st != LUA_OK) {
        lua_remove(L, -2);
        return st;
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, path);
    lua_remove(L, -2);
    return LUA_OK;
}

/* chunk(path, env) -> f, shared: f runs the chunk at path in env; call it
 * as f(env, ...) when shared, else as f(...).  nil, message on error. */
static int client_chunk(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (push_shared_chunk(L, path) != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (!lua_isnil(L, -1)) {
        lua_pushboolean(L, 1);
        return 2;
    }
    lua_pop(L, 1);
    if (luaL_loadfilex(L, path, "bt") != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushvalue(L, 2);
    lua_setupvalue(L, -2, 1);
    lua_pushboolean(L, 0);
    return 2;
}

/* require for one client: modules found on package.path are run again
 * with the client's environment and cached per client (so that their
 * upvalues, e.g. oltp_common's connection, are the client's own); others
 * (standard and C modules) come from the shared require. */
static const char client_require_src[] =
    "local env, searchpath, greq, chunk, package = ...\n"
    "local loaded = {}\n"
    "return function(name)\n"
    "  local m = loaded[name]\n"
    "  if m ~= nil then return m end\n"
    "  local path = searchpath(name, package.path)\n"
    "  if not path then return greq(name) end\n"
    "  local f, shared = chunk(path, env)\n"
    "  if not f then error(shared, 2) end\n"
    "  local r\n"
    "  if shared then r = f(env, name, path) else r = f(name, path) end\n"
    "  if r == nil then r = true end\n"
    "  loaded[name] = r\n"
    "  return r\n"
    "end\n";

int l_client_create(struct sb_worker *w, int cid, struct l_client *cl)
{
    lua_State *L = w->L;
    int base = lua_gettop(L);
    lua_newtable(L); /* the client's _ENV; reads fall through to _G */
    int env = lua_gettop(L);
    lua_createtable(L, 0, 1);
    lua_pushglobaltable(L);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, env);
    /* its own sbench: cid and hooks here, the rest from the shared one */
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, cid);
    lua_setfield(L, -2, "cid");
    lua_newtable(L);
    lua_setfield(L, -2, "hooks");
    lua_createtable(L, 0, 1);
    lua_getglobal(L, "sbench");
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, env, "sysbench");
    lua_setfield(L, env, "sbench");
    if (luaL_loadstring(L, client_require_src) != LUA_OK) {
        take_error(w);
        lua_settop(L, base);
        return -1;
    }
    lua_pushvalue(L, env);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_remove(L, -2);
    lua_getglobal(L, "require");
    lua_pushcfunction(L, client_chunk);
    lua_getglobal(L, "package");
    if (lua_pcall(L, 5, 1, w->traceback_idx) != LUA_OK) {
        take_error(w);
        lua_settop(L, base);
        return -1;
    }
    lua_setfield(L, env, "require");
    if (push_shared_chunk(L, w->run->script) != LUA_OK) {
        take_error(w);
        lua_settop(L, base);
        return -1;
    }
    int nargs = 1;
    if (lua_isnil(L, -1)) { /* binary: a copy of its own */
        lua_pop(L, 1);
        if (luaL_loadfile(L, w->run->script) != LUA_OK) {
            take_error(w);
            lua_settop(L, base);
            return -1;
        }
        lua_pushvalue(L, env);
        lua_setupvalue(L, -2, 1);
        nargs = 0;
    } else {
        lua_pushvalue(L, env);
    }
    if (lua_pcall(L, nargs, 0, w->traceback_idx) != LUA_OK) {
        take_error(w);
        lua_settop(L, base);
        return -1;
    }
    if (lua_getfield(L, env, "event") != LUA_TFUNCTION) {
        snprintf(w->error, sizeof w->error, "%s defines no event() function", w->run->script);
        lua_settop(L, base);
        return -1;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, env);
    cl->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    cl->co = lua_newthread(L);
    cl->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    cl->cid = cid;
    cl->retries = 0;
    lua_settop(L, base);
    return 0;
}

int l_client_call(struct sb_worker *w, struct l_client *cl, const char *name)
{
    lua_State *L = w->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, cl->env_ref);
    int t = lua_getfield(L, -1, name);
    lua_remove(L, -2);
    if (t != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 1;
    }
    w->cur_client = cl;
    int st = lua_pcall(L, 0, 0, w->traceback_idx);
    w->cur_client = NULL;
    if (st != LUA_OK) {
        take_error(w);
        return -1;
    }
    return 0;
}

/* Moves the error of dead coroutine co onto w->L with its traceback (as
 * the message handler would) and resets co for the next event. */
static void take_client_error(struct sb_worker *w, lua_State *co)
{
    lua_State *L = w->L;
    lua_xmove(co, L, 1);
    if (lua_istable(L, -1)) {
        luaL_traceback(L, co, NULL, 0);
        lua_setfield(L, -2, "traceback");
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        luaL_traceback(L, co, lua_tostring(L, -1), 0);
        lua_replace(L, -2);
    }
    lua_resetthread(co);
}

int l_client_step(struct sb_worker *w, struct l_client *cl, int start, struct sb_conn **wait)
{
    lua_State *L = w->L, *co = cl->co;
    int base = lua_gettop(L);
    if (start) {
        lua_settop(co, 0);
        lua_rawgeti(L, LUA_REGISTRYINDEX, cl->env_ref);
        lua_getfield(L, -1, "event");
        lua_remove(L, -2);
        lua_xmove(L, co, 1);
    }
    int nres = 0;
    w->running_co = co;
    w->cur_client = cl;
    int st = lua_resume(co, L, 0, &nres);
    w->running_co = NULL;
    w->cur_client = NULL;
    if (st == LUA_YIELD) {
        void *p = nres == 1 && lua_islightuserdata(co, -1) ? lua_touserdata(co, -1) : NULL;
        lua_pop(co, nres);
        if (p != NULL) {
            *wait = p;
            return L_CLIENT_WAIT;
        }
        snprintf(w->error, sizeof w->error,
                 "event() of client %d yielded outside a statement (coroutine.yield "
                 "is not supported in the event of a multiplexed client)", cl->cid);
        return L_CLIENT_FATAL;
    }
    if (st == LUA_OK && l_sql_pipe_pending(co)) {
        /* --pipeline: the event ends when every answer is in; the sync
         * runs in the finished coroutine, where it can yield */
        lua_settop(co, 0);
        lua_pushcfunction(co, l_sql_pipe_sync);
        w->running_co = co;
        w->cur_client = cl;
        st = lua_resume(co, L, 0, &nres);
        w->running_co = NULL;
        w->cur_client = NULL;
        if (st == LUA_YIELD) {
            void *p = nres == 1 && lua_islightuserdata(co, -1) ? lua_touserdata(co, -1) : NULL;
            lua_pop(co, nres);
            *wait = p;
            return L_CLIENT_WAIT;
        }
    }
    if (st == LUA_OK) {
        lua_settop(co, 0);
        if (cl->retries > 0)
            SB_ADD(w->stats.retried_events, 1);
        cl->retries = 0;
        return L_CLIENT_DONE;
    }
    take_client_error(w, co);
    int r = event_error(w, cl->env_ref, &cl->retries);
    lua_settop(L, base);
    switch (r) {
    case 0: return L_CLIENT_RESTART;
    case 1: cl->retries = 0; return L_CLIENT_STOP;
    case 2: cl->retries = 0; return L_CLIENT_FAILED;
    default: return L_CLIENT_FATAL;
    }
}
