/*
 * `sbench info` (cli/info.h): gathers the machine's facts, loads each
 * driver found to ask its client library version (a driver that does not
 * load is listed with the reason), lists the workloads found (sorted;
 * library modules left out), adds the host limits that explain a
 * machine's numbers (cli/info_host.h) with their warnings, and prints it
 * all as text or JSON.
 */
#include "info.h"
#include "info_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbench/driver.h>

#include "../core/driver_loader.h"
#include "../lib/jsonw.h"
#include "../lib/options.h"
#include "../core/paths.h"
#include "../core/sysinfo.h"

#define MAX_FOUND 64

struct found_entry {
    char name[64], path[1024], version[160], description[160], error[300];
};

struct found {
    int n;
    struct found_entry e[MAX_FOUND];
};

static double mib(uint64_t b);

static void add_found(const char *name, const char *path, void *ctx)
{
    struct found *f = ctx;
    if (f->n == MAX_FOUND)
        return;
    memset(&f->e[f->n], 0, sizeof f->e[f->n]);
    snprintf(f->e[f->n].name, sizeof f->e[f->n].name, "%s", name);
    snprintf(f->e[f->n].path, sizeof f->e[f->n].path, "%s", path);
    f->n++;
}

/* Loads each driver in turn (sb_driver_load keeps one table: copy what is
 * needed before the next). */
static void probe_drivers(struct found *d, struct sb_options *o)
{
    for (int i = 0; i < d->n; i++) {
        char err[256];
        const struct sbd_driver *drv = sb_driver_load(d->e[i].path, d->e[i].name, err, sizeof err);
        if (drv == NULL) {
            snprintf(d->e[i].error, sizeof d->e[i].error, "%s", err);
            continue;
        }
        const char *v = drv->client_version ? drv->client_version() : NULL;
        snprintf(d->e[i].version, sizeof d->e[i].version, "%s", v ? v : "");
        if (!d->e[i].version[0] && drv->client_version) {
            /* some drivers learn it from their library's init: init with
             * their options' defaults, ask, and let go */
            sb_driver_register_options(drv, o);
            if (drv->init(sb_host_create(o, drv->name), err, sizeof err) == SBD_OK) {
                v = drv->client_version();
                snprintf(d->e[i].version, sizeof d->e[i].version, "%s", v ? v : "");
                if (drv->done)
                    drv->done();
            } else {
                fprintf(stderr, "sbench: info: %s: %s\n", d->e[i].name, err);
            }
        }
        snprintf(d->e[i].description, sizeof d->e[i].description, "%s",
                 drv->description ? drv->description : "");
    }
}

/* A workload, not a library module: it defines event() or thread_run()
 * or commands (sbench.cmdline.commands / sysbench.cmdline.commands), and
 * does not end in a `return` of its module table at the top level. */
static int is_workload(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1; /* listed: running it says what is wrong */
    char line[4096];
    int runs = 0, returns = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "function event(", 15) == 0 || strncmp(line, "function thread_run(", 20) == 0 ||
            strncmp(line, "event =", 7) == 0 || strstr(line, "cmdline.commands") != NULL)
            runs = 1;
        if (strncmp(line, "return ", 7) == 0 || strcmp(line, "return\n") == 0)
            returns = 1;
    }
    fclose(f);
    return runs && !returns;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct found_entry *)a)->name, ((const struct found_entry *)b)->name);
}

/* Keeps the workloads of w (is_workload), sorted by name. */
static void keep_workloads(struct found *w)
{
    int n = 0;
    for (int i = 0; i < w->n; i++)
        if (is_workload(w->e[i].path))
            w->e[n++] = w->e[i];
    w->n = n;
    qsort(w->e, (size_t)w->n, sizeof w->e[0], by_name);
}

