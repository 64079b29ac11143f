/*
 * `sbench new NAME`'s C side: the name checked, the generator
 * (author/new.lua) and the template (workloads/templates/new_workload.lua)
 * compiled in and run in a Lua state of their own; with --from-tables, one
 * connection of the chosen driver, through which the generator reads the
 * tables (query(sql) -> rows); the file written whole or not at all.
 */
#include "new.h"
#include "new_lua.h" /* SB_NEW_LUA, SB_NEW_TEMPLATE: author/new.lua, the template */

#include "../core/db.h"
#include "../core/driver_loader.h"
#include "../core/run.h"
#include "../lib/options.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sb_new_add_options(struct sb_options *o)
{
    sb_options_add(o, "from-tables", SB_OPT_LIST, SB_SRC_CORE, NULL,
                   "new: write the workload from these tables of the database the driver options "
                   "name (their columns, primary keys and key ranges)", NULL, 0, 0);
    sb_options_add(o, "dialect", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "new: the SQL to write (default: the server's, or portable SQL)",
                   "postgresql|mysql|sqlite", 0, 0);
}

int sb_new_needs_driver(const struct sb_options *o)
{
    const char *t = sb_opt_str(o, "from-tables");
    return t != NULL && *t != 0;
}

/* query(sql) -> rows: the rows of one statement on the connection in the
 * first upvalue, each an array of strings (NULL: nil); raises on error. */
static int l_query(lua_State *L)
{
    struct sb_conn *c = lua_touserdata(L, lua_upvalueindex(1));
    size_t len;
    const char *sql = luaL_checklstring(L, 1, &len);
    if (sb_conn_query(c, sql, len) != SBD_OK)
        return luaL_error(L, "%s (in: %s)", sb_conn_error(c)->message, sql);
    lua_newtable(L);
    int nfields = sb_conn_result_info(c)->nfields, n = 0, rc;
    while (nfields > 0 && (rc = sb_conn_fetch(c)) == SBD_OK) {
        const struct sbd_value *row = sb_conn_row(c);
        lua_createtable(L, nfields, 0);
        for (int i = 0; i < nfields; i++) {
            const struct sbd_value *v = &row[i];
            if (v->is_null || v->type == SBD_TYPE_NULL)
                continue;
            if (v->type == SBD_TYPE_INT)
                lua_pushfstring(L, "%I", (LUA_INTEGER)v->i);
            else if (v->type == SBD_TYPE_DOUBLE)
                lua_pushfstring(L, "%f", v->d);
            else
                lua_pushlstring(L, v->s ? v->s : "", v->s ? v->len : 0);
            lua_rawseti(L, -2, i + 1);
        }
        lua_rawseti(L, -2, ++n);
    }
    sb_conn_free_result(c);
    return 1;
}

/* Writes text to path, created anew (O_EXCL): 0, or -1 with errno. */
static int write_new(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t k = write(fd, text + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = errno;
            close(fd);
            unlink(path);
            errno = e;
            return -1;
        }
        off += (size_t)k;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(path);
        errno = e;
        return -1;
    }
    return 0;
}

static int valid_name(const char *name)
{
    if (!(isalpha((unsigned char)name[0]) || name[0] == '_') || strlen(name) > 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

/* Opens the connection --from-tables reads through: the driver started,
 * one connection.  NULL after one line on stderr. */
static struct sb_conn *open_conn(struct sb_run *run, struct sb_worker **w)
{
    char err[1024];
    if (run->drv->init(sb_host_create(run->opts, run->drv->name), err, sizeof err) != SBD_OK) {
        fprintf(stderr, "sbench: new: %s driver: %s\n", run->drv->name, err);
        return NULL;
    }
    sb_db_setup(run->drv, 1, sb_opt_int(run->opts, "db-bulk-bytes"));
    *w = sb_worker_create(run, -1);
    struct sbd_error e;
    struct sb_conn *c = *w ? sb_conn_open(0, &(*w)->stats, &e) : NULL;
    if (c == NULL)
        fprintf(stderr, "sbench: new: cannot connect: %s\n", *w ? e.message : "out of memory");
    return c;
}

/* Runs the generator: the workload's text pushed, or an error message. */
static int generate(lua_State *L, const char *name, const char *tables, const char *dialect, struct sb_conn *c)
{
    static const char src[] = SB_NEW_LUA, tmpl[] = SB_NEW_TEMPLATE;
    if (luaL_loadbuffer(L, src, sizeof src - 1, "=new.lua") != LUA_OK || lua_pcall(L, 0, 0, 0) != LUA_OK)
        return -1;
    lua_getglobal(L, c ? "new_from_tables" : "new_plain");
    lua_pushstring(L, name);
    if (c != NULL) {
        lua_pushstring(L, tables);
        lua_pushstring(L, dialect ? dialect : sb_conn_dialect(c));
        lua_pushlightuserdata(L, c);
        lua_pushcclosure(L, l_query, 1);
    } else {
        lua_pushlstring(L, tmpl, sizeof tmpl - 1);
        if (dialect)
            lua_pushstring(L, dialect);
        else
            lua_pushnil(L);
    }
    return lua_pcall(L, c ? 4 : 3, 1, 0) == LUA_OK ? 0 : -1;
}

int sb_new_command(struct sb_run *run, const char *name)
{
    if (!valid_name(name)) {
        fprintf(stderr, "sbench: new: '%.100s' is not a workload name (letters, digits and _, "
                "starting with a letter: it names the file and the options)\n", name);
        return 2;
    }
    char path[128];
    snprintf(path, sizeof path, "%s.lua", name);
    if (access(path, F_OK) == 0) {
        fprintf(stderr, "sbench: new: %s exists; choose another name or remove it\n", path);
        return 2;
    }
    struct sb_worker *w = NULL;
    struct sb_conn *c = NULL;
    if (sb_new_needs_driver(run->opts) && (c = open_conn(run, &w)) == NULL) {
        sb_worker_destroy(w);
        return 1;
    }
    lua_State *L = luaL_newstate();
    int rc = 1;
    if (L != NULL) {
        luaL_openlibs(L);
        if (generate(L, name, sb_opt_str(run->opts, "from-tables"), sb_opt_str(run->opts, "dialect"), c) != 0) {
            fprintf(stderr, "sbench: new: %s\n", lua_tostring(L, -1));
        } else {
            size_t len;
            const char *text = lua_tolstring(L, -1, &len);
            if (write_new(path, text, len) != 0)
                fprintf(stderr, "sbench: new: cannot write %s: %s\n", path, strerror(errno));
            else {
                printf("wrote %s: try `sbench lint %s`, `sbench %s trace`, then prepare/run\n", path, path, path);
                rc = 0;
            }
        }
        lua_close(L);
    }
    sb_conn_close(c);
    sb_worker_destroy(w);
    if (c != NULL && run->drv->done)
        run->drv->done();
    return rc;
}
