/*
 * Growing buffers, one way for every driver: per-connection and
 * per-statement buffers only grow (doubling), so the hot path allocates
 * only until they have reached the largest size seen.  The check is
 * inline; only an actual growth calls out.
 */
#ifndef SBENCH_DRIVERS_BUF_H
#define SBENCH_DRIVERS_BUF_H

#include <stddef.h>

/* Grows buf, an array of *cap elements of `size` bytes, to hold at least
 * `need` elements: doubling from `first` (or from *cap when larger).
 * Returns the array (moved or not; contents kept) with *cap updated, or
 * NULL when out of memory or the size overflows, then buf is still valid
 * and *cap untouched.  The caller owns the array (free). */
void *sbc_grow_slow(void *buf, size_t *cap, size_t need, size_t size, size_t first);

static inline void *sbc_grow(void *buf, size_t *cap, size_t need, size_t size, size_t first)
{
    return need <= *cap ? buf : sbc_grow_slow(buf, cap, need, size, first);
}

/* The growth rule of an answer's buffer, one for every wire fast path and
 * the host's I/O: before the next receive it must hold the parser's `need`
 * bytes, or 4 kB more than the `in_len` it has, and never more than `max`
 * (--db-max-result-bytes).  Returns that size, or 0 when the answer has
 * reached `max` or needs more (too big: refused, not grown). */
static inline size_t sbc_answer_want(size_t need, size_t in_len, size_t max)
{
    if (need > max || in_len >= max)
        return 0;
    size_t want = need > in_len + 4096 ? need : in_len + 4096;
    return want > max ? max : want;
}

#endif /* SBENCH_DRIVERS_BUF_H */
