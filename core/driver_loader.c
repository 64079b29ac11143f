/*
 * Driver loading (dlopen + ABI checks) and the host services drivers use.
 */
#include "driver_loader.h"
#include "../lib/options.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The driver's table copied into a zeroed table of this sbench's size, so
 * that members a driver built against an older minor version lacks read as
 * NULL; a capability bit whose calls are missing is cleared, so callers
 * test the bit alone.  One driver per process: the copy is static. */
static const struct sbd_driver *full_size_copy(const struct sbd_driver *d)
{
    static struct sbd_driver t;
    memset(&t, 0, sizeof t);
    memcpy(&t, d, d->struct_size < sizeof t ? d->struct_size : sizeof t);
    t.struct_size = sizeof t;
    if (!t.bulk_begin || !t.bulk_row || !t.bulk_end)
        t.caps &= ~SBD_CAP_BULK_LOAD;
    if (!t.server_counters)
        t.caps &= ~SBD_CAP_SERVER_COUNTERS;
    if (!t.socket || !t.send_query || !t.send_execute || !t.poll_result)
        t.caps &= ~(unsigned)SBD_CAP_NONBLOCKING;
    if (!t.query_stream)
        t.caps &= ~(unsigned)SBD_CAP_STREAM;
    if (!t.pipeline || !(t.caps & SBD_CAP_NONBLOCKING))
        t.caps &= ~(unsigned)SBD_CAP_PIPELINE;
    if (!t.host_io || !t.io_want || !t.io_done || !(t.caps & SBD_CAP_NONBLOCKING))
        t.caps &= ~(unsigned)SBD_CAP_HOST_IO;
    return &t;
}

const struct sbd_driver *sb_driver_load(const char *path, const char *name,
                                        char *err, size_t errlen)
{
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        snprintf(err, errlen, "cannot load driver '%s': %s", name, dlerror());
        return NULL;
    }
    sbd_entry_fn entry = (sbd_entry_fn)dlsym(so, SBD_ENTRY_SYMBOL);
    if (entry == NULL) {
        snprintf(err, errlen, "%s is not an sbench driver (no %s symbol)", path, SBD_ENTRY_SYMBOL);
        return NULL;
    }
    const struct sbd_driver *d = entry();
    if (d == NULL) {
        snprintf(err, errlen, "driver %s returned no description", path);
        return NULL;
    }
    if (d->abi_major != SBD_ABI_MAJOR) {
        snprintf(err, errlen,
                 "driver '%s' (%s) was built for driver ABI %d.%d, this sbench speaks ABI %d.%d; rebuild the driver",
                 name, path, d->abi_major, d->abi_minor, SBD_ABI_MAJOR, SBD_ABI_MINOR);
        return NULL;
    }
    if (d->struct_size < offsetof(struct sbd_driver, begin)) {
        snprintf(err, errlen, "driver '%s' (%s) is truncated: struct_size %zu", name, path,
                 d->struct_size);
        return NULL;
    }
    const char *missing = NULL;
    if (!d->init) missing = "init";
    else if (!d->connect) missing = "connect";
    else if (!d->disconnect) missing = "disconnect";
    else if (!d->last_error) missing = "last_error";
    else if (!d->dialect) missing = "dialect";
    else if (!d->query) missing = "query";
    else if (!d->fetch_row) missing = "fetch_row";
    else if (!d->free_result) missing = "free_result";
    else if (!d->prepare) missing = "prepare";
    else if (!d->execute) missing = "execute";
    else if (!d->close_stmt) missing = "close_stmt";
    if (missing) {
        snprintf(err, errlen, "driver '%s' (%s) lacks the required call '%s'", name, path, missing);
        return NULL;
    }
    if (d->name == NULL || strcmp(d->name, name) != 0) {
        snprintf(err, errlen, "%s calls itself '%s', not '%s'", path, d->name ? d->name : "?", name);
        return NULL;
    }
    return full_size_copy(d);
}

static void register_options(const struct sbd_driver *d, struct sb_options *o, int source)
{
    for (const struct sbd_option *p = d->options; p && p->name; p++) {
        int kind = SB_OPT_STRING;
        long long min = 0, max = 0;
        switch (p->kind) {
        case SBD_OPT_INT: kind = SB_OPT_INT; min = -2147483648LL; max = 2147483647LL; break;
        case SBD_OPT_BOOL: kind = SB_OPT_BOOL; break;
        case SBD_OPT_SECRET: kind = SB_OPT_SECRET; break;
        case SBD_OPT_LIST: kind = SB_OPT_LIST; break;
        default: break;
        }
        sb_options_add(o, p->name, kind, source, p->default_value, p->help, NULL, min, max);
    }
}

void sb_driver_register_options(const struct sbd_driver *d, struct sb_options *o)
{
    register_options(d, o, SB_SRC_DRIVER);
}

int sb_driver_peek_options(const char *path, struct sb_options *o, int source)
{
    void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    sbd_entry_fn entry = so ? (sbd_entry_fn)dlsym(so, SBD_ENTRY_SYMBOL) : NULL;
    const struct sbd_driver *d = entry ? entry() : NULL;
    if (d == NULL || d->abi_major != SBD_ABI_MAJOR ||
        d->struct_size < offsetof(struct sbd_driver, options) + sizeof d->options)
        return -1;
    register_options(d, o, source);
    return 0;
}

static const struct sb_options *host_opts;
static char host_driver_name[64];

static const char *h_opt_str(const char *name) { return sb_opt_str(host_opts, name); }
static int h_opt_is_set(const char *name) { return sb_opt_is_set(host_opts, name); }
static long long h_opt_int(const char *name) { return sb_opt_int(host_opts, name); }
static int h_opt_bool(const char *name) { return sb_opt_bool(host_opts, name); }

static void h_log(int level, const char *fmt, ...)
{
    static const char *names[] = {"debug", "info", "warning", "error"};
    if (level == SBD_LOG_DEBUG && !sb_opt_bool(host_opts, "db-debug"))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sbench: %s driver %s: %s\n", host_driver_name,
            names[level >= 0 && level <= 3 ? level : 1], msg);
}

const struct sbd_host *sb_host_create(const struct sb_options *o, const char *driver_name)
{
    static struct sbd_host host;
    host_opts = o;
    snprintf(host_driver_name, sizeof host_driver_name, "%s", driver_name);
    host.struct_size = sizeof host;
    host.abi_major = SBD_ABI_MAJOR;
    host.abi_minor = SBD_ABI_MINOR;
    host.opt_str = h_opt_str;
    host.opt_is_set = h_opt_is_set;
    host.opt_int = h_opt_int;
    host.opt_bool = h_opt_bool;
    host.log = h_log;
    host.connect_timeout = (int)sb_opt_int(o, "db-connect-timeout");
    host.query_timeout = (int)sb_opt_int(o, "db-query-timeout");
    return &host;
}
