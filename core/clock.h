/*
 * The clock every measurement reads: monotonic nanoseconds, inline because
 * it is read once per statement and once per event on the measured path.
 */
#ifndef SB_CLOCK_H
#define SB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t sb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
