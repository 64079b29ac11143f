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

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/hdr_read.h"
#include "../core/histogram.h"
#include "../results/json_get.h"
#include "../results/readfile.h"
#include "../results/report_check.h"
#include "../core/stats.h"

static const double point_pcts[] = {50, 95, 99, 99.9};

/* cmp_report_parse, and when counts is not NULL, each interval line's
 * latency_ms.count appended to it (for the log's windows). */
static int parse_report(const char *path, const char *buf, size_t len, json_object **final,
                        json_object *intervals, json_object *counts, char *err, size_t errlen)
{
    char msg[512];
    *final = NULL;
    struct sb_json_lines lines;
    struct sb_report_windows sums = {0};
    json_object *j;
    int got = sb_json_lines_init(&lines, buf, len, msg, sizeof msg);
    double t = 0;
    while (got == 0 && (got = sb_json_lines_next(&lines, &j, msg, sizeof msg)) == 1) {
        const char *type = sb_json_str(j, "type");
        got = 0;
        int known = type && (strcmp(type, "interval") == 0 || strcmp(type, "final") == 0);
        if (known && sb_report_line_check(j, msg, sizeof msg) != 0) { /* lying times, sums, rates */
            json_object_put(j);
            got = -1;
        } else if (type && strcmp(type, "interval") == 0 && *final == NULL) {
            sb_report_windows_add(&sums, j);
            if (counts)
                json_object_array_add(counts, json_object_get(sb_json_at(j, "latency_ms.count")));
            t += sb_json_num(j, "seconds");
            json_object_array_add(intervals, cmp_pair(t, sb_json_num(j, "tps")));
            json_object_put(j);
        } else if (type && strcmp(type, "final") == 0 && *final == NULL) {
            *final = j;
            got = sb_report_windows_check(&sums, j, msg, sizeof msg); /* the final: json_put below */
        } else { /* type is j's: the message before j goes */
            snprintf(msg, sizeof msg, "%s", type && strcmp(type, "final") == 0 ? "a second final report"
                                            : *final ? "a line after the final report"
                                                     : "not an interval or final report");
            json_object_put(j);
            got = -1;
        }
    }
    int line = lines.line;
    sb_json_lines_close(&lines);
    if (got == 0 && *final == NULL) {
        snprintf(err, errlen, "%.400s: no final report (the run did not finish)", path);
        return -1;
    }
    if (got < 0) {
        json_object_put(*final);
        *final = NULL;
        if (line > 0)
            snprintf(err, errlen, "%.400s:%d: %s", path, line, msg);
        else
            snprintf(err, errlen, "%.400s: %s", path, msg);
        return -1;
    }
    return 0;
}

int cmp_report_parse(const char *path, const char *buf, size_t len, json_object **final,
                     json_object *intervals, char *err, size_t errlen)
{
    return parse_report(path, buf, len, final, intervals, NULL, err, errlen);
}

/* parse_report over the file at path. */
static int read_report(const char *path, json_object **final, json_object *intervals, json_object *counts,
                       char *err, size_t errlen)
{
    char msg[300];
    size_t len;
    *final = NULL;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, msg, sizeof msg);
    if (buf == NULL) {
        snprintf(err, errlen, "%.400s: %s", path, msg);
        return -1;
    }
    int rc = parse_report(path, buf, len, final, intervals, counts, err, errlen);
    free(buf);
    return rc;
}

/* Accumulated latency of one point. */
struct point_lat {
    sb_histogram *h;            /* the repeats' logs added (owned; NULL before the first) */
    uint64_t count;             /* from the reports */
    double sum_ms, min_ms, max_ms;
    int runs;
};

/* Adds every interval of the HdrHistogram log at path into h (the
 * reader of sbench merge, results/hdr_read.c), each holding as many
 * latencies as its window's line in the report (counts; none: not
 * checked).  0, or -1 with one line in err. */
static int add_log(const char *path, sb_histogram *h, const json_object *counts, char *err, size_t errlen)
{
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, errlen);
    if (buf == NULL)
        return -1;
    struct sb_hdr_reader r;
    struct sb_hdr_interval iv;
    char msg[256];
    int got;
    size_t n = 0, want = sb_json_len(counts);
    sb_hdr_reader_init(&r, buf, len);
    while ((got = sb_hdr_reader_next(&r, &iv, msg, sizeof msg)) == 1) {
        uint64_t before = sb_histogram_count(h);
        if (sb_hdr_decode_add(iv.hist, iv.hist_len, h, msg, sizeof msg) != 0) {
            got = -2;
            break;
        }
        uint64_t held = sb_histogram_count(h) - before;
        if (want > 0 && (n >= want || held != json_object_get_uint64(sb_json_elem(counts, n)))) {
            if (n < want)
                snprintf(msg, sizeof msg, "the interval holds %llu latencies, interval line %zu of the report %llu",
                         (unsigned long long)held, n + 1,
                         (unsigned long long)json_object_get_uint64(sb_json_elem(counts, n)));
            else
                snprintf(msg, sizeof msg, "more intervals than the report's %zu interval lines", want);
            got = -2;
            break;
        }
        n++;
    }
    if (got == 0 && n != want && want > 0) {
        snprintf(msg, sizeof msg, "%zu intervals, the report has %zu interval lines: truncated", n, want);
        got = -3;
    }
    free(buf);
    if (got == -2) /* the file, the interval's line, what is wrong */
        snprintf(err, errlen, "%.400s:%d: %s", path, iv.line, msg);
    else if (got < 0) /* the reader's "line N: reason", or the count of intervals */
        snprintf(err, errlen, "%.400s: %s", path, msg);
    return got < 0 ? -1 : 0;
}

