/*
 * Reports: what one reporting window or the whole run measured, gathered
 * into one struct, and the text formatters (sysbench 1.0's labels and
 * layout, so existing parsers keep working).  Formatters are pure
 * functions of the struct.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "histogram.h"
#include "stats.h"

#include <sbench/driver.h>

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
    const sb_histogram *lag;     /* --rate: schedule lag, NULL if no --rate */
    double latency_limit_ms;     /* 0 = none */
    int pipeline;                /* --pipeline depth in use, 0 = off */
    int nnamed;                  /* statements the workload named */
    const char *named_name[SB_MAX_NAMED];
    uint64_t named_count[SB_MAX_NAMED];
    const sb_histogram *named_latency[SB_MAX_NAMED];
    int server_counters_valid;   /* the server's own counts, when read */
    struct sbd_server_counters server;
};

/* Average, standard deviation (population, as sysbench's fairness
 * lines), minimum and maximum of n counts (all 0 when n is 0). */
struct sb_spread { double avg, stddev; uint64_t min, max; };
struct sb_spread sb_report_spread(const uint64_t *v, int n);

void sb_report_intermediate_text(FILE *f, const struct sb_report *r);
void sb_report_final_text(FILE *f, const struct sb_report *r);
/* The extra sections sbench adds after sysbench's (statement kinds,
 * errors, connections, schedule lag, server cross-check). */
void sb_report_extra_text(FILE *f, const struct sb_report *r);
/* One JSON object on one line; type is "interval" or "final"; meta (may
 * be NULL) is a JSON object text written as "run". */
void sb_report_json(FILE *f, const struct sb_report *r, const char *type, const char *meta);
/* CSV: the header row, and one row per report. */
void sb_report_csv_header(FILE *f, const struct sb_report *r);
void sb_report_csv_row(FILE *f, const struct sb_report *r);

/* The latency distribution, one line per non-empty bucket, in ms. */
void sb_report_histogram_text(FILE *f, const sb_histogram *h);

#endif
