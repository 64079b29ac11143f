/*
 * The run command, in four steps with one way out: setup (the report
 * output, the script's init(), the workers, the HdrHistogram log, the
 * Prometheus exporter, the server's counters before the run, read by
 * server_stats.c), the run (worker threads released together; this thread
 * reports every --report-interval and stops the run by time, event count,
 * signal or forced shutdown), the final report (with the server's own
 * counters beside sbench's), and teardown, which releases whatever setup
 * got: a --output file becomes OUTPUT only when the final report went into
 * it, otherwise its temporary file is removed.  Every report is made by
 * sb_report_fill (report_fill.c) and goes through the table of formats
 * (core/report.c).  Options were parsed and checked by cli/main.c.
 */
#include "run.h"


#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients.h"
#include "io_ring.h"
#include "db.h"
#include "hdr_log.h"
#include "prometheus.h"
#include "report.h"
#include "report_fill.h"
#include "report_phases.h"
#include "server_sampler.h"
#include "server_stats.h"
#include "script.h"
#include "run_meta.h"
#include "tally.h"
#include "../lib/options.h"
#include "partial.h"
#include "verdict.h"
#include "worker.h"


/* Everything one run command holds; teardown releases what is not NULL. */
struct bench {
    struct sb_run *run;
    int n;                          /* worker threads */
    int nclients;                   /* clients fairness entries, 0 = none */
    /* outputs */
    const struct sb_report_format *fmt;   /* --report-format, into out */
    const struct sb_report_format *human; /* the report on stdout; NULL when fmt has stdout */
    FILE *out;                      /* stdout, or --output's temporary file */
    char *tmppath;                  /* OUTPUT.tmp while out is open, else NULL */
    int nout, nhuman;               /* reports written so far to out, to stdout */
    int nhistory;                   /* reports written to run->history_json */
    int history_cut;                /* its windows stopped: too many */
    int final_done;                 /* the final report was written */
    uint64_t final_events;          /* events counted in the final report */
    struct sb_hdr_log *hdr;
    int64_t hdr_base;               /* the log's BaseTime on the monotonic clock */
    struct sb_prom *prom;
    struct sb_tally *prom_tally;    /* the exporter thread's own tally */
    /* the workers' statistics */
    struct sb_thread_stats **ts;    /* [n] */
    struct sb_tally *cur, *prev, *win, *base;
    struct sb_phases *phases;       /* --rate-profile/--clients-profile, else NULL */
    sb_histogram *named_h[SB_MAX_NAMED];
    /* the named counts at the last window (window_named) */
    const char *wn_name[SB_MAX_NAMED];
    uint64_t wn_prev[SB_MAX_NAMED], wn_count[SB_MAX_NAMED];
    int wn;
    struct sb_server_watch server; /* the server's own counters */
    struct sb_sampler sampler;     /* ... window by window (--server-metrics) */
    int sampled_last;              /* the sampler's last window was read */
    char start_iso[64];
    /* the clock (ns, sb_now_ns) and the loop's state */
    int64_t measure_start, warm_end, deadline, interval, next_report, last_report, stop_at;
    int warmed, unfinished;
    int ncp;                        /* --report-checkpoints passed */
    int64_t cp_start;               /* the last checkpoint, 0 = none yet */
    char settings[16384];           /* the server's settings as JSON (script.h), or "" */
    char meta[32768];               /* the run as JSON, for the final report */
};

/* The run history's copy of report r: the JSON format's line, the final
 * one with what merge reads (the encoded latency histograms).  A long
 * run's windows stop at SB_HISTORY_WINDOWS_MAX bytes, and then the copy
 * keeps its final line alone (its windows would not add up to it). */
