/*
 * compare_summary.c: the summary of a comparison, one JSON object (schema
 * docs/compare.schema.json) computed from the runs compare_load.c read
 * back: per point the median throughput with its interval and the merged
 * latency percentiles, a verdict per pair of targets, the peak and knee of
 * each target's thread sweep, warnings (a busy client, a machine loaded
 * before a run, late starts under --rate, failed events), the regression
 * gate, and the environment (compare_env.c).  The text and HTML reports
 * only format this object: every number they show is in it.
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../history/history_stats.h"
#include "compare_seq.h"
#include "compare_stats.h"
#include "../results/json_get.h"
#include "../core/run_meta.h"

#define CONF 0.95
/* pairs of interleaved runs from which verdicts use the paired test: at 8
 * its smallest two-sided p (2/256) is that of Mann-Whitney at 5 and 5 */
#define CMP_MIN_PAIRS 8
/* warning thresholds (docs/compare.md) */
#define BUSY_BEFORE_WARN 0.25
#define LAG_WARN_MS 1.0

struct ctx {
    const struct cmp_spec *s;
    const json_object *runs;    /* loaded runs */
    const json_object *latency; /* loaded latency per point */
    json_object *warnings;
    const char *dir;            /* the results directory */
};

/* o[key] = a new reference to v (borrowed; NULL: null) */
static void add_ref(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, json_object_get(v));
}

/* Throughput of the repeats of a point, in repeat order, into v; returns
 * how many. */
static int point_tps(const struct ctx *c, const char *wl, int threads, const char *target, double *v)
{
    int n = 0;
    for (size_t i = 0; i < sb_json_len(c->runs); i++) {
        json_object *r = sb_json_elem(c->runs, i);
        if (strcmp(sb_json_str(r, "workload"), wl) == 0 && sb_json_int(r, "threads") == threads &&
            strcmp(sb_json_str(r, "target"), target) == 0 && n < CMP_MAX_REPEATS)
            v[n++] = sb_json_num(sb_json_member(r, "final"), "tps");
    }
    return n;
}

static void warn(struct ctx *c, const json_object *run, const char *kind, const char *fmt, double a, double b)
{
    char text[400];
    snprintf(text, sizeof text, fmt, a, b);
    cmp_warn(c->warnings, run, kind, text);
}

/* A count of a report, v, as it is (an integer, read exactly), else 0. */
static json_object *count(const json_object *v)
{
    if (!json_object_is_type(v, json_type_int))
        return json_object_new_int(0);
    return json_object_get_int64(v) < 0 ? json_object_new_int64(json_object_get_int64(v))
                                         : json_object_new_uint64(json_object_get_uint64(v));
}

