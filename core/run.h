/*
 * The state of one sbench invocation (struct sb_run) and of each worker
 * thread (struct sb_worker), shared by the run loop, the Lua binding and
 * the reports.  Workers write only their own sb_worker; the control thread
 * reads their statistics when it reports.  The script's own state of a
 * worker is the binding's (core/script.h), behind `script`.
 */
#ifndef SB_RUN_H
#define SB_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <sbench/driver.h>

#include "histogram.h"
#include "../lib/rand.h"
#include "clock.h"
#include "db.h"
#include "shard.h"
#include "stats.h"
#include "lost.h"
#include "report_sections.h"

struct sb_options;
struct sb_script_ops;
struct sb_report_format;
struct sb_rate_profile;

/* Most entries of a --percentiles list. */
#define SB_MAX_PERCENTILES 32
/* Most SQLSTATEs in --db-ignore-sqlstates. */
#define SB_MAX_IGNORE_SQLSTATES 64
/* Most --report-checkpoints (sysbench's limit). */
#define SB_MAX_CHECKPOINTS 256

enum sb_rand_kind { SB_RAND_UNIFORM, SB_RAND_GAUSSIAN, SB_RAND_SPECIAL, SB_RAND_PARETO,
                    SB_RAND_ZIPFIAN };

struct sb_rand_conf {
    int kind;             /* enum sb_rand_kind, for rand.default */
    int spec_iter;
    double spec_pct, spec_res, pareto_h, zipf_exp;
    uint64_t seed;        /* 0: from the clock */
};

struct sb_worker {
    struct sb_thread_stats stats;   /* first: cache-line aligned */
    struct sb_run *run;
    int id;                         /* 0-based; -1 for the control worker */
    pthread_t thread;
    void *script;                   /* the binding's state (core/script.h) */
    sb_rand rand;
    char error[2048];               /* first fatal error, with its place */
    int failed;
    int64_t scheduled;              /* --rate: the last arrival's time */
    double rate_mass;               /* --rate-profile: the arrivals of the whole
                                       run expected by this thread's last one */
    int rate_cursor;                /* --rate-profile: its point (rate_profile.h) */
    _Atomic uint64_t warmup_carried; /* --rate: arrivals due in the warm-up
                                       that started after it */
    /* connections its script opened (not owned), for
     * --reconnect=transaction; conn_list is where a connection opened now
     * is listed: conns, or the running client's own (core/clients.c) */
    struct sb_conn_list conns;
    struct sb_conn_list *conn_list;
    /* --clients > --threads: events of each client this thread drives
     * (client tid + i * threads at [i]); written by this thread only */
    _Atomic uint64_t *client_events;
    int nclients;
    /* the type of the event being recorded next (core/event_types.h), set
     * by the script (sbench.event_type); -1 = none */
    int event_type;
    uint64_t event_units;           /* what it counts (sbench.event_type's
                                       units): 1 unless the script said */
    struct sb_lost lost;            /* its lost connections (lost.h) */
    struct sb_lost *lost_now;       /* whose losses a failure counts: NULL =
                                       lost, or the running client's own
                                       (core/clients_step.c) */
};

/* --io: how a thread driving several clients waits for them. */
enum { SB_IO_AUTO = 0, SB_IO_POLL, SB_IO_URING };

