/*
 * Worker Lua states: creation and destruction, script loading, the
 * message handler (a traceback), declared options, commands and hooks
 * (the calls themselves and their errors are l_call.c's).  The event
 * loop is l_event.c's, client coroutines l_client.c's.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/options.h"
#include "../core/paths.h"
#include "l_internal.h"

/* Whether a script's error shows its Lua stack traceback: with --debug or
 * --verbosity=5; otherwise the error is one FATAL line, as in sysbench. */
static int want_traceback(lua_State *L)
{
    const struct sb_run *run = l_thread(L)->w->run;
    return run->verbosity >= 5 || (sb_opt_find(run->opts, "debug") && sb_opt_bool(run->opts, "debug"));
}

/* Message handler: adds a traceback (want_traceback) to string errors; SQL
 * error tables get it as a field; the restart marker passes through. */
static int msgh(lua_State *L)
{
    if (lua_islightuserdata(L, 1))
        return 1;
    if (!want_traceback(L)) {
        if (!lua_istable(L, 1) && lua_tostring(L, 1) == NULL &&
            !(luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING))
            lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        return 1;
    }
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


static void set_package_path(lua_State *L, const struct sb_run *run)
{
    const char *script = run->script;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *slash = script ? strrchr(script, '/') : NULL;
    if (slash) {
        luaL_addlstring(&b, script, (size_t)(slash - script));
        luaL_addstring(&b, "/?.lua;");
    } else {
        luaL_addstring(&b, "./?.lua;");
    }
    struct sb_dirs dirs;
    sb_workload_dirs(sb_opt_str(run->opts, "workload-path"), &dirs);
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

int l_state_create(struct sb_worker *w, int with_opts)
{
    struct l_thread *t = calloc(1, sizeof *t);
    lua_State *L = t ? luaL_newstate() : NULL;
    if (L == NULL) {
        free(t);
        snprintf(w->error, sizeof w->error, "cannot create a Lua state: out of memory");
        return -1;
    }
    *(struct l_thread **)lua_getextraspace(L) = t;
    t->w = w;
    t->L = L;
    w->script = t;
    w->conn_list = &w->conns;
    luaL_openlibs(L);
    l_open_sbench(L, w);
    l_open_compat(L);
    l_legacy_open(L, w);
    if (with_opts)
        l_set_options(w);
    set_package_path(L, w->run);
    lua_pushcfunction(L, msgh);
    t->traceback_idx = lua_gettop(L);
    if (luaL_loadfile(L, w->run->script) != LUA_OK || /* NULL: stdin */
        lua_pcall(L, 0, 0, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        l_state_destroy(w);
        return -1;
    }
    l_legacy_detect(t);
    if (with_opts)
        l_legacy_export(t, 0);
    return 0;
}

void l_state_destroy(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    if (t == NULL)
        return;
    lua_close(t->L); /* collects the connections its script opened */
    free(t->pipe_conns);
    free(t);
    w->script = NULL;
}

/* sbench.cmdline.ARG_* (sysbench 1.0's numbers) as option kinds; -1 for
 * ARG_NULL, ARG_MAX and anything else. */
static int arg_kind(lua_Integer t)
{
    switch (t) {
    case L_ARG_BOOL: return SB_OPT_BOOL;
    case L_ARG_INT: return SB_OPT_INT;
    case L_ARG_SIZE: return SB_OPT_SIZE;
    case L_ARG_DOUBLE: return SB_OPT_NUMBER;
    case L_ARG_STRING: return SB_OPT_STRING;
    case L_ARG_FILE: return SB_OPT_FILE;
    case L_ARG_LIST: return SB_OPT_LIST;
    default: return -1;
    }
}

/* The default of a declaration {description, default, type} on top of
 * the stack as option text (def, NULL when there is none) and, when the
 * declaration gives no type, the kind its Lua type implies. */
static void default_text(lua_State *L, int *kind, char *def, size_t len, const char **defp,
                         long long *mn, long long *mx)
{
    *defp = def;
    switch (lua_type(L, -1)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, -1)) {
            *kind = SB_OPT_INT;
            *mn = 0;
            *mx = LLONG_MAX / 4;
            snprintf(def, len, "%lld", (long long)lua_tointeger(L, -1));
        } else { /* as Lua prints it: 0.2, not 0.20000000000000001 */
            *kind = SB_OPT_NUMBER;
            *mn = -1000000000000LL;
            *mx = 1000000000000LL;
            snprintf(def, len, LUA_NUMBER_FMT, lua_tonumber(L, -1));
        }
        break;
    case LUA_TBOOLEAN:
        *kind = SB_OPT_BOOL;
        snprintf(def, len, "%s", lua_toboolean(L, -1) ? "on" : "off");
        break;
    case LUA_TTABLE: {
        *kind = SB_OPT_LIST;
        size_t used = 0;
        def[0] = 0;
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n && used < len - 64; i++) {
            lua_geti(L, -1, i);
            used += (size_t)snprintf(def + used, len - used, "%s%s", i > 1 ? "," : "",
                                     lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
            lua_pop(L, 1);
        }
        break;
    }
    case LUA_TSTRING:
        *kind = SB_OPT_STRING;
        snprintf(def, len, "%s", lua_tostring(L, -1));
        break;
    default:
        *kind = SB_OPT_STRING;
        *defp = NULL;
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Registers one declaration, name = {description, default, type}, on top
 * of the stack (left there).  Returns 0, or -1 with one line in err. */
static int register_one(lua_State *L, const char *script, const char *name, struct sb_options *o,
                        char *err, size_t errlen)
{
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: sbench.cmdline.options.%s must be {description, default}",
                 script, name);
        return -1;
    }
    lua_geti(L, -1, 1);
    const char *help = lua_tostring(L, -1);
    lua_geti(L, -2, 2);
    int kind;
    char def[1024];
    const char *defp;
    long long mn = 0, mx = 0;
    default_text(L, &kind, def, sizeof def, &defp, &mn, &mx);
    if (lua_geti(L, -3, 3) != LUA_TNIL) {
        int k = lua_isinteger(L, -1) ? arg_kind(lua_tointeger(L, -1)) : -1;
        if (k < 0) {
            snprintf(err, errlen, "%s: option '%s' has an unknown type '%s' (use sbench.cmdline.ARG_*)",
                     script, name, luaL_tolstring(L, -1, NULL));
            lua_pop(L, 4);
            return -1;
        }
        if (k == SB_OPT_INT || (k == SB_OPT_NUMBER && kind != SB_OPT_NUMBER)) {
            mn = k == SB_OPT_INT ? LLONG_MIN / 4 : -1000000000000LL;
            mx = k == SB_OPT_INT ? LLONG_MAX / 4 : 1000000000000LL;
        }
        kind = k;
    }
    sb_options_add(o, name, kind, SB_SRC_WORKLOAD, defp, help ? help : "", NULL, mn, mx);
    lua_pop(L, 3);
    return 0;
}

int l_register_options(struct sb_worker *w, struct sb_options *o, char *err, size_t errlen)
{
    lua_State *L = ((struct l_thread *)w->script)->L;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "cmdline");
    /* sbench.cmdline.database = false: a workload that uses no database
     * (sysbench's built-in tests) */
    if (lua_getfield(L, -1, "database") == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        w->run->no_database = 1;
    lua_pop(L, 1);
    lua_getfield(L, -1, "options");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 3);
        return 0;
    }
    /* in name order, as sysbench lists them (pairs() has no order) */
    int n = 0, cap = 0, rc = 0;
    char **names = NULL;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            snprintf(err, errlen, "%s: sbench.cmdline.options entries must be name = {description, default}",
                     w->run->script_name);
            lua_pop(L, 4);
            rc = -1;
            goto out;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (nn == NULL) {
                snprintf(err, errlen, "out of memory");
                lua_pop(L, 4);
                rc = -1;
                goto out;
            }
            names = nn;
        }
        if ((names[n] = strdup(lua_tostring(L, -1))) == NULL) {
            snprintf(err, errlen, "out of memory");
            lua_pop(L, 4);
            rc = -1;
            goto out;
        }
        n++;
    }
    if (n > 1) /* names is NULL when the script declares no options */
        qsort(names, (size_t)n, sizeof *names, cmp_names);
    for (int i = 0; i < n && rc == 0; i++) {
        lua_getfield(L, -1, names[i]);
        rc = register_one(L, w->run->script_name, names[i], o, err, errlen);
        lua_pop(L, 1);
    }
    lua_pop(L, 3);
    if (rc == 0 && n == 0 && sb_options_take_unknown(o, SB_SRC_UNDECLARED) > 0) {
        /* a script that declares no options takes any (sysbench), said aloud */
        for (int i = 0; i < sb_options_count(o); i++)
            if (sb_options_at(o, i)->source == SB_SRC_UNDECLARED)
                fprintf(stderr, "sbench: note: --%s is no option of sbench's or the driver's; "
                        "passed to the script, which declares none, as a string\n",
                        sb_options_at(o, i)->name);
    }
