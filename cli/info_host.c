/*
 * info_host.c (cli/info_host.h): what `sbench info` adds to the machine's
 * facts to explain its numbers: the cgroup CPU quota and memory limit of
 * this process (cgroup v2 cpu.max / memory.max, or v1 cpu.cfs_quota_us /
 * cpu.cfs_period_us and memory.limit_in_bytes), the CPU frequency
 * governor, swap, transparent huge pages, and the warnings when one makes
 * a benchmark's numbers unrepresentative.  Reads /proc and /sys only.
 */
#include "info_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads the first line of path into buf (newline removed); 0, or -1 when
 * the file cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* The cgroup path of this process for a v1 controller (e.g. "cpu"), or
 * for v2 when controller is "" ("0::/path"); 0, or -1 when none. */
static int cgroup_path(const char *controller, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL)
        return -1;
    char line[1024];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *path = c2 + 1;
        int match = 0;
        if (controller[0] == '\0') {
            match = ctrls[0] == '\0';
        } else { /* "cpu,cpuacct": one of the comma-separated names */
            char list[256];
            snprintf(list, sizeof list, "%s", ctrls);
            for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                match |= strcmp(t, controller) == 0;
        }
        if (match) {
            snprintf(out, len, "%s", path);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* Reads file `name` of the cgroup at `path` under `mount` into buf: the
 * process's own directory first, then the mount's root (a container sees
 * its own cgroup as the root).  Stores the file read in from. */
static int cgroup_read(const char *mount, const char *path, const char *name, char *buf, size_t len,
                       char *from, size_t from_len)
{
    char p[1400];
    snprintf(p, sizeof p, "%s%s/%s", mount, strcmp(path, "/") == 0 ? "" : path, name);
    if (read_line(p, buf, len) == 0) {
        snprintf(from, from_len, "%s", p);
        return 0;
    }
    snprintf(p, sizeof p, "%s/%s", mount, name);
    if (read_line(p, buf, len) == 0) {
        snprintf(from, from_len, "%s", p);
        return 0;
    }
    return -1;
}

static void read_cgroup_limits(struct sb_host_limits *h)
{
    char path[1024], buf[256];
    h->cpu_quota = -1;
    h->mem_limit = 0;
    if (cgroup_path("", path, sizeof path) == 0 &&
        (cgroup_read("/sys/fs/cgroup", path, "cpu.max", buf, sizeof buf, h->cpu_from, sizeof h->cpu_from) == 0 ||
         cgroup_read("/sys/fs/cgroup/unified", path, "cpu.max", buf, sizeof buf, h->cpu_from,
                     sizeof h->cpu_from) == 0)) {
        char quota[64];
        long long period = 0;
        if (sscanf(buf, "%63s %lld", quota, &period) == 2 && strcmp(quota, "max") != 0 && period > 0)
            h->cpu_quota = (double)atoll(quota) / (double)period;
    } else if (cgroup_path("cpu", path, sizeof path) == 0 &&
               cgroup_read("/sys/fs/cgroup/cpu", path, "cpu.cfs_quota_us", buf, sizeof buf, h->cpu_from,
                           sizeof h->cpu_from) == 0) {
        long long quota = atoll(buf);
        char pbuf[64], pfrom[1400];
        if (quota > 0 &&
            cgroup_read("/sys/fs/cgroup/cpu", path, "cpu.cfs_period_us", pbuf, sizeof pbuf, pfrom,
                        sizeof pfrom) == 0 &&
            atoll(pbuf) > 0)
            h->cpu_quota = (double)quota / (double)atoll(pbuf);
    }
    if (cgroup_path("", path, sizeof path) == 0 &&
        (cgroup_read("/sys/fs/cgroup", path, "memory.max", buf, sizeof buf, h->mem_from, sizeof h->mem_from) == 0 ||
         cgroup_read("/sys/fs/cgroup/unified", path, "memory.max", buf, sizeof buf, h->mem_from,
                     sizeof h->mem_from) == 0)) {
        if (strcmp(buf, "max") != 0)
            h->mem_limit = strtoull(buf, NULL, 10);
    } else if (cgroup_path("memory", path, sizeof path) == 0 &&
               cgroup_read("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", buf, sizeof buf,
                           h->mem_from, sizeof h->mem_from) == 0) {
        unsigned long long v = strtoull(buf, NULL, 10);
        /* v1 writes "no limit" as the largest page-aligned 63-bit value */
        h->mem_limit = v >= (1ULL << 62) ? 0 : v;
    }
}

/* "always [madvise] never" -> "madvise" */
static void bracketed(const char *line, char *out, size_t len)
{
    const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
    if (a && b)
        snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
    else
        snprintf(out, len, "%s", line);
}

static void read_swap(struct sb_host_limits *h)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return;
    char line[256];
    unsigned long long total = 0, freekb = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        sscanf(line, "SwapTotal: %llu kB", &total);
        sscanf(line, "SwapFree: %llu kB", &freekb);
    }
    fclose(f);
    h->swap_total = total * 1024;
    h->swap_used = total > freekb ? (total - freekb) * 1024 : 0;
}

