/*
 * pgbench 15's option checks for `sbench pgbench` (cli/pgbench_cli.c):
 * the values each option accepts, the options of one mode only (-i or
 * benchmarking), the checks of options together, and what -V and -b list
 * print.  The messages are pgbench's own, so that scripts matching them
 * keep working (docs/pgbench.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbench_rules.h"

/* The options pgbench 15 allows only when benchmarking, or only with -i
 * (its benchmarking_option_set/initialization_option_set). */
static const char *const bench_only[] = {
    "client", "jobs", "connect", "protocol", "select-only", "skip-some-updates", "builtin",
    "file", "define", "progress", "rate", "transactions", "time", "report-per-command",
    "latency-limit", "log", "log-prefix", "aggregate-interval", "sampling-rate", "vacuum-all",
    "max-tries", "failures-detailed", "verbose-errors", "progress-timestamp", "exit-on-abort",
    "continue-on-error", NULL};
static const char *const init_only[] = {
    "init-steps", "fillfactor", "quiet", "foreign-keys", "unlogged-tables", "partitions",
    "partition-method", "tablespace", "index-tablespace", NULL};

static int in_list(const char *const *l, const char *name)
{
    for (; *l; l++)
        if (strcmp(*l, name) == 0)
            return 1;
    return 0;
}

/* A decimal integer in [lo, hi], all of v; 0 or -1. */
static int int_in(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

/* A number > 0 (and <= max when max > 0), all of v. */
static int positive_double(const char *v, double max)
{
    char *end;
    double d = strtod(v, &end);
    return *v != '\0' && *end == '\0' && d > 0 && (max <= 0 || d <= max);
}

int sb_pgrules_note(struct sb_pgrules *r, const char *n, const char *v, char *err, size_t errlen)
{
    long x;
    r->bench_set |= in_list(bench_only, n);
    r->init_set |= in_list(init_only, n);
    if (strcmp(n, "fillfactor") == 0 && int_in(v, 10, 100, &x) != 0)
        snprintf(err, errlen, "-F/--fillfactor must be in range 10..100");
    else if (strcmp(n, "progress") == 0 && int_in(v, 1, 2147483647L, &x) != 0)
        snprintf(err, errlen, "-P/--progress must be in range 1..2147483647");
    else if (strcmp(n, "rate") == 0 && !positive_double(v, 0))
        snprintf(err, errlen, "invalid rate limit: \"%s\"", v);
    else if (strcmp(n, "latency-limit") == 0 && !positive_double(v, 0))
        snprintf(err, errlen, "invalid latency limit: \"%s\"", v);
    else if (strcmp(n, "sampling-rate") == 0 && !positive_double(v, 1.0))
        snprintf(err, errlen, "invalid sampling rate: \"%s\"", v);
    else if (strcmp(n, "aggregate-interval") == 0 && int_in(v, 1, 2147483647L, &r->agg_interval) != 0)
        snprintf(err, errlen, "--aggregate-interval must be in range 1..2147483647");
    else if (strcmp(n, "partitions") == 0 && int_in(v, 0, 2147483647L, &x) != 0)
        snprintf(err, errlen, "--partitions must be in range 0..2147483647");
    else if (strcmp(n, "partition-method") == 0 && strcmp(v, "range") != 0 && strcmp(v, "hash") != 0)
        snprintf(err, errlen, "invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", v);
    else if (strcmp(n, "scale") == 0 && int_in(v, 1, 2147483647L, &x) != 0)
        snprintf(err, errlen, "invalid value \"%s\" for option -s/--scale", v);
    else if (strcmp(n, "protocol") == 0 && strcmp(v, "simple") != 0 && strcmp(v, "extended") != 0 &&
             strcmp(v, "prepared") != 0)
        snprintf(err, errlen, "invalid query mode (-M): \"%s\"", v);
    else {
        r->no_vacuum |= strcmp(n, "no-vacuum") == 0;
        r->have_latency |= strcmp(n, "latency-limit") == 0;
        r->have_partitions |= strcmp(n, "partitions") == 0 && strcmp(v, "0") != 0;
        r->have_method |= strcmp(n, "partition-method") == 0;
        r->have_agg |= strcmp(n, "aggregate-interval") == 0;
        r->have_log |= strcmp(n, "log") == 0;
        r->version |= strcmp(n, "version") == 0;
        r->list_builtins |= strcmp(n, "builtin") == 0 && strcmp(v, "list") == 0;
        r->scripts += strcmp(n, "builtin") == 0 || strcmp(n, "file") == 0 ||
                      strcmp(n, "select-only") == 0 || strcmp(n, "skip-some-updates") == 0;
        r->debug |= strcmp(n, "debug") == 0;
        if (strcmp(n, "init-steps") == 0)
            r->init_steps = v;
        return 0;
    }
    return -1;
}

int sb_pgrules_check(const struct sb_pgrules *r, int init, long duration, long max_tries,
                     char *err, size_t errlen)
{
    if (init && r->bench_set)
        snprintf(err, errlen, "some of the specified options cannot be used in initialization (-i) mode");
    else if (!init && r->init_set)
        snprintf(err, errlen, "some of the specified options cannot be used in benchmarking mode");
    else if (r->scripts > 128)
        snprintf(err, errlen, "at most 128 SQL scripts are allowed");
    else if (r->have_method && !r->have_partitions)
        snprintf(err, errlen, "--partition-method requires greater than zero --partitions");
    else if (max_tries == 0 && !r->have_latency && duration == 0)
        snprintf(err, errlen, "an unlimited number of transaction tries can only be used with "
                 "--latency-limit or a duration (-T)");
    else if (r->have_log && r->have_agg && duration && r->agg_interval > duration)
        snprintf(err, errlen, "number of seconds for aggregation (%ld) must not be higher than test "
                 "duration (%ld)", r->agg_interval, duration);
    else if (r->have_log && r->have_agg && duration && duration % r->agg_interval != 0)
        snprintf(err, errlen, "duration (%ld) must be a multiple of aggregation interval (%ld)",
                 duration, r->agg_interval);
    else
        return 0;
    return -1;
}

int sb_pgrules_info(const struct sb_pgrules *r)
{
    if (r->version) {
        printf("pgbench (sbench) %s\n", SB_VERSION);
        return 1;
    }
    if (r->list_builtins) {
        fprintf(stderr, "Available builtin scripts:\n"
                "      tpcb-like: <builtin: TPC-B (sort of)>\n"
                "  simple-update: <builtin: simple update>\n"
                "    select-only: <builtin: select only>\n");
        return 1;
    }
    return 0;
}
