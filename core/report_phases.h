/*
 * Per-phase summaries of a profiled run (--rate-profile, --clients-profile):
 * the reporting thread closes a phase when the profile's clock passes its
 * end and keeps what the phase measured (the rate or the clients asked,
 * what ran, latency percentiles, failures), so that the final report adds
 * one summary per phase: a section of the text report, "phases" in the
 * final JSON line.  Nothing here runs on a worker.
 */
#ifndef SB_REPORT_PHASES_H
#define SB_REPORT_PHASES_H

#include <stdint.h>
#include <stdio.h>

#include "rate_profile.h"
#include "run.h"
#include "stats.h"

struct sb_phase_summary {
    char name[48];          /* the phase as the profile spells it */
    double start, end;      /* seconds from the start of measuring (after
                               the warm-up): the part of the phase measured */
    double asked;           /* the profile's mean over it: events a second
                               (--rate-profile) or active clients */
    uint64_t events, failed, ignored_errors;
    double tps;
    double p50_ms, p95_ms, p99_ms, max_ms;
    const sb_histogram *lat; /* the phase's latencies (owned by the tracker,
                                or by sbench merge); NULL when out of memory */
};

struct sb_phase_report {
    int clients;            /* 1: the profile is --clients-profile */
    int n;                  /* phases closed */
    struct sb_phase_summary s[SB_RATE_PROFILE_MAX_PHASES];
};

struct sb_phases;
/* The tracker of run's profile (the rate profile, else the clients one),
 * with tallies shaped like tmpl; NULL when the run has no profile or out
 * of memory (*oom set). */
struct sb_phases *sb_phases_create(const struct sb_run *run, const sb_histogram *tmpl, int nthreads,
                                   int nclients, int *oom);
void sb_phases_destroy(struct sb_phases *p);
/* Measuring starts at `now` (the run's start, or the end of its warm-up). */
void sb_phases_start(struct sb_phases *p, struct sb_thread_stats *const *ts, int64_t now);
/* Closes the phases that ended by `now`. */
void sb_phases_tick(struct sb_phases *p, struct sb_thread_stats *const *ts, int64_t now);
/* The run ended at `end`: the phase it ended in is closed there (a phase
 * the run never reached is left out), and the summaries returned. */
const struct sb_phase_report *sb_phases_finish(struct sb_phases *p, struct sb_thread_stats *const *ts,
                                               int64_t end);

/* The name of the phase that contains `now`, or NULL (no profile, or past
 * its last phase). */
const char *sb_phases_name_at(const struct sb_phases *p, int64_t now);

/* The formats write them (report_text.c, report_json.c: the text
 * report's section "Phases", the final JSON line's "phases"). */

#endif
