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

#endif /* SBENCH_DRIVERS_BUF_H */
