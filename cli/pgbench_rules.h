/*
 * pgbench 15's option checks for `sbench pgbench` (cli/pgbench_rules.c).
 */
#ifndef SB_PGBENCH_RULES_H
#define SB_PGBENCH_RULES_H

#include <stddef.h>

/* What pgbench's option checks look at, gathered while the command line
 * is read (sb_pgrules_note) and checked once it is read. */
struct sb_pgrules {
    int bench_set, init_set; /* an option of one mode only was given */
    int no_vacuum, version, list_builtins, scripts, debug;
    int have_latency, have_partitions, have_method, have_agg, have_log;
    const char *init_steps; /* -I's value, or NULL */
    long agg_interval;
};

/* Checks one option (its long name, its value or NULL) as pgbench 15 does
 * and records it in r: 0, or -1 with pgbench's message in err. */
int sb_pgrules_note(struct sb_pgrules *r, const char *name, const char *value, char *err,
                    size_t errlen);

/* pgbench's checks of the options together once all are read: init is
 * -i, duration -T's seconds (0: none), max_tries --max-tries (0:
 * unlimited).  0, or -1 with pgbench's message in err. */
int sb_pgrules_check(const struct sb_pgrules *r, int init, long duration, long max_tries,
                     char *err, size_t errlen);

/* -V (stdout) and -b list (stderr): prints what pgbench prints and returns
 * 1 when one was asked, else 0. */
int sb_pgrules_info(const struct sb_pgrules *r);

#endif
