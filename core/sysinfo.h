/*
 * Facts about the machine a run happens on, read from /proc, /sys,
 * uname, sysconf and statvfs: what `sbench info` prints and what the JSON
 * final report carries as run.host, so that two results can be told
 * apart by the machines that produced them.  Not used on the measured
 * path.
 */
#ifndef SB_SYSINFO_H
#define SB_SYSINFO_H

#include <stdint.h>

struct sb_jw;

struct sb_sysinfo {
    char os[128];               /* PRETTY_NAME of /etc/os-release, "" if unknown */
    char sysname[80], kernel[128], kernel_version[160], arch[80];  /* uname */
    char hostname[128];
    char cpu_model[160];        /* /proc/cpuinfo, "" if unknown */
    long cpus_online, cpus_configured;
    uint64_t mem_total, mem_available;  /* bytes, /proc/meminfo (0: unknown) */
    char cwd[1024];             /* the working directory ... */
    char fs_type[32], fs_device[256], fs_mount[512]; /* ... its file system (/proc/self/mounts) */
    uint64_t fs_total, fs_free, fs_avail; /* bytes (statvfs); fs_avail: for non-root */
    char clocksource[64];       /* current, "" if unknown */
    char clocksources[256];     /* available, space-separated */
    double loadavg[3];          /* -1 when unknown */
};

/* Fills si with what can be read; a fact that cannot be read is left
 * empty (or 0, or -1 for loadavg).  Never fails. */
void sb_sysinfo_read(struct sb_sysinfo *si);
/* Writes si as one JSON object into w. */
void sb_sysinfo_json(struct sb_jw *w, const struct sb_sysinfo *si);

#endif