/* The percentile object of a point: {count, min, max, mean, percentiles,
 * curve}, computed by sbench's own histogram code once the exact min,
 * max and sum of the repeats' reports are set. */
static json_object *point_latency(struct point_lat *p)
{
    sb_histogram *h = p->h;
    int64_t min_ns = llround(p->min_ms * 1e6), max_ns = llround(p->max_ms * 1e6);
    sb_histogram_set_summary(h, min_ns, max_ns, llround(p->sum_ms * 1e6));
    json_object *pct = json_object_new_object(), *curve = json_object_new_array();
    for (size_t k = 0; k < sizeof point_pcts / sizeof point_pcts[0]; k++) {
        char key[16];
        snprintf(key, sizeof key, "%g", point_pcts[k]);
        json_object_object_add(pct, key, cmp_real((double)sb_histogram_percentile(h, point_pcts[k]) / 1e6));
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
        json_object_array_add(curve, cmp_pair(100.0 * (double)before / (double)total, (double)v / 1e6));
        before += n;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "count", json_object_new_uint64(p->count));
    json_object_object_add(o, "min", cmp_real(p->min_ms));
    json_object_object_add(o, "max", cmp_real(p->max_ms));
    json_object_object_add(o, "mean", cmp_real(p->count ? p->sum_ms / (double)p->count : 0));
    json_object_object_add(o, "percentiles", pct);
    json_object_object_add(o, "curve", curve);
    json_object_object_add(o, "runs", json_object_new_int(p->runs));
    return o;
}

static double report_precision(const json_object *final)
{
    const char *v = sb_json_str(sb_json_at(final, "run.options"), "histogram-precision");
    return v ? atof(v) : 0.01;
}

/* DIR/info.json (sbench info, written before the first run): absent in
 * a results directory of an older sbench, else an object of type "info"
 * with the host's facts and the drivers found.  0, or -1 with err. */
static int check_info(const char *dir, char *err, size_t errlen)
{
    char path[4300], msg[400];
    int64_t cpus = 0;
    snprintf(path, sizeof path, "%s/info.json", dir);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0; /* anything else (a symlink loop) is said by the reader */
    json_object *j = sb_json_load_file(path, msg, sizeof msg);
    const char *type = sb_json_str(j, "type");
    if (j == NULL) {
        /* msg says it */
    } else if (type == NULL || strcmp(type, "info") != 0) {
        snprintf(msg, sizeof msg, "\"type\" is not \"info\": not written by sbench info");
    } else if (!json_object_is_type(sb_json_member(j, "host"), json_type_object) ||
               sb_json_get_i64(j, "host.cpus", &cpus, msg, sizeof msg) != 0 || cpus < 1 ||
               sb_json_str(sb_json_member(j, "host"), "name") == NULL) {
        snprintf(msg, sizeof msg, "\"host\" is missing or without its name and a CPU count");
    } else if (cmp_host_check(sb_json_member(j, "host"), "host", msg, sizeof msg) == 0 &&
               cmp_drivers_check(sb_json_member(j, "drivers"), msg, sizeof msg) == 0) {
        json_object_put(j);
        return 0;
    }
    json_object_put(j);
    snprintf(err, errlen, "%.400s: %s", path, msg);
    return -1;
}

/* Reads one run into run and p; 1 when it is not done, 0 when read, -1
 * with err. */