/* One run of the summary, and its warnings. */
static json_object *run_entry(struct ctx *c, const json_object *r)
{
    const json_object *f = sb_json_member(r, "final"), *rec = sb_json_member(r, "record");
    json_object *e = json_object_new_object();
    static const char *const run_keys[] = {"id", "workload", "threads", "target", "repeat", NULL};
    for (int i = 0; run_keys[i]; i++)
        add_ref(e, run_keys[i], sb_json_member(r, run_keys[i]));
    json_object_object_add(e, "tps", cmp_real(sb_json_num(f, "tps")));
    json_object_object_add(e, "transactions", count(sb_json_member(f, "transactions")));
    json_object_object_add(e, "seconds", cmp_real(sb_json_num(f, "seconds")));
    add_ref(e, "latency_ms", sb_json_at(f, "latency_ms.percentiles"));
    add_ref(e, "intervals", sb_json_member(r, "intervals"));
    json_object_object_add(e, "failed_transactions", count(sb_json_member(f, "failed_transactions")));
    json_object_object_add(e, "ignored_errors", count(sb_json_member(f, "ignored_errors")));
    static const char *const rec_keys[] = {"order", "start_time", "wall_s", "client_cpu_s", "client_cpu_share",
                                           "machine_busy_share", "busy_share_before", "loadavg_1m",
                                           "machine_steal_share", "client_threads_measured",
                                           "client_busiest_thread_cpu_share", "client_busiest_thread_delay_share",
                                           "client_mean_run_delay_share", "server_processes", "server_cpu_cores",
                                           "server_run_delay_cores", "server_model_threads", "command", NULL};
    for (int i = 0; rec_keys[i]; i++)
        if (sb_json_member(rec, rec_keys[i]))
            add_ref(e, rec_keys[i], sb_json_member(rec, rec_keys[i]));
    json_object *server = sb_json_member(f, "server");
    if (json_object_is_type(server, json_type_object)) {
        json_object *srv = json_object_new_object();
        json_object_object_foreach(server, key, v) /* null: unknown; reset: true */
            json_object_object_add(srv, key, json_object_is_type(v, json_type_int) ? count(v)
                                   : json_object_is_type(v, json_type_boolean) ? json_object_get(v)
                                   : NULL);
        json_object_object_add(e, "server", srv);
    }
    /* the client as a bottleneck: per point (compare_bottleneck.c), not
     * from a share of all cores, which says nothing on many cores */
    double before = sb_json_num(rec, "busy_share_before");
    if (before >= BUSY_BEFORE_WARN)
        warn(c, r, "machine_busy",
             "the machine was %.0f%% busy just before the run (something else was running)", before * 100, 0);
    const json_object *lag = sb_json_member(f, "schedule_lag_ms");
    double lag95 = sb_json_num(sb_json_member(lag, "percentiles"), "95");
    if (lag && lag95 > LAG_WARN_MS) {
        /* the cause: the client's CPU only when its busiest thread never
         * waited (compare_bottleneck.c's rule), else the connections, each
         * waiting for its answer while the next events were due */
        double busy = sb_json_num(rec, "client_busiest_thread_cpu_share") +
                      sb_json_num(rec, "client_busiest_thread_delay_share");
        const char *rate_opt = sb_json_str(sb_json_at(f, "run.options"), "rate");
        double rate = rate_opt ? atof(rate_opt) : 0;
        char text[400];
        if (!sb_json_member(rec, "client_busiest_thread_cpu_share"))
            snprintf(text, sizeof text, "events started late under --rate (schedule lag p95 %.2f ms; this run's "
                     "record has no thread figures to tell the client's part)", lag95);
        else if (busy >= 0.8)
            snprintf(text, sizeof text, "events started late under --rate (schedule lag p95 %.2f ms): the client "
                     "could not keep the rate (its busiest thread was busy %.0f%% of the time)", lag95, busy * 100);
        else
            snprintf(text, sizeof text, "events started late under --rate (schedule lag p95 %.2f ms; %.1f tps of "
                     "%.0f): not the client's CPU (its busiest thread was busy %.0f%% of the time), the %lld "
                     "connections were waiting for earlier answers when events were due: more --threads keep the "
                     "schedule", lag95, sb_json_num(f, "tps"), rate, busy * 100, (long long)sb_json_int(r, "threads"));
        cmp_warn(c->warnings, r, "schedule_lag", text);
    }
    double failed = sb_json_num(f, "failed_transactions");
    if (failed > 0)
        warn(c, r, "failed", "%.0f events failed after --max-retries", failed, 0);
    return e;
}

static json_object *point_entry(const struct ctx *c, const char *wl, int threads, const char *target)
{
    double v[CMP_MAX_REPEATS];
    int n = point_tps(c, wl, threads, target, v);
    if (n == 0)
        return NULL;
    struct cmp_interval ci;
    cmp_median_ci(v, n, CONF, &ci);
    double mn = v[0], mx = v[0];
    json_object *values = json_object_new_array();
    for (int i = 0; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        json_object_array_add(values, cmp_real(v[i]));
    }
    char key[300];
    snprintf(key, sizeof key, "%s/%d/%s", wl, threads, target);
    json_object *tps = json_object_new_object(), *p = json_object_new_object();
    json_object_object_add(tps, "n", json_object_new_int(n));
    json_object_object_add(tps, "median", cmp_real(cmp_median(v, n)));
    json_object_object_add(tps, "low", cmp_real(ci.low));
    json_object_object_add(tps, "high", cmp_real(ci.high));
    json_object_object_add(tps, "level", cmp_real(ci.level));
    json_object_object_add(tps, "min", cmp_real(mn));
    json_object_object_add(tps, "max", cmp_real(mx));
    json_object_object_add(tps, "values", values);
    json_object_object_add(p, "workload", json_object_new_string(wl));
    json_object_object_add(p, "threads", json_object_new_int(threads));
    json_object_object_add(p, "target", json_object_new_string(target));
    json_object_object_add(p, "tps", tps);
    add_ref(p, "latency_ms", sb_json_member(c->latency, key));
    int cpus = 0;
    for (size_t i = 0; i < sb_json_len(c->runs) && cpus == 0; i++)
        cpus = (int)sb_json_int(sb_json_member(sb_json_elem(c->runs, i), "record"), "cpus");
    json_object_object_add(p, "bottleneck", cmp_bottleneck(c->runs, wl, threads, target, cpus, c->warnings));
    json_object_object_add(p, "server", cmp_point_server(c->runs, wl, threads, target)); /* compare_evidence.c */
    return p;
}

