/*
 * sysbench's threads and mutex tests, one event each (see builtin.h): the
 * mutexes every thread shares and the loops around them.
 */
#include "builtin.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *locks;
static int nlocks;
static volatile long shared_counter; /* what the mutex test's locks guard */

int sb_locks_init(int n)
{
    int rc = 0;
    pthread_mutex_lock(&init_lock);
    if (locks == NULL && n > 0) {
        locks = malloc((size_t)n * sizeof *locks);
        for (int i = 0; locks && i < n; i++)
            pthread_mutex_init(&locks[i], NULL);
        nlocks = locks ? n : 0;
    }
    if (n <= 0 || n > nlocks)
        rc = -1;
    pthread_mutex_unlock(&init_lock);
    return rc;
}

void sb_threads_event(int lock, int yields)
{
    pthread_mutex_t *m = &locks[lock];
    for (int i = 0; i < yields; i++) {
        pthread_mutex_lock(m);
        sched_yield();
        pthread_mutex_unlock(m);
    }
}

void sb_mutex_event(int num, long nlock, long loops, uint64_t *seed)
{
    uint64_t s = *seed ? *seed : 0x9E3779B97F4A7C15ull;
    for (long j = 0; j < nlock; j++) {
        for (long k = 0; k < loops; k++)
            __asm__ __volatile__(""); /* an empty loop the compiler keeps */
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        int at = (int)((s * 0x2545F4914F6CDD1Dull) % (uint64_t)num);
        pthread_mutex_lock(&locks[at]);
        shared_counter++;
        pthread_mutex_unlock(&locks[at]);
    }
    *seed = s;
}