out:
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}


int l_call_global(struct sb_worker *w, const char *name)
{
    struct l_thread *t = w->script;
    lua_getglobal(t->L, name);
    return l_call_value(t, 0);
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
    lua_State *L = ((struct l_thread *)w->script)->L;
    if (!push_command(L, cmd))
        return 0;
    lua_geti(L, -1, 2); /* == sbench.cmdline.PARALLEL_COMMAND, which is true */
    int parallel = lua_isboolean(L, -1) && lua_toboolean(L, -1);
    lua_pop(L, 2);
    return parallel ? 2 : 1;
}

int l_call_command(struct sb_worker *w, const char *cmd)
{
    struct l_thread *t = w->script;
    lua_State *L = t->L;
    if (!push_command(L, cmd))
        return 1;
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        snprintf(w->error, sizeof w->error, "command '%s' has no function", cmd);
        return -1;
    }
    if (lua_pcall(L, 0, 0, t->traceback_idx) != LUA_OK) {
        l_take_error(t);
        return -1;
    }
    return 0;
}

void l_command_names(struct sb_worker *w, char *buf, size_t len)
{
    lua_State *L = ((struct l_thread *)w->script)->L;
    const char *names[64];
    int n = 0;
    buf[0] = 0;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "cmdline");
    lua_getfield(L, -1, "commands");
    if (lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            int ok = 0;
            if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
                ok = lua_geti(L, -1, 1) == LUA_TFUNCTION;
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
            if (ok && n < 64) /* a key of the table: the string lives with it */
                names[n++] = lua_tostring(L, -1);
        }
    }
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_names);
    size_t used = 0;
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
    lua_pop(L, 3);
}

int l_has_hook(struct sb_worker *w, const char *name)
{
    lua_State *L = ((struct l_thread *)w->script)->L;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "hooks");
    int t = lua_istable(L, -1) ? lua_getfield(L, -1, name) : LUA_TNIL;
    lua_pop(L, lua_istable(L, -2) ? 3 : 2);
    return t == LUA_TFUNCTION;
}


/* 1 if the SQL error at idx has a SQLSTATE in the comma list. */

/* Count hook installed on interrupt: stops the Lua code where it is. */
static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted by a signal");
}

void l_interrupt(struct sb_worker *w)
{
    struct l_thread *t = w->script;
    if (t != NULL) /* lua_sethook may be called from a signal handler */
        lua_sethook(t->L, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}
