/*
 * compare_summary.c: the summary of a comparison, one JSON object (schema
 * docs/compare.schema.json) computed from the runs compare_load.c read
 * back: per point the median throughput with its interval and the merged
 * latency percentiles, a verdict per pair of targets, the peak and knee of
 * each target's thread sweep, warnings (a busy client, a machine loaded
 * before a run, late starts under --rate, failed events), the regression
 * gate, and the environment.  The text and HTML reports only format this
 * object: every number they show is in it.
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_stats.h"
#include "run_meta.h"

#define CONF 0.95
/* warning thresholds (docs/compare.md) */
#define CLIENT_CPU_WARN 0.5
#define BUSY_BEFORE_WARN 0.25
#define LAG_WARN_MS 1.0
/* the knee: doubling the threads adds less than this */
#define KNEE_GAIN 0.05

struct ctx {
    const struct cmp_spec *s;
    const json_t *runs;         /* loaded runs */
    const json_t *latency;      /* loaded latency per point */
    json_t *warnings;
};

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* Throughput of the repeats of a point, in repeat order, into v; returns
 * how many. */
static int point_tps(const struct ctx *c, const char *wl, int threads, const char *target, double *v)
{
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(c->runs, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "workload")), wl) == 0 &&
            json_integer_value(json_object_get(r, "threads")) == threads &&
            strcmp(json_string_value(json_object_get(r, "target")), target) == 0 && n < CMP_MAX_REPEATS)
            v[n++] = num(json_object_get(r, "final"), "tps");
    }
    return n;
}

static void warn(struct ctx *c, const json_t *run, const char *kind, const char *fmt, double a, double b)
{
    char text[400];
    snprintf(text, sizeof text, fmt, a, b);
    json_array_append_new(c->warnings,
                          json_pack("{s:s, s:O, s:O, s:O, s:O, s:s}", "kind", kind, "workload",
                                    json_object_get(run, "workload"), "threads", json_object_get(run, "threads"),
                                    "target", json_object_get(run, "target"), "run", json_object_get(run, "id"),
                                    "text", text));
}

/* A count of a report (read as a real, see compare_load.c) as an integer. */
static json_t *count(const json_t *o, const char *key)
{
    return json_integer((json_int_t)json_number_value(json_object_get(o, key)));
}

/* One run of the summary, and its warnings. */
static json_t *run_entry(struct ctx *c, const json_t *r)
{
    const json_t *f = json_object_get(r, "final"), *rec = json_object_get(r, "record");
    const json_t *lat = json_object_get(f, "latency_ms");
    json_t *e = json_pack("{s:O, s:O, s:O, s:O, s:O, s:f, s:o, s:f, s:O, s:O, s:o, s:o}", "id",
                          json_object_get(r, "id"), "workload", json_object_get(r, "workload"), "threads",
                          json_object_get(r, "threads"), "target", json_object_get(r, "target"), "repeat",
                          json_object_get(r, "repeat"), "tps", num(f, "tps"), "transactions",
                          count(f, "transactions"), "seconds", num(f, "seconds"), "latency_ms",
                          json_object_get(lat, "percentiles"), "intervals", json_object_get(r, "intervals"),
                          "failed_transactions", count(f, "failed_transactions"), "ignored_errors",
                          count(f, "ignored_errors"));
    static const char *const rec_keys[] = {"order", "start_time", "wall_s", "client_cpu_s", "client_cpu_share",
                                           "machine_busy_share", "busy_share_before", "loadavg_1m",
                                           "command", NULL};
    for (int i = 0; rec_keys[i]; i++)
        if (json_object_get(rec, rec_keys[i]))
            json_object_set(e, rec_keys[i], json_object_get(rec, rec_keys[i]));
    if (json_object_get(f, "server")) {
        json_t *srv = json_object();
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(f, "server"), key, v)
            json_object_set_new(srv, key, count(json_object_get(f, "server"), key));
        json_object_set_new(e, "server", srv);
    }
    double share = num(rec, "client_cpu_share"), before = num(rec, "busy_share_before");
    if (share >= CLIENT_CPU_WARN)
        warn(c, r, "client_cpu",
             "the client (sbench) used %.0f%% of the machine's CPU: it may be the bottleneck", share * 100, 0);
    if (before >= BUSY_BEFORE_WARN)
        warn(c, r, "machine_busy",
             "the machine was %.0f%% busy just before the run (something else was running)", before * 100, 0);
    const json_t *lag = json_object_get(f, "schedule_lag_ms");
    double lag95 = num(json_object_get(lag, "percentiles"), "95");
    if (lag && lag95 > LAG_WARN_MS)
        warn(c, r, "schedule_lag",
             "events started late under --rate (schedule lag p95 %.2f ms): the client could not keep the rate",
             lag95, 0);
    double failed = num(f, "failed_transactions");
    if (failed > 0)
        warn(c, r, "failed", "%.0f events failed after --max-retries", failed, 0);
    return e;
}