static double pct_of(double logratio)
{
    return (exp(logratio) - 1) * 100;
}

/* "B is 12.3% faster than A (95% CI 7.0% to 17.1%)", "B has 15.8x the
 * throughput of A (...)" past 2x, and the like, with the test used.
 * adjusted: the Benjamini-Hochberg p-value over the comparison's verdicts
 * (< 0: not corrected, the regression gate). */
static void verdict_text(const struct cmp_shift *sh, const char *a, const char *b, int repeats_min, double adjusted,
                         int nverdicts, int sessions, int looks, char *buf, size_t len)
{
    double est = pct_of(sh->estimate), lo = pct_of(sh->low), hi = pct_of(sh->high);
    char test[120];
    if (sessions > 0)
        snprintf(test, sizeof test, "sessions as the unit, the spread of %d earlier sessions", sessions);
    else if (sh->paired)
        snprintf(test, sizeof test, "signed-rank test on %d interleaved pairs", sh->n);
    else if (looks > 0) /* --repeats=auto: the level holds over all the looks */
        snprintf(test, sizeof test, "Mann-Whitney test, sequential over %d looks", looks);
    else
        snprintf(test, sizeof test, "Mann-Whitney test");
    int significant = sh->significant && (adjusted < 0 || adjusted <= 1 - CONF);
    if (!sh->achievable) {
        snprintf(buf, len,
                 "no significant difference at %d and %d repeats (%s vs %s: %+.1f%%; so few repeats cannot show a difference at 95%%: use %d or more)",
                 sh->n, sh->m, b, a, est, repeats_min);
    } else if (!significant && sh->significant) {
        snprintf(buf, len,
                 "no significant difference after correction for %d verdicts (%s vs %s: %+.1f%%, 95%% CI %+.1f%% to %+.1f%%, "
                 "p = %.3g, adjusted %.3g; %s)",
                 nverdicts, b, a, est, lo, hi, sh->p_value, adjusted, test);
    } else if (!significant) {
        snprintf(buf, len, "no significant difference at %d and %d repeats (%s vs %s: %+.1f%%, 95%% CI %+.1f%% to %+.1f%%; %s)",
                 sh->n, sh->m, b, a, est, lo, hi, test);
    } else if (sh->estimate >= log(2)) {
        snprintf(buf, len, "%s has %.1fx the throughput of %s (95%% CI %.1fx to %.1fx; %s)", b, exp(sh->estimate), a,
                 exp(sh->low), exp(sh->high), test);
    } else if (sh->estimate <= -log(2)) {
        snprintf(buf, len, "%s has %.1fx the throughput of %s (95%% CI %.1fx to %.1fx; %s)", a, exp(-sh->estimate), b,
                 exp(-sh->high), exp(-sh->low), test);
    } else if (sh->estimate > 0) {
        snprintf(buf, len, "%s is %.1f%% faster than %s (95%% CI %.1f%% to %.1f%%; %s)", b, est, a, lo, hi, test);
    } else {
        /* slower: 1 - b/a, the interval's ends swap */
        snprintf(buf, len, "%s is %.1f%% slower than %s (95%% CI %.1f%% to %.1f%%; %s)", b, -est, a, -hi, -lo, test);
    }
}

