/*
 * Running a command (see run.h): `run` hands over to the benchmark
 * (bench.c); prepare, cleanup and the commands a script defines run
 * serially on the main thread's control state, or in every thread
 * (PARALLEL_COMMAND, with a progress line while rows load).
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "barrier.h"
#include "script.h"

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

void sb_print_run_header(const struct sb_run *run)
{
    printf("Running the test with following options:\n");
    if (run->clients_given)
        printf("Number of threads: %d, clients: %d\n", run->threads, run->clients);
    else
        printf("Number of threads: %d\n", run->threads);
    if (run->rate > 0) /* sysbench's line (the total; a shard's share below) */
        printf("Target transaction rate: %.15g/sec\n", run->rate);
    if (run->report_interval > 0)
        printf("Report intermediate results every %g second(s)\n", run->report_interval);
    if (run->ncheckpoints > 0) {
        printf("Report checkpoint(s) at ");
        for (int i = 0; i < run->ncheckpoints; i++)
            printf("%s%g", i ? ", " : "", run->checkpoints[i]);
        printf(" seconds\n");
    }
    if (run->warmup > 0)
        printf("Warmup time: %g second(s)\n", run->warmup);
    if (run->rand.seed)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)run->rand.seed);
    else
        printf("Initializing random number generator from current time\n");
    if (run->ps_disabled)
        printf("Prepared statements: disabled (--db-ps-mode=disable)\n");
    if (run->pipeline > 0)
        printf("Pipelining: up to %d statements in flight per connection (--pipeline)\n", run->pipeline);
    if (run->io == SB_IO_URING)
        printf("Clients' I/O: io_uring, one system call per pass over a thread's clients (--io)\n");
    if (run->shard.given)
        printf("Shard %d of %d (from %s), run id %s: --threads/--clients per shard, this shard's share of "
               "--rate/--events\n", run->shard.index, run->shard.count, run->shard.source, run->shard.run_id);
    printf("\n\n");
    fflush(stdout);
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
    sb_barrier_leave(w->run->barrier, ct->rc < 0);
    if (w->run->drv && w->run->drv->thread_done)
        w->run->drv->thread_done();
    return NULL;
}

static int run_parallel_command(struct sb_run *run, const char *cmd)
{
    int n = run->threads;
    struct cmd_thread *ct = calloc((size_t)n, sizeof *ct);
    struct sb_worker **ws = calloc((size_t)n, sizeof *ws);
    struct sb_barrier barrier;
    if (!ct || !ws || sb_barrier_init(&barrier, n) != 0) {
        fprintf(stderr, "FATAL: out of memory\n");
        free(ct);
        free(ws);
        return 1;
    }
    run->barrier = &barrier;
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
    if (started < n) /* the threads that run would wait for the others */
        atomic_store(&run->fatal, 1);
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
    run->barrier = NULL;
    sb_barrier_destroy(&barrier);
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
        sb_signal_worker_set(ctl);
        if (kind == 1)
            rc = script->call_command(ctl, cmd);
        else
            rc = script->call(ctl, cmd);
        sb_signal_worker_set(NULL);
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
