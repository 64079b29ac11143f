/*
 * Running a command: the benchmark run loop (worker threads, the reporter
 * on the main thread, stopping by time, event count, signal or forced
 * shutdown) and the other commands (prepare, cleanup, help, and commands a
 * script defines), serial in the control state or parallel in threads.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "options.h"
#include "report.h"
#include "script.h"

volatile sig_atomic_t sb_interrupted;
/* The worker running a serial command on the main thread, for the signal
 * handler (the script's interrupt hook is async-signal-safe). */
static struct sb_worker *volatile signal_worker;

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
    struct sb_worker *w = signal_worker;
    if (w)
        w->run->script_ops->interrupt(w);
}

void sb_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void sb_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
    nanosleep(&ts, NULL);
}

void sb_print_version(const struct sb_run *run)
{
    const struct sbd_driver *d = run->drv;
    const char *v = d && d->client_version ? d->client_version() : NULL;
    if (d)
        printf("sbench %s (%s, driver %s%s%s)\n\n", SB_VERSION, run->script_ops->language, d->name,
               v && *v ? ": " : "", v && *v ? v : "");
    else
        printf("sbench %s (%s)\n\n", SB_VERSION, run->script_ops->language);
    fflush(stdout);
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
    w->nclients = id >= 0 ? sb_run_clients_of(run, id) : 0;
    if (w->nclients > 0) {
        w->client_events = calloc((size_t)w->nclients, sizeof *w->client_events);
        if (w->client_events == NULL) {
            sb_worker_destroy(w);
            return NULL;
        }
    }
    return w;
}

int sb_run_clients_of(const struct sb_run *run, int tid)
{
    if (run->clients <= run->threads)
        return 0;
    return (run->clients - tid + run->threads - 1) / run->threads;
}

void sb_worker_destroy(struct sb_worker *w)
{
    if (w == NULL)
        return;
    sb_stats_free(&w->stats);
    sb_conn_list_free(&w->conns);
    free(w->client_events);
    free(w);
}

void sb_report_worker_error(const struct sb_worker *w)
{
    if (w->id >= 0)
        fprintf(stderr, "FATAL: thread %d: %s\n", w->id, w->error);
    else
        fprintf(stderr, "FATAL: %s\n", w->error);
}

/* Prints each distinct error of failed workers once, saying how many
 * threads had it.  Returns 1 if any worker failed. */
int sb_report_thread_errors(struct sb_worker **ws, int n)
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
        sb_report_worker_error(ws[i]);
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
    _Atomic int running;            /* in the command: may be interrupted */
};