/* Throughput of the runs of a and b at a point, paired by repeat: the
 * pairs into pa/pb; returns how many. */
static int point_pairs(const struct ctx *c, const char *wl, int threads, const char *a, const char *b, double *pa,
                       double *pb)
{
    int n = 0;
    for (size_t i = 0; i < sb_json_len(c->runs); i++) {
        json_object *r = sb_json_elem(c->runs, i);
        if (strcmp(sb_json_str(r, "workload"), wl) || sb_json_int(r, "threads") != threads ||
            strcmp(sb_json_str(r, "target"), a))
            continue;
        for (size_t j = 0; j < sb_json_len(c->runs) && n < CMP_MAX_REPEATS; j++) {
            json_object *q = sb_json_elem(c->runs, j);
            if (!strcmp(sb_json_str(q, "workload"), wl) && sb_json_int(q, "threads") == threads &&
                !strcmp(sb_json_str(q, "target"), b) && sb_json_int(q, "repeat") == sb_json_int(r, "repeat")) {
                pa[n] = sb_json_num(sb_json_member(r, "final"), "tps");
                pb[n++] = sb_json_num(sb_json_member(q, "final"), "tps");
                break;
            }
        }
    }
    return n;
}

/* A verdict before the correction: its JSON (no text yet) and its test. */
struct pending {
    json_object *o;
    struct cmp_shift sh;
    const char *a, *b;
    int sessions;               /* saved target: earlier sessions used, -1: cannot tell */
    int looks;                  /* --repeats=auto: the looks of the sequence, else 0 */
    char why[500];              /* and why */
};

/* The runs of target k at a point: their throughput and report files
 * (a saved target's in its own results directory). */
static void point_runs(const struct ctx *c, const char *wl, int threads, int k, struct cmp_point_runs *out)
{
    const struct cmp_target *t = &c->s->targets[k];
    out->n = point_tps(c, wl, threads, t->name, out->tps);
    int n = 0;
    for (size_t i = 0; i < sb_json_len(c->runs) && n < out->n; i++) {
        json_object *r = sb_json_elem(c->runs, i);
        if (strcmp(sb_json_str(r, "workload"), wl) == 0 && sb_json_int(r, "threads") == threads &&
            strcmp(sb_json_str(r, "target"), t->name) == 0 &&
            asprintf(&out->paths[n], "%s/runs/%s.json", t->from_dir ? t->from_dir : c->dir,
                     sb_json_str(r, "id")) >= 0)
            n++;
    }
    out->n = n;
}

static void point_runs_free(struct cmp_point_runs *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->paths[i]);
}

/* b against a at a point (rc 0, or -1: no runs): with a saved target,
 * the session as the unit (compare_saved.c; *sessions the earlier
 * sessions it used, or -1 and why when it cannot tell); else the
 * signed-rank test on pairs when both ran interleaved here and there are
 * CMP_MIN_PAIRS pairs, else Mann-Whitney (*sessions 0). */
static int pair_shift(const struct ctx *c, const char *wl, int threads, int ka, int kb, struct cmp_shift *sh,
                      int *pairs, int *sessions, int *runs, char *why, size_t whylen)
{
    struct cmp_point_runs ra = {0}, rb = {0};
    point_runs(c, wl, threads, ka, &ra);
    point_runs(c, wl, threads, kb, &rb);
    int rc = -1;
    *pairs = *sessions = 0;
    if (ra.n > 0 && rb.n > 0 && (c->s->targets[ka].from_dir || c->s->targets[kb].from_dir)) {
        struct hs_session_shift ss;
        rc = cmp_saved_shift(c->s, ka, kb, &ra, &rb, sh, &ss, why, whylen);
        *sessions = ss.achievable ? ss.sessions : -1;
    } else if (ra.n > 0 && rb.n > 0) {
        double pa[CMP_MAX_REPEATS], pb[CMP_MAX_REPEATS];
        *pairs = point_pairs(c, wl, threads, c->s->targets[ka].name, c->s->targets[kb].name, pa, pb);
        if (c->s->repeats_auto) /* the stopping rule's own test, its level over the looks */
            rc = cmp_seq_look(ra.tps, ra.n, rb.tps, rb.n, c->s->repeats, c->s->auto_width, sh) < 0 ? -1 : 0;
        else
            rc = *pairs >= CMP_MIN_PAIRS ? cmp_compare_paired(pa, pb, *pairs, CONF, sh)
                                         : cmp_compare(ra.tps, ra.n, rb.tps, rb.n, CONF, sh);
    }
    runs[0] = ra.n;
    runs[1] = rb.n;
    point_runs_free(&ra);
    point_runs_free(&rb);
    return rc;
}

