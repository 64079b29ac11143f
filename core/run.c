/*
 * Running a command: the benchmark run loop (worker threads, the reporter
 * on the main thread, stopping by time, event count, signal or forced
 * shutdown) and the other commands (prepare, cleanup, help, and commands a
 * script defines), serial in the control state or parallel in threads.
 */
#include "run.h"

#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lua/lua_env.h"
#include "db.h"
#include "options.h"
#include "report.h"

struct sb_run *sb_current_run;
volatile sig_atomic_t sb_interrupted;

int64_t sb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
    nanosleep(&ts, NULL);
}

struct sb_worker *sb_worker_create(struct sb_run *run, int id)
{
    struct sb_worker *w = aligned_alloc(64, (sizeof(struct sb_worker) + 63) / 64 * 64);
    if (w == NULL)
        return NULL;
    memset(w, 0, sizeof *w);
    w->run = run;
    w->id = id;
    double precision = sb_opt_num(run->opts, "histogram-precision");
    if (sb_stats_init(&w->stats, precision > 0 ? precision : 0.01) != 0) {
        sb_stats_free(&w->stats);
        free(w);
        return NULL;
    }
    sb_rand_seed(&w->rand, run->rand.seed, id + 1);
    return w;
}

void sb_worker_destroy(struct sb_worker *w)
{
    if (w == NULL)
        return;
    sb_stats_free(&w->stats);
    free(w);
}

static void report_worker_error(const struct sb_worker *w)
{
    if (w->id >= 0)
        fprintf(stderr, "FATAL: thread %d: %s\n", w->id, w->error);
    else
        fprintf(stderr, "FATAL: %s\n", w->error);
}

/* Prints each distinct error of failed workers once, saying how many
 * threads had it.  Returns 1 if any worker failed. */
static int report_thread_errors(struct sb_worker **ws, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (!ws[i] || !ws[i]->failed)
            continue;
        failed = 1;
        size_t l1 = strcspn(ws[i]->error, "\n");
        int dup = 0, same = 0;
        for (int k = 0; k < i && !dup; k++)
            dup = ws[k] && ws[k]->failed && strncmp(ws[k]->error, ws[i]->error, l1) == 0;
        if (dup)
            continue;
        for (int k = i + 1; k < n; k++)
            same += ws[k] && ws[k]->failed && strncmp(ws[k]->error, ws[i]->error, l1) == 0;
        report_worker_error(ws[i]);
        if (same)
            fprintf(stderr, "(and %d more thread%s with the same error)\n", same, same > 1 ? "s" : "");
    }
    return failed;
}

/* ---- commands other than run ---- */

struct cmd_thread {
    struct sb_worker *w;
    const char *cmd;
    int rc;
};

static void *parallel_command_thread(void *arg)
{
    struct cmd_thread *ct = arg;
    struct sb_worker *w = ct->w;
    if (w->run->drv && w->run->drv->thread_init)
        w->run->drv->thread_init();
    if (l_state_create(w, 1) == NULL) {
        ct->rc = -1;
    } else {
        ct->rc = l_call_command(w, ct->cmd);
        lua_close(w->L);
        w->L = NULL;
    }
    if (ct->rc < 0)
        atomic_store(&w->run->fatal, 1);
    if (w->run->drv && w->run->drv->thread_done)
        w->run->drv->thread_done();
    return NULL;
}

