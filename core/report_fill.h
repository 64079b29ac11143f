/*
 * One report filled from the run's tallies (core/report_fill.c): every
 * report the run command writes (a --report-interval window, a
 * --report-checkpoints checkpoint, the final report) is a struct sb_report
 * made by sb_report_fill, from the tally at its end and the one at its
 * start; the kinds differ only in what they add (see enum sb_report_kind).
 */
#ifndef SB_REPORT_FILL_H
#define SB_REPORT_FILL_H

#include <stdint.h>

#include "report.h"
#include "run.h"
#include "tally.h"

enum sb_report_kind {
    SB_REPORT_WINDOW,       /* counts and latencies of one window */
    SB_REPORT_CHECKPOINT,   /* ... and each thread's and client's events,
                               connects, the latency limit, --pipeline */
    SB_REPORT_FINAL,        /* ... and the forced shutdown's unfinished
                               events, --histogram (named statements and
                               the server's counters are added by the run) */
};

/* What the report covers: `span` is the tally of its counts (the end minus
 * the start, histograms subtracted), `end` and `start` the tallies whose
 * snapshots subtract into r->d; `seconds` is the report's length, `elapsed`
 * the time since measuring started; `nclients` is 0 unless the per-client
 * counts are reported.  r borrows span's histograms and arrays: it is
 * valid while span is unchanged. */
struct sb_report_span {
    const struct sb_tally *span, *end, *start;
    double seconds, elapsed;
    int threads, nclients;
    const struct sb_sampled *sampled; /* the server's evidence, or NULL */
};
void sb_report_fill(struct sb_report *r, enum sb_report_kind kind, const struct sb_run *run,
                    const struct sb_report_span *s);

#endif