static int verdict(const struct ctx *c, const char *wl, int threads, int ka, int kb, struct pending *out)
{
    const char *a = c->s->targets[ka].name, *b = c->s->targets[kb].name;
    struct cmp_shift sh;
    int pairs, sessions, runs[2];
    *out = (struct pending){.a = a, .b = b};
    if (pair_shift(c, wl, threads, ka, kb, &sh, &pairs, &sessions, runs, out->why, sizeof out->why) != 0)
        return -1;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "workload", json_object_new_string(wl));
    json_object_object_add(o, "threads", json_object_new_int(threads));
    json_object_object_add(o, "a", json_object_new_string(a));
    json_object_object_add(o, "b", json_object_new_string(b));
    json_object_object_add(o, "n_a", json_object_new_int(runs[0]));
    json_object_object_add(o, "n_b", json_object_new_int(runs[1]));
    json_object_object_add(o, "test", json_object_new_string(sessions ? "sessions" : sh.paired ? "signed-rank"
                                                                                              : "mann-whitney"));
    json_object_object_add(o, "pairs", json_object_new_int(pairs));
    if (sessions)
        json_object_object_add(o, "sessions", json_object_new_int(sessions > 0 ? sessions : 0));
    if (sessions < 0)
        json_object_object_add(o, "why", json_object_new_string(out->why));
    json_object_object_add(o, "change_pct", cmp_real(pct_of(sh.estimate)));
    json_object_object_add(o, "ratio", cmp_real(exp(sh.estimate)));
    json_object_object_add(o, "low_pct", cmp_real(pct_of(sh.low)));
    json_object_object_add(o, "high_pct", cmp_real(pct_of(sh.high)));
    json_object_object_add(o, "level", cmp_real(sh.level));
    json_object_object_add(o, "p_value", cmp_real(sh.p_value));
    json_object_object_add(o, "achievable", json_object_new_boolean(sh.achievable));
    if (c->s->repeats_auto && !sessions) {
        out->looks = cmp_seq_looks(c->s->repeats);
        json_object_object_add(o, "looks", json_object_new_int(out->looks));
    }
    out->o = o;
    out->sh = sh;
    out->sessions = sessions;
    return 0;
}

/* The Benjamini-Hochberg correction over all verdicts v[0..n-1], then
 * each one's significance and text; the objects go into verdicts. */
static void settle_verdicts(struct pending *v, int n, json_object *verdicts)
{
    double *p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1)), *q = malloc(sizeof *q * (size_t)(n > 0 ? n : 1));
    for (int i = 0; p && q && i < n; i++)
        p[i] = v[i].sh.p_value;
    int ok = p && q && cmp_bh_adjust(p, n, q) == 0;
    for (int i = 0; i < n; i++) {
        double adj = ok ? q[i] : 1; /* out of memory: nothing called significant */
        char text[700];
        if (v[i].sessions < 0)
            snprintf(text, sizeof text, "cannot tell whether %s differs from %s (%+.1f%%): %s", v[i].b, v[i].a,
                     pct_of(v[i].sh.estimate), v[i].why);
        else
            verdict_text(&v[i].sh, v[i].a, v[i].b, cmp_min_repeats(CONF), adj, n, v[i].sessions, v[i].looks, text,
                         sizeof text);
        json_object_object_add(v[i].o, "p_adjusted", cmp_real(adj));
        json_object_object_add(v[i].o, "significant_unadjusted", json_object_new_boolean(v[i].sh.significant));
        json_object_object_add(v[i].o, "significant",
                               json_object_new_boolean(v[i].sh.significant && adj <= 1 - CONF));
        json_object_object_add(v[i].o, "text", json_object_new_string(text));
        json_object_array_add(verdicts, v[i].o);
    }
    free(p);
    free(q);
}

