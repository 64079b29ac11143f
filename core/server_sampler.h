/*
 * The server's evidence window by window (core/server_sampler.c): on the
 * reporting thread, over the connection that reads the server's counters
 * (server_stats.h), it reads the driver's server_sample at every window's
 * end, on the same boundaries as the client's --report-interval windows,
 * and an active-session sample (server_waits) about ten times a second;
 * the host's /proc when the server is local.  Never on a worker's path.
 */
#ifndef SB_SERVER_SAMPLER_H
#define SB_SERVER_SAMPLER_H

#include <stdatomic.h>
#include <stdio.h>

#include "run.h"
#include "sampled.h"
#include "server_stats.h"

struct sb_sampler {
    struct sb_run *run;
    struct sb_server_watch *w;      /* its connection (w->reader) */
    int on;                         /* sampling */
    int started;                    /* it was on at the start */
    int local;                      /* the server is on this machine: /proc read */
    int64_t next_wait;              /* next active-session sample, sb_now_ns */
    struct sbd_server_sample last;  /* the counters at the last window's end */
    struct sb_host_stat host_last;
    struct sb_sampled win, total;   /* the window being gathered, the run's */
    struct sb_sampled out;          /* the last window given out */
    char why[200];                  /* why it is off, "" when on or turned off */
    /* the run's totals so far, for the Prometheus exporter's thread */
    _Atomic int64_t published[SB_SAMPLE_FIELDS];
    _Atomic int published_valid;
};

/* Starts sampling after w's counters before the run were read
 * (--server-metrics=off, no counters' connection, a driver without
 * server_sample: off, s->why says why unless turned off). */
void sb_sampler_start(struct sb_sampler *s, struct sb_run *run, struct sb_server_watch *w);
/* The end of --warmup-time: the counters read again as the first
 * window's start, the samples so far dropped (the client's windows leave
 * the warmup out too; the cross-check, read before it, does not). */
void sb_sampler_rebase(struct sb_sampler *s);
/* Takes an active-session sample when one is due (now: sb_now_ns). */
void sb_sampler_tick(struct sb_sampler *s, int64_t now);
/* Ends the window [from, to] (seconds since measuring started): reads the
 * counters, adds the window to the run's total and returns it (NULL when
 * off).  `last`: the run's last window,
 * read until two reads agree (at most ~2 s, as the counters after the
 * run), so that the windows add up to server_stats' after minus before. */
const struct sb_sampled *sb_sampler_window(struct sb_sampler *s, int last, double from,
                                          double to);
/* The run's total (NULL when off, never read, or stopped during the run:
 * s->why says so). */
const struct sb_sampled *sb_sampler_total(struct sb_sampler *s);

/* The run's totals at the last window's end in the Prometheus text
 * format (sbench_server_*; nothing before the first window): called on
 * the exporter's thread, reads only what sb_sampler_window published. */
void sb_sampler_prom(FILE *out, struct sb_sampler *s);

#endif