static void add_warning(struct sb_host_limits *h, const char *text)
{
    if (h->nwarnings < SB_HOST_MAX_WARNINGS)
        snprintf(h->warnings[h->nwarnings++], sizeof h->warnings[0], "%s", text);
}

void sb_host_limits_read(struct sb_host_limits *h, long cpus_online, unsigned long long mem_total,
                         const char *clocksource)
{
    memset(h, 0, sizeof *h);
    read_cgroup_limits(h);
    char buf[256];
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", h->governor, sizeof h->governor) < 0)
        h->governor[0] = '\0';
    if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) == 0)
        bracketed(buf, h->thp, sizeof h->thp);
    if (read_line("/sys/kernel/mm/transparent_hugepage/defrag", buf, sizeof buf) == 0)
        bracketed(buf, h->thp_defrag, sizeof h->thp_defrag);
    read_swap(h);
    char w[300];
    if (h->cpu_quota >= 0 && h->cpu_quota < (double)cpus_online) {
        snprintf(w, sizeof w, "a cgroup CPU quota of %.2f CPUs for %ld online: throughput is capped and "
                 "latency has throttling pauses", h->cpu_quota, cpus_online);
        add_warning(h, w);
    }
    if (strcmp(h->governor, "powersave") == 0)
        add_warning(h, "the CPU frequency governor is powersave: clock speed, and so every figure, "
                       "varies with load");
    if (strcmp(h->thp, "always") == 0)
        add_warning(h, "transparent hugepages are set to always: the kernel's compaction and khugepaged "
                       "stall processes at random (PostgreSQL and MariaDB advise madvise or never)");
    if (h->swap_used > 0) {
        snprintf(w, sizeof w, "%.0f MiB of swap in use: memory the benchmark touches may be on disk",
                 (double)h->swap_used / 1048576.0);
        add_warning(h, w);
    }
    if (clocksource[0] && strcmp(clocksource, "tsc") != 0 && strcmp(clocksource, "arch_sys_counter") != 0 &&
        strcmp(clocksource, "kvm-clock") != 0) {
        snprintf(w, sizeof w, "the clock source is %s: each clock read is slow, which adds to every "
                 "latency measured", clocksource);
        add_warning(h, w);
    }
    if (h->mem_limit > 0 && mem_total > 0 && h->mem_limit < mem_total) {
        snprintf(w, sizeof w, "a cgroup memory limit of %.0f MiB, below the machine's %.0f MiB: caches "
                 "are smaller than the memory shown", (double)h->mem_limit / 1048576.0,
                 (double)mem_total / 1048576.0);
        add_warning(h, w);
    }
}