/* Peak and knee of one target's sweep (compare_knee.c). */
static json_object *sweep(const struct ctx *c, const char *wl, const char *target)
{
    double v[CMP_MAX_THREADS][CMP_MAX_REPEATS];
    struct cmp_sweep_point p[CMP_MAX_THREADS];
    int n = 0;
    for (int t = 0; t < c->s->nthreads; t++) {
        int m = point_tps(c, wl, c->s->threads[t], target, v[n]);
        if (m == 0)
            continue;
        p[n] = (struct cmp_sweep_point){c->s->threads[t], v[n], m, cmp_median(v[n], m)};
        n++;
    }
    return cmp_sweep(wl, target, p, n);
}

/* The warnings w (one per run) grouped: one per kind and point, with the
 * number of runs and their ids, its text the first run's with "(in N of
 * M runs)" when there are several.  A new array owned by the caller; w is
 * released. */
static json_object *group_warnings(const struct ctx *c, json_object *w)
{
    json_object *out = json_object_new_array();
    size_t n = sb_json_len(w);
    char *used = calloc(n ? n : 1, 1);
    for (size_t i = 0; used && i < n; i++) {
        if (used[i])
            continue;
        json_object *a = sb_json_elem(w, i), *runs = json_object_new_array();
        int count = 0;
        for (size_t j = i; j < n; j++) {
            json_object *b = sb_json_elem(w, j);
            if (used[j] || strcmp(sb_json_str(a, "kind"), sb_json_str(b, "kind")) ||
                strcmp(sb_json_str(a, "workload"), sb_json_str(b, "workload")) ||
                sb_json_int(a, "threads") != sb_json_int(b, "threads") ||
                strcmp(sb_json_str(a, "target"), sb_json_str(b, "target")))
                continue;
            used[j] = 1;
            count++;
            json_object_array_add(runs, json_object_get(sb_json_member(b, "run")));
        }
        json_object *g = json_object_new_object();
        json_object_object_foreach(a, key, v)
            if (strcmp(key, "text"))
                add_ref(g, key, v);
        double planned = 0;
        for (size_t k = 0; k < sb_json_len(c->runs); k++) {
            json_object *r = sb_json_elem(c->runs, k);
            planned += !strcmp(sb_json_str(r, "workload"), sb_json_str(a, "workload")) &&
                       sb_json_int(r, "threads") == sb_json_int(a, "threads") &&
                       !strcmp(sb_json_str(r, "target"), sb_json_str(a, "target"));
        }
        char text[900];
        if (count > 1)
            snprintf(text, sizeof text, "%s (in %d of %.0f runs)", sb_json_str(a, "text"), count, planned);
        else
            snprintf(text, sizeof text, "%s", sb_json_str(a, "text"));
        json_object_object_add(g, "text", json_object_new_string(text));
        json_object_object_add(g, "count", json_object_new_int(count));
        json_object_object_add(g, "runs", runs);
        json_object_array_add(out, g);
    }
    free(used);
    json_object_put(w);
    return out;
}

/* The regression gate: every target against the baseline; a target
 * fails when the whole 95% interval of its change lies below
 * -threshold. */
