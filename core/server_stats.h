/*
 * The server's own view of a run (core/server_stats.c): its counters
 * (commits, rollbacks, statements, rows) read before and after the run on
 * one connection kept for that (the driver leaves that connection's own
 * reads out of the counts), their difference for the final report beside
 * sbench's counts, the server's version, and its settings for the JSON
 * report (the script's server_settings hook).
 */
#ifndef SB_SERVER_STATS_H
#define SB_SERVER_STATS_H

#include <stddef.h>

#include <sbench/driver.h>

#include "report.h"
#include "run.h"

/* When the server's counters last started from zero (its start, or a
 * reset of its statistics): somewhere in [lo, hi], in a time base of the
 * server's kind (PostgreSQL: its own clock, exact, lo == hi; MariaDB: the
 * monotonic clock, from Uptime in whole seconds).  Two reads with
 * disjoint intervals: the counters were reset in between. */
struct sb_counters_origin {
    int known;                      /* 0: the server does not tell */
    int64_t lo, hi;
};

struct sb_server_watch {
    struct sb_conn *reader;         /* the counters' connection, or NULL */
    int have;                       /* the counters before the run were read */
    int reopened;                   /* the connection was lost and opened again */
    struct sb_counters_origin origin; /* read before the counters before the run */
    struct sbd_server_counters before;
    char version[256];              /* the server's version, or "" */
    char why[300];                  /* why the counters were not read, or "" */
};

/* Reads the counters before the run (nothing when the driver has none or
 * --server-counters is off); w->have says whether they were read. */
void sb_server_watch_start(struct sb_run *run, struct sb_server_watch *w);
/* The counters after the run minus those before, into r->server (and
 * r->server_counters_valid): backends flush their statistics as they
 * exit, so it reads until two reads agree (at most ~2 s).  A lost
 * counters' connection is opened again once; counters expected but not
 * read are said in one line on stderr.  When the counters started again
 * from zero in between (a counter went down, the origin moved, or the
 * connection was lost on a server that does not tell its origin), every
 * count is unknown (-1), r->server_reset is set and one line on stderr
 * says so: the counts after a restart are never given as the run's. */
void sb_server_watch_end(struct sb_run *run, struct sb_server_watch *w, struct sb_report *r);
/* Closes the counters' connection (NULL reader: no-op). */
void sb_server_watch_close(struct sb_server_watch *w);

/* The server's settings as JSON into buf (run.server_settings of the JSON
 * final report), "" when not read: not after a failure or an interrupt,
 * nor for another format than json, nor with --db-server-settings=off.
 * Read after the last counter read, so the reading session's statements
 * stay out of the run's counts. */
void sb_server_settings_read(struct sb_run *run, const char *format, int failed, char *buf,
                             size_t len);

#endif