#define SB_HISTORY_WINDOWS_MAX ((long)16 << 20)
static void history_copy(struct bench *b, const struct sb_report *r, int final)
{
    const struct sb_report_format *json = sb_report_format_find("json");
    FILE *f = b->run->history_json;
    if (json == NULL)
        return;
    if (!final && (b->history_cut || ftell(f) > SB_HISTORY_WINDOWS_MAX))
        b->history_cut = 1;
    else if (!final)
        json->interval(f, r, b->nhistory++);
    else {
        struct sb_report full = *r;
        full.merge_data = 1;
        if (b->history_cut) /* an open_memstream: its size is where it is */
            fseek(f, 0, SEEK_SET);
        json->final(f, &full, b->meta, b->nhistory++);
    }
}

/* Writes report r: the human report on stdout (or the script's report hook
 * instead), and the chosen format into its file. */
static void emit(struct bench *b, const struct sb_report *r, int final)
{
    struct sb_run *run = b->run;
    if (b->human) {
        int hooked = run->script_ops->report_hook(run->control, final ? "report_cumulative" : "report_intermediate", r);
        if (hooked < 0) {
            sb_report_worker_error(run->control);
            atomic_store(&run->stop, 1);
        }
        if (hooked == 0 && run->verbosity < 3)
            ; /* --verbosity below 3: no text report (sysbench's notices) */
        else if (hooked == 0 && final) {
            /* what the workload prints before it (sysbench's built-in
             * tests: "CPU speed:", "Throughput:") */
            fflush(stdout);
            if (run->script_ops->report_hook(run->control, "report_lead", r) < 0)
                sb_report_worker_error(run->control);
            b->human->final(stdout, r, b->meta, b->nhuman++);
        }
        else if (hooked == 0)
            b->human->interval(stdout, r, b->nhuman++);
        /* lines the workload adds after the final report (the tpcc
         * workload's NOPM and TPM) */
        if (final && hooked >= 0) {
            fflush(stdout);
            if (run->script_ops->report_hook(run->control, "report_extra", r) < 0)
                sb_report_worker_error(run->control);
            fflush(stdout);
        }
    }
    if (b->fmt != b->human) {
        if (final)
            b->fmt->final(b->out, r, b->meta, b->nout++);
        else
            b->fmt->interval(b->out, r, b->nout++);
    }
    if (run->history_json) /* the run history's copy (history/), every histogram in it */
        history_copy(b, r, final);
    if (final)
        b->final_done = 1;
}

/* Prometheus scrapes: runs on the exporter's thread, reads the workers'
 * counters and histograms (relaxed atomics) into its own tally. */
static void prom_collect(void *arg, FILE *out)
{
    struct bench *b = arg;
    struct sb_tally *t = b->prom_tally;
    sb_tally_take(t, b->run, b->ts);
    t->snap.time = (double)(sb_now_ns() - b->run->start_ns) / 1e9;
    sb_prom_format(out, &t->snap, t->lat, (const sb_histogram *const *)t->kind, b->run->drv->name,
                   b->run->script_name);
    sb_sampler_prom(out, &b->sampler);
}

/* ---- setup: each step returns 0, or the exit status with the reason
 * printed; teardown releases what the steps got ---- */

static int open_output(struct bench *b)
{
    const char *path = b->run->output_path;
    b->out = stdout;
    if (path == NULL)
        return 0;
    size_t len = strlen(path) + sizeof ".tmp";
    b->tmppath = malloc(len);
    if (b->tmppath == NULL) {
        fprintf(stderr, "FATAL: out of memory\n");
        return 1;
    }
    snprintf(b->tmppath, len, "%s.tmp", path);
    b->out = fopen(b->tmppath, "w");
    if (b->out == NULL) {
        fprintf(stderr, "sbench: cannot write --output file '%s': %s\n", path, strerror(errno));
        b->out = stdout;
        free(b->tmppath);
        b->tmppath = NULL;
        return 1;
    }
    return 0;
}

/* --io: io_uring for threads that drive several clients, when asked for
 * or (auto) when the driver lets the host move its bytes and the kernel
 * allows it; poll() otherwise.  1 when --io=uring cannot be had. */