static json_object *gate(const struct ctx *c, const char *baseline, double threshold)
{
    json_object *g = json_object_new_object();
    if (threshold < 0) {
        json_object_object_add(g, "status", json_object_new_string("off"));
        return g;
    }
    const struct cmp_spec *s = c->s;
    int kbase = cmp_spec_target(s, baseline);
    json_object *fails = json_object_new_array();
    for (int w = 0; w < s->nworkloads; w++)
        for (int t = 0; t < s->nthreads; t++)
            for (int k = 0; k < s->ntargets; k++) {
                if (strcmp(s->targets[k].name, baseline) == 0)
                    continue;
                const char *wl = s->workloads[w].label;
                struct cmp_shift sh;
                int pairs, sessions = 0, runs[2];
                char why[500];
                double va[CMP_MAX_REPEATS], vb[CMP_MAX_REPEATS];
                int n = point_tps(c, wl, s->threads[t], baseline, va);
                int m = point_tps(c, wl, s->threads[t], s->targets[k].name, vb);
                /* each target's repeats unpaired; with a saved target, the
                 * session as the unit */
                if (n == 0 || m == 0 ||
                    (s->targets[kbase].from_dir || s->targets[k].from_dir
                         ? pair_shift(c, wl, s->threads[t], kbase, k, &sh, &pairs, &sessions, runs, why, sizeof why)
                         : s->repeats_auto ? (cmp_seq_look(va, n, vb, m, s->repeats, s->auto_width, &sh) < 0 ? -1 : 0)
                                           : cmp_compare(va, n, vb, m, CONF, &sh)) != 0)
                    continue;
                if (sh.achievable && pct_of(sh.high) < -threshold) {
                    char text[600];
                    verdict_text(&sh, baseline, s->targets[k].name, 0, -1, 0, sessions,
                                 s->repeats_auto ? cmp_seq_looks(s->repeats) : 0, text, sizeof text);
                    json_object *x = json_object_new_object();
                    json_object_object_add(x, "workload", json_object_new_string(wl));
                    json_object_object_add(x, "threads", json_object_new_int(s->threads[t]));
                    json_object_object_add(x, "target", json_object_new_string(s->targets[k].name));
                    json_object_object_add(x, "change_pct", cmp_real(pct_of(sh.estimate)));
                    json_object_object_add(x, "low_pct", cmp_real(pct_of(sh.low)));
                    json_object_object_add(x, "high_pct", cmp_real(pct_of(sh.high)));
                    json_object_object_add(x, "text", json_object_new_string(text));
                    json_object_array_add(fails, x);
                }
            }
    json_object_object_add(g, "status", json_object_new_string(sb_json_len(fails) ? "fail" : "pass"));
    json_object_object_add(g, "baseline", json_object_new_string(baseline));
    json_object_object_add(g, "threshold_pct", cmp_real(threshold));
    json_object_object_add(g, "regressions", fails);
    return g;
}

