/*
 * Search paths for drivers and workloads (see paths.h).  The build tree is
 * recognised by the executable's own location (/proc/self/exe) lying under
 * the build directory meson configured, so an installed sbench never looks
 * into a source tree.
 */
#include "paths.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SB_LIBDIR
#define SB_LIBDIR "/usr/local/lib/sbench"
#endif
#ifndef SB_DATADIR
#define SB_DATADIR "/usr/local/share/sbench"
#endif

static void add_dir(struct sb_dirs *d, const char *dir, size_t len)
{
    if (len == 0 || d->n >= SB_MAX_DIRS || len >= sizeof d->dir[0])
        return;
    memcpy(d->dir[d->n], dir, len);
    d->dir[d->n][len] = 0;
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->dir[i], d->dir[d->n]) == 0)
            return;
    d->n++;
}

static void add_list(struct sb_dirs *d, const char *list)
{
    if (list == NULL)
        return;
    while (*list) {
        const char *colon = strchr(list, ':');
        size_t len = colon ? (size_t)(colon - list) : strlen(list);
        add_dir(d, list, len);
        if (!colon)
            break;
        list = colon + 1;
    }
}

/* 1 when this executable runs from the meson build directory. */
static int in_build_tree(void)
{
#ifdef SB_BUILD_ROOT
    char exe[PATH_MAX], root[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    if (realpath(SB_BUILD_ROOT, root) == NULL)
        return 0;
    size_t rl = strlen(root);
    return strncmp(exe, root, rl) == 0 && exe[rl] == '/';
#else
    return 0;
#endif
}

void sb_driver_dirs(const char *option, struct sb_dirs *out)
{
    out->n = 0;
    add_list(out, option);
    add_list(out, getenv("SBENCH_DRIVER_PATH"));
    if (in_build_tree()) {
#ifdef SB_BUILD_ROOT
        const char *names[] = {"null", "pgsql", "mysql", "odbc", "sqlite"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char d[1024];
            int n = snprintf(d, sizeof d, "%s/drivers/%s", SB_BUILD_ROOT, names[i]);
            add_dir(out, d, (size_t)n);
        }
#endif
    } else {
        add_dir(out, SB_LIBDIR, strlen(SB_LIBDIR));
    }
}

void sb_workload_dirs(const char *option, struct sb_dirs *out)
{
    out->n = 0;
    add_list(out, option);
    add_list(out, getenv("SBENCH_PATH"));
    if (in_build_tree()) {
#ifdef SB_SOURCE_ROOT
        char d[1024];
        int n = snprintf(d, sizeof d, "%s/workloads", SB_SOURCE_ROOT);
        add_dir(out, d, (size_t)n);
#endif
    } else {
        add_dir(out, SB_DATADIR, strlen(SB_DATADIR));
    }
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int sb_find_driver(const struct sb_dirs *dirs, const char *name, char *out, size_t len)
{
    for (int i = 0; i < dirs->n; i++) {
        snprintf(out, len, "%s/sbench-%s.so", dirs->dir[i], name);
        if (is_file(out))
            return 0;
    }
    return -1;
}

/* Module `name` on a Lua path ("./?.lua;/x/?/init.lua"), as
 * package.searchpath finds it: '?' becomes the name with '.' as '/'. */
static int search_lua_path(const char *path, const char *name, char *out, size_t len)
{
    char mod[512];
    if (path == NULL || snprintf(mod, sizeof mod, "%s", name) >= (int)sizeof mod)
        return -1;
    for (char *c = mod; *c; c++)
        if (*c == '.')
            *c = '/';
    while (*path) {
        size_t tl = strcspn(path, ";");
        size_t o = 0;
        for (size_t i = 0; i < tl && o + 1 < len; i++) {
            if (path[i] == '?')
                o += (size_t)snprintf(out + o, len - o, "%s", mod);
            else
                out[o++] = path[i];
        }
        out[o < len ? o : len - 1] = 0;
        if (tl > 0 && o < len && is_file(out))
            return 0;
        path += tl;
        path += *path == ';';
    }
    return -1;
}

int sb_find_workload(const struct sb_dirs *dirs, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);
    if (strchr(name, '/') || (nl > 4 && strcmp(name + nl - 4, ".lua") == 0)) {
        snprintf(out, len, "%s", name);
        return is_file(out) ? 0 : -1;
    }
    for (int i = 0; i < dirs->n; i++) {
        snprintf(out, len, "%s/%s.lua", dirs->dir[i], name);
        if (is_file(out))
            return 0;
    }
    /* sysbench also takes a module name found on its Lua path: LUA_PATH,
     * and ./?.lua by default */
    if (search_lua_path(getenv("LUA_PATH"), name, out, len) == 0 ||
        search_lua_path("./?.lua", name, out, len) == 0)
        return 0;
    return -1;
}

#define MAX_LISTED 128

struct listed { char name[64]; char path[1400]; };

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

/* The files of dirs named PREFIX NAME SUFFIX, each name once (the first
 * directory's), passed to fn in name order. */
static void list_dir(const struct sb_dirs *dirs, const char *prefix, const char *suffix,
                     int (*skip)(const char *name, const char *path),
                     void (*fn)(const char *, const char *, void *), void *ctx)
{
    static struct listed found[MAX_LISTED]; /* the main thread's, before any run */
    int n = 0;
    for (int i = 0; i < dirs->n; i++) {
        DIR *d = opendir(dirs->dir[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < MAX_LISTED) {
            size_t l = strlen(e->d_name), pl = strlen(prefix), sl = strlen(suffix);
            size_t nl = l - pl - sl;
            if (l <= pl + sl || strncmp(e->d_name, prefix, pl) != 0 ||
                strcmp(e->d_name + l - sl, suffix) != 0 || nl >= sizeof found[n].name)
                continue;
            memcpy(found[n].name, e->d_name + pl, nl);
            found[n].name[nl] = 0;
            snprintf(found[n].path, sizeof found[n].path, "%s/%s", dirs->dir[i], e->d_name);
            int dup = 0;
            for (int k = 0; k < n; k++)
                dup |= strcmp(found[k].name, found[n].name) == 0;
            if (!dup && !(skip && skip(found[n].name, found[n].path)))
                n++;
        }
        closedir(d);
    }
    qsort(found, (size_t)n, sizeof found[0], by_name);
    for (int i = 0; i < n; i++)
        fn(found[i].name, found[i].path, ctx);
}

void sb_list_drivers(const struct sb_dirs *dirs,
                     void (*fn)(const char *, const char *, void *), void *ctx)
{
    list_dir(dirs, "sbench-", ".so", NULL, fn, ctx);
}

/* A line of a script that makes it a workload: it defines event() or a
 * command (sysbench.cmdline.commands, prepare, cleanup, thread_run). */
static int workload_line(const char *line)
{
    static const char *const starts[] = {"function event", "event =", "event=", "function prepare",
                                         "function cleanup", "function thread_run"};
    while (*line == ' ' || *line == '\t')
        line++;
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (strncmp(line, starts[i], strlen(starts[i])) == 0)
            return 1;
    return strstr(line, "cmdline.commands") != NULL;
}

/* Modules that workloads require, not workloads themselves: oltp_common
 * (which has the OLTP commands, but no event) and any file without a line
 * that makes it a workload (tpcc_common, diag_stats, ...). */
static int not_a_workload(const char *name, const char *path)
{
    if (strcmp(name, "oltp_common") == 0)
        return 1;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    char line[512];
    int workload = 0;
    while (!workload && fgets(line, sizeof line, f) != NULL)
        workload = workload_line(line);
    fclose(f);
    return !workload;
}

void sb_list_workloads(const struct sb_dirs *dirs,
                       void (*fn)(const char *, const char *, void *), void *ctx)
{
    list_dir(dirs, "", ".lua", not_a_workload, fn, ctx);
}