static int settle_io(struct sb_run *run)
{
    char why[160];
    int multiplexed = run->clients > run->threads;
    int want = run->want_io;
    run->io = SB_IO_POLL;
    if (want == SB_IO_POLL || !multiplexed)
        return 0;
    if (want == SB_IO_AUTO && !(run->drv && (run->drv->caps & SBD_CAP_HOST_IO)))
        return 0;
    if (!sb_ring_available(why, sizeof why)) {
        if (want == SB_IO_AUTO)
            return 0;
        fprintf(stderr, "sbench: --io=uring: %s\n", why);
        return 1;
    }
    run->io = SB_IO_URING;
    sb_db_set_host_io(1);
    return 0;
}

/* Threads, clients, their I/O and pipelining as the driver allows them.
 * 1 when the I/O asked for cannot be had. */
static int settle_threads(struct bench *b)
{
    struct sb_run *run = b->run;
    /* Clients fairness: reported whenever --clients differs from
     * --threads, also when the driver falls back to a thread per client */
    b->nclients = run->clients_given && run->clients != run->threads ? run->clients : 0;
    if (run->clients > run->threads && !sb_clients_can_multiplex(run->drv)) {
        fprintf(stderr, "sbench: driver %s cannot multiplex connections: running one client per "
                "thread (--threads=%d)\n", run->drv ? run->drv->name : "none", run->clients);
        run->threads = run->clients;
    }
    b->n = run->threads;
    run->pipeline = sb_db_set_pipeline(run->want_pipeline);
    if (run->want_pipeline > 0 && run->pipeline == 0)
        fprintf(stderr, "sbench: driver %s cannot pipeline statements: --pipeline=%d ignored, "
                "every statement waits for its answer\n", run->drv ? run->drv->name : "none",
                run->want_pipeline);
    return settle_io(run);
}

/* The workers (not started yet) and the reporter's tallies of them. */
static int create_workers(struct bench *b)
{
    struct sb_run *run = b->run;
    int n = b->n;
    run->workers = calloc((size_t)n, sizeof *run->workers);
    b->ts = calloc((size_t)n, sizeof *b->ts);
    if (!run->workers || !b->ts)
        goto oom;
    for (int i = 0; i < n; i++) {
        run->workers[i] = sb_worker_create(run, i);
        if (!run->workers[i])
            goto oom;
        b->ts[i] = &run->workers[i]->stats;
    }
    const sb_histogram *tmpl = run->workers[0]->stats.latency;
    b->cur = sb_tally_create(tmpl, n, b->nclients);
    b->prev = sb_tally_create(tmpl, n, b->nclients);
    b->win = sb_tally_create(tmpl, n, b->nclients);
    b->base = sb_tally_create(tmpl, n, b->nclients);
    b->prom_tally = sb_tally_create(tmpl, n, b->nclients);
    int oom;
    b->phases = sb_phases_create(run, tmpl, n, b->nclients, &oom);
    if (!b->cur || !b->prev || !b->win || !b->base || !b->prom_tally || oom)
        goto oom;
    return 0;
oom:
    fprintf(stderr, "FATAL: out of memory\n");
    return 1;
}

/* --hdr-log and --prometheus. */
static int open_observers(struct bench *b)
{
    struct sb_run *run = b->run;
    char err[512];
    if (run->hdr_log_path) {
        /* window offsets are from BaseTime, so a window's wall-clock
         * start is BaseTime + its offset (how sbench merge lines up the
         * windows of shards) */
        b->hdr_base = sb_now_ns();
        b->hdr = sb_hdr_log_open(run->hdr_log_path, sb_epoch_of_mono(b->hdr_base), err, sizeof err);
        if (b->hdr == NULL) {
            fprintf(stderr, "sbench: --hdr-log: %s\n", err);
            remove(run->hdr_log_path); /* created, maybe, but holds nothing */
            return 1;
        }
        if (run->shard.given) {
            char tag[256];
            sb_shard_hlog_tag(&run->shard, tag, sizeof tag);
            sb_hdr_log_comment(b->hdr, tag);
        }
    }
    if (run->prom_addr) {
        b->prom = sb_prom_start(run->prom_addr, prom_collect, b, err, sizeof err);
        if (b->prom == NULL) {
            fprintf(stderr, "sbench: --prometheus: %s\n", err);
            return 1;
        }
    }
    return 0;
}

