/*
 * Growing buffers: see buf.h.
 */
#include "buf.h"

#include <stdint.h>
#include <stdlib.h>

void *sbc_grow_slow(void *buf, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t n = *cap > first ? *cap : first;
    if (n == 0)
        n = 1;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    void *p = realloc(buf, n * size);
    if (p == NULL)
        return NULL;
    *cap = n;
    return p;
}
