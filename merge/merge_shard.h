/*
 * merge_shard.h: what `sbench merge` knows of one shard (its final JSON
 * report and its HdrHistogram interval log, read and checked), and of the
 * merged run; shared by the merge's files (see merge.h).  Nothing here
 * runs during a benchmark.
 */
#ifndef SB_MERGE_SHARD_H
#define SB_MERGE_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include <sbench/driver.h>

#include "../core/histogram.h"
#include "../results/json_get.h"
#include "../core/report.h"
#include "../core/report_phases.h"
#include "../core/shard.h"
#include "../core/stats.h"

/* One reporting window of one shard, or of the merged run. */
struct mg_window {
    double start, end;        /* wall clock, seconds since the epoch */
    double seconds;           /* as the shard measured it (merged: end - start) */
    int threads;
    struct sb_snapshot d;     /* counts in the window (the JSON interval line) */
    int64_t lat_sum_ns;       /* the window's exact latency sum */
    uint64_t lat_count;       /* a shard's window: its latency_ms.count, the log's
                                 interval must hold as many */
    int line;                 /* a shard's window: its line in the JSON report */
    sb_histogram *lat;        /* merged: the window's latencies, owned; NULL in a
                                 shard's window, whose log goes straight into its slot */
    int slot;                 /* a shard's window: its slot in the merged run */
    int shards;               /* merged: how many shards' windows are in it */
    char phase[48];           /* a profiled run's: the phase of its middle, or "" */
};

struct mg_shard {
    char *json_path, *hlog_path;       /* owned */
    int index, count;
    char run_id[SB_RUN_ID_MAX + 1], settings[17];
    json_object *run;                  /* the final line's "run" object (a reference) */
    json_object *options;              /* run.options (borrowed from run) */
    char host[128];
    int cpus;
    double measure_start, client_cpu_s, report_interval, precision;
    int start_at;                      /* --start-at was given */
    /* the final line */
    double seconds;
    int threads;
    struct sb_snapshot d;
    sb_histogram *lat, *kind[SB_Q_NKINDS], *connect, *lag; /* owned; lag may be NULL */
    int nnamed;
    char named_name[SB_MAX_NAMED][40];
    uint64_t named_count[SB_MAX_NAMED];
    sb_histogram *named_lat[SB_MAX_NAMED];
    int ntypes;                        /* event types (merge_data.types); their
                                          counts are in d.type_* */
    char type_name[SB_MAX_TYPES][SB_TYPE_NAME_MAX];
    sb_histogram *type_lat[SB_MAX_TYPES]; /* owned */
    uint64_t *thread_events;           /* [threads], owned */
    int64_t *thread_busy_ns;           /* [threads], owned */
    uint64_t *client_events;           /* [nclients], owned; NULL when none */
    int nclients;
    int server_valid;
    int server_reset;                  /* "server.reset": the counts are unknown */
    struct sbd_server_counters server; /* -1: unknown (null) */
    struct sb_sampled sampled;         /* "server_metrics" (valid: read) */
    int pipeline_depth, unfinished;
    /* the windows: JSON interval line i with the log's interval i */
    struct mg_window *w;               /* [nw], owned */
    int nw;
    uint64_t log_count;                /* latencies in the log, all windows */
    struct sb_report_sections sections; /* the final line's report_sections */
    /* --rate-profile, --clients-profile: the final line's "phases", each
     * phase's latencies from its merge_data (owned; start and end on the
     * shard's clock, merged: on the merged run's) */
    int has_phases;
    struct sb_phase_report phases;
    sb_histogram *phase_lat[SB_RATE_PROFILE_MAX_PHASES];
};

/* The merged run: windows lined up on the wall clock, totals. */
struct mg_run {
    struct mg_shard **sh;              /* the shards merged, by index */
    int nsh, count;                    /* merged, and the group's size */
    int missing[64], nmissing;         /* indices missing (the first 64) */
    int nmissing_total;
    double t0;                         /* the earliest start of measuring */
    double interval;                   /* --report-interval */
    double misaligned;                 /* largest distance of a window from its slot, s */
    struct mg_window *w;               /* merged windows [nw], owned */
    int nw, wcap;
    /* the final report's parts, owned */
    struct mg_shard total;             /* only the fields of the final line */
    double end;                        /* the last shard's end of measuring */
};

/* The histogram layout of a run with --histogram-precision p: NULL when
 * out of memory.  Caller frees. */
sb_histogram *mg_hist_new(double precision);

struct mg_run;

/*
 * Reads a shard's final JSON report (mg_shard_load_json: s is zeroed
 * first) and then its HdrHistogram log (mg_shard_load_hlog), checked
 * against the report; each window of the log is added straight into its
 * slot of m (mg_slot), so no shard's windows are held.  Free s with
 * mg_shard_free, also after a failure.  Each returns 0, or -1 with one
 * line in err that names the file and, where it helps, the line.
 */
int mg_shard_load_json(struct mg_shard *s, const char *path, char *err, size_t errlen);
/* The same over the file's bytes buf[0 .. len-1] (owned by the caller;
 * path only names them in messages): the fuzz target's entry point. */
int mg_shard_parse_json(struct mg_shard *s, const char *path, const char *buf, size_t len, char *err,
                        size_t errlen);
int mg_shard_load_hlog(struct mg_shard *s, const char *path, struct mg_run *m, char *err,
                       size_t errlen);
void mg_shard_free(struct mg_shard *s);

/* merge_sections.c: the final line fin's "report_sections" into out (none
 * when absent), checked as a declaration is.  Returns 0, or -1 with one
 * line in err. */
int mg_sections_parse(json_object *fin, struct sb_report_sections *out, char *err, size_t errlen);
/* 1 when a and b declare the same sections. */
/* merge_sampled.c: the final line's "server_metrics" into out (out->valid
 * 0 when the shard did not sample); 0, or -1 with one line in err. */
int mg_load_sampled(json_object *fin, struct sb_sampled *out, char *err, size_t errlen);
int mg_sections_equal(const struct sb_report_sections *a, const struct sb_report_sections *b);

/* The identity of a log (its "#[sbench shard ...]" comment) without
 * decoding it: 0, or -1 when the file cannot be read or has none. */
int mg_hlog_identity(const char *path, int *index, int *count, char *run_id, size_t run_id_len,
                     char *settings, size_t settings_len, char *err, size_t errlen);

/* Once the shards' reports are in m->sh (sorted by index), before their
 * logs: the run's start, end and reporting grid. */
void mg_begin(struct mg_run *m);
/* The slot of the grid nearest to wall-clock time start (created, with
 * its histogram, as needed): its index, or -1 with err set (out of
 * memory, or a window too far from the run's start). */
int mg_slot(struct mg_run *m, double start, char *err, size_t errlen);
/* Adds up the shards into m (after mg_begin and their logs).  Returns 0,
 * or -1 with a message in err (out of memory). */
int mg_sum(struct mg_run *m, char *err, size_t errlen);
void mg_run_free(struct mg_run *m);

/* The outputs: see merge_out.c.  Returns 0, or 1 when an output could not
 * be written (message printed). */
struct mg_out_opts {
    const struct sb_report_format *fmt;
    const char *output, *hdr_log;
    double percentile;
    double percentiles[32];
    int npercentiles;
    int histogram;
    FILE *history_json; /* the run history's copy of the JSON report, or NULL */
};
int mg_write(const struct mg_run *m, const struct mg_out_opts *o);

#endif
