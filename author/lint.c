/*
 * The lint's C side: the workload's file and the modules it requires read
 * (bounded), a Lua state of the lint's own (never the workload's: nothing
 * of the script runs) given the rules (author/lint.lua, compiled in) and
 * the names of sbench's options, and the findings printed.
 */
#include "lint.h"
#include "lint_lua.h" /* SB_LINT_LUA: the text of lint.lua */

#include "../core/paths.h"
#include "../lib/options.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SOURCE (4 << 20) /* a workload's file, at most */
#define MAX_FILES 16         /* the workload and the modules it requires */

void sb_lint_add_options(struct sb_options *o)
{
    sb_options_add(o, "lint", SB_OPT_BOOL, SB_SRC_CORE, "on",
                   "before a run, print the traps `sbench lint` finds in the workload as warnings "
                   "(a float formatted into SQL, a blocking call under --clients, con:prepare in "
                   "event, an option declared and never read, ...)", NULL, 0, 0);
}

/* Pushes the text of path, or returns -1 (errno set) when it cannot be read
 * or is larger than MAX_SOURCE. */
static int push_file(lua_State *L, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    char *buf = malloc(MAX_SOURCE + 1);
    size_t n = buf ? fread(buf, 1, MAX_SOURCE + 1, f) : 0;
    int bad = buf == NULL || ferror(f) || n > MAX_SOURCE;
    fclose(f);
    if (bad) {
        free(buf);
        errno = buf == NULL ? ENOMEM : EFBIG;
        return -1;
    }
    lua_pushlstring(L, buf, n);
    free(buf);
    return 0;
}

/* Appends {name = path, text = ...} to the table at the top of the stack. */
static int add_file(lua_State *L, const char *path)
{
    lua_createtable(L, 0, 2);
    if (push_file(L, path) != 0) {
        lua_pop(L, 1);
        return -1;
    }
    lua_setfield(L, -2, "text");
    lua_pushstring(L, path);
    lua_setfield(L, -2, "name");
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

/* The modules a text requires (require "name" / require("name")), found
 * beside the workload or on the workload path, added once each. */
static void add_required(lua_State *L, const char *dir, const struct sb_dirs *wdirs, int at)
{
    for (int i = at; i <= (int)lua_rawlen(L, -1) && i <= MAX_FILES; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "text");
        const char *t = lua_tostring(L, -1);
        for (const char *p = t; p && (p = strstr(p, "require")) != NULL; p += 7) {
            const char *q = p + 7;
            while (*q == ' ' || *q == '(')
                q++;
            if (*q != '"' && *q != '\'')
                continue;
            char name[128], path[1400];
            size_t n = strspn(q + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
            if (n == 0 || n >= sizeof name || q[1 + n] != *q)
                continue;
            memcpy(name, q + 1, n);
            name[n] = 0;
            snprintf(path, sizeof path, "%s/%s.lua", dir, name);
            FILE *f = fopen(path, "rb");
            if (f != NULL)
                fclose(f);
            else if (sb_find_workload(wdirs, name, path, sizeof path) != 0)
                continue;
            int dup = 0;
            for (int j = 1; j <= (int)lua_rawlen(L, -3) && !dup; j++) {
                lua_rawgeti(L, -3, j);
                lua_getfield(L, -1, "name");
                dup = strcmp(lua_tostring(L, -1), path) == 0;
                lua_pop(L, 2);
            }
            if (!dup && lua_rawlen(L, -3) < MAX_FILES) {
                lua_pushvalue(L, -3);
                (void)add_file(L, path);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 2);
    }
}

/* Pushes the set of option names sbench knows, '-' written '_'. */
static void push_known(lua_State *L, const struct sb_options *o)
{
    lua_newtable(L);
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *opt = sb_options_at(o, i);
        if (opt->source == SB_SRC_WORKLOAD)
            continue;
        char name[128];
        snprintf(name, sizeof name, "%s", opt->name);
        for (char *c = name; *c; c++)
            if (*c == '-')
                *c = '_';
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, name);
    }
    /* every driver's options: a workload may read another driver's */
    static const char *const drivers[] = {"pgsql_", "mysql_", "sqlite_", "odbc_", "null_"};
    lua_newtable(L);
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        lua_pushstring(L, drivers[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "__prefixes");
}

static int print_findings(lua_State *L, FILE *out, const char *prefix)
{
    int n = (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "file");
        lua_getfield(L, -2, "line");
        lua_getfield(L, -3, "rule");
        lua_getfield(L, -4, "msg");
        fprintf(out, "%s%s:%lld: %s: %s\n", prefix, lua_tostring(L, -4), (long long)lua_tointeger(L, -3),
                lua_tostring(L, -2), lua_tostring(L, -1));
        lua_pop(L, 5);
    }
    return n;
}

int sb_lint_file(const char *path, const struct sb_options *o, int clients, FILE *out, const char *prefix)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        fprintf(stderr, "sbench: lint: out of memory\n");
        return -1;
    }
    luaL_openlibs(L);
    static const char src[] = SB_LINT_LUA;
    if (luaL_loadbuffer(L, src, sizeof src - 1, "=lint.lua") != LUA_OK || lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "sbench: lint: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return -1;
    }
    lua_getglobal(L, "lint");
    lua_newtable(L);
    if (add_file(L, path) != 0) {
        fprintf(stderr, "sbench: lint: cannot read '%.300s': %s\n", path, strerror(errno));
        lua_close(L);
        return -1;
    }
    char dir[1400];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    struct sb_dirs wdirs;
    sb_workload_dirs(sb_opt_str(o, "workload-path"), &wdirs);
    add_required(L, dir, &wdirs, 1);
    push_known(L, o);
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, clients);
    lua_setfield(L, -2, "clients");
    int n = -1;
    if (lua_pcall(L, 3, 1, 0) != LUA_OK)
        fprintf(stderr, "sbench: lint: %s\n", lua_tostring(L, -1));
    else
        n = print_findings(L, out, prefix);
    lua_close(L);
    return n;
}