static int setup(struct bench *b)
{
    struct sb_run *run = b->run;
    b->fmt = run->report_format;
    int rc = open_output(b);
    if (rc)
        return rc;
    /* the first format is the human one: on stdout unless the chosen
     * format takes stdout */
    b->human = b->fmt == sb_report_formats[0] || b->out != stdout ? sb_report_formats[0] : NULL;
    if (settle_threads(b) != 0)
        return 1;
    if (b->human && run->verbosity >= 3)
        sb_print_run_header(run);
    if (run->script_ops->call(run->control, "init") < 0) {
        sb_report_worker_error(run->control);
        return 1;
    }
    /* after init(), whose lines (the built-in tests' "Prime numbers
     * limit: N") come before it, as in sysbench */
    if (b->human && run->verbosity >= 3)
        printf("Initializing worker threads...\n\n");
    fflush(stdout);
    if ((rc = create_workers(b)) != 0 || (rc = open_observers(b)) != 0)
        return rc;
    sb_server_watch_start(run, &b->server);
    sb_sampler_start(&b->sampler, run, &b->server);
    sb_iso_now(b->start_iso, sizeof b->start_iso);
    return 0;
}

/* ---- the run ---- */

/* Starts the workers and releases them together; the clock starts then.
 * Returns 0, or 1 when a thread could not start (the others are left
 * waiting: run->abandoned). */
static int start_workers(struct bench *b)
{
    struct sb_run *run = b->run;
    int n = b->n;
    sb_install_signals();
    sb_worker_gate_init(n);
    atomic_store(&run->running, n);
    for (int i = 0; i < n; i++) {
        if (pthread_create(&run->workers[i]->thread, NULL, sb_worker_thread, run->workers[i]) != 0) {
            fprintf(stderr, "FATAL: cannot start thread %d of %d\n", i + 1, n);
            run->abandoned = 1; /* threads already started wait at the gate */
            return 1;
        }
    }
    /* the clock starts as the workers are released, so a run that ends
     * before this thread gets to run again is still timed right */
    /* keep the connects and the prepares of thread_init out of the timed
     * run (as sysbench does): every worker is ready before the clock
     * starts, so the first window is as clean as the others */
    while (sb_workers_ready() < n)
        sb_sleep_ns(1000000LL);
    int64_t start = sb_now_ns();
    if (run->shard.start_at_ns && (start = sb_shard_wait_start(&run->shard)) < 0) {
        /* too late, or interrupted: nobody runs, no report */
        atomic_store(&run->stop, 1);
        sb_worker_gate_open();
        for (int i = 0; i < n; i++)
            pthread_join(run->workers[i]->thread, NULL);
        sb_worker_gate_destroy();
        return 1;
    }
    run->start_ns = start; /* before the gate: --rate-profile's time 0 */
    run->warm_end_ns = run->warmup > 0 ? start + (int64_t)(run->warmup * 1e9) : 0;
    sb_worker_gate_open();
    if (!atomic_load(&run->fatal) && b->human && run->verbosity >= 3)
        printf("Threads started!\n\n");
    fflush(stdout);
    run->start_ns = start;
    b->measure_start = start;
    b->warmed = run->warmup <= 0;
    if (b->warmed)
        sb_phases_start(b->phases, b->ts, start);
    b->warm_end = start + (int64_t)(run->warmup * 1e9);
    b->deadline = run->time_limit > 0 ? b->warm_end + (int64_t)(run->time_limit * 1e9) : 0;
    b->interval = (int64_t)(run->report_interval * 1e9);
    b->next_report = b->interval > 0 ? b->warm_end + b->interval : 0;
    b->last_report = b->warm_end;
    sb_shard_mark_start(&run->shard, b->warm_end);
    return 0;
}