static void *parallel_command_thread(void *arg)
{
    struct cmd_thread *ct = arg;
    struct sb_worker *w = ct->w;
    const struct sb_script_ops *script = w->run->script_ops;
    if (w->run->drv && w->run->drv->thread_init)
        w->run->drv->thread_init();
    if (script->create(w, 1) < 0) {
        ct->rc = -1;
    } else {
        ct->rc = script->call_command(w, ct->cmd);
        atomic_store(&ct->running, 0); /* no interrupt past this point */
        script->destroy(w);
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
        atomic_store(&ct[i].running, 1);
        if (pthread_create(&ws[i]->thread, NULL, parallel_command_thread, &ct[i]) != 0)
            break;
        started++;
    }
    int tty = isatty(STDERR_FILENO);
    uint64_t last_rows = 0;
    int64_t last_t = t0;
    /* Progress on a terminal while threads load rows. */
    char *joined = calloc((size_t)n + 1, 1);
    int interrupt_sent = 0;
    for (;;) {
        int alive = 0;
        for (int i = 0; i < started; i++) {
            if (!joined[i] && pthread_tryjoin_np(ws[i]->thread, NULL) == 0)
                joined[i] = 1;
            alive += !joined[i];
        }
        if (!alive)
            break;
        if (sb_interrupted && !interrupt_sent) {
            interrupt_sent = 1;
            for (int i = 0; i < started; i++)
                if (!joined[i] && atomic_load(&ct[i].running) && ws[i]->script)
                    run->script_ops->interrupt(ws[i]);
        }
        sb_sleep_ns(100000000LL);
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
    if (sb_report_thread_errors(ws, started))
        rc = 1;
    double secs = (double)(sb_now_ns() - t0) / 1e9;
    if (rows > 0 && rc == 0 && run->verbosity >= 3)
        printf("Loaded %llu rows in %.2fs (%.0f rows/s)\n", (unsigned long long)rows, secs,
               (double)rows / secs);
    for (int i = 0; i < n; i++)
        sb_worker_destroy(ws[i]);
    free(ws);
    free(ct);
    run->workers = NULL;
    return rc;
}

/* The commands a script can be given: sysbench's, and the script's own. */
static void command_list(struct sb_run *run, char *buf, size_t len)
{
    char own[1024];
    run->script_ops->command_names(run->control, own, sizeof own);
    size_t n = (size_t)snprintf(buf, len, "prepare, run, cleanup, help");
    for (char *p = own; *p && n < len;) {
        size_t l = strcspn(p, ",");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)l, p);
        if (strcmp(name, "prepare") && strcmp(name, "run") && strcmp(name, "cleanup") &&
            strcmp(name, "help"))
            n += (size_t)snprintf(buf + n, len - n, ", %s", name);
        p += l;
        p += strspn(p, ", ");
    }
}

/* Commands other than run and help: the script's own (sbench.cmdline.
 * commands, serial or in every thread), else its prepare() or cleanup()
 * function, as sysbench looks them up. */
static int run_other_command(struct sb_run *run)
{
    struct sb_worker *ctl = run->control;
    const struct sb_script_ops *script = run->script_ops;
    const char *cmd = run->command;
    int builtin = strcmp(cmd, "prepare") == 0 || strcmp(cmd, "cleanup") == 0;
    int kind = script->find_command(ctl, cmd);
    int rc = 1;
    sb_install_signals();
    if (kind == 2) {
        rc = run_parallel_command(run, cmd);
    } else if (kind == 1 || builtin) {
        signal_worker = ctl;
        if (kind == 1)
            rc = script->call_command(ctl, cmd);
        else
            rc = script->call(ctl, cmd);
        signal_worker = NULL;
    }
    if (sb_interrupted) {
        fprintf(stderr, "sbench: '%s' interrupted%s\n", cmd,
                strcmp(cmd, "prepare") == 0 ? ": tables may be partly loaded; run 'cleanup' before preparing again" : "");
        return 130;
    }
    if (kind == 2) {
        if (rc != 0 && strcmp(cmd, "prepare") == 0)
            fprintf(stderr, "sbench: prepare did not finish; a table it was loading may be incomplete ('cleanup' drops the workload's tables)\n");
        return rc;
    }
    if (rc == 1) {
        if (builtin) {
            fprintf(stderr, "sbench: workload '%s' has no '%s' command\n", run->script_name, cmd);
        } else {
            char list[1200];
            command_list(run, list, sizeof list);
            fprintf(stderr, "sbench: unknown command '%s' (commands: %s)\n", cmd, list);
        }
        return 2;
    }
    if (rc < 0) {
        sb_report_worker_error(ctl);
        if (strcmp(cmd, "prepare") == 0)
            fprintf(stderr, "sbench: prepare did not finish; a table it was loading may be incomplete ('cleanup' drops the workload's tables)\n");
        return 1;
    }
    return 0;
}

/* ---- run: see bench.c ---- */

int sb_run_command(struct sb_run *run)
{
    /* a workload that declares its own "run" command (diag, fileio) runs
     * it instead of the benchmark */
    if (strcmp(run->command, "run") == 0 &&
        run->script_ops->find_command(run->control, "run") == 0)
        return sb_run_benchmark(run);
    return run_other_command(run);
}
