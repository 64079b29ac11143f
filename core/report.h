/*
 * Reports: what one reporting window or the whole run measured, gathered
 * into one struct, and the formats that write it (text, JSON, CSV: one
 * file each, listed in the table of core/report.c).  Formatters are pure
 * functions of the struct.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"
#include "report_sections.h"
#include "sampled.h"
#include "stats.h"

#include <sbench/driver.h>

struct sb_phase_report;

struct sb_report {
    double elapsed;              /* seconds since the start of measuring */
    double seconds;              /* length of this window (or the run) */
    int threads;                 /* threads running */
    struct sb_snapshot d;        /* counts in the window */
    const sb_histogram *latency; /* event latencies (ns) in the window */
    double percentile;           /* e.g. 95; 0 = none */
    /* final report only */
    const uint64_t *thread_events;  /* per thread */
    const int64_t *thread_busy_ns;  /* per thread */
    const uint64_t *client_events;  /* per client (by sbench.cid), or NULL
                                     * when --clients is not given or = threads */
    int clients;                 /* entries in client_events */
    int unfinished;              /* events cut off by a forced shutdown */
    int histogram;               /* print the latency distribution */
    const double *percentiles;   /* --percentiles list, npercentiles long */
    int npercentiles;
    const sb_histogram *kind[SB_Q_NKINDS]; /* statement latencies by kind */
    const sb_histogram *connect; /* connection open times */
    const sb_histogram *connect_phase[SB_CONN_NPHASES]; /* their phases (tcp, tls, auth) */
    const sb_histogram *lag;     /* --rate: schedule lag, NULL if no --rate */
    double latency_limit_ms;     /* 0 = none */
    int pipeline;                /* --pipeline depth in use, 0 = off */
    int last_window;             /* an interval: the run's last window, which
                                    ends with the run (it may be shorter) */
    const char *phase;           /* an interval under a profile: the phase of
                                    its middle (report_phases.h), else NULL */
    int nnamed;                  /* statements the workload named */
    const char *named_name[SB_MAX_NAMED];
    uint64_t named_count[SB_MAX_NAMED];
    const sb_histogram *named_latency[SB_MAX_NAMED];
    /* a window: the named statements' counts in it (for the script's
     * report_intermediate hook only: pgbench's -P failures and retries) */
    int window_nnamed;
    const char *const *window_named_name;
    const uint64_t *window_named_count;
    /* event types (sbench.event_type): count, retries and failures are in
     * d.type_*, the latencies here; a type without a histogram is NULL */
    int ntypes;
    const char *type_name[SB_MAX_TYPES];
    const sb_histogram *type_latency[SB_MAX_TYPES];
    int server_counters_valid;   /* the server's own counts, when read */
    int server_reset;            /* they started again from zero during the run:
                                    every count in server is unknown (-1) */
    const char *server_reset_why; /* how that was seen (static), or NULL */
    struct sbd_server_counters server;
    /* the server's evidence over this window or the run (server_sampler.c),
     * NULL when not sampled; sampled_why: why not ("" when turned off) */
    const struct sb_sampled *sampled;
    const char *sampled_why;
    int no_sql;                  /* a workload without a database: the text report
                                    has no SQL sections (run->no_database) */
    int merge_data;              /* final JSON: add what `sbench merge` reads (every
                                    histogram encoded, each thread's counts) */
    /* the sections the workload declared (report_sections.h), printed from
     * the event types; NULL or none declared: nothing (not in windows) */
    const struct sb_report_sections *sections;
    /* final only: one summary per phase of --rate-profile or
     * --clients-profile (report_phases.h), NULL when not profiled */
    const struct sb_phase_report *phases;
};

/* Average, standard deviation (population, as sysbench's fairness
 * lines), minimum and maximum of n counts (all 0 when n is 0). */
struct sb_spread { double avg, stddev; uint64_t min, max; };
struct sb_spread sb_report_spread(const uint64_t *v, int n);

/* The latency distribution, one line per non-empty bucket, in ms, under
 * its column heads (the final report's --histogram prints the title line
 * "Latency histogram ..." before it; a script's h:print() does not, as in
 * sysbench). */
void sb_report_histogram_text(FILE *f, const sb_histogram *h);


/*
 * sysbench 1.0's stat table, the one its report hooks receive
 * (sbench.hooks.report_intermediate(stat)): counts of the window, its
 * latencies in seconds (as sysbench's: its reporters print them * 1000),
 * and the percentile latency_pct is at.
 */
struct sb_report_stat {
    double time_interval, time_total, threads_running;
    double events, reads, writes, other, errors, reconnects;
    double latency_pct, latency_min, latency_avg, latency_max, latency_sum;
    double percentile;
};
/* The stat table of report r. */
struct sb_report_stat sb_report_stat_of(const struct sb_report *r);

/*
 * A report format: --report-format=NAME and the Lua reporter
 * sbench.<hook_name>(stat).  Every member is a pure function of its
 * arguments; the run loop keeps nth (how many reports it gave this format
 * for the same file before: 0 for the first) and owns the files.
 */
struct sb_report_format {
    const char *name;          /* --report-format=NAME */
    /* one reporting window */
    void (*interval)(FILE *f, const struct sb_report *r, int nth);
    /* the whole run; meta is a JSON object describing the run (or NULL) */
    void (*final)(FILE *f, const struct sb_report *r, const char *meta, int nth);
    /* sysbench 1.0's reporter a Lua report hook may call,
     * sbench.<hook_name>(stat) (on stdout; nth: how many it wrote before),
     * and what ends its output after the last one, at the end of the run
     * (NULL: nothing); NULL hook_line: no reporter */
    const char *hook_name;
    void (*hook_line)(FILE *f, const struct sb_report_stat *s, int nth);
    void (*hook_end)(FILE *f);
};

/* A --percentiles list: numbers in (0, 100] separated by commas, at most
 * max of them, into out.  Returns how many, or -1 (-2: too many). */
int sb_report_parse_percentiles(const char *list, double *out, int max);

/* Every format, NULL-terminated, in core/report.c; the first is the
 * default and the report people read on stdout (text). */
extern const struct sb_report_format *const sb_report_formats[];
/* The format called name, or NULL. */
const struct sb_report_format *sb_report_format_find(const char *name);

/* The formats' names as the options' help says them, from the table:
 * choices "text|json|csv", files "json and csv" (the formats that go to
 * --output or stdout; plural when more than one), slashed "json/csv".  One
 * for `sbench run`'s options and `sbench merge`'s. */
struct sb_report_format_names { char choices[128], files[128], slashed[128]; int plural; };
void sb_report_format_names(struct sb_report_format_names *t);

#endif
