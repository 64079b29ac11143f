/*
 * The barrier of a parallel command (see barrier.h): a generation count
 * under a mutex, woken by a condition variable; waiters look at the run's
 * fatal flag and the interrupt every 100 ms.  Not on any measured path.
 */
#include "barrier.h"

#include <signal.h>
#include <time.h>

#include "run.h"


int sb_barrier_init(struct sb_barrier *b, int n)
{
    b->n = n;
    b->arrived = b->left = b->broken = 0;
    b->gen = 0;
    if (pthread_mutex_init(&b->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    return 0;
}

void sb_barrier_destroy(struct sb_barrier *b)
{
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}

/* With the lock held: the current barrier is complete, let everyone on. */
static void release_if_complete(struct sb_barrier *b)
{
    if (b->arrived > 0 && b->arrived + b->left >= b->n) {
        b->arrived = 0;
        b->gen++;
        pthread_cond_broadcast(&b->cv);
    }
}

int sb_barrier_wait(struct sb_barrier *b, struct sb_run *run)
{
    pthread_mutex_lock(&b->mu);
    unsigned gen = b->gen;
    b->arrived++;
    release_if_complete(b);
    int rc = 0;
    while (gen == b->gen) {
        if (b->broken || atomic_load(&run->fatal) || sb_interrupted) {
            b->broken = 1;
            rc = -1;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&b->cv, &b->mu, &ts);
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

void sb_barrier_leave(struct sb_barrier *b, int failed)
{
    pthread_mutex_lock(&b->mu);
    b->left++;
    if (failed) {
        b->broken = 1;
        pthread_cond_broadcast(&b->cv);
    } else {
        release_if_complete(b);
    }
    pthread_mutex_unlock(&b->mu);
}