static json_t *point_entry(const struct ctx *c, const char *wl, int threads, const char *target)
{
    double v[CMP_MAX_REPEATS];
    int n = point_tps(c, wl, threads, target, v);
    if (n == 0)
        return NULL;
    struct cmp_interval ci;
    cmp_median_ci(v, n, CONF, &ci);
    double mn = v[0], mx = v[0];
    json_t *values = json_array();
    for (int i = 0; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        json_array_append_new(values, json_real(v[i]));
    }
    char key[300];
    snprintf(key, sizeof key, "%s/%d/%s", wl, threads, target);
    json_t *tps = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "n", n, "median", cmp_median(v, n),
                            "low", ci.low, "high", ci.high, "level", ci.level, "min", mn, "max", mx, "values",
                            values);
    return json_pack("{s:s, s:i, s:s, s:o, s:O}", "workload", wl, "threads", threads, "target", target, "tps",
                     tps, "latency_ms", json_object_get(c->latency, key));
}

static double pct_of(double logratio)
{
    return (exp(logratio) - 1) * 100;
}

/* "B is 12.3% faster than A (95% CI 7.0% to 17.1%)" and the like. */
static void verdict_text(const struct cmp_shift *sh, const char *a, const char *b, int repeats_min,
                         char *buf, size_t len)
{
    double est = pct_of(sh->estimate), lo = pct_of(sh->low), hi = pct_of(sh->high);
    if (!sh->achievable) {
        snprintf(buf, len,
                 "no significant difference at %d and %d repeats (%s vs %s: %+.1f%%; so few repeats cannot show a difference at 95%%: use %d or more)",
                 sh->n, sh->m, b, a, est, repeats_min);
    } else if (!sh->significant) {
        snprintf(buf, len, "no significant difference at %d and %d repeats (%s vs %s: %+.1f%%, 95%% CI %+.1f%% to %+.1f%%)",
                 sh->n, sh->m, b, a, est, lo, hi);
    } else if (sh->estimate > 0) {
        snprintf(buf, len, "%s is %.1f%% faster than %s (95%% CI %.1f%% to %.1f%%)", b, est, a, lo, hi);
    } else {
        /* slower: 1 - b/a, the interval's ends swap */
        snprintf(buf, len, "%s is %.1f%% slower than %s (95%% CI %.1f%% to %.1f%%)", b, -est, a, -hi, -lo);
    }
}

