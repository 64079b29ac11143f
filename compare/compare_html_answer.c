/*
 * compare_html_answer.c: the first screen of the HTML report, the answer
 * to "which is faster, by how much, how sure": per workload, a table of
 * the targets ranked at each thread count by their median throughput,
 * each one's ratio to the fastest with the ratio's interval (from the
 * verdict between the two: the exact rank test's Hodges-Lehmann interval,
 * at the level the verdicts use), whether the difference is significant
 * after the Benjamini-Hochberg correction, and beside it the caveat that
 * qualifies that point (client-bound, machine saturated).  Also the HTML
 * escaping the report's other parts share.  A pure function of the
 * summary (compare_summary.c).
 */
#include "compare.h"

#include "../lib/html.h"

#include <stdlib.h>
#include <string.h>

void cmp_html_esc(FILE *f, const char *s)
{
    sb_html_esc(f, s); /* lib/html.c, shared with history's report */
}

static const char *str(const json_object *o, const char *key)
{
    const char *s = sb_json_str(o, key);
    return s ? s : "";
}

struct ranked {
    const json_object *point;
    double tps;
};

static int by_tps_desc(const void *x, const void *y)
{
    double a = ((const struct ranked *)x)->tps, b = ((const struct ranked *)y)->tps;
    return (a < b) - (a > b);
}

/* The verdict between targets a and b at a point, in either order; *flip
 * is 1 when it is b against a's opposite (its ratio is a over b). */
static const json_object *verdict_of(const json_object *verdicts, const char *wl, long th, const char *a,
                                     const char *b, int *flip)
{
    for (size_t i = 0; i < sb_json_len(verdicts); i++) {
        const json_object *v = sb_json_elem(verdicts, i);
        if (strcmp(str(v, "workload"), wl) || sb_json_int(v, "threads") != th)
            continue;
        if (!strcmp(str(v, "a"), a) && !strcmp(str(v, "b"), b)) {
            *flip = 0;
            return v;
        }
        if (!strcmp(str(v, "a"), b) && !strcmp(str(v, "b"), a)) {
            *flip = 1;
            return v;
        }
    }
    return NULL;
}

/* The caveat of a point: what limited it, when that qualifies its
 * throughput (the client or the machine, not the server). */
static void caveat(FILE *f, const json_object *p)
{
    const json_object *b = sb_json_member(p, "bottleneck");
    const char *k = str(b, "verdict");
    fprintf(f, "<td class=\"caveat\" data-caveat=\"%s\">", k);
    if (!strcmp(k, "client-bound") || !strcmp(k, "machine saturated")) {
        fprintf(f, "<span class=\"warn\">%s</span> in %lld of %lld runs", k,
                (long long)sb_json_int(b, "runs_agreeing"), (long long)sb_json_int(b, "runs"));
    }
    fprintf(f, "</td>");
}

