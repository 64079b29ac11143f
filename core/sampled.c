/*
 * Active-session samples added up by wait name (sampled.h): a small table
 * of names, the rest counted as `other`.
 */
#include "sampled.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const sb_sample_field_names[SB_SAMPLE_FIELDS] = {
    "commits", "rollbacks", "statements", "blks_read", "blks_hit", "temp_bytes", "deadlocks",
    "conflicts", "rows_read", "rows_written", "wal_bytes", "wal_waits", "checkpoints_timed",
    "checkpoints_req", "buffers_written", "lock_waits", "lock_wait_ms", "locks_waiting_now",
    "history_length_now", "wait_events_now",
};

_Static_assert(sizeof(struct sbd_server_sample) ==
               offsetof(struct sbd_server_sample, commits) + SB_SAMPLE_FIELDS * sizeof(int64_t),
               "a name for every sampled counter");

int64_t sb_sample_field(const struct sbd_server_sample *x, int i)
{
    return (&x->commits)[i];
}

void sb_wait_tally_add(struct sb_wait_tally *t, const char *name, int64_t n)
{
    t->total += n;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0) {
            t->count[i] += n;
            return;
        }
    if (t->n == SB_SAMPLED_WAITS) {
        t->other += n;
        return;
    }
    snprintf(t->name[t->n], sizeof t->name[t->n], "%s", name);
    t->count[t->n++] = n;
}

void sb_wait_tally_merge(struct sb_wait_tally *a, const struct sb_wait_tally *b)
{
    for (int i = 0; i < b->n; i++)
        sb_wait_tally_add(a, b->name[i], b->count[i]);
    a->other += b->other;
    a->total += b->other;
    a->samples += b->samples;
}

void sb_wait_tally_sort(struct sb_wait_tally *t)
{
    for (int i = 1; i < t->n; i++)
        for (int j = i; j > 0 && t->count[j] > t->count[j - 1]; j--) {
            char name[SBD_WAIT_NAME];
            int64_t c = t->count[j];
            memcpy(name, t->name[j], sizeof name);
            memcpy(t->name[j], t->name[j - 1], sizeof name);
            memcpy(t->name[j - 1], name, sizeof name);
            t->count[j] = t->count[j - 1];
            t->count[j - 1] = c;
        }
}
