/*
 * sysbench's built-in tests as C loops (cpu, memory, threads, mutex, and
 * fileio's shared request count): the
 * work of one event each, called from the Lua workloads of the same names
 * through sbench.builtin (lua/l_builtin.c).  The state the threads share
 * (the global memory block, the lock arrays) is made once per process,
 * before the run, and lives as long as the process.  Nothing here
 * allocates or formats on the measured path.
 */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

/* cpu: one event of sysbench's cpu test: every number from 3 to max_prime
 * tested for primality by trial division up to its square root.  Returns
 * how many primes it found (so the work cannot be optimized away). */
uint64_t sb_cpu_event(uint64_t max_prime);

enum sb_mem_oper { SB_MEM_READ = 0, SB_MEM_WRITE, SB_MEM_NONE };

/* memory: one event on a block of `words` machine words: each word read
 * (summed), written, or left alone, in order (rnd == 0) or at `words`
 * random positions (rnd != 0; *seed is the caller's random state).
 * Returns the last word read (0 for the other operations). */
size_t sb_mem_event(size_t *block, size_t words, int oper, int rnd, uint64_t *seed);

/* The block every thread shares under --memory-scope=global: made (zeroed)
 * at the first call, the same pointer after it (of at least `bytes`; a
 * later call with more bytes gets NULL).  Owned by the process; NULL when
 * out of memory. */
size_t *sb_mem_global_block(size_t bytes);

/* threads and mutex: `n` mutexes every thread shares, made at the first
 * call (a later call with a larger n gets -1).  0, or -1. */
int sb_locks_init(int n);

/* threads: one event of sysbench's threads test: `yields` times, lock
 * mutex `lock`, yield the processor, unlock. */
void sb_threads_event(int lock, int yields);

/* mutex: one event of sysbench's mutex test: `locks` times, spin an
 * empty loop of `loops` iterations, then lock a random one of the first
 * `num` mutexes, increment a shared counter, unlock.  *seed as above. */
void sb_mutex_event(int num, long locks, long loops, uint64_t *seed);

/* fileio's periodic fsync (requests.c): sb_requests_count counts one read
 * or write of any thread, and each freq-th (freq > 0) queues one fsync of
 * each of the nfiles files; sb_requests_take_fsync takes the next queued
 * one: the file's index (0 .. nfiles-1, in order), or -1 when none is. */
void sb_requests_count(uint64_t freq, int nfiles);
int sb_requests_take_fsync(int nfiles);
/* fileio rndrw: whether the next request of any thread is a read (reads
 * < ratio x writes so far, all threads together, as sysbench), counted. */
int sb_requests_rw_is_read(double ratio);

#endif