static int run_parallel_command(struct sb_run *run, const char *cmd)
{
    int n = run->threads;
    struct cmd_thread *ct = calloc((size_t)n, sizeof *ct);
    struct sb_worker **ws = calloc((size_t)n, sizeof *ws);
    if (!ct || !ws) {
        fprintf(stderr, "FATAL: out of memory\n");
        free(ct);
        free(ws);
        return 1;
    }
    run->workers = ws;
    int64_t t0 = sb_now_ns();
    int started = 0;
    for (int i = 0; i < n; i++) {
        ws[i] = sb_worker_create(run, i);
        if (!ws[i])
            break;
        ct[i].w = ws[i];
        ct[i].cmd = cmd;
        if (pthread_create(&ws[i]->thread, NULL, parallel_command_thread, &ct[i]) != 0)
            break;
        started++;
    }
    int tty = isatty(STDERR_FILENO);
    uint64_t last_rows = 0;
    int64_t last_t = t0;
    /* Progress on a terminal while threads load rows. */
    char *joined = calloc((size_t)n + 1, 1);
    for (;;) {
        int alive = 0;
        for (int i = 0; i < started; i++) {
            if (!joined[i] && pthread_tryjoin_np(ws[i]->thread, NULL) == 0)
                joined[i] = 1;
            alive += !joined[i];
        }
        if (!alive)
            break;
        sleep_ns(100000000LL);
        if (!tty)
            continue;
        int64_t now = sb_now_ns();
        if (now - last_t < 1000000000LL)
            continue;
        uint64_t rows = 0;
        for (int i = 0; i < started; i++)
            rows += SB_GET(ws[i]->stats.loaded_rows);
        uint64_t expect = atomic_load(&run->expected_rows);
        double rate = (double)(rows - last_rows) / ((double)(now - last_t) / 1e9);
        if (rows > 0) {
            fprintf(stderr, "\r  %llu rows loaded, %.0f rows/s", (unsigned long long)rows, rate);
            if (expect > rows && rate > 0)
                fprintf(stderr, ", ETA %.0fs  ", (double)(expect - rows) / rate);
            else
                fprintf(stderr, "           ");
        }
        last_rows = rows;
        last_t = now;
    }
    free(joined);
    if (tty && last_rows > 0)
        fprintf(stderr, "\r%60s\r", "");
    int rc = started == n ? 0 : 1;
    uint64_t rows = 0;
    for (int i = 0; i < started; i++) {
        rows += SB_GET(ws[i]->stats.loaded_rows);
        ws[i]->failed = ct[i].rc < 0;
    }
    if (report_thread_errors(ws, started))
        rc = 1;
    double secs = (double)(sb_now_ns() - t0) / 1e9;
    if (rows > 0 && rc == 0)
        printf("Loaded %llu rows in %.2fs (%.0f rows/s)\n", (unsigned long long)rows, secs,
               (double)rows / secs);
    for (int i = 0; i < n; i++)
        sb_worker_destroy(ws[i]);
    free(ws);
    free(ct);
    run->workers = NULL;
    return rc;
}

static int run_other_command(struct sb_run *run)
{
    struct sb_worker *ctl = run->control;
    const char *cmd = run->command;
    int kind = l_find_command(ctl, cmd);
    int rc;
    if (kind == 2)
        return run_parallel_command(run, cmd);
    if (kind == 1)
        rc = l_call_command(ctl, cmd);
    else
        rc = l_call_global(ctl, cmd);
    if (rc == 1) {
        if (strcmp(cmd, "prepare") == 0 || strcmp(cmd, "cleanup") == 0 ||
            strcmp(cmd, "prewarm") == 0)
            fprintf(stderr, "sbench: workload '%s' has no '%s' command\n", run->script_name, cmd);
        else
            fprintf(stderr, "sbench: unknown command '%s' (commands: prepare, run, cleanup, help)\n",
                    cmd);
        return 2;
    }
    if (rc < 0) {
        report_worker_error(ctl);
        return 1;
    }
    return 0;
}

/* ---- run ---- */

static pthread_barrier_t start_barrier;

