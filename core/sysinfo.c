/*
 * The machine's facts (core/sysinfo.h): /etc/os-release, uname,
 * /proc/cpuinfo, /proc/meminfo, /proc/loadavg, statvfs and
 * /proc/self/mounts for the working directory, and the kernel's clock
 * source from /sys/devices/system/clocksource.
 */
#include "sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../lib/jsonw.h"

/* The first line of a small file without its newline into out ("" when
 * it cannot be read). */
static void first_line(const char *path, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(out, (int)len, f) == NULL)
        out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    fclose(f);
}

/* The value after "KEY<sep>" on the first line starting with key in a
 * /proc-style file, trimmed and unquoted, into out. */
static void keyed_value(const char *path, const char *key, char sep, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[1024];
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0)
            continue;
        char *p = line + kl;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != sep)
            continue;
        p++;
        while (*p == ' ' || *p == '\t' || *p == '"')
            p++;
        p[strcspn(p, "\"\n")] = 0;
        snprintf(out, len, "%s", p);
        break;
    }
    fclose(f);
}

static uint64_t meminfo_bytes(const char *key)
{
    char v[64];
    keyed_value("/proc/meminfo", key, ':', v, sizeof v);
    return (uint64_t)strtoull(v, NULL, 10) * 1024; /* "12345 kB" */
}

/* The mount whose directory is the longest prefix of path. */
static void find_mount(struct sb_sysinfo *si)
{
    FILE *f = fopen("/proc/self/mounts", "r");
    if (f == NULL)
        return;
    char dev[256], dir[512], type[32];
    size_t best = 0;
    while (fscanf(f, "%255s %511s %31s %*[^\n]", dev, dir, type) == 3) {
        size_t n = strlen(dir);
        int prefix = strcmp(dir, "/") == 0 ||
                     (strncmp(si->cwd, dir, n) == 0 && (si->cwd[n] == '/' || si->cwd[n] == 0));
        if (prefix && n >= best) {
            best = n;
            snprintf(si->fs_device, sizeof si->fs_device, "%s", dev);
            snprintf(si->fs_mount, sizeof si->fs_mount, "%s", dir);
            snprintf(si->fs_type, sizeof si->fs_type, "%s", type);
        }
    }
    fclose(f);
}

void sb_sysinfo_read(struct sb_sysinfo *si)
{
    memset(si, 0, sizeof *si);
    keyed_value("/etc/os-release", "PRETTY_NAME", '=', si->os, sizeof si->os);
    struct utsname un;
    if (uname(&un) == 0) {
        snprintf(si->sysname, sizeof si->sysname, "%s", un.sysname);
        snprintf(si->kernel, sizeof si->kernel, "%s", un.release);
        snprintf(si->kernel_version, sizeof si->kernel_version, "%s", un.version);
        snprintf(si->arch, sizeof si->arch, "%s", un.machine);
        snprintf(si->hostname, sizeof si->hostname, "%s", un.nodename);
    }
    static const char *const cpu_keys[] = {"model name", "Model", "cpu model", "Hardware", "cpu"};
    for (size_t i = 0; i < sizeof cpu_keys / sizeof cpu_keys[0] && !si->cpu_model[0]; i++)
        keyed_value("/proc/cpuinfo", cpu_keys[i], ':', si->cpu_model, sizeof si->cpu_model);
    si->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
    si->cpus_configured = sysconf(_SC_NPROCESSORS_CONF);
    si->mem_total = meminfo_bytes("MemTotal");
    if (si->mem_total == 0)
        si->mem_total = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    si->mem_available = meminfo_bytes("MemAvailable");
    if (getcwd(si->cwd, sizeof si->cwd) == NULL)
        si->cwd[0] = 0;
    struct statvfs vfs;
    if (si->cwd[0] && statvfs(si->cwd, &vfs) == 0) {
        si->fs_total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
        si->fs_free = (uint64_t)vfs.f_bfree * vfs.f_frsize;
        si->fs_avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    }
    if (si->cwd[0])
        find_mount(si);
    first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
               si->clocksource, sizeof si->clocksource);
    first_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
               si->clocksources, sizeof si->clocksources);
    size_t n = strlen(si->clocksources);
    while (n > 0 && si->clocksources[n - 1] == ' ')
        si->clocksources[--n] = 0;
    si->loadavg[0] = si->loadavg[1] = si->loadavg[2] = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &si->loadavg[0], &si->loadavg[1], &si->loadavg[2]) != 3)
            si->loadavg[0] = si->loadavg[1] = si->loadavg[2] = -1;
        fclose(f);
    }
}

void sb_sysinfo_json(struct sb_jw *w, const struct sb_sysinfo *si)
{
    sb_jw_raw(w, "{");
    sb_jw_key(w, "name", 1);
    sb_jw_str(w, si->hostname);
    sb_jw_key(w, "os", 0);
    sb_jw_str(w, si->os);
    sb_jw_key(w, "sysname", 0);
    sb_jw_str(w, si->sysname);
    sb_jw_key(w, "kernel", 0);
    sb_jw_str(w, si->kernel);
    sb_jw_key(w, "kernel_version", 0);
    sb_jw_str(w, si->kernel_version);
    sb_jw_key(w, "arch", 0);
    sb_jw_str(w, si->arch);
    sb_jw_key(w, "cpu_model", 0);
    sb_jw_str(w, si->cpu_model);
    sb_jw_key(w, "cpus", 0);
    sb_jw_num(w, (double)si->cpus_online);
    sb_jw_key(w, "cpus_configured", 0);
    sb_jw_num(w, (double)si->cpus_configured);
    sb_jw_key(w, "memory_bytes", 0);
    sb_jw_num(w, (double)si->mem_total);
    sb_jw_key(w, "memory_available_bytes", 0);
    sb_jw_num(w, (double)si->mem_available);
    sb_jw_key(w, "clocksource", 0);
    sb_jw_str(w, si->clocksource);
    sb_jw_key(w, "clocksources_available", 0);
    sb_jw_str(w, si->clocksources);
    sb_jw_key(w, "loadavg", 0);
    sb_jw_raw(w, "[");
    for (int i = 0; i < 3; i++) {
        if (i)
            sb_jw_raw(w, ",");
        sb_jw_num(w, si->loadavg[i]);
    }
    sb_jw_raw(w, "]");
    sb_jw_key(w, "cwd", 0);
    sb_jw_str(w, si->cwd);
    sb_jw_key(w, "fs", 0);
    sb_jw_raw(w, "{");
    sb_jw_key(w, "type", 1);
    sb_jw_str(w, si->fs_type);
    sb_jw_key(w, "device", 0);
    sb_jw_str(w, si->fs_device);
    sb_jw_key(w, "mount", 0);
    sb_jw_str(w, si->fs_mount);
    sb_jw_key(w, "total_bytes", 0);
    sb_jw_num(w, (double)si->fs_total);
    sb_jw_key(w, "free_bytes", 0);
    sb_jw_num(w, (double)si->fs_free);
    sb_jw_key(w, "available_bytes", 0);
    sb_jw_num(w, (double)si->fs_avail);
    sb_jw_raw(w, "}}");
}