json_object *cmp_summary(const struct cmp_spec *s, const json_object *spec_json, const json_object *loaded,
                         const struct cmp_request *req, char *err, size_t errlen)
{
    struct ctx c = {.s = s, .runs = sb_json_member(loaded, "runs"),
                    .latency = sb_json_member(loaded, "latency"), .warnings = json_object_new_array(),
                    .dir = req->results};
    const char *baseline = req->baseline ? req->baseline : s->targets[0].name;
    if (cmp_spec_target(s, baseline) < 0) {
        snprintf(err, errlen, "unknown target '%s' for --baseline", baseline);
        json_object_put(c.warnings);
        return NULL;
    }
    json_object *runs = json_object_new_array(), *points = json_object_new_array();
    json_object *verdicts = json_object_new_array(), *sweeps = json_object_new_array();
    int npend = 0;
    struct pending *pend = malloc(sizeof *pend * (size_t)(s->nworkloads * s->nthreads * s->ntargets * s->ntargets + 1));
    for (size_t i = 0; i < sb_json_len(c.runs); i++)
        json_object_array_add(runs, run_entry(&c, sb_json_elem(c.runs, i)));
    int planned = cmp_rounds_planned(s, req->results); /* compare_rounds.c */
    for (int w = 0; w < s->nworkloads; w++) {
        const char *wl = s->workloads[w].label;
        for (int t = 0; t < s->nthreads; t++) {
            for (int k = 0; k < s->ntargets; k++) {
                json_object *p = point_entry(&c, wl, s->threads[t], s->targets[k].name);
                if (p)
                    json_object_array_add(points, p);
            }
            for (int a = 0; a < s->ntargets; a++)
                for (int b = a + 1; b < s->ntargets; b++)
                    if (pend && verdict(&c, wl, s->threads[t], a, b, &pend[npend]) == 0)
                        npend++;
        }
        for (int k = 0; k < s->ntargets; k++) {
            json_object *sw = sweep(&c, wl, s->targets[k].name);
            if (sw)
                json_object_array_add(sweeps, sw);
        }
    }
    settle_verdicts(pend, npend, verdicts);
    cmp_server_differences(verdicts, points);
    free(pend);
    int done = 0;
    for (size_t i = 0; i < sb_json_len(runs); i++)
        done += !s->targets[cmp_spec_target(s, sb_json_str(sb_json_elem(runs, i), "target"))].from_dir;
    char method[3200];
    snprintf(method, sizeof method,
             "Throughput per point: the median of the repeats, with the distribution-free confidence interval of "
             "the median (order statistics, binomial coverage; fewer than 6 repeats cannot reach 95%%, the level "
             "reached is given). Verdicts: with %d or more pairs of runs made side by side (interleaved targets), "
             "the exact two-sided Wilcoxon signed-rank test on the pairs' log ratio with the Hodges-Lehmann "
             "estimate (median of the Walsh averages) and its exact 95%% interval; with a saved target, the session as "
             "the unit (the two sessions' medians against the spread of earlier sessions of the saved runs' "
             "configuration in the run history, Student's t; fewer than 3 such sessions: cannot tell); otherwise "
             "the exact two-sided Mann-Whitney rank test on the repeats' throughput with the "
             "Hodges-Lehmann estimate of the ratio and its exact 95%% interval (Moses). Rank methods assume no "
             "shape for run-to-run noise; %d repeats per target are needed to show any difference. Multiple "
             "comparisons: the %d verdicts of this comparison are corrected together by Benjamini-Hochberg (a "
             "verdict is significant when its interval excludes 0 and its adjusted p-value is at most 0.05: at "
             "most 5%% of the differences claimed are false, on average; when no target differs, the chance of "
             "any false claim is at most 5%%); intervals are the per-verdict 95%% ones. Latency: the repeats' "
             "HdrHistogram logs added bucket by bucket. Knee: the first thread count past which no larger count "
             "gives a significant gain (the Mann-Whitney interval of the gain, count against count, lies above "
             "+5%%) and the intervals exclude a gain of 20%% or more; else no knee within the sweep's precision.",
             CMP_MIN_PAIRS, cmp_min_repeats(CONF), npend);
    if (s->repeats_auto) /* compare_seq.h */
        snprintf(method + strlen(method), sizeof method - strlen(method),
                 " Repeats until settled (--repeats=auto:%d): a point got no more runs once each of its differences "
                 "was significant or its interval narrower than %g%%; every verdict is the Mann-Whitney test at "
                 "1 - 0.05/%d per look (Bonferroni over its %d looks), its p-value multiplied by %d, so the chance "
                 "of a false call over all looks is at most 5%%.",
                 s->repeats, s->auto_width, cmp_seq_looks(s->repeats), cmp_seq_looks(s->repeats),
                 cmp_seq_looks(s->repeats));
    char now[40];
    sb_iso_now(now, sizeof now);
    json_object *sum = json_object_new_object();
    json_object_object_add(sum, "format", json_object_new_string("sbench-compare-summary/1"));
    json_object_object_add(sum, "title", json_object_new_string(s->title ? s->title : "sbench compare"));
    json_object_object_add(sum, "results_dir", json_object_new_string(req->results));
    json_object_object_add(sum, "generated", json_object_new_string(now));
    json_object_object_add(sum, "complete", json_object_new_boolean(done >= planned));
    json_object_object_add(sum, "runs_planned", json_object_new_int(planned));
    json_object_object_add(sum, "runs_done", json_object_new_int(done));
    json_object_object_add(sum, "confidence", cmp_real(CONF));
    json_object_object_add(sum, "method", json_object_new_string(method));
    add_ref(sum, "spec", (json_object *)spec_json);
    json_object_object_add(sum, "points", points);
    json_object_object_add(sum, "verdicts", verdicts);
    json_object_object_add(sum, "sweeps", sweeps);
    json_object *env = cmp_environment(s, c.runs, req->results, c.warnings);
    json_object_object_add(sum, "warnings", group_warnings(&c, c.warnings));
    json_object_object_add(sum, "regression", gate(&c, baseline, req->fail_slower));
    json_object_object_add(sum, "environment", env);
    json_object_object_add(sum, "runs", runs);
    return sum;
}
