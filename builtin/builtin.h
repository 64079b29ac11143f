/*
 * sysbench's built-in tests as C (cpu, memory, threads, mutex: loops, the
 * work of one event each; fileio: its file objects and its shared request
 * count), called from the Lua workloads of the same names through
 * sbench.builtin (lua/l_builtin.c).  The state the threads share
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

/* fileio: a test file (fileio.c).  The buffer holds one block of a fixed
 * pattern; a read overwrites it, sb_file_verify checks it.  Calls return 0
 * or an errno value (sb_file_write: -1 when nothing could be written). */
struct sb_file {
    int fd;          /* -1 when closed */
    size_t block;
    char *buf;       /* block bytes, 4096-aligned; owned */
};
/* Opens path for blocks of `block` bytes.  flags: letters, c create
 * (truncate), d O_DIRECT, r read only, s O_SYNC, y O_DSYNC.  On failure f
 * is closed-but-valid for sb_file_close; f->buf NULL: out of memory. */
int sb_file_open(struct sb_file *f, const char *path, size_t block, const char *flags);
/* Closes f; closing twice is fine. */
void sb_file_close(struct sb_file *f);
/* One block at offset off: written from the pattern, or read into the
 * buffer (*done fewer than a block at the end of the file). */
int sb_file_write(struct sb_file *f, int64_t off, size_t *done);
int sb_file_read(struct sb_file *f, int64_t off, size_t *done);
/* 1 when the buffer (the last block read) is the pattern, else 0. */
int sb_file_verify(const struct sb_file *f);
/* fsync, or fdatasync when data_only. */
int sb_file_sync(struct sb_file *f, int data_only);
int sb_file_size(const struct sb_file *f, int64_t *size);
/* Asks the kernel to drop the file's clean cached pages (posix_fadvise
 * DONTNEED), so that a read test reads the disk. */
int sb_file_drop_cache(struct sb_file *f);
/* Removes path (a path already gone is no error). */
int sb_file_unlink(const char *path);
/* Bytes available to this user in dir's file system. */
int sb_free_bytes(const char *dir, uint64_t *bytes);
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
