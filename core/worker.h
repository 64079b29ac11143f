/*
 * The worker threads of the run command (core/worker.c) and the gate they
 * start behind: every worker makes its Lua state and connections, then
 * waits at the gate; the run loop opens it once, when it starts the clock.
 */
#ifndef SB_WORKER_H
#define SB_WORKER_H

#include "run.h"

/* The thread function; arg is the struct sb_worker it runs as.  Returns
 * NULL; a failure is in the worker (failed, error) and run->fatal. */
void *sb_worker_thread(void *arg);

/* Sets up the gate for nworkers threads plus the caller (once per run,
 * before the first thread starts). */
void sb_worker_gate_init(int nworkers);
/* Waits until every worker reached the gate, then lets them all run. */
void sb_worker_gate_open(void);
void sb_worker_gate_destroy(void);
/* Workers done with their thread_init (they wait at the gate next). */
int sb_workers_ready(void);

#endif
