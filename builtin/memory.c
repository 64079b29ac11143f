/*
 * sysbench's memory test, one event (see builtin.h): a block read,
 * written or left alone, sequentially or at random words; and the block
 * the threads share under --memory-scope=global.
 */
#include "builtin.h"

#include <pthread.h>
#include <stdlib.h>

/* xorshift64*: the random word positions (cheap, and per caller) */
static inline uint64_t next_random(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

size_t sb_mem_event(size_t *block, size_t words, int oper, int rnd, uint64_t *seed)
{
    size_t sum = 0;
    if (oper == SB_MEM_NONE || words == 0)
        return 0;
    if (!rnd) {
        if (oper == SB_MEM_WRITE)
            for (size_t i = 0; i < words; i++)
                block[i] = i;
        else
            for (size_t i = 0; i < words; i++)
                sum += block[i];
    } else {
        for (size_t i = 0; i < words; i++) {
            size_t at = (size_t)(next_random(seed) % words);
            if (oper == SB_MEM_WRITE)
                block[at] = i;
            else
                sum += block[at];
        }
    }
    /* the stores are made: the block is memory the compiler must not
     * assume unused (the sum read is returned) */
    __asm__ __volatile__("" : : "r"(block) : "memory");
    return sum;
}

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t *global_block;
static size_t global_bytes;

size_t *sb_mem_global_block(size_t bytes)
{
    pthread_mutex_lock(&global_lock);
    if (global_block == NULL && bytes > 0) {
        global_block = calloc(1, bytes);
        global_bytes = global_block ? bytes : 0;
    }
    size_t *b = bytes <= global_bytes ? global_block : NULL;
    pthread_mutex_unlock(&global_lock);
    return b;
}