static void *worker_thread(void *arg)
{
    struct sb_worker *w = arg;
    struct sb_run *run = w->run;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    if (run->drv && run->drv->thread_init)
        run->drv->thread_init();
    int ok = l_state_create(w, 1) != NULL;
    if (ok && l_call_global(w, "thread_init") < 0)
        ok = 0;
    if (ok && l_event_prepare(w) < 0)
        ok = 0;
    if (!ok) {
        w->failed = 1;
        atomic_store(&run->fatal, 1);
        atomic_store(&run->stop, 1);
    }
    pthread_barrier_wait(&start_barrier);
    struct sb_thread_stats *st = &w->stats;
    /* --rate: this thread's share of the arrivals; latency counts from the
     * scheduled start so a stalled server shows up (no coordinated
     * omission), and the lag between schedule and start is kept apart. */
    double mean_gap_ns = run->rate > 0 ? 1e9 * run->threads / run->rate : 0;
    int64_t scheduled = sb_now_ns();
    if (ok) {
        while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
            if (run->event_limit &&
                atomic_fetch_add_explicit(&run->events_started, 1, memory_order_relaxed) >=
                    run->event_limit)
                break;
            int64_t t0;
            if (mean_gap_ns > 0) {
                double gap = run->rate_fixed ? mean_gap_ns
                                             : -log(1.0 - sb_rand_double(&w->rand)) * mean_gap_ns;
                scheduled += (int64_t)gap;
                int64_t now = sb_now_ns();
                while (now < scheduled && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
                    int64_t d = scheduled - now;
                    sleep_ns(d > 50000000LL ? 50000000LL : d);
                    now = sb_now_ns();
                }
                if (atomic_load_explicit(&run->stop, memory_order_relaxed))
                    break;
                sb_histogram_record(st->lag, now - scheduled);
                t0 = scheduled;
            } else {
                t0 = sb_now_ns();
            }
            atomic_store_explicit(&st->in_event, 1, memory_order_relaxed);
            int rc = l_event_run(w);
            int64_t lat = sb_now_ns() - t0;
            atomic_store_explicit(&st->in_event, 0, memory_order_relaxed);
            if (rc < 0) {
                w->failed = 1;
                atomic_store(&run->fatal, 1);
                atomic_store(&run->stop, 1);
                break;
            }
            if (rc == 1)
                break; /* cut short by a stop request; not counted */
            if (rc == 2)
                continue; /* failed after --max-retries; counted as failed */
            sb_histogram_record(st->latency, lat);
            SB_ADD(st->busy_ns, lat);
            if (run->latency_limit_ns && lat > run->latency_limit_ns)
                SB_ADD(st->late_events, 1);
            SB_ADD(st->events, 1);
        }
        if (!w->failed && l_call_global(w, "thread_done") < 0) {
            w->failed = 1;
            atomic_store(&run->fatal, 1);
        }
    }
    if (w->L) {
        lua_close(w->L);
        w->L = NULL;
    }
    if (run->drv && run->drv->thread_done)
        run->drv->thread_done();
    atomic_fetch_sub(&run->running, 1);
    return NULL;
}

static void on_signal(int sig)
{
    (void)sig;
    if (sb_interrupted) {
        static const char msg[] = "\nsbench: interrupted twice, exiting now\n";
        ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)r;
        _exit(130);
    }
    sb_interrupted = 1;
}

/* Baseline taken at the end of the warmup, subtracted from every report. */
struct baseline {
    struct sb_snapshot snap;
    sb_histogram *lat;
    uint64_t *events;
    int64_t *busy;
};

static void take_snapshot(struct sb_run *run, struct sb_snapshot *s, sb_histogram *h)
{
    struct sb_thread_stats *ts[1024];
    int n = run->threads < 1024 ? run->threads : 1024;
    for (int i = 0; i < n; i++)
        ts[i] = &run->workers[i]->stats;
    sb_stats_snapshot(ts, n, s);
    if (h)
        sb_stats_merge_latency(ts, n, h);
}

static void diff_snap(struct sb_snapshot *d, const struct sb_snapshot *a, const struct sb_snapshot *b)
{
    /* d = a - b for the counters; connection stats stay cumulative */
    *d = *a;
    d->events -= b->events;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        d->queries[k] -= b->queries[k];
    d->ignored_errors -= b->ignored_errors;
    d->reconnects -= b->reconnects;
    d->failed_events -= b->failed_events;
    d->busy_ns -= b->busy_ns;
}

