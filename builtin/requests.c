/*
 * sysbench's fileio test, its periodic fsync as one queue for all threads:
 * the read and write requests of every thread are counted together, and
 * every --file-fsync-freq of them put one fsync of each file in the queue,
 * which the next events of any thread take before making new requests, as
 * sysbench's one event generator hands them out (a count and a round per
 * thread would make --threads times as many fsyncs).  Atomics only, on an
 * event that is a system call anyway; the state lives as long as the
 * process (one run).
 */
#include "builtin.h"

#include <stdatomic.h>

static _Atomic uint64_t requests;     /* reads and writes made */
static _Atomic int64_t owed;          /* fsyncs queued and not taken */
static _Atomic uint64_t taken;        /* fsyncs taken: the next file */

void sb_requests_count(uint64_t freq, int nfiles)
{
    uint64_t n = atomic_fetch_add_explicit(&requests, 1, memory_order_relaxed) + 1;
    if (freq > 0 && nfiles > 0 && n % freq == 0)
        atomic_fetch_add_explicit(&owed, nfiles, memory_order_relaxed);
}

/* rndrw's reads and writes of all threads, reads in the high half: one
 * compare-and-swap decides and counts, so the sequence is one that
 * sysbench's single generator could have made */
static _Atomic uint64_t rw;

int sb_requests_rw_is_read(double ratio)
{
    uint64_t o = atomic_load_explicit(&rw, memory_order_relaxed), n;
    int read;
    do {
        uint64_t r = o >> 32, w = o & 0xffffffffu;
        read = (double)r < ratio * (double)w;
        if ((read ? r : w) >= 0x7fffffffu) { /* halve both: the ratio stays */
            r >>= 1;
            w >>= 1;
        }
        n = read ? ((r + 1) << 32 | w) : (r << 32 | (w + 1));
    } while (!atomic_compare_exchange_weak_explicit(&rw, &o, n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return read;
}

int sb_requests_take_fsync(int nfiles)
{
    int64_t o = atomic_load_explicit(&owed, memory_order_relaxed);
    while (o > 0)
        if (atomic_compare_exchange_weak_explicit(&owed, &o, o - 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return nfiles > 0 ? (int)(atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed) %
                                      (uint64_t)nfiles)
                              : 0;
    return -1;
}