/* The end of --warmup-time: what ran until now is left out. */
static void end_warmup(struct bench *b, int64_t now)
{
    sb_tally_take(b->base, b->run, b->ts);
    sb_tally_copy(b->prev, b->base);
    b->measure_start = now;
    b->last_report = now;
    b->warmed = 1;
    sb_phases_start(b->phases, b->ts, now);
    sb_sampler_rebase(&b->sampler);
    sb_shard_mark_start(&b->run->shard, now);
}

/* One --report-interval window, from the last report to now. */
/* Reports the window from the last report to now; `last`: the run's last
 * window, which ends with the run (written, and marked, even when it is
 * shorter than --report-interval, so that the windows of every output add
 * up to the final report). */
/* The counts of the statements the workload named in the window that
 * ends (merged by name over the threads; counts only, once per window). */
static void window_named(struct bench *b, struct sb_report *r)
{
    uint64_t now[SB_MAX_NAMED] = {0};
    for (int i = 0; i < b->n; i++) {
        struct sb_thread_stats *ts = b->ts[i];
        int nn = atomic_load_explicit(&ts->nnamed, memory_order_acquire);
        for (int k = 0; k < nn; k++) {
            int m = 0;
            while (m < b->wn && strcmp(b->wn_name[m], ts->named[k].name) != 0)
                m++;
            if (m == b->wn && m == SB_MAX_NAMED)
                continue;
            if (m == b->wn)
                b->wn_name[b->wn++] = ts->named[k].name;
            now[m] += SB_GET(ts->named[k].count);
        }
    }
    for (int m = 0; m < b->wn; m++) {
        b->wn_count[m] = now[m] - b->wn_prev[m];
        b->wn_prev[m] = now[m];
    }
    r->window_nnamed = b->wn;
    r->window_named_name = b->wn_name;
    r->window_named_count = b->wn_count;
}

static void report_window(struct bench *b, int64_t now, int last)
{
    struct sb_run *run = b->run;
    struct sb_report r;
    sb_tally_take(b->cur, run, b->ts);
    sb_tally_copy(b->win, b->cur);
    sb_tally_sub(b->win, b->prev);
    struct sb_report_span span = {
        .span = b->win, .end = b->cur, .start = b->prev,
        .elapsed = floor((double)(now - b->measure_start) / 1e9 + 0.5),
        /* the window really covered: a late reporter (a stopped or starved
         * process) must not inflate the rates */
        .seconds = (double)(now - b->last_report) / 1e9,
        .threads = last ? b->n : atomic_load(&run->running), /* the last: those it ran with */
        .sampled = sb_sampler_window(&b->sampler, last,
                                     (double)(b->last_report - b->measure_start) / 1e9,
                                     (double)(now - b->measure_start) / 1e9),
    };
    b->sampled_last |= last;
    sb_report_fill(&r, SB_REPORT_WINDOW, run, &span);
    r.last_window = last;
    window_named(b, &r);
    r.phase = sb_phases_name_at(b->phases, b->last_report + (now - b->last_report) / 2); /* its middle's */
    if (last && r.d.events == 0 && r.seconds < 0.001)
        return; /* the run ended just after a window: nothing left */
    emit(b, &r, 0);
    if (b->hdr)
        sb_hdr_log_write_tagged(b->hdr, r.phase, (double)(b->last_report - b->hdr_base) / 1e9,
                                r.seconds, b->win->lat);
    sb_tally_copy(b->prev, b->cur);
    b->last_report = now;
    while (b->next_report <= now) /* skip the slots that were missed */
        b->next_report += b->interval;
}

/* --report-checkpoints: when one is due, the full report of what ran
 * since the previous checkpoint, headed "[ Ns ] Checkpoint report:"
 * (the text report, or the script's report_cumulative hook instead); its
 * total time counts from the start.  The counts then start again, so the
 * final report covers the time after the last checkpoint (sysbench's
 * "dump full statistics and reset all counters").  Checkpoints at 0 s or
 * passed while the reporter was held up give one report. */