struct sb_run {
    struct sb_options *opts;
    const struct sb_script_ops *script_ops; /* the workload's language binding */
    const struct sbd_driver *drv;   /* NULL until a driver is loaded */
    const char *driver_name;
    const char *script;             /* path of the workload's .lua, NULL: stdin */
    const char *script_name;        /* as the user named it, NULL: stdin */
    const char *command;            /* NULL: only run the script */
    int argc;                       /* the command line (sbench.cmdline.argv) */
    char **argv;
    int threads;
    int clients;                    /* connections (Lua clients); >= threads */
    double time_limit;              /* seconds, 0 = none */
    uint64_t event_limit;           /* 0 = none */
    double report_interval;
    double checkpoints[SB_MAX_CHECKPOINTS]; /* --report-checkpoints, seconds, sorted */
    int ncheckpoints;
    int verbosity;                  /* --verbosity: < 3 prints no notices, no text report */
    double warmup;
    double percentile;
    struct sb_rand_conf rand;
    struct sb_worker **workers;
    struct sb_worker *control;
    _Atomic int stop;               /* workers finish their event and leave */
    _Atomic int fatal;              /* a worker failed: stop everyone */
    _Atomic uint64_t events_started;
    _Atomic int running;            /* workers still inside their loop */
    _Atomic uint64_t expected_rows; /* rows prepare announced (progress) */
    struct sb_barrier *barrier;     /* a parallel command's (sbench.barrier),
                                       NULL outside one; core/barrier.h */
    int64_t start_ns;
    int64_t warm_end_ns;            /* the end of --warmup-time, 0 = none */
    int64_t forced_shutdown_ns;     /* grace after stop; -1 = wait forever */
    int max_retries;                /* restarts before an event fails; 0 = no limit */
    int db_reconnect;               /* --db-reconnect: a lost connection reconnects */
    /* --db-ignore-sqlstates, parsed once (cli/main.c): 5 characters each */
    char ignore_sqlstates[SB_MAX_IGNORE_SQLSTATES][6];
    int nignore_sqlstates;
    double rate;                    /* --rate: events per second in total, 0 = as fast as possible */
    double rate_backlog_max;        /* --rate-backlog-max: arrivals behind that stop the run, 0 = none */
    int rate_fixed;                 /* --rate-distribution=fixed */
    /* --rate-profile (core/rate_profile.h), NULL = none; rate is then its
     * peak.  Read-only while the workers run. */
    const struct sb_rate_profile *rate_profile;
    /* --clients-profile: the clients active over time (the same grammar,
     * its values clients), --clients the ceiling; NULL = all, always */
    const struct sb_rate_profile *clients_profile;
    int64_t latency_limit_ns;       /* --latency-limit, 0 = none */
    int reconnect_per_event;        /* --reconnect=transaction */
    int paced;                      /* --rate or --reconnect=transaction: each
                                       event's start takes more than a check */
    int io;                         /* SB_IO_POLL or SB_IO_URING: the clients'
                                       event loop (core/clients*.c) */
    int want_io;                    /* --io as given: SB_IO_* */
    int io_seen;                    /* at the end, sb_db_io_seen(): 1 the ring
                                       moved a statement's bytes, 2 a driver
                                       moved them itself (run.io) */
    int pipeline;                   /* --pipeline depth in use, 0 = off */
    int want_pipeline;              /* --pipeline as given */
    int clients_given;              /* --clients was given */
    int ps_disabled;                /* --db-ps-mode=disable */
    int server_counters;            /* --db-server-counters */
    int server_metrics;             /* --server-metrics: the sampler (server_sampler.c) */
    int no_database;                /* the workload says sbench.cmdline.database = false
                                       (sysbench's built-in tests): the null driver
                                       unless --db-driver, no SQL sections */
    int server_settings;            /* --db-server-settings */
    /* the outputs, parsed and checked by main.c */
    const struct sb_report_format *report_format; /* --report-format */
    double percentiles[SB_MAX_PERCENTILES];      /* --percentiles */
    int npercentiles;
    const char *output_path;        /* --output, NULL: the report goes to stdout */
    const char *hdr_log_path;       /* --hdr-log, NULL = none */
    const char *prom_addr;          /* --prometheus, NULL = none */
    int histogram;                  /* --histogram */
    FILE *history_json;             /* the run history's copy of the report (JSON lines,
                                       the final line with its histograms), or NULL:
                                       written by the reporting thread, read by main.c */
    /* set by the run command when worker threads are left running (a
     * forced shutdown, a thread that could not start): nothing they use
     * may be freed, the process leaves at once (main.c) */
    int abandoned;
    /* one shard of a group (core/shard.c); index 0 of 1 when not */
    struct sb_shard shard;
    /* report sections the workload declared (sbench.report_section, on the
     * control state only) */
    struct sb_report_sections sections;
};

/* Allocates a worker (statistics, histogram, seeded random numbers, and
 * per-client event counters when it drives several clients); NULL when out
 * of memory.  Free with sb_worker_destroy (NULL is a no-op). */
struct sb_worker *sb_worker_create(struct sb_run *run, int id);
void sb_worker_destroy(struct sb_worker *w);

/* With --clients > --threads: how many clients thread tid drives (clients
 * tid, tid + threads, ...); 0 when every thread has one connection. */
int sb_run_clients_of(const struct sb_run *run, int tid);

/* Prints the first line of every command's output: sbench's version, the
 * script language and the driver (when one is loaded), and a blank line. */
void sb_print_version(const struct sb_run *run);
/* The run command's header on stdout after the banner (cli/main.c prints
 * that before the script's body runs), (sysbench's "Running the test with
 * following options:" and the run's settings; bench.c prints "Initializing
 * worker threads..." after the script's init()). */
void sb_print_run_header(const struct sb_run *run);

/* Runs `command` for the workload; returns the process exit status. */
int sb_run_command(struct sb_run *run);

/* Runs the benchmark (the run command); returns the exit status. */
int sb_run_benchmark(struct sb_run *run);
/* Prints a worker's error; prints each distinct error of failed workers
 * once (returns 1 if any failed). */
void sb_report_worker_error(const struct sb_worker *w);
int sb_report_thread_errors(struct sb_worker **ws, int n);
void sb_sleep_ns(int64_t ns);
/* Set by the first SIGINT/SIGTERM (core/signals.c) to that signal's
 * number: the run stops. */
extern volatile sig_atomic_t sb_interrupted;
/* SIGINT/SIGTERM: the first asks to stop (sb_interrupted), a second one
 * exits at once. */
void sb_install_signals(void);
/* The line that says which signal stopped the run (a static string). */
const char *sb_interrupt_message(void);
/* The worker whose script the signal handler interrupts (a serial command
 * on the main thread), or NULL. */
void sb_signal_worker_set(struct sb_worker *w);


#endif
