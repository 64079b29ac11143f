/*
 * info_host.h: the facts of this process's host that explain a
 * benchmark's numbers beyond core/sysinfo.h (cgroup CPU and memory
 * limits, CPU frequency governor, swap, transparent huge pages), with the
 * warnings `sbench info` prints when one of them makes the numbers
 * unrepresentative.
 */
#ifndef SB_INFO_HOST_H
#define SB_INFO_HOST_H

#define SB_HOST_MAX_WARNINGS 8

struct sb_host_limits {
    double cpu_quota;               /* CPUs the cgroup quota allows; < 0: no quota */
    char cpu_from[1400];            /* the file read ("" when none) */
    unsigned long long mem_limit;   /* bytes; 0: no limit */
    char mem_from[1400];
    char governor[64];              /* cpu0's scaling_governor; "": not exposed */
    char thp[32], thp_defrag[32];   /* the [selected] values; "": not exposed */
    unsigned long long swap_total, swap_used; /* bytes, /proc/meminfo */
    int nwarnings;
    char warnings[SB_HOST_MAX_WARNINGS][300];
};

/* Fills h from /proc and /sys; cpus_online, mem_total (bytes) and the
 * clock source are the machine's (core/sysinfo.h), for the warnings.
 * Never fails: what cannot be read is left empty. */
void sb_host_limits_read(struct sb_host_limits *h, long cpus_online, unsigned long long mem_total,
                         const char *clocksource);

#endif
