/*
 * The host's own figures from /proc (core/host_stat.c): CPU ticks by
 * state and context switches (/proc/stat), sectors read and written by
 * whole disks (/proc/diskstats), for the sampler when the server runs on
 * this machine.
 */
#ifndef SB_HOST_STAT_H
#define SB_HOST_STAT_H

#include "sampled.h"

/* Reads the figures of now into h (h->have 0 when /proc is unreadable). */
void sb_host_stat_read(struct sb_host_stat *h);
/* out = b - a, valid when both were read. */
void sb_host_stat_diff(struct sb_host_stat *out, const struct sb_host_stat *b,
                       const struct sb_host_stat *a);

#endif
