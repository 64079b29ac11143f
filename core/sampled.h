/*
 * The server's evidence over one reporting window or the whole run
 * (struct sb_sampled), as the sampler (core/server_sampler.c) gathers it
 * and every report format writes it: the differences of the server's
 * counters, the active-session samples by wait event, the host's /proc
 * figures when the server is local, and the sampler's own cost.
 */
#ifndef SB_SAMPLED_H
#define SB_SAMPLED_H

#include <stdint.h>

#include <sbench/driver.h>

#define SB_SAMPLED_WAITS 24 /* distinct wait names kept; the rest in `other` */

/* Active-session samples added up: per wait name, how many sessions were
 * seen in it over all the samples (session-samples). */
struct sb_wait_tally {
    int n;
    char name[SB_SAMPLED_WAITS][SBD_WAIT_NAME];
    int64_t count[SB_SAMPLED_WAITS];   /* largest first after sb_wait_tally_sort */
    int64_t other;                     /* session-samples of names not kept */
    int64_t total;                     /* all session-samples */
    int64_t samples;                   /* samples taken */
};

/* The host's /proc figures (CPU ticks by state, context switches, disk
 * sectors of whole devices), cumulative; valid when `have`. */
struct sb_host_stat {
    int have;
    int64_t user, system, iowait, idle, other, ctxt, read_sectors, write_sectors;
};

struct sb_sampled {
    int valid;                        /* the counters were read at both ends */
    int from_shard0;                  /* sbench merge: shard 0's, for every shard */
    struct sbd_server_sample d;       /* differences; the *_now members: at the end */
    struct sb_wait_tally waits;
    struct sb_host_stat host;         /* differences */
    int64_t queries;                  /* the sampler's own statements */
    double query_ms;                  /* their time in total */
    double query_ms_max;
    /* the windows with a requested checkpoint (the run's total only):
     * their start and end in seconds since measuring started */
    int ncheckpoint_windows;
    double checkpoint_window[4][2];
};

/* The sampled counters' names in the reports, in the order of struct
 * sbd_server_sample from commits, and how many. */
#define SB_SAMPLE_FIELDS 20
extern const char *const sb_sample_field_names[SB_SAMPLE_FIELDS];
/* The sampled counter i of x (i < SB_SAMPLE_FIELDS). */
int64_t sb_sample_field(const struct sbd_server_sample *x, int i);

/* Adds n sessions in wait `name` to t. */
void sb_wait_tally_add(struct sb_wait_tally *t, const char *name, int64_t n);
/* Adds tally b into a. */
void sb_wait_tally_merge(struct sb_wait_tally *a, const struct sb_wait_tally *b);
/* Orders the names by count, largest first. */
void sb_wait_tally_sort(struct sb_wait_tally *t);

#endif
