/*
 * history.h: the run history store, sbench's memory across runs
 * (docs/history.md).  One record per run (`run`, each of compare's runs,
 * `sbench pgbench`, a merged shard set, an imported report) in a SQLite
 * file or a PostgreSQL database shared by several machines, and the
 * queries that read them back (`sbench history`, the statistics).
 *
 * This is the store's stable read and write API: open, append, query.
 * Every string in a record is owned by the record (malloc'd, NUL-ended);
 * a figure the run did not have is NAN.
 */
#ifndef SB_HISTORY_H
#define SB_HISTORY_H

#include <stddef.h>
#include <stdint.h>

/* The schema version this sbench writes (docs/history.md). */
#define SB_HIST_SCHEMA_VERSION 2
/* Labels a record or a filter holds at most. */
#define SB_HIST_MAX_LABELS 32

struct sb_history; /* an open store */

struct sb_hist_run {
    int64_t id;             /* the store's number for the run (1, 2, ...) */
    char *run_id;           /* the run's own identity (unique in a store) */
    char *session;          /* what the run is one repeat of: a compare
                               invocation's id, or the run's own id */
    char *source;           /* "run", "compare", "pgbench", "merge", "import" */
    double time;            /* start of the run, seconds since the epoch (UTC) */
    char *cmdline;          /* the command line, passwords removed */
    char *workload;         /* "oltp_read_write", "tpcc", a script's path */
    char *options_digest;   /* 16 hex digits over the options that shape the
                               measurement (not outputs, labels, passwords) */
    char *driver, *host, *dbname; /* the target's identity ("" when none) */
    int port;               /* 0 when none */
    char *target;           /* compare's target name, "" for a plain run */
    int point, repeat;      /* compare: the point's and repeat's index (from 0);
                               -1 for a plain run */
    char *labels;           /* "KEY=VALUE" per --label, sorted, joined by "\n" */
    double tps, qps;        /* final rates */
    double errors, reconnects, transactions, seconds;
    double lat_avg_ms, lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms;
    double nopm;            /* TPC-C new orders per minute, NAN when none */
    char *server_version, *sbench_version, *driver_version;
    double host_load;       /* the client host's 1-minute load average per CPU
                               as the run ended (its report's run.host), NAN
                               when unknown (a store of schema version 1) */
    char *report;           /* the JSON lines report (its windows and the final
                               line with its histogram, per statement kind,
                               server settings, host facts); filled by a
                               query only when sb_hist_filter.with_report */
};

/* What a query selects; a NULL or 0 member selects everything. */
struct sb_hist_filter {
    const char *run;        /* the store's number, or a run id (or its prefix) */
    const char *workload;
    const char *labels[SB_HIST_MAX_LABELS]; /* "KEY=VALUE": every one must match */
    int nlabels;
    const char *target;     /* a compare target name, a driver name, or
                               "DRIVER://HOST:PORT/DB" */
    const char *options_digest;
    const char *session;
    double since, until;    /* seconds since the epoch, 0 = unbounded */
    int limit;              /* the newest N (0: all) */
    int with_report;        /* also read each run's JSON report */
};

/* Runs a query answered: oldest first (by time, then id). */
struct sb_hist_runs {
    struct sb_hist_run *v;
    size_t n;
};

/*
 * Opens the store spec names: "off" (no store: returns 1, *out NULL), a
 * "postgresql://..." / "postgres://..." URI or a libpq DSN ("host=... dbname=...",
 * when it holds '='), or a SQLite file path (made, with its folder, when
 * missing).  NULL or "": $SBENCH_HISTORY if set, else
 * $XDG_DATA_HOME/sbench/history.db (~/.local/share/sbench/history.db).
 * An older schema is migrated, a newer one refused.  Returns 0 with the
 * store in *out, 1 for off, or -1 with one line in err (no password in it).
 */
int sb_history_open(const char *spec, struct sb_history **out, char *err, size_t errlen);
/* Whether the store spec names (as sb_history_open reads it) is there to
 * be read: 1 for a PostgreSQL store (its server says) or a SQLite file
 * that exists, 0 for a SQLite file that does not (opening it would make
 * an empty one), -1 for off; the path in `where` for the message. */
int sb_history_exists(const char *spec, char *where, size_t wherelen);
/* Where the store is, for messages: a path, or the URI without its password. */
const char *sb_history_where(const struct sb_history *h);
void sb_history_close(struct sb_history *h);

/*
 * Appends r (r->id is ignored) in one transaction, with its labels.  A
 * run_id already in the store is not added again (returns 1, *id the
 * existing one's).  Returns 0 with the new number in *id (id may be NULL),
 * or -1 with one line in err; two writers at once wait for each other
 * (SQLite: up to 30 s) and lose nothing.
 */
int sb_history_append(struct sb_history *h, const struct sb_hist_run *r, int64_t *id, char *err,
                      size_t errlen);

/* The runs f selects, into out (freed with sb_hist_runs_free).  0, or -1
 * with one line in err. */
int sb_history_query(struct sb_history *h, const struct sb_hist_filter *f, struct sb_hist_runs *out,
                     char *err, size_t errlen);
void sb_hist_runs_free(struct sb_hist_runs *runs);
void sb_hist_run_free(struct sb_hist_run *r); /* the strings of one record */

/*
 * A record built from an sbench JSON report held in memory (JSON lines:
 * interval lines and the final line, docs/report-json.md), checked as
 * untrusted with results/'s readers.  source, cmdline (NULL: from the
 * report's options) and labels ("KEY=VALUE" each) are the caller's.
 * Returns 0, or -1 with one line in err; r is zeroed first and freed on
 * failure.
 */
int sb_hist_run_from_report(const char *buf, size_t len, const char *source, const char *cmdline,
                            const char *const *labels, int nlabels, struct sb_hist_run *r,
                            char *err, size_t errlen);

/*
 * The tps of each whole reporting window of r (its report's interval lines
 * of at least half a second: the last one may be cut short), oldest first,
 * into out[0 .. max-1].  Returns how many there are (more than max: the
 * rest left out), 0 without a report or windows.
 */
size_t sb_hist_window_tps(const struct sb_hist_run *r, double *out, size_t max);

/* A --label value checked: "KEY=VALUE", a key of 1 to 64 bytes, one line.
 * 0, or -1 with one line in err. */
int sb_hist_label_check(const char *kv, char *err, size_t errlen);

#endif