static void print_host_limits(const struct sb_host_limits *h)
{
    if (h->cpu_quota >= 0)
        printf("    %-22s %.2f CPUs (%s)\n", "cgroup CPU quota:", h->cpu_quota, h->cpu_from);
    else
        printf("    %-22s none\n", "cgroup CPU quota:");
    if (h->mem_limit > 0)
        printf("    %-22s %.0f MiB (%s)\n", "cgroup memory limit:", mib(h->mem_limit), h->mem_from);
    else
        printf("    %-22s none\n", "cgroup memory limit:");
    printf("    %-22s %s\n", "CPU governor:", h->governor[0] ? h->governor : "not exposed (no cpufreq)");
    printf("    %-22s %.0f MiB total, %.0f MiB in use\n", "swap:", mib(h->swap_total), mib(h->swap_used));
    printf("    %-22s %s (defrag: %s)\n", "transparent hugepages:", h->thp[0] ? h->thp : "not exposed",
           h->thp_defrag[0] ? h->thp_defrag : "not exposed");
    for (int i = 0; i < h->nwarnings; i++)
        printf("WARNING: %s\n", h->warnings[i]);
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

static void print_text(const struct sb_sysinfo *si, const struct sb_host_limits *h, const struct found *d,
                       const struct found *w, const char *language)
{
    printf("sbench %s (driver ABI %d.%d, %s)\n\n", SB_VERSION, SBD_ABI_MAJOR, SBD_ABI_MINOR, language);
    printf("Machine:\n");
    printf("    %-22s %s\n", "OS:", si->os[0] ? si->os : "unknown");
    printf("    %-22s %s %s (%s)\n", "kernel:", si->sysname, si->kernel, si->arch);
    printf("    %-22s %s\n", "host name:", si->hostname);
    printf("    %-22s %s\n", "CPU model:", si->cpu_model[0] ? si->cpu_model : "unknown");
    printf("    %-22s %ld online (%ld configured)\n", "CPUs:", si->cpus_online, si->cpus_configured);
    printf("    %-22s %.0f MiB total, %.0f MiB available\n", "memory:", mib(si->mem_total),
           mib(si->mem_available));
    printf("    %-22s %s\n", "working directory:", si->cwd);
    printf("    %-22s %s on %s (%s)\n", "file system:", si->fs_mount, si->fs_device, si->fs_type);
    printf("    %-22s %.0f MiB total, %.0f MiB free, %.0f MiB usable\n", "space:", mib(si->fs_total),
           mib(si->fs_free), mib(si->fs_avail));
    printf("    %-22s %s (available: %s)\n", "clock source:",
           si->clocksource[0] ? si->clocksource : "unknown", si->clocksources);
    if (si->loadavg[0] >= 0)
        printf("    %-22s %.2f %.2f %.2f\n", "load average:", si->loadavg[0], si->loadavg[1],
               si->loadavg[2]);
    print_host_limits(h);
    printf("\nDrivers found:\n");
    for (int i = 0; i < d->n; i++) {
        if (d->e[i].error[0])
            printf("    %-8s does not load: %s\n", d->e[i].name, d->e[i].error);
        else
            printf("    %-8s %-28s %s\n", d->e[i].name, d->e[i].version, d->e[i].path);
    }
    if (d->n == 0)
        printf("    none\n");
    printf("\nWorkloads found:\n");
    for (int i = 0; i < w->n; i++)
        printf("    %-24s %s\n", w->e[i].name, w->e[i].path);
    if (w->n == 0)
        printf("    none\n");
}

static void jw_u64(struct sb_jw *j, unsigned long long v)
{
    char t[32];
    snprintf(t, sizeof t, "%llu", v);
    sb_jw_raw(j, t);
}

static void host_limits_json(struct sb_jw *j, const struct sb_host_limits *h)
{
    sb_jw_raw(j, "{");
    sb_jw_key(j, "cpu_quota", 1);
    if (h->cpu_quota >= 0)
        sb_jw_num(j, h->cpu_quota);
    else
        sb_jw_raw(j, "null");
    sb_jw_key(j, "memory_limit_bytes", 0);
    if (h->mem_limit > 0)
        jw_u64(j, h->mem_limit);
    else
        sb_jw_raw(j, "null");
    sb_jw_key(j, "governor", 0);
    sb_jw_str(j, h->governor);
    sb_jw_key(j, "swap_total_bytes", 0);
    jw_u64(j, h->swap_total);
    sb_jw_key(j, "swap_used_bytes", 0);
    jw_u64(j, h->swap_used);
    sb_jw_key(j, "transparent_hugepages", 0);
    sb_jw_str(j, h->thp);
    sb_jw_key(j, "warnings", 0);
    sb_jw_raw(j, "[");
    for (int i = 0; i < h->nwarnings; i++) {
        if (i)
            sb_jw_raw(j, ",");
        sb_jw_str(j, h->warnings[i]);
    }
    sb_jw_raw(j, "]}");
}

static int print_json(const struct sb_sysinfo *si, const struct sb_host_limits *h, const struct found *d,
                      const struct found *w, const char *language)
{
    size_t len = 64 * 1024 + (size_t)(d->n + w->n) * 2048;
    char *buf = malloc(len);
    if (buf == NULL) {
        fprintf(stderr, "sbench: out of memory\n");
        return 1;
    }
    struct sb_jw j;
    sb_jw_init(&j, buf, len);
    char abi[32];
    snprintf(abi, sizeof abi, "%d.%d", SBD_ABI_MAJOR, SBD_ABI_MINOR);
    sb_jw_raw(&j, "{\"type\":\"info\"");
    sb_jw_key(&j, "sbench_version", 0);
    sb_jw_str(&j, SB_VERSION);
    sb_jw_key(&j, "driver_abi", 0);
    sb_jw_str(&j, abi);
    sb_jw_key(&j, "script_language", 0);
    sb_jw_str(&j, language);
    sb_jw_key(&j, "host", 0);
    sb_sysinfo_json(&j, si);
    sb_jw_key(&j, "host_limits", 0);
    host_limits_json(&j, h);
    sb_jw_key(&j, "drivers", 0);
    sb_jw_raw(&j, "[");
    for (int i = 0; i < d->n; i++) {
        sb_jw_raw(&j, i ? ",{" : "{");
        sb_jw_key(&j, "name", 1);
        sb_jw_str(&j, d->e[i].name);
        sb_jw_key(&j, "path", 0);
        sb_jw_str(&j, d->e[i].path);
        if (d->e[i].error[0]) {
            sb_jw_key(&j, "error", 0);
            sb_jw_str(&j, d->e[i].error);
        } else {
            sb_jw_key(&j, "client_version", 0);
            sb_jw_str(&j, d->e[i].version);
            sb_jw_key(&j, "description", 0);
            sb_jw_str(&j, d->e[i].description);
        }
        sb_jw_raw(&j, "}");
    }
    sb_jw_raw(&j, "]");
    sb_jw_key(&j, "workloads", 0);
    sb_jw_raw(&j, "[");
    for (int i = 0; i < w->n; i++) {
        sb_jw_raw(&j, i ? ",{" : "{");
        sb_jw_key(&j, "name", 1);
        sb_jw_str(&j, w->e[i].name);
        sb_jw_key(&j, "path", 0);
        sb_jw_str(&j, w->e[i].path);
        sb_jw_raw(&j, "}");
    }
    sb_jw_raw(&j, "]}");
    int rc = 0;
    if (j.truncated) {
        fprintf(stderr, "sbench: info: the JSON object did not fit in %zu bytes\n", len);
        rc = 1;
    } else {
        printf("%s\n", buf);
    }
    free(buf);
    return rc;
}

int sb_info_command(struct sb_options *o, const char *language, int json)
{
    static struct sb_sysinfo si;
    static struct sb_host_limits limits;
    static struct found drivers, workloads;
    sb_sysinfo_read(&si);
    sb_host_limits_read(&limits, si.cpus_online, si.mem_total, si.clocksource);
    struct sb_dirs dirs;
    sb_driver_dirs(sb_opt_str(o, "driver-path"), &dirs);
    sb_list_drivers(&dirs, add_found, &drivers);
    probe_drivers(&drivers, o);
    sb_workload_dirs(sb_opt_str(o, "workload-path"), &dirs);
    sb_list_workloads(&dirs, add_found, &workloads);
    keep_workloads(&workloads);
    int rc = json ? print_json(&si, &limits, &drivers, &workloads, language)
                  : (print_text(&si, &limits, &drivers, &workloads, language), 0);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sbench: info: cannot write the output\n");
        return 1;
    }
    return rc;
}