static void checkpoint_report(struct bench *b, int64_t now)
{
    struct sb_run *run = b->run;
    int due = 0;
    while (b->ncp < run->ncheckpoints &&
           b->measure_start + (int64_t)(run->checkpoints[b->ncp] * 1e9) <= now)
        due |= run->checkpoints[b->ncp++] > 0;
    if (!due)
        return;
    struct sb_report r;
    sb_tally_take(b->cur, run, b->ts);
    sb_tally_copy(b->win, b->cur);
    sb_tally_sub(b->win, b->base);
    int64_t from = b->cp_start > b->measure_start ? b->cp_start : b->measure_start;
    struct sb_report_span span = {
        .span = b->win, .end = b->cur, .start = b->base,
        .seconds = (double)(now - from) / 1e9, .elapsed = (double)(now - b->measure_start) / 1e9,
        .threads = b->n, .nclients = b->nclients,
    };
    sb_report_fill(&r, SB_REPORT_CHECKPOINT, run, &span);
    if (b->human) {
        int hooked = run->script_ops->report_hook(run->control, "report_cumulative", &r);
        if (hooked < 0) {
            sb_report_worker_error(run->control);
            atomic_store(&run->stop, 1);
        } else if (hooked == 0 && run->verbosity >= 3) {
            printf("[ %.0fs ] Checkpoint report:\n", r.elapsed);
            b->human->final(stdout, &r, NULL, b->nhuman++);
        }
    }
    sb_tally_copy(b->base, b->cur);
    b->cp_start = now;
}

/* Until the workers are done (or, after a stop, the forced-shutdown grace
 * time is over): warmup, deadline, signals, interval reports. */
static void report_loop(struct bench *b)
{
    struct sb_run *run = b->run;
    for (;;) {
        if (atomic_load(&run->running) == 0)
            break;
        int64_t now = sb_now_ns();
        if (sb_interrupted && !atomic_load(&run->stop)) {
            fprintf(stderr, "\n%s\n", sb_interrupt_message());
            atomic_store(&run->stop, 1);
        }
        if (!b->warmed && now >= b->warm_end)
            end_warmup(b, now);
        if (b->deadline && now >= b->deadline && !atomic_load(&run->stop))
            atomic_store(&run->stop, 1);
        if (atomic_load(&run->stop) && !b->stop_at)
            b->stop_at = now;
        if (b->warmed && b->next_report && now >= b->next_report && !atomic_load(&run->stop))
            report_window(b, now, 0);
        if (b->warmed)
            sb_phases_tick(b->phases, b->ts, now);
        if (b->warmed && b->ncp < run->ncheckpoints && !atomic_load(&run->stop))
            checkpoint_report(b, now);
        if (!atomic_load(&run->stop))
            sb_sampler_tick(&b->sampler, now);
        /* forced shutdown: stop waiting for workers after the grace time */
        if (b->stop_at && run->forced_shutdown_ns >= 0 && now - b->stop_at > run->forced_shutdown_ns) {
            for (int i = 0; i < b->n; i++)
                b->unfinished += SB_GET(run->workers[i]->stats.in_event);
            break;
        }
        int64_t wait = 10000000LL;
        if (b->next_report && b->next_report - now < wait)
            wait = b->next_report - now;
        if (b->deadline && !b->stop_at && b->deadline - now < wait)
            wait = b->deadline - now;
        if (b->ncp < run->ncheckpoints) {
            int64_t cp = b->measure_start + (int64_t)(run->checkpoints[b->ncp] * 1e9);
            if (cp - now < wait)
                wait = cp - now;
        }
        sb_sleep_ns(wait > 0 ? wait : 1000);
    }
}

/* ---- the final report ---- */