static json_t *verdict(const struct ctx *c, const char *wl, int threads, const char *a, const char *b)
{
    double va[CMP_MAX_REPEATS], vb[CMP_MAX_REPEATS];
    int n = point_tps(c, wl, threads, a, va), m = point_tps(c, wl, threads, b, vb);
    struct cmp_shift sh;
    if (n == 0 || m == 0 || cmp_compare(va, n, vb, m, CONF, &sh) != 0)
        return NULL;
    char text[600];
    verdict_text(&sh, a, b, cmp_min_repeats(CONF), text, sizeof text);
    return json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:b, s:b, s:s}", "workload", wl,
                     "threads", threads, "a", a, "b", b, "n_a", n, "n_b", m, "change_pct", pct_of(sh.estimate),
                     "low_pct", pct_of(sh.low), "high_pct", pct_of(sh.high), "level", sh.level, "p_value",
                     sh.p_value, "achievable", sh.achievable, "significant", sh.significant, "text", text);
}

/* Peak and knee of one target's sweep (points sorted by threads). */
static json_t *sweep(const json_t *points, const char *wl, const char *target)
{
    struct { int t; double tps, p95; } p[CMP_MAX_THREADS];
    int n = 0;
    size_t i;
    json_t *x;
    json_array_foreach(points, i, x) {
        if (strcmp(json_string_value(json_object_get(x, "workload")), wl) ||
            strcmp(json_string_value(json_object_get(x, "target")), target) || n == CMP_MAX_THREADS)
            continue;
        p[n].t = (int)json_integer_value(json_object_get(x, "threads"));
        p[n].tps = num(json_object_get(x, "tps"), "median");
        p[n].p95 = num(json_object_get(json_object_get(x, "latency_ms"), "percentiles"), "95");
        n++;
    }
    if (n < 2)
        return NULL;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && p[b - 1].t > p[b].t; b--) {
            __typeof__(p[0]) tmp = p[b];
            p[b] = p[b - 1];
            p[b - 1] = tmp;
        }
    int peak = 0;
    for (int k = 1; k < n; k++)
        if (p[k].tps > p[peak].tps)
            peak = k;
    json_t *o = json_pack("{s:s, s:s, s:{s:i, s:f}}", "workload", wl, "target", target, "peak", "threads",
                          p[peak].t, "tps", p[peak].tps);
    char text[400];
    /* the smallest count whose doubling (the next count >= 2x) adds under
     * 5%, or whose p95 latency grows faster than the threads */
    for (int k = 0; k < n; k++) {
        int j = k + 1;
        while (j < n && p[j].t < 2 * p[k].t)
            j++;
        if (j == n)
            break;
        double gain = p[k].tps > 0 ? p[j].tps / p[k].tps - 1 : 0;
        double lat = p[k].p95 > 0 ? p[j].p95 / p[k].p95 : 0;
        const char *reason = NULL;
        if (gain < KNEE_GAIN) {
            reason = "throughput";
            snprintf(text, sizeof text, "%s stops scaling at %d threads: %d threads add %+.1f%% throughput", target,
                     p[k].t, p[j].t, gain * 100);
        } else if (lat > (double)p[j].t / p[k].t) {
            reason = "latency";
            snprintf(text, sizeof text, "%s stops scaling at %d threads: at %d threads p95 latency grows %.1fx, faster than the threads",
                     target, p[k].t, p[j].t, lat);
        }
        if (reason) {
            json_object_set_new(o, "knee", json_pack("{s:i, s:i, s:s, s:f, s:f}", "threads", p[k].t, "next",
                                                     p[j].t, "reason", reason, "gain_pct", gain * 100,
                                                     "latency_ratio", lat));
            json_object_set_new(o, "text", json_string(text));
            return o;
        }
    }
    snprintf(text, sizeof text, "%s scales up to %d threads (no knee in the sweep; peak %.1f tps at %d)", target,
             p[n - 1].t, p[peak].tps, p[peak].t);
    json_object_set_new(o, "knee", json_null());
    json_object_set_new(o, "text", json_string(text));
    return o;
}

/* The regression gate: every target against the baseline; a target
 * fails when the whole 95% interval of its change lies below
 * -threshold. */
