/*
 * merge_shard.c: one shard's in-memory form (struct mg_shard, merge_shard.h)
 * made and freed: the histogram layout of the run and the release of every
 * part a shard owns.  The lowest file of merge/: merge_load.c fills a shard,
 * merge_sum.c adds shards up, both through these.
 */
#include "merge_shard.h"

#include <stdlib.h>
#include <string.h>

sb_histogram *mg_hist_new(double precision)
{
    return sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, precision);
}

void mg_shard_free(struct mg_shard *s)
{
    if (!s)
        return;
    free(s->json_path);
    free(s->hlog_path);
    json_object_put(s->run);
    sb_histogram_destroy(s->lat);
    sb_histogram_destroy(s->connect);
    sb_histogram_destroy(s->lag);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(s->kind[k]);
    for (int i = 0; i < s->nnamed; i++)
        sb_histogram_destroy(s->named_lat[i]);
    for (int i = 0; i < s->ntypes; i++)
        sb_histogram_destroy(s->type_lat[i]);
    for (int i = 0; i < SB_RATE_PROFILE_MAX_PHASES; i++)
        sb_histogram_destroy(s->phase_lat[i]);
    free(s->thread_events);
    free(s->thread_busy_ns);
    free(s->client_events);
    free(s->w);
    memset(s, 0, sizeof *s);
}