/* Statements the workload named: merged by name over the threads. */
static void merge_named(struct bench *b, struct sb_report *r)
{
    const sb_histogram *tmpl = b->cur->lat;
    for (int i = 0; i < b->n; i++) {
        struct sb_thread_stats *ts = b->ts[i];
        int nn = atomic_load_explicit(&ts->nnamed, memory_order_acquire);
        for (int k = 0; k < nn; k++) {
            int m;
            for (m = 0; m < r->nnamed; m++)
                if (strcmp(r->named_name[m], ts->named[k].name) == 0)
                    break;
            if (m == r->nnamed) {
                if (m >= SB_MAX_NAMED || (b->named_h[m] = sb_histogram_clone_empty(tmpl)) == NULL)
                    continue;
                r->named_name[m] = ts->named[k].name;
                r->named_latency[m] = b->named_h[m];
                r->nnamed++;
            }
            r->named_count[m] += SB_GET(ts->named[k].count);
            sb_histogram_add(b->named_h[m], ts->named[k].latency);
        }
    }
}

/* --rate with --warmup-time: the arrivals due in the warm-up that the
 * workers started after it are in the first window with their whole wait;
 * said, so that a backlog is never carried over unseen. */
static void warmup_backlog_note(const struct sb_run *run, int n)
{
    uint64_t carried = 0;
    for (int i = 0; i < n; i++)
        carried += atomic_load(&run->workers[i]->warmup_carried);
    if (carried > 0)
        fprintf(stderr, "sbench: %llu arrival%s due in the warm-up started after it (counted in the "
                "first window, latency from the schedule)\n", (unsigned long long)carried,
                carried > 1 ? "s" : "");
}

/* Waits for the workers (unless some are cut off), writes the final
 * report.  Returns 1 when a worker failed, else 0. */
static int final_report(struct bench *b)
{
    struct sb_run *run = b->run;
    int64_t end = b->stop_at ? b->stop_at : sb_now_ns();
    if (b->unfinished == 0)
        for (int i = 0; i < b->n; i++)
            pthread_join(run->workers[i]->thread, NULL);
    else
        run->abandoned = 1;
    int failed = sb_report_thread_errors(run->workers, b->n);
    if (b->warmed && b->next_report && end > b->last_report)
        report_window(b, end, 1);
    if (!b->sampled_last) /* no windows: the run is the sampler's one */
        sb_sampler_window(&b->sampler, 1, 0, (double)(end - b->measure_start) / 1e9);
    struct sb_report r;
    sb_tally_take(b->cur, run, b->ts);
    if ((run->warmup > 0 && b->warmed) || b->cp_start)
        sb_tally_sub(b->cur, b->base);
    int64_t from = b->cp_start > b->measure_start ? b->cp_start : b->measure_start;
    struct sb_report_span span = {
        .span = b->cur, .end = b->cur, .start = b->base,
        .seconds = (double)((end > from ? end : from) - from) / 1e9,
        /* after --report-checkpoints the counts cover the time since the
         * last one, the total time the whole run (as sysbench prints them) */
        .elapsed = (double)((end > b->measure_start ? end : b->measure_start) - b->measure_start) / 1e9,
        .threads = b->n, .nclients = b->nclients,
        .sampled = sb_sampler_total(&b->sampler),
    };
    sb_report_fill(&r, SB_REPORT_FINAL, run, &span);
    if (strcmp(run->drv->name, "null") != 0) /* no server: nothing to say */
        r.sampled_why = b->sampler.why;
    r.unfinished = b->unfinished;
    merge_named(b, &r);
    if (b->unfinished == 0) /* it says why when the counters are missing */
        sb_server_watch_end(run, &b->server, &r);
    sb_server_watch_close(&b->server);
    sb_server_settings_read(run, b->fmt->name, failed, b->settings, sizeof b->settings);
    r.merge_data = run->shard.given;
    r.phases = sb_phases_finish(b->phases, b->ts, end);
    sb_shard_mark_end(&run->shard);
    char end_iso[64];
    sb_iso_now(end_iso, sizeof end_iso);
    run->io_seen = sb_db_io_seen();
    sb_run_meta_json(run, b->server.version, b->settings, b->start_iso, end_iso, b->meta, sizeof b->meta);
    warmup_backlog_note(run, b->n);
    if (sb_interrupted)
        fprintf(stderr, "sbench: run interrupted after %.1fs: the report covers what ran\n", r.seconds);
    /* threads that failed before running anything: their errors say it
     * all, an empty report would only hide them */
    b->final_events = r.d.events;
    if (!failed || r.d.events > 0)
        emit(b, &r, 1);
    if (!failed && !sb_interrupted)
        failed = sb_verdict(&r.d, sb_opt_num(run->opts, "max-failed-share"));
    if (b->hdr && b->next_report == 0) /* no intervals: the whole run is one */
        sb_hdr_log_write(b->hdr, (double)(b->measure_start - b->hdr_base) / 1e9, r.seconds,
                         b->cur->lat);
    return failed;
}

