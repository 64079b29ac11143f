/*
 * The barrier of a parallel command (a PARALLEL_COMMAND such as the tpcc
 * workload's prepare: create the tables, then load in every thread, then
 * build the indexes): every thread running the command waits in
 * sb_barrier_wait until all have reached it.  A thread that ended the
 * command counts as arrived at every later barrier; one that failed (or
 * an interrupt) breaks the barrier, so that nobody waits for a thread
 * that will never come.
 */
#ifndef SB_BARRIER_H
#define SB_BARRIER_H

#include <pthread.h>

struct sb_run;

struct sb_barrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;             /* threads in the command */
    int arrived;       /* waiting at the current barrier */
    int left;          /* ended the command */
    int broken;        /* a thread failed */
    unsigned gen;      /* barriers passed */
};

/* Sets up b for n threads: 0, or -1 when the system refuses. */
int sb_barrier_init(struct sb_barrier *b, int n);
void sb_barrier_destroy(struct sb_barrier *b);
/* Waits until every thread of the command arrived or ended: 0, or -1 when
 * a thread failed, run->fatal is set or the process was interrupted
 * (checked every 100 ms). */
int sb_barrier_wait(struct sb_barrier *b, struct sb_run *run);
/* The calling thread ended the command (failed: it broke it). */
void sb_barrier_leave(struct sb_barrier *b, int failed);

#endif
