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
    int unfinished;              /* events cut off by a forced shutdown */
    int histogram;               /* print the latency distribution */
};

void sb_report_intermediate_text(FILE *f, const struct sb_report *r);
void sb_report_final_text(FILE *f, const struct sb_report *r);
/* The latency distribution, one line per non-empty bucket, in ms. */
void sb_report_histogram_text(FILE *f, const sb_histogram *h);

#endif