/* One row: target t (rank r) against the fastest f at the point. */
static void row(FILE *f, const json_object *verdicts, const char *wl, long th, int r, const struct ranked *t,
                const struct ranked *fastest, const struct ranked *second)
{
    const char *name = str(t->point, "target");
    fprintf(f, "<tr data-workload=\"%s\" data-threads=\"%ld\" data-target=\"%s\" data-rank=\"%d\">"
               "<td>%ld</td><td>%d</td><td>", wl, th, name, r, th, r);
    cmp_html_esc(f, name);
    fprintf(f, "</td><td data-value=\"%.17g\">%.1f</td>", t->tps, t->tps);
    const struct ranked *other = r == 1 ? second : fastest;
    int flip = 0;
    const json_object *v = other ? verdict_of(verdicts, wl, th, str(fastest->point, "target"),
                                              str(r == 1 ? other->point : t->point, "target"), &flip)
                                 : NULL;
    if (v == NULL) {
        fprintf(f, "<td>%s</td><td></td><td>%s</td>", r == 1 ? "fastest" : "-",
                other ? "no verdict (too few runs)" : "the only target");
        caveat(f, t->point);
        fprintf(f, "</tr>\n");
        return;
    }
    /* the ratio of the slower (t, or the second for the fastest's row) to
     * the fastest, and its interval */
    double est = sb_json_num(v, "ratio"), lo = 1 + sb_json_num(v, "low_pct") / 100;
    double hi = 1 + sb_json_num(v, "high_pct") / 100;
    if (flip) {
        double l2 = 1 / hi, h2 = 1 / lo;
        est = 1 / est, lo = l2, hi = h2;
    }
    int sig = sb_json_true(v, "significant"), enough = sb_json_true(v, "achievable");
    const char *test = sb_json_str(v, "test");
    const char *why = test && strcmp(test, "sessions") == 0 ? "cannot tell: too few earlier sessions in the history"
                                                            : "cannot tell: too few repeats";
    double level = sb_json_num(v, "level") * 100;
    if (r == 1) {
        fprintf(f, "<td>fastest</td><td></td><td class=\"%s\">%s</td>", sig ? "sig" : "nosig",
                sig ? "faster than every other target"
                    : enough ? "not significantly faster than the next" : why);
    } else {
        fprintf(f, "<td data-value=\"%.17g\">%.3fx</td><td data-low=\"%.17g\" data-high=\"%.17g\" "
                   "data-level=\"%.17g\">%.3fx to %.3fx (%.1f%%%s)</td><td class=\"%s\">%s</td>",
                est, est, lo, hi, level / 100, lo, hi, level, enough ? "" : "; too few repeats for 95%",
                sig ? "sig" : "nosig",
                sig ? (est < 1 ? "slower" : "faster") : enough ? "no significant difference" : why);
    }
    caveat(f, t->point);
    fprintf(f, "</tr>\n");
}

void cmp_html_answer(const json_object *sum, FILE *f)
{
    const json_object *spec = sb_json_member(sum, "spec");
    const json_object *workloads = sb_json_member(spec, "workloads"), *threads = sb_json_member(spec, "threads");
    const json_object *points = sb_json_member(sum, "points"), *verdicts = sb_json_member(sum, "verdicts");
    size_t np = sb_json_len(points);
    struct ranked *rk = malloc(sizeof *rk * (np ? np : 1));
    if (rk == NULL)
        return;
    fprintf(f, "<section id=\"answer\"><h2>Which is faster, by how much, how sure</h2>\n"
               "<p>At each thread count the targets are ranked by their median throughput (transactions per "
               "second over the repeats). Each ratio to the fastest comes with its 95%% confidence interval "
               "(exact rank test, Hodges-Lehmann; the level it reaches is in brackets: fewer repeats than "
               "the test needs cannot reach 95%%) and is called "
               "significant only after the Benjamini-Hochberg correction over all the comparison's verdicts. "
               "A caveat says when the client or the machine, not the server, limited the point.</p>\n");
    for (size_t w = 0; w < sb_json_len(workloads); w++) {
        const char *wl = str(sb_json_elem(workloads, w), "label");
        fprintf(f, "<h3>");
        cmp_html_esc(f, wl);
        fprintf(f, "</h3>\n<table class=\"answer\" data-workload=\"%s\"><tr><th>threads</th><th>rank</th>"
                   "<th>target</th><th>median tps</th><th>ratio to the fastest</th><th>its interval (level)</th>"
                   "<th>verdict</th><th>caveat</th></tr>\n", wl);
        for (size_t t = 0; t < sb_json_len(threads); t++) {
            long th = (long)sb_json_int_of(sb_json_elem(threads, t));
            int n = 0;
            for (size_t i = 0; i < np; i++) {
                const json_object *p = sb_json_elem(points, i);
                if (strcmp(str(p, "workload"), wl) || sb_json_int(p, "threads") != th)
                    continue;
                rk[n].point = p;
                rk[n++].tps = sb_json_num(sb_json_member(p, "tps"), "median");
            }
            qsort(rk, (size_t)n, sizeof *rk, by_tps_desc);
            for (int r = 0; r < n; r++)
                row(f, verdicts, wl, th, r + 1, &rk[r], &rk[0], n > 1 ? &rk[1] : NULL);
        }
        fprintf(f, "</table>\n");
    }
    fprintf(f, "</section>\n");
    free(rk);
}
