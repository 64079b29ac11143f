/*
 * Client coroutines (--clients > --threads): one per connection a worker
 * drives, each with its own global environment (reads fall through to the
 * state's _G), its own sbench table (cid, hooks) and its own require, all
 * in the worker's one Lua state.  core/clients.c schedules them through
 * script_ops.client_*; a client's statement yields its connection to the
 * scheduler (l_sql_run.c).
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

#include "l_internal.h"

/* A client: a full userdata anchored in the registry, freed with the
 * state. */
struct l_client {
    lua_State *co;          /* runs the client's events */
    int env_ref;            /* its environment, in the registry */
    int cid;                /* 0..clients-1; sbench.cid in its environment */
    int retries;            /* restarts of the current event */
    int event_nargs;        /* 1 when its event() takes the thread id */
    int syncing;            /* its coroutine runs the end-of-event sync */
    int quit;               /* its event() returned a value: no more events */
    int type;               /* its event's type (sbench.event_type), -1 = none */
    uint64_t units;         /* and what it counts (1 unless the script said) */
};


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

void *l_client_create(struct sb_worker *w, int cid)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    int base = lua_gettop(L);
    struct l_client *cl = lua_newuserdatauv(L, sizeof *cl, 1);
    memset(cl, 0, sizeof *cl);
    int ud = lua_gettop(L);
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
        l_take_error(t);
        lua_settop(L, base);
        return NULL;
    }
    lua_pushvalue(L, env);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_remove(L, -2);
    lua_getglobal(L, "require");
    lua_pushcfunction(L, client_chunk);
    lua_getglobal(L, "package");
    if (lua_pcall(L, 5, 1, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        lua_settop(L, base);
        return NULL;
    }
    lua_setfield(L, env, "require");
    l_legacy_client(L, env, cid);
    if (push_shared_chunk(L, w->run->script) != LUA_OK) {
        l_take_error(t);
        lua_settop(L, base);
        return NULL;
    }
    int nargs = 1;
    if (lua_isnil(L, -1)) { /* binary: a copy of its own */
        lua_pop(L, 1);
        if (luaL_loadfile(L, w->run->script) != LUA_OK) {
            l_take_error(t);
            lua_settop(L, base);
            return NULL;
        }
        lua_pushvalue(L, env);
        lua_setupvalue(L, -2, 1);
        nargs = 0;
    } else {
        lua_pushvalue(L, env);
    }
    if (lua_pcall(L, nargs, 0, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        lua_settop(L, base);
        return NULL;
    }
    l_legacy_export(t, env);
    if (lua_getfield(L, env, "event") != LUA_TFUNCTION) {
        snprintf(w->error, sizeof w->error, "%s defines no event() function", w->run->script);
        lua_settop(L, base);
        return NULL;
    }
    lua_Debug ar;
    lua_getinfo(L, ">u", &ar); /* pops the event function */
    cl->event_nargs = ar.nparams > 0 || ar.isvararg;
    lua_pushvalue(L, env);
    cl->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    cl->co = lua_newthread(L);
    lua_setiuservalue(L, ud, 1); /* the coroutine lives as long as the client */
    cl->cid = cid;
    cl->type = -1;
    cl->units = 1;
    lua_pushvalue(L, ud);
    luaL_ref(L, LUA_REGISTRYINDEX); /* the client lives as long as the state */
    lua_settop(L, base);
    return cl;
}

int l_client_call(struct sb_worker *w, void *client, const char *name)
{
    struct l_thread *t = w->script;
    struct l_client *cl = client;
    lua_State *L = t->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, cl->env_ref);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    lua_pushinteger(L, cl->cid); /* thread_init(thread_id), as sysbench passes it */
    t->cur_env_ref = cl->env_ref;
    int rc = l_call_value(t, 1);
    t->cur_env_ref = 0;
    return rc;
}

/* Moves the error of dead coroutine co onto w->L with its traceback (as
 * the message handler would) and resets co for the next event. */
static void take_client_error(struct l_thread *t, lua_State *co)
{
    lua_State *L = t->L;
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

int l_client_step(struct sb_worker *w, void *client, int start, struct sb_conn **wait)
{
    struct l_thread *t = w->script;
    struct l_client *cl = client;
    lua_State *L = t->L, *co = cl->co;
    int base = lua_gettop(L);
    int nargs = 0;
    if (start) {
        lua_settop(co, 0);
        lua_rawgeti(L, LUA_REGISTRYINDEX, cl->env_ref);
        lua_getfield(L, -1, "event");
        lua_remove(L, -2);
        lua_xmove(L, co, 1);
        if (cl->event_nargs) { /* event(thread_id): the client's id */
            lua_pushinteger(co, cl->cid);
            nargs = 1;
        }
        cl->syncing = 0;
        cl->type = -1;
        cl->units = 1;
    }
    int nres = 0;
    t->running_co = co;
    t->cur_env_ref = cl->env_ref;
    t->cur_type = &cl->type;
    t->cur_units = &cl->units;
    int st = lua_resume(co, L, nargs, &nres);
    t->running_co = NULL;
    t->cur_env_ref = 0;
    t->cur_type = NULL;
    t->cur_units = NULL;
    if (st == LUA_OK && !cl->syncing) /* sysbench's rule: a value other than nil or false stops */
        cl->quit = nres > 0 && lua_toboolean(co, -nres);
    if (st == LUA_YIELD) {
        void *p = nres == 1 && lua_islightuserdata(co, -1) ? lua_touserdata(co, -1) : NULL;
        lua_pop(co, nres);
        if (p != NULL) {
            *wait = p;
            return SB_EVENT_WAIT;
        }
        snprintf(w->error, sizeof w->error,
                 "event() of client %d yielded outside a statement (coroutine.yield "
                 "is not supported in the event of a multiplexed client)", cl->cid);
        return SB_EVENT_FATAL;
    }
    if (st == LUA_OK && l_sql_pipe_pending(co)) {
        /* --pipeline: the event ends when every answer is in; the sync
         * runs in the finished coroutine, where it can yield */
        lua_settop(co, 0);
        lua_pushcfunction(co, l_sql_pipe_sync);
        cl->syncing = 1;
        t->running_co = co;
        t->cur_env_ref = cl->env_ref;
        st = lua_resume(co, L, 0, &nres);
        t->running_co = NULL;
        t->cur_env_ref = 0;
        if (st == LUA_YIELD) {
            void *p = nres == 1 && lua_islightuserdata(co, -1) ? lua_touserdata(co, -1) : NULL;
            lua_pop(co, nres);
            *wait = p;
            return SB_EVENT_WAIT;
        }
    }
    cl->syncing = 0;
    if (st == LUA_OK) {
        lua_settop(co, 0);
        if (cl->quit) /* not counted; the client runs no more events */
            return SB_EVENT_QUIT;
        sb_event_count_retried(w, &cl->retries);
        w->event_type = cl->type; /* recorded with the event (core/event.h) */
        w->event_units = cl->units;
        return SB_EVENT_DONE;
    }
    take_client_error(t, co);
    w->event_type = cl->type; /* its retries and failure count by type */
    int r = l_event_error(t, cl->env_ref, &cl->retries);
    w->event_type = -1;
    lua_settop(L, base);
    if (r != SB_EVENT_RESTART)
        cl->retries = 0;
    return r;
}
