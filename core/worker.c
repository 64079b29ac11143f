/*
 * A worker thread of the run command: makes its script state and
 * connections on its own thread, waits at the start gate with the other
 * workers, then runs events (one client: the script's event loop; many:
 * core/clients.c) until the run stops, counting each in its own
 * statistics.  The run loop (core/bench.c) opens the gate and reads the
 * statistics.
 */
#include "worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "../lib/options.h"
#include "script.h"

static pthread_barrier_t start_barrier;
/* workers done with thread_init (only waited for with --clients > --threads,
 * where a thread opens many connections one after the other) */
static _Atomic int workers_ready;

/* The worker failed: the run fails; `stop`: and the others stop now
 * (not when it failed after its events, in thread_done). */
static void fail(struct sb_worker *w, int stop)
{
    w->failed = 1;
    atomic_store(&w->run->fatal, 1);
    if (stop)
        atomic_store(&w->run->stop, 1);
}

void *sb_worker_thread(void *arg)
{
    struct sb_worker *w = arg;
    struct sb_run *run = w->run;
    const struct sb_script_ops *script = run->script_ops;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    if (run->drv && run->drv->thread_init)
        run->drv->thread_init();
    int ok = script->create(w, 1) == 0;
    /* --clients > --threads: this thread drives clients tid, tid+T, ...
     * (core/clients.c) */
    struct sb_clients *cs = NULL;
    if (ok && w->nclients > 0) {
        cs = sb_clients_create(w);
        ok = cs != NULL && sb_clients_init(cs) == 0;
    } else if (ok) {
        ok = script->worker_init(w) == 0;
    }
    if (ok) /* the statements thread_init made, prepared before the clock starts */
        sb_conn_list_prepare_ready(&w->conns);
    if (!ok)
        fail(w, 1);
    atomic_fetch_add(&workers_ready, 1);
    pthread_barrier_wait(&start_barrier);
    if (ok && cs != NULL) {
        if (sb_clients_loop(cs) < 0)
            fail(w, 1);
        if (!w->failed && sb_clients_done(cs) < 0)
            fail(w, 0);
    } else if (ok) {
        if (script->run_events(w) < 0)
            fail(w, 1);
        if (!w->failed && script->worker_done(w) < 0)
            fail(w, 0);
    }
    script->destroy(w);
    sb_clients_destroy(cs); /* after the script state: see sb_clients_create */
    sb_conn_list_free(&w->conns);
    if (run->drv && run->drv->thread_done)
        run->drv->thread_done();
    atomic_fetch_sub(&run->running, 1);
    return NULL;
}

void sb_worker_gate_init(int nworkers)
{
    atomic_store(&workers_ready, 0);
    pthread_barrier_init(&start_barrier, NULL, (unsigned)nworkers + 1);
}

void sb_worker_gate_open(void)
{
    pthread_barrier_wait(&start_barrier);
}

void sb_worker_gate_destroy(void)
{
    pthread_barrier_destroy(&start_barrier);
}

int sb_workers_ready(void)
{
    return atomic_load(&workers_ready);
}

/* ---- a worker's life: created, its errors reported, destroyed ---- */

struct sb_worker *sb_worker_create(struct sb_run *run, int id)
{
    struct sb_worker *w = aligned_alloc(64, (sizeof(struct sb_worker) + 63) / 64 * 64);
    if (w == NULL)
        return NULL;
    memset(w, 0, sizeof *w);
    w->run = run;
    w->id = id;
    w->event_type = -1;
    w->event_units = 1;
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
