/*
 * sysbench's memory test, one event (see builtin.h): a block read,
 * written or left alone, sequentially or at random words; and the block
 * the threads share under --memory-scope=global.
 */
#include "builtin.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The random word positions: a 64-bit LCG (Knuth's MMIX constants), one
 * multiply-add per position on the chain from one to the next (xorshift's
 * six dependent shifts and xors were the loop's cost); pick() uses only
 * its high bits, the well-mixed ones. */
static inline uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s;
}

/* A position in [0, words): the high half of r * words (no division) */
static inline size_t pick(uint64_t r, size_t words)
{
    return (size_t)(((unsigned __int128)r * words) >> 64);
}

/* Each word is loaded through a volatile pointer and stored as one word:
 * the work of sysbench's memory test (one load or store per machine word,
 * none merged, none left out), with no dependency between the words (a
 * running sum would chain every load to the one before). */
size_t sb_mem_event(size_t *block, size_t words, int oper, int rnd, uint64_t *seed)
{
    volatile size_t *b = block;
    size_t last = 0;
    if (oper == SB_MEM_NONE || words == 0)
        return 0;
    if (!rnd) {
        /* a pointer walked to the end: the loop keeps one counter */
        volatile size_t *end = b + words;
        if (oper == SB_MEM_WRITE) {
#pragma GCC unroll 8
            for (volatile size_t *p = b; p < end; p++)
                *p = words; /* any value: the store is the work */
        } else {
#pragma GCC unroll 8
            for (volatile size_t *p = b; p < end; p++)
                last = *p;
        }
    } else {
        uint64_t s = *seed;
        if (oper == SB_MEM_WRITE)
            for (size_t i = 0; i < words; i++)
                b[pick(next_random(&s), words)] = i;
        else
            for (size_t i = 0; i < words; i++)
                last = b[pick(next_random(&s), words)];
        *seed = s;
    }
    return last;
}

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t *global_block;
static size_t global_bytes;

size_t *sb_mem_global_block(size_t bytes)
{
    pthread_mutex_lock(&global_lock);
    if (global_block == NULL && bytes > 0) {
        /* written once, as sysbench does: reads of pages never written
         * would all map the kernel's one zero page */
        global_block = malloc(bytes);
        if (global_block)
            memset(global_block, 0, bytes);
        global_bytes = global_block ? bytes : 0;
    }
    size_t *b = bytes <= global_bytes ? global_block : NULL;
    pthread_mutex_unlock(&global_lock);
    return b;
}
