/*
 * merge_sampled.c: the server's evidence of a shard's final line
 * ("server_metrics", --server-metrics) read back for `sbench merge`
 * (merge_shard.h).  Only shard 0 samples the server, for the whole run, so
 * merge keeps shard 0's figures as they are and says so.  Untrusted bytes:
 * a member of the wrong kind is one message, never a crash; a wait name is
 * cut to its room and only printable ASCII is kept.
 */
#include "merge_shard.h"

#include <stdio.h>
#include <string.h>

#include "../results/json_get.h"

/* A count (>= 0) or null (-1) at o.key into *out; 0, or -1 with err. */
static int count_or_null(json_object *o, const char *key, int64_t *out, char *err, size_t errlen)
{
    json_object *v = sb_json_member(o, key);
    if (v == NULL || json_object_is_type(v, json_type_null)) {
        *out = -1;
        return 0;
    }
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
        snprintf(err, errlen, "\"server_metrics.%s\" is neither a count nor null", key);
        return -1;
    }
    *out = json_object_get_int64(v);
    return 0;
}

static int load_waits(json_object *a, struct sb_wait_tally *t, char *err, size_t errlen)
{
    json_object *w = sb_json_member(a, "waits");
    if (!json_object_is_type(a, json_type_object) || !json_object_is_type(w, json_type_array)) {
        snprintf(err, errlen, "\"server_metrics.active_sessions\" has no list of waits");
        return -1;
    }
    int64_t samples, total, other;
    if (count_or_null(a, "samples", &samples, err, errlen) ||
        count_or_null(a, "session_samples", &total, err, errlen) ||
        count_or_null(a, "other", &other, err, errlen))
        return -1;
    for (size_t i = 0; i < sb_json_len(w) && t->n < SB_SAMPLED_WAITS; i++) {
        json_object *e = sb_json_elem(w, i);
        const char *name = sb_json_str(e, "name");
        int64_t n;
        if (name == NULL || count_or_null(e, "count", &n, err, errlen) || n < 0) {
            snprintf(err, errlen, "\"server_metrics.active_sessions.waits\" entry %zu is not "
                     "{name, count}", i);
            return -1;
        }
        size_t k = 0;
        for (; name[k] && k + 1 < SBD_WAIT_NAME; k++)
            t->name[t->n][k] = name[k] >= 0x20 && name[k] < 0x7f ? name[k] : '?';
        t->name[t->n][k] = 0;
        t->count[t->n++] = n;
    }
    t->samples = samples > 0 ? samples : 0;
    t->total = total > 0 ? total : 0;
    t->other = other > 0 ? other : 0;
    return 0;
}

int mg_load_sampled(json_object *fin, struct sb_sampled *out, char *err, size_t errlen)
{
    json_object *sm = sb_json_member(fin, "server_metrics");
    memset(out, 0, sizeof *out);
    if (sm == NULL || !sb_json_true(sm, "sampled"))
        return 0;
    out->d.struct_size = sizeof out->d;
    for (int i = 0; i < SB_SAMPLE_FIELDS; i++)
        if (count_or_null(sm, sb_sample_field_names[i], &(&out->d.commits)[i], err, errlen))
            return -1;
    if (load_waits(sb_json_member(sm, "active_sessions"), &out->waits, err, errlen))
        return -1;
    json_object *cw = sb_json_member(sm, "checkpoint_windows");
    for (size_t i = 0; cw && i < sb_json_len(cw) && out->ncheckpoint_windows < 4; i++) {
        json_object *p = sb_json_elem(cw, i);
        if (sb_json_len(p) != 2)
            continue;
        out->checkpoint_window[out->ncheckpoint_windows][0] = sb_json_num_of(sb_json_elem(p, 0));
        out->checkpoint_window[out->ncheckpoint_windows++][1] = sb_json_num_of(sb_json_elem(p, 1));
    }
    json_object *s = sb_json_member(sm, "sampler");
    int64_t q;
    if (count_or_null(s, "queries", &q, err, errlen))
        return -1;
    out->queries = q > 0 ? q : 0;
    out->query_ms = sb_json_num(s, "query_ms_avg") * (double)out->queries;
    out->query_ms_max = sb_json_num(s, "query_ms_max");
    out->from_shard0 = 1;
    out->valid = 1;
    return 0;
}
