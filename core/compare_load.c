/*
 * compare_load.c: the stored runs of a comparison read back, for the
 * summary.  Per run: the final line of its JSON report, its interval
 * lines (throughput over time), and the record compare wrote.  Per point
 * (workload, thread count, target): the latency histograms of the
 * repeats' HdrHistogram logs added bucket by bucket (hdr_read.c, the
 * reader of sbench merge) into one sbench histogram, with the exact min,
 * max and sum of the repeats' reports, and its percentiles as sbench's
 * own reports compute them.  A log that does not hold
 * as many values as its run's report is an error: nothing is summarised
 * from files that disagree.
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hdr_read.h"
#include "histogram.h"
#include "readfile.h"
#include "stats.h"

static const double point_pcts[] = {50, 95, 99, 99.9};

/* The final line and the interval points of a JSON lines report; final
 * is a new reference (NULL when the file has none), intervals gets
 * [end time, tps] pairs. */
static json_t *read_report(const char *path, json_t *intervals)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *line = NULL;
    size_t cap = 0;
    json_t *final = NULL;
    double t = 0;
    while (getline(&line, &cap, f) > 0) {
        /* reals: random_seed is a uint64, beyond jansson's integers */
        json_t *j = json_loads(line, JSON_DECODE_INT_AS_REAL, NULL);
        const char *type = json_string_value(json_object_get(j, "type"));
        if (type && strcmp(type, "interval") == 0) {
            t += json_number_value(json_object_get(j, "seconds"));
            json_array_append_new(intervals,
                                  json_pack("[f, f]", t, json_number_value(json_object_get(j, "tps"))));
        } else if (type && strcmp(type, "final") == 0) {
            json_decref(final);
            final = json_incref(j);
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    return final;
}

/* Accumulated latency of one point. */
struct point_lat {
    sb_histogram *h;            /* the repeats' logs added (owned; NULL before the first) */
    uint64_t count;             /* from the reports */
    double sum_ms, min_ms, max_ms;
    int runs;
};

/* Adds every interval of the HdrHistogram log at path into h (the
 * reader of sbench merge, core/hdr_read.c).  0, or -1 with one line in
 * err. */
static int add_log(const char *path, sb_histogram *h, char *err, size_t errlen)
{
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, errlen);
    if (buf == NULL)
        return -1;
    struct sb_hdr_reader r;
    struct sb_hdr_interval iv;
    char msg[256];
    int got;
    sb_hdr_reader_init(&r, buf, len);
    while ((got = sb_hdr_reader_next(&r, &iv, msg, sizeof msg)) == 1)
        if (sb_hdr_decode_add(iv.hist, iv.hist_len, h, msg, sizeof msg) != 0) {
            got = -1;
            break;
        }
    free(buf);
    if (got < 0)
        snprintf(err, errlen, "its HdrHistogram log: %s", msg);
    return got < 0 ? -1 : 0;
}

/* The percentile object of a point: {count, min, max, mean, percentiles,
 * curve}, computed by sbench's own histogram code once the exact min,
 * max and sum of the repeats' reports are set. */
static json_t *point_latency(struct point_lat *p)
{
    sb_histogram *h = p->h;
    int64_t min_ns = llround(p->min_ms * 1e6), max_ns = llround(p->max_ms * 1e6);
    sb_histogram_set_summary(h, min_ns, max_ns, llround(p->sum_ms * 1e6));
    json_t *pct = json_object(), *curve = json_array();
    for (size_t k = 0; k < sizeof point_pcts / sizeof point_pcts[0]; k++) {
        char key[16];
        snprintf(key, sizeof key, "%g", point_pcts[k]);
        json_object_set_new(pct, key, json_real((double)sb_histogram_percentile(h, point_pcts[k]) / 1e6));
    }
    /* the percentile curve: from percentile 100*before/n on, latency is
     * at least the bucket's value */
    uint64_t before = 0, total = sb_histogram_count(h);
    for (int32_t i = 0; i < sb_histogram_bucket_count(h); i++) {
        uint64_t n = sb_histogram_count_at(h, i);
        if (n == 0)
            continue;
        int64_t v = sb_histogram_bucket_highest(h, i);
        v = v < min_ns ? min_ns : v > max_ns ? max_ns : v;
        json_array_append_new(curve, json_pack("[f, f]", 100.0 * (double)before / (double)total,
                                               (double)v / 1e6));
        before += n;
    }
    return json_pack("{s:I, s:f, s:f, s:f, s:o, s:o, s:i}", "count", (json_int_t)p->count, "min",
                     p->min_ms, "max", p->max_ms, "mean", p->count ? p->sum_ms / (double)p->count : 0,
                     "percentiles", pct, "curve", curve, "runs", p->runs);
}

static double report_precision(const json_t *final)
{
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(final, "run"), "options"), "histogram-precision"));
    return v ? atof(v) : 0.01;
}

/* Reads one run into runs and p; 1 when it is not done, 0 when read, -1
 * with err. */
