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
