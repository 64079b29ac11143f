/*
 * A worker thread of the run command: makes its Lua state and connections
 * on its own thread, waits at the start gate with the other workers, then
 * runs events (one client, or many through core/clients.c) until the run
 * stops, and counts each one in its own statistics.  The run loop
 * (core/bench.c) opens the gate and reads the statistics.
 */
#include "worker.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "../lua/lua_env.h"
#include "clients.h"
#include "db.h"

static pthread_barrier_t start_barrier;
/* workers done with thread_init (only waited for with --clients > --threads,
 * where a thread opens many connections one after the other) */
static _Atomic int workers_ready;

/* --reconnect=transaction: a new connection for every event, like pgbench
 * -C; the time to connect is part of the event's latency.  Returns 0, or -1
 * when a connection could not be opened (counted as an error). */
static int reopen_all(struct sb_worker *w)
{
    return sb_reopen_conns(w, w->conns, w->nconns);
}

void *sb_worker_thread(void *arg)
{
    struct sb_worker *w = arg;
    struct sb_run *run = w->run;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    if (run->drv && run->drv->thread_init)
        run->drv->thread_init();
    int ok = l_state_create(w, 1) != NULL;
    /* --clients > --threads: this thread drives clients tid, tid+T, ...
     * (core/clients.c) */
    struct sb_clients *cs = NULL;
    if (ok && w->nclients > 0) {
        cs = sb_clients_create(w);
        if (cs == NULL || sb_clients_init(cs) < 0)
            ok = 0;
    } else if (ok) {
        if (l_call_global(w, "thread_init") < 0)
            ok = 0;
        if (ok && l_event_prepare(w) < 0)
            ok = 0;
    }
    if (!ok) {
        w->failed = 1;
        atomic_store(&run->fatal, 1);
        atomic_store(&run->stop, 1);
    }
    atomic_fetch_add(&workers_ready, 1);
    pthread_barrier_wait(&start_barrier);
    struct sb_thread_stats *st = &w->stats;
    /* --rate: this thread's share of the arrivals; latency counts from the
     * scheduled start so a stalled server shows up (no coordinated
     * omission), and the lag between schedule and start is kept apart. */
    double mean_gap_ns = run->rate > 0 ? 1e9 * run->threads / run->rate : 0;
    int64_t scheduled = sb_now_ns();
    if (ok && cs != NULL) {
        if (sb_clients_loop(cs) < 0) {
            w->failed = 1;
            atomic_store(&run->fatal, 1);
            atomic_store(&run->stop, 1);
        }
        if (!w->failed && sb_clients_done(cs) < 0) {
            w->failed = 1;
            atomic_store(&run->fatal, 1);
        }
    } else if (ok) {
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
                    sb_sleep_ns(d > 50000000LL ? 50000000LL : d);
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
            if (run->reconnect_per_event && reopen_all(w) != 0) {
                atomic_store_explicit(&st->in_event, 0, memory_order_relaxed);
                sb_sleep_ns(10000000LL);
                continue;
            }
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
    sb_clients_destroy(cs); /* after lua_close: see sb_clients_create */
    free(w->pipe_conns);
    w->pipe_conns = NULL;
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