/* ---- teardown ---- */

/* Stops the exporter, closes the HdrHistogram log (removed when the run
 * failed before its first event: a header and an empty window would look
 * like a result), and turns --output's temporary file into OUTPUT when the
 * final report is in it (else removes it).  Returns 1 when a file could
 * not be written. */
static int close_outputs(struct bench *b, int run_failed)
{
    int failed = 0;
    sb_prom_stop(b->prom);
    b->prom = NULL;
    errno = 0;
    if (b->hdr && run_failed && b->final_events == 0) {
        sb_hdr_log_discard(b->hdr);
    } else if (b->hdr && sb_hdr_log_close(b->hdr) != 0) {
        sb_partial_said("--hdr-log", b->run->hdr_log_path, errno);
        failed = 1;
    }
    b->hdr = NULL;
    if (b->tmppath) {
        int bad = ferror(b->out);
        errno = 0;
        if (fclose(b->out) != 0 || bad) {
            fprintf(stderr, "sbench: writing --output file '%s' failed (%s): not written\n",
                    b->run->output_path, errno ? strerror(errno) : "a write failed");
            failed = 1;
        }
        if (!failed && b->final_done && rename(b->tmppath, b->run->output_path) != 0) {
            fprintf(stderr, "sbench: writing --output file '%s' failed\n", b->run->output_path);
            failed = 1;
        }
        if (failed || !b->final_done)
            unlink(b->tmppath);
        free(b->tmppath);
        b->tmppath = NULL;
        b->out = stdout;
    }
    return failed;
}

/* Closes the outputs, calls the script's done() after a run that went
 * well, frees what the run held (not the workers when they are left
 * running) and turns `failed` into the exit status. */
static int teardown(struct bench *b, int failed)
{
    struct sb_run *run = b->run;
    failed |= close_outputs(b, failed);
    if (!failed && !run->abandoned && run->script_ops->call(run->control, "done") < 0) {
        sb_report_worker_error(run->control);
        failed = 1;
    }
    sb_server_watch_close(&b->server);
    for (int m = 0; m < SB_MAX_NAMED; m++)
        sb_histogram_destroy(b->named_h[m]);
    sb_tally_destroy(b->prom_tally);
    sb_tally_destroy(b->cur);
    sb_tally_destroy(b->prev);
    sb_tally_destroy(b->win);
    sb_tally_destroy(b->base);
    sb_phases_destroy(b->phases);
    free(b->ts);
    if (!run->abandoned) {
        for (int i = 0; run->workers && i < b->n; i++)
            sb_worker_destroy(run->workers[i]);
        free(run->workers);
        run->workers = NULL;
    }
    free(b);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sbench: the report could not be written to standard output\n");
        failed = 1;
    }
    if (failed || run->abandoned)
        return 1;
    if (sb_interrupted)
        return 130;
    return 0;
}

int sb_run_benchmark(struct sb_run *run)
{
    struct bench *b = calloc(1, sizeof *b);
    if (b == NULL) {
        fprintf(stderr, "FATAL: out of memory\n");
        return 1;
    }
    b->run = run;
    b->out = stdout;
    int failed = setup(b);
    if (!failed)
        failed = start_workers(b);
    if (!failed) {
        report_loop(b);
        failed = final_report(b);
        if (!run->abandoned)
            sb_worker_gate_destroy();
    }
    return teardown(b, failed);
}
