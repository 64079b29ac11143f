/*
 * Lost connections: backoff and the repeated protocol violation (lost.h).
 */
#include "lost.h"
#include "run.h"

#include <stdio.h>
#include <string.h>

uint64_t sb_lost_thread_done(const struct sb_worker *w)
{
    uint64_t n = 0;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        n += SB_GET(w->stats.queries[k]);
    return n;
}

int sb_lost_before_reconnect(struct sb_lost *l, struct sb_worker *w,
                             const struct sbd_error *err, char *msg, size_t len)
{
    uint64_t done = sb_lost_thread_done(w);
    int fresh = done == l->mark; /* nothing succeeded since the last (re)connect */
    l->streak = fresh ? l->streak + 1 : 1;
    l->mark = done;
    if (fresh && l->streak >= 2 && strcmp(err->sqlstate, "08P01") == 0) {
        snprintf(msg, len, "the server broke the protocol again right after a fresh "
                 "connection, %d times in a row: %s: stopping", l->streak, err->message);
        return -1;
    }
    if (l->streak < 2)
        return 0;
    /* repeated losses: say why, at 2, 4, 8, ... in a row (the reports
     * only count them) */
    if ((l->streak & (l->streak - 1)) == 0)
        fprintf(stderr, "sbench: thread %d: connection lost %d times in a row with nothing "
                "done in between, backing off: %s\n", w->id, l->streak, err->message);
    int shift = l->streak - 2 < 7 ? l->streak - 2 : 7;
    int64_t delay_ms = 10LL << shift;
    if (delay_ms > 1000)
        delay_ms = 1000;
    /* in slices, so that a stop request is seen */
    for (int64_t slept = 0; slept < delay_ms; slept += 50) {
        if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            break;
        sb_sleep_ns((delay_ms - slept < 50 ? delay_ms - slept : 50) * 1000000LL);
    }
    return 0;
}