static json_t *gate(const struct ctx *c, const char *baseline, double threshold)
{
    if (threshold < 0)
        return json_pack("{s:s}", "status", "off");
    const struct cmp_spec *s = c->s;
    json_t *fails = json_array();
    for (int w = 0; w < s->nworkloads; w++)
        for (int t = 0; t < s->nthreads; t++)
            for (int k = 0; k < s->ntargets; k++) {
                if (strcmp(s->targets[k].name, baseline) == 0)
                    continue;
                double va[CMP_MAX_REPEATS], vb[CMP_MAX_REPEATS];
                const char *wl = s->workloads[w].label;
                int n = point_tps(c, wl, s->threads[t], baseline, va);
                int m = point_tps(c, wl, s->threads[t], s->targets[k].name, vb);
                struct cmp_shift sh;
                if (n == 0 || m == 0 || cmp_compare(va, n, vb, m, CONF, &sh) != 0)
                    continue;
                if (sh.achievable && pct_of(sh.high) < -threshold) {
                    char text[600];
                    verdict_text(&sh, baseline, s->targets[k].name, 0, text, sizeof text);
                    json_array_append_new(fails, json_pack("{s:s, s:i, s:s, s:f, s:f, s:f, s:s}", "workload", wl,
                                                           "threads", s->threads[t], "target", s->targets[k].name,
                                                           "change_pct", pct_of(sh.estimate), "low_pct",
                                                           pct_of(sh.low), "high_pct", pct_of(sh.high), "text",
                                                           text));
                }
            }
    return json_pack("{s:s, s:s, s:f, s:o}", "status", json_array_size(fails) ? "fail" : "pass", "baseline",
                     baseline, "threshold_pct", threshold, "regressions", fails);
}

/* Versions and facts: the machine (machine.json, written when the runs
 * ran), each target's driver, client and server versions (its connection
 * check's report, else its first run's), and targets/NAME.facts.json when
 * present (the hook for `sbench info`, issue 17). */
static json_t *environment(const struct ctx *c, const char *dir)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/machine.json", dir);
    json_t *machine = json_load_file(path, 0, NULL);
    json_t *targets = json_array();
    const char *version = NULL;
    for (int k = 0; k < c->s->ntargets; k++) {
        const struct cmp_target *t = &c->s->targets[k];
        const char *tdir = t->from_dir ? t->from_dir : dir;
        const char *tname = t->from_dir ? t->from_target : t->name;
        json_t *run = NULL;
        size_t i;
        json_t *r;
        json_array_foreach(c->runs, i, r)
            if (run == NULL && strcmp(json_string_value(json_object_get(r, "target")), t->name) == 0)
                run = json_object_get(json_object_get(r, "final"), "run");
        json_t *e = json_pack("{s:s}", "name", t->name);
        if (run) {
            static const char *const keys[] = {"driver", "client_version", "server_version", "sbench_version", "host", NULL};
            for (int q = 0; keys[q]; q++)
                if (json_object_get(run, keys[q]))
                    json_object_set(e, keys[q], json_object_get(run, keys[q]));
            if (version == NULL)
                version = json_string_value(json_object_get(run, "sbench_version"));
        }
        if (t->from_dir) {
            snprintf(path, sizeof path, "%s/%s", t->from_dir, t->from_target);
            json_object_set_new(e, "from", json_string(path));
        }
        snprintf(path, sizeof path, "%s/targets/%s.facts.json", tdir, tname);
        json_t *facts = json_load_file(path, 0, NULL);
        json_object_set_new(e, "facts", facts ? facts : json_null());
        json_array_append_new(targets, e);
    }
    snprintf(path, sizeof path, "%s/comparison.json", dir);
    json_t *spec = json_load_file(path, 0, NULL);
    json_t *env = json_pack("{s:s, s:o, s:o, s:O}", "sbench_version", version ? version : SB_VERSION, "machine",
                            machine ? machine : json_object(), "targets", targets, "command",
                            json_object_get(spec, "command") ? json_object_get(spec, "command") : json_null());
    json_decref(spec);
    return env;
}