static void print_header(struct sb_run *run)
{
    printf("sbench %s (Lua %s.%s, driver %s%s%s)\n\n", SB_VERSION, LUA_VERSION_MAJOR,
           LUA_VERSION_MINOR, run->drv ? run->drv->name : "none",
           run->drv && run->drv->client_version ? ": " : "",
           run->drv && run->drv->client_version ? run->drv->client_version() : "");
    printf("Running the test with following options:\n");
    printf("Number of threads: %d\n", run->threads);
    if (run->report_interval > 0)
        printf("Report intermediate results every %g second(s)\n", run->report_interval);
    if (run->warmup > 0)
        printf("Warmup time: %g second(s)\n", run->warmup);
    if (run->rand.seed)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)run->rand.seed);
    else
        printf("Initializing random number generator from current time\n");
    if (sb_opt_str(run->opts, "db-ps-mode") && strcmp(sb_opt_str(run->opts, "db-ps-mode"), "disable") == 0)
        printf("Prepared statements: disabled (--db-ps-mode=disable)\n");
    printf("\n\nInitializing worker threads...\n\n");
    fflush(stdout);
}

static int run_benchmark(struct sb_run *run)
{
    int n = run->threads;
    print_header(run);
    if (l_call_global(run->control, "init") < 0) {
        report_worker_error(run->control);
        return 1;
    }
    run->workers = calloc((size_t)n, sizeof *run->workers);
    uint64_t *events = calloc((size_t)n, sizeof *events);
    int64_t *busy = calloc((size_t)n, sizeof *busy);
    struct baseline base = {0};
    base.events = calloc((size_t)n, sizeof *base.events);
    base.busy = calloc((size_t)n, sizeof *base.busy);
    if (!run->workers || !events || !busy || !base.events || !base.busy) {
        fprintf(stderr, "FATAL: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        run->workers[i] = sb_worker_create(run, i);
        if (!run->workers[i]) {
            fprintf(stderr, "FATAL: out of memory\n");
            return 1;
        }
    }
    sb_histogram *cur = sb_histogram_clone_empty(run->workers[0]->stats.latency);
    sb_histogram *prev = sb_histogram_clone_empty(cur);
    sb_histogram *win = sb_histogram_clone_empty(cur);
    base.lat = sb_histogram_clone_empty(cur);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    pthread_barrier_init(&start_barrier, NULL, (unsigned)n + 1);
    atomic_store(&run->running, n);
    int created = 0;
    for (int i = 0; i < n; i++) {
        if (pthread_create(&run->workers[i]->thread, NULL, worker_thread, run->workers[i]) != 0) {
            fprintf(stderr, "FATAL: cannot start thread %d\n", i);
            atomic_store(&run->stop, 1);
            atomic_store(&run->fatal, 1);
            /* release the barrier for those already waiting */
            for (int k = i; k < n; k++)
                atomic_fetch_sub(&run->running, 1);
            break;
        }
        created++;
    }
    if (created < n) {
        /* the barrier expects n+1; threads that exist will block forever:
         * exit hard after reporting */
        fprintf(stderr, "FATAL: could only start %d of %d threads\n", created, n);
        _exit(1);
    }
    /* the clock starts as the workers are released, so a run that ends
     * before this thread gets to run again is still timed right */
    int64_t start = sb_now_ns();
    pthread_barrier_wait(&start_barrier);
    if (!atomic_load(&run->fatal))
        printf("Threads started!\n\n");
    fflush(stdout);

    run->start_ns = start;
    int64_t measure_start = start;
    int warmed = run->warmup <= 0;
    int64_t warm_end = start + (int64_t)(run->warmup * 1e9);
    int64_t deadline = run->time_limit > 0 ? warm_end + (int64_t)(run->time_limit * 1e9) : 0;
    if (!warmed)
        deadline = run->time_limit > 0 ? deadline : 0;
    int64_t interval = (int64_t)(run->report_interval * 1e9);
    int64_t next_report = interval > 0 ? warm_end + interval : 0;
    struct sb_snapshot prev_snap = {0}, now_snap;
    int64_t stop_at = 0;
    int unfinished = 0;

    for (;;) {
        if (atomic_load(&run->running) == 0)
            break;
        int64_t now = sb_now_ns();
        if (sb_interrupted && !atomic_load(&run->stop)) {
            fprintf(stderr, "\nsbench: interrupted, finishing the events in flight (Ctrl-C again to exit now)\n");
            atomic_store(&run->stop, 1);
        }
        if (!warmed && now >= warm_end) {
            take_snapshot(run, &base.snap, base.lat);
            for (int i = 0; i < n; i++) {
                base.events[i] = SB_GET(run->workers[i]->stats.events);
                base.busy[i] = SB_GET(run->workers[i]->stats.busy_ns);
            }
            prev_snap = base.snap;
            sb_histogram_copy(prev, base.lat);
            measure_start = now;
            warmed = 1;
        }
        if (deadline && now >= deadline && !atomic_load(&run->stop)) {
            atomic_store(&run->stop, 1);
            stop_at = now;
        }
        if (atomic_load(&run->stop) && !stop_at)
            stop_at = now;
        if (warmed && next_report && now >= next_report && !atomic_load(&run->stop)) {
            take_snapshot(run, &now_snap, cur);
            sb_histogram_copy(win, cur);
            sb_histogram_subtract(win, prev);
            struct sb_report r = {0};
            diff_snap(&r.d, &now_snap, &prev_snap);
            r.elapsed = (double)(now - measure_start) / 1e9;
            r.elapsed = floor(r.elapsed + 0.5);
            r.seconds = run->report_interval;
            r.threads = atomic_load(&run->running);
            r.latency = win;
            r.percentile = run->percentile;
            sb_report_intermediate_text(stdout, &r);
            prev_snap = now_snap;
            sb_histogram_copy(prev, cur);
            next_report += interval;
        }
        /* forced shutdown: stop waiting for workers after the grace time */
        if (stop_at && run->forced_shutdown_ns >= 0 && now - stop_at > run->forced_shutdown_ns) {
            for (int i = 0; i < n; i++)
                unfinished += SB_GET(run->workers[i]->stats.in_event);
            break;
        }
        int64_t wait = 10000000LL;
        if (next_report && next_report - now < wait)
            wait = next_report - now;
        if (deadline && !stop_at && deadline - now < wait)
            wait = deadline - now;
        sleep_ns(wait > 0 ? wait : 1000);
    }
    int64_t end = stop_at ? stop_at : sb_now_ns();
    if (unfinished == 0)
        for (int i = 0; i < n; i++)
            pthread_join(run->workers[i]->thread, NULL);

    int failed = report_thread_errors(run->workers, n);

    /* final report */
    take_snapshot(run, &now_snap, cur);
    if (warmed && run->warmup > 0)
        sb_histogram_subtract(cur, base.lat);
    struct sb_report r = {0};
    diff_snap(&r.d, &now_snap, &base.snap);
    r.seconds = (double)((end > measure_start ? end : measure_start) - measure_start) / 1e9;
    r.elapsed = r.seconds;
    r.threads = n;
    r.latency = cur;
    r.percentile = run->percentile;
    for (int i = 0; i < n; i++) {
        events[i] = SB_GET(run->workers[i]->stats.events) - base.events[i];
        busy[i] = SB_GET(run->workers[i]->stats.busy_ns) - base.busy[i];
    }
    r.thread_events = events;
    r.thread_busy_ns = busy;
    r.unfinished = unfinished;
    r.histogram = sb_opt_bool(run->opts, "histogram");
    if (!failed || r.d.events > 0) {
        if (sb_interrupted)
            printf("\nRun interrupted after %.1fs: the report covers what ran.\n", r.seconds);
        printf("\n");
        sb_report_final_text(stdout, &r);
    }
    if (unfinished > 0) {
        fflush(stdout);
        _exit(1);
    }
    if (!failed && l_call_global(run->control, "done") < 0) {
        report_worker_error(run->control);
        failed = 1;
    }
    pthread_barrier_destroy(&start_barrier);
    sb_histogram_destroy(cur);
    sb_histogram_destroy(prev);
    sb_histogram_destroy(win);
    sb_histogram_destroy(base.lat);
    for (int i = 0; i < n; i++)
        sb_worker_destroy(run->workers[i]);
    free(run->workers);
    run->workers = NULL;
    free(events);
    free(busy);
    free(base.events);
    free(base.busy);
    if (failed)
        return 1;
    if (sb_interrupted)
        return 130;
    return 0;
}

int sb_run_command(struct sb_run *run)
{
    if (strcmp(run->command, "run") == 0)
        return run_benchmark(run);
    return run_other_command(run);
}