static int load_run(const char *dir, const char *id, json_t *run, struct point_lat *p, char *err,
                    size_t errlen)
{
    if (!cmp_run_done(dir, id))
        return 1;
    char path[4300], msg[300];
    snprintf(path, sizeof path, "%s/runs/%s.record.json", dir, id);
    json_t *rec = json_load_file(path, 0, NULL);
    json_t *intervals = json_array();
    snprintf(path, sizeof path, "%s/runs/%s.json", dir, id);
    json_t *final = read_report(path, intervals);
    if (rec == NULL || final == NULL) {
        snprintf(err, errlen, "run %s: %s is unreadable or has no final report", id, rec ? path : "its record");
        json_decref(rec);
        json_decref(final);
        json_decref(intervals);
        return -1;
    }
    json_object_set_new(run, "id", json_string(id));
    json_object_set_new(run, "final", final);
    json_object_set_new(run, "record", rec);
    json_object_set_new(run, "intervals", intervals);
    json_t *lat = json_object_get(final, "latency_ms");
    if (p->h == NULL &&
        (p->h = sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, report_precision(final))) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t before = sb_histogram_count(p->h);
    snprintf(path, sizeof path, "%s/runs/%s.hlog", dir, id);
    if (add_log(path, p->h, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "run %s: %s", id, msg);
        return -1;
    }
    uint64_t n = (uint64_t)json_number_value(json_object_get(lat, "count"));
    if (sb_histogram_count(p->h) - before != n) {
        snprintf(err, errlen, "run %s: its HdrHistogram log holds %llu latencies, its report %llu", id,
                 (unsigned long long)(sb_histogram_count(p->h) - before), (unsigned long long)n);
        return -1;
    }
    double mn = json_number_value(json_object_get(lat, "min")), mx = json_number_value(json_object_get(lat, "max"));
    if (n > 0) {
        p->min_ms = p->count == 0 || mn < p->min_ms ? mn : p->min_ms;
        p->max_ms = p->count == 0 || mx > p->max_ms ? mx : p->max_ms;
    }
    p->count += n;
    p->sum_ms += json_number_value(json_object_get(lat, "sum"));
    p->runs++;
    return 0;
}

json_t *cmp_load_runs(const struct cmp_spec *s, const char *dir, char *err, size_t errlen)
{
    json_t *out = json_pack("{s:[], s:{}}", "runs", "latency");
    json_t *runs = json_object_get(out, "runs"), *latency = json_object_get(out, "latency");
    for (int w = 0; w < s->nworkloads; w++)
        for (int t = 0; t < s->nthreads; t++)
            for (int k = 0; k < s->ntargets; k++) {
                const struct cmp_target *tg = &s->targets[k];
                struct cmp_spec saved = {0};
                const struct cmp_spec *from = s;
                const char *rdir = dir;
                int kk = k;
                if (tg->from_dir) { /* the saved target's runs, by its own name */
                    char path[4300];
                    snprintf(path, sizeof path, "%s/comparison.json", tg->from_dir);
                    json_t *j = json_load_file(path, 0, NULL);
                    if (j == NULL || cmp_spec_from_json(&saved, j, err, errlen) != 0 ||
                        (kk = cmp_spec_target(&saved, tg->from_target)) < 0) {
                        snprintf(err, errlen, "target '%s': no target '%s' in %s", tg->name,
                                 tg->from_target, tg->from_dir);
                        json_decref(j);
                        cmp_spec_free(&saved);
                        json_decref(out);
                        return NULL;
                    }
                    json_decref(j);
                    from = &saved;
                    rdir = tg->from_dir;
                }
                /* the saved comparison may lack this thread count or have
                 * a different number of repeats */
                int tt = -1;
                for (int i = 0; i < from->nthreads; i++)
                    if (from->threads[i] == s->threads[t])
                        tt = i;
                struct point_lat p = {0};
                int rc = 0;
                for (int r = 0; tt >= 0 && r < from->repeats && rc >= 0; r++) {
                    char id[300];
                    cmp_run_id(from, w, tt, kk, r, id, sizeof id);
                    json_t *run = json_pack("{s:s, s:i, s:s, s:i}", "workload", s->workloads[w].label,
                                            "threads", s->threads[t], "target", tg->name, "repeat", r + 1);
                    rc = load_run(rdir, id, run, &p, err, errlen);
                    if (rc == 0)
                        json_array_append(runs, run);
                    json_decref(run);
                }
                cmp_spec_free(&saved);
                if (rc < 0) {
                    sb_histogram_destroy(p.h);
                    json_decref(out);
                    return NULL;
                }
                if (p.runs > 0) {
                    json_t *l = point_latency(&p);
                    char key[300];
                    snprintf(key, sizeof key, "%s/%d/%s", s->workloads[w].label, s->threads[t], tg->name);
                    json_object_set_new(latency, key, l);
                }
                sb_histogram_destroy(p.h);
            }
    return out;
}