static int load_run(const struct cmp_spec *from, int w, int t, int k, const char *dir, const char *id,
                    json_object *run, struct point_lat *p, char *err, size_t errlen)
{
    char path[4300], msg[1024];
    int done = cmp_run_state(dir, id, msg, sizeof msg);
    if (done <= 0) {
        if (done < 0)
            snprintf(err, errlen, "run %s: %s", id, msg);
        return done < 0 ? -1 : 1;
    }
    snprintf(path, sizeof path, "%s/runs/%s.record.json", dir, id);
    json_object *rec = sb_json_load_file(path, msg, sizeof msg);
    if (rec == NULL || cmp_record_check(rec, id, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "run %s: %.400s: %s", id, path, msg);
        json_object_put(rec);
        return -1;
    }
    json_object_object_add(run, "id", json_object_new_string(id));
    json_object_object_add(run, "record", rec);
    json_object *intervals = json_object_new_array(), *final;
    json_object_object_add(run, "intervals", intervals);
    snprintf(path, sizeof path, "%s/runs/%s.json", dir, id);
    /* the windows' latency counts, until the log is read */
    json_object *counts = json_object_new_array();
    json_object_object_add(run, "window_counts", counts);
    if (read_report(path, &final, intervals, counts, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "run %s: %s", id, msg);
        return -1;
    }
    json_object_object_add(run, "final", final);
    if (cmp_run_matches(from, w, t, k, final, msg, sizeof msg) != 0 ||
        cmp_run_meta_check(final, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "run %s: %.400s: %s", id, path, msg);
        return -1;
    }
    /* the report's exact count, min, max and sum of the latencies */
    uint64_t n;
    double mn, mx, sum;
    if (sb_json_get_u64(final, "latency_ms.count", &n, msg, sizeof msg) ||
        sb_json_get_num(final, "latency_ms.min", &mn, msg, sizeof msg) ||
        sb_json_get_num(final, "latency_ms.max", &mx, msg, sizeof msg) ||
        sb_json_get_num(final, "latency_ms.sum", &sum, msg, sizeof msg)) {
        snprintf(err, errlen, "run %s: %.400s: the final report's %s", id, path, msg);
        return -1;
    }
    if (p->h == NULL &&
        (p->h = sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, report_precision(final))) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t before = sb_histogram_count(p->h);
    snprintf(path, sizeof path, "%s/runs/%s.hlog", dir, id);
    int bad_log = add_log(path, p->h, counts, msg, sizeof msg);
    json_object_object_del(run, "window_counts");
    if (bad_log != 0) {
        snprintf(err, errlen, "run %s: %s", id, msg);
        return -1;
    }
    if (sb_histogram_count(p->h) - before != n) {
        snprintf(err, errlen, "run %s: its HdrHistogram log holds %llu latencies, its report %llu", id,
                 (unsigned long long)(sb_histogram_count(p->h) - before), (unsigned long long)n);
        return -1;
    }
    if (n > 0) {
        p->min_ms = p->count == 0 || mn < p->min_ms ? mn : p->min_ms;
        p->max_ms = p->count == 0 || mx > p->max_ms ? mx : p->max_ms;
    }
    p->count += n;
    p->sum_ms += sum;
    p->runs++;
    return 0;
}

json_object *cmp_load_runs(const struct cmp_spec *s, const char *dir, char *err, size_t errlen)
{
    if (check_info(dir, err, errlen) != 0)
        return NULL;
    json_object *out = json_object_new_object();
    json_object *runs = json_object_new_array(), *latency = json_object_new_object();
    json_object_object_add(out, "runs", runs);
    json_object_object_add(out, "latency", latency);
    for (int w = 0; w < s->nworkloads; w++)
        for (int t = 0; t < s->nthreads; t++)
            for (int k = 0; k < s->ntargets; k++) {
                const struct cmp_target *tg = &s->targets[k];
                struct cmp_spec saved = {0};
                const struct cmp_spec *from = s;
                const char *rdir = dir;
                int kk = k;
                if (tg->from_dir) { /* the saved target's runs, by its own name */
                    char path[4300], msg[300];
                    snprintf(path, sizeof path, "%s/comparison.json", tg->from_dir);
                    json_object *j = sb_json_load_file(path, msg, sizeof msg);
                    if (j == NULL || cmp_spec_from_json(&saved, j, err, errlen) != 0 ||
                        (kk = cmp_spec_target(&saved, tg->from_target)) < 0) {
                        snprintf(err, errlen, "target '%s': no target '%s' in %s", tg->name,
                                 tg->from_target, tg->from_dir);
                        json_object_put(j);
                        cmp_spec_free(&saved);
                        json_object_put(out);
                        return NULL;
                    }
                    json_object_put(j);
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
                    json_object *run = json_object_new_object();
                    json_object_object_add(run, "workload", json_object_new_string(s->workloads[w].label));
                    json_object_object_add(run, "threads", json_object_new_int(s->threads[t]));
                    json_object_object_add(run, "target", json_object_new_string(tg->name));
                    json_object_object_add(run, "repeat", json_object_new_int(r + 1));
                    rc = load_run(from, w, tt, kk, rdir, id, run, &p, err, errlen);
                    if (rc == 0)
                        json_object_array_add(runs, json_object_get(run));
                    json_object_put(run);
                }
                cmp_spec_free(&saved);
                if (rc < 0) {
                    sb_histogram_destroy(p.h);
                    json_object_put(out);
                    return NULL;
                }
                if (p.runs > 0) {
                    char key[300];
                    snprintf(key, sizeof key, "%s/%d/%s", s->workloads[w].label, s->threads[t], tg->name);
                    json_object_object_add(latency, key, point_latency(&p));
                }
                sb_histogram_destroy(p.h);
            }
    return out;
}