json_t *cmp_summary(const struct cmp_spec *s, const json_t *spec_json, const json_t *loaded,
                    const struct cmp_request *req, char *err, size_t errlen)
{
    struct ctx c = {.s = s, .runs = json_object_get(loaded, "runs"),
                    .latency = json_object_get(loaded, "latency"), .warnings = json_array()};
    const char *baseline = req->baseline ? req->baseline : s->targets[0].name;
    if (cmp_spec_target(s, baseline) < 0) {
        snprintf(err, errlen, "unknown target '%s' for --baseline", baseline);
        json_decref(c.warnings);
        return NULL;
    }
    json_t *runs = json_array(), *points = json_array(), *verdicts = json_array(), *sweeps = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(c.runs, i, r)
        json_array_append_new(runs, run_entry(&c, r));
    int planned = 0;
    for (int k = 0; k < s->ntargets; k++)
        planned += s->targets[k].from_dir ? 0 : s->nworkloads * s->nthreads * s->repeats;
    for (int w = 0; w < s->nworkloads; w++) {
        const char *wl = s->workloads[w].label;
        for (int t = 0; t < s->nthreads; t++) {
            for (int k = 0; k < s->ntargets; k++) {
                json_t *p = point_entry(&c, wl, s->threads[t], s->targets[k].name);
                if (p)
                    json_array_append_new(points, p);
            }
            for (int a = 0; a < s->ntargets; a++)
                for (int b = a + 1; b < s->ntargets; b++) {
                    json_t *v = verdict(&c, wl, s->threads[t], s->targets[a].name, s->targets[b].name);
                    if (v)
                        json_array_append_new(verdicts, v);
                }
        }
        for (int k = 0; k < s->ntargets; k++) {
            json_t *sw = sweep(points, wl, s->targets[k].name);
            if (sw)
                json_array_append_new(sweeps, sw);
        }
    }
    int done = 0;
    json_array_foreach(runs, i, r)
        done += !s->targets[cmp_spec_target(s, json_string_value(json_object_get(r, "target")))].from_dir;
    char method[1200];
    snprintf(method, sizeof method,
             "Throughput per point: the median of the repeats, with the distribution-free confidence interval of "
             "the median (order statistics, binomial coverage; fewer than 6 repeats cannot reach 95%%, the level "
             "reached is given). Verdicts: exact two-sided Mann-Whitney rank test on the repeats' throughput, "
             "with the Hodges-Lehmann estimate of the ratio and its exact 95%% interval (Moses), which excludes 0 "
             "exactly when the test rejects at 5%%. Rank methods assume no shape for run-to-run noise and keep "
             "the false-positive rate at or below 5%%; %d repeats per target are needed to show any difference. "
             "Latency: the repeats' HdrHistogram logs added bucket by bucket. Knee: the smallest thread count "
             "past which doubling the threads adds under 5%% throughput, or p95 latency grows faster than the "
             "threads (medians).",
             cmp_min_repeats(CONF));
    char now[40];
    sb_iso_now(now, sizeof now);
    json_t *sum = json_pack("{s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:f, s:s, s:O}", "format",
                            "sbench-compare-summary/1", "title", s->title ? s->title : "sbench compare",
                            "results_dir", req->results, "generated", now, "complete", done >= planned,
                            "runs_planned", planned, "runs_done", done, "confidence", CONF, "method", method,
                            "spec", spec_json);
    json_object_set_new(sum, "points", points);
    json_object_set_new(sum, "verdicts", verdicts);
    json_object_set_new(sum, "sweeps", sweeps);
    json_object_set_new(sum, "warnings", c.warnings);
    json_object_set_new(sum, "regression", gate(&c, baseline, req->fail_slower));
    json_object_set_new(sum, "environment", environment(&c, req->results));
    json_object_set_new(sum, "runs", runs);
    return sum;
}
