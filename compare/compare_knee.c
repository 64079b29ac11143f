/*
 * compare_knee.c: where a target stops scaling, read from the runs and not
 * from the medians alone.  A knee is named only where the data show it:
 * the first thread count k of the sweep such that no larger count gives a
 * significant gain over k (a gain whose 95% interval lies above +5%: the
 * exact Mann-Whitney test's Hodges-Lehmann interval of the ratio on the
 * repeats' throughput, compare_stats.c), and the intervals rule out a gain
 * of KNEE_PRECISION or more (the largest upper bound over the larger counts
 * is under it).  Otherwise the sweep
 * says "no knee within this sweep's precision" with the precision it has
 * (the gain the intervals still allow, or the repeats too few to show any
 * difference), or that it scales to its last count.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_stats.h"

#define CONF 0.95
/* a gain counts when its interval's lower end is above this; a knee needs
 * intervals that exclude a gain of KNEE_PRECISION (docs/compare.md) */
#define KNEE_GAIN 0.05
#define KNEE_PRECISION 0.20

static double pct_of(double logratio)
{
    return (exp(logratio) - 1) * 100;
}

/* How the counts past k compare with k. */
struct past {
    int gain;           /* index of a later count above k by more than KNEE_GAIN (95%), or -1 */
    int unachievable;   /* a comparison the repeats cannot decide */
    double high_pct;    /* largest upper bound of the gain, percent */
    int high_at;        /* the count it is at */
};

static struct past look_past(const struct cmp_sweep_point *p, int n, int k)
{
    struct past r = {.gain = -1, .high_pct = -INFINITY, .high_at = -1};
    for (int j = k + 1; j < n; j++) {
        struct cmp_shift sh;
        if (cmp_compare(p[k].tps, p[k].n, p[j].tps, p[j].n, CONF, &sh) != 0 || !sh.achievable) {
            r.unachievable = 1;
            continue;
        }
        if (pct_of(sh.low) > KNEE_GAIN * 100 && r.gain < 0)
            r.gain = j;
        if (pct_of(sh.high) > r.high_pct) {
            r.high_pct = pct_of(sh.high);
            r.high_at = j;
        }
    }
    return r;
}

static void sort_points(struct cmp_sweep_point *p, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && p[b - 1].threads > p[b].threads; b--) {
            struct cmp_sweep_point tmp = p[b];
            p[b] = p[b - 1];
            p[b - 1] = tmp;
        }
}

json_object *cmp_sweep(const char *wl, const char *target, struct cmp_sweep_point *p, int n)
{
    if (n < 2)
        return NULL;
    sort_points(p, n);
    int peak = 0;
    for (int k = 1; k < n; k++)
        if (p[k].median > p[peak].median)
            peak = k;
    json_object *o = json_object_new_object(), *pk = json_object_new_object();
    json_object_object_add(o, "workload", json_object_new_string(wl));
    json_object_object_add(o, "target", json_object_new_string(target));
    json_object_object_add(pk, "threads", json_object_new_int(p[peak].threads));
    json_object_object_add(pk, "tps", cmp_real(p[peak].median));
    json_object_object_add(o, "peak", pk);
    char text[500];
    json_object *knee = NULL, *precision = NULL;
    int k = 0;
    for (; k < n - 1; k++) {
        struct past r = look_past(p, n, k);
        if (r.gain >= 0)
            continue; /* more threads gave a significant gain: not the knee */
        if (r.unachievable) {
            snprintf(text, sizeof text,
                     "%s: no knee within this sweep's precision (past %d threads no gain is significant, but "
                     "%d repeats cannot show a difference at 95%%: use %d or more)",
                     target, p[k].threads, p[k].n, cmp_min_repeats(CONF));
        } else if (r.high_pct >= KNEE_PRECISION * 100) {
            snprintf(text, sizeof text,
                     "%s: no knee within this sweep's precision (past %d threads no gain is significant, but the "
                     "95%% intervals allow up to %+.1f%% at %d threads; a knee needs them under %+.0f%%)",
                     target, p[k].threads, r.high_pct, p[r.high_at].threads, KNEE_PRECISION * 100);
            precision = cmp_real(r.high_pct);
        } else {
            snprintf(text, sizeof text,
                     "%s stops scaling at %d threads: more threads (up to %d) add no significant throughput "
                     "(at most %+.1f%%, 95%% CI)",
                     target, p[k].threads, p[n - 1].threads, r.high_pct);
            knee = json_object_new_object();
            json_object_object_add(knee, "threads", json_object_new_int(p[k].threads));
            json_object_object_add(knee, "tps", cmp_real(p[k].median));
            json_object_object_add(knee, "gain_high_pct", cmp_real(r.high_pct));
            json_object_object_add(knee, "gain_high_at", json_object_new_int(p[r.high_at].threads));
            precision = cmp_real(r.high_pct);
        }
        break;
    }
    if (k == n - 1)
        snprintf(text, sizeof text,
                 "%s scales up to %d threads (each count below gains significantly from more threads; no knee "
                 "in the sweep; peak %.1f tps at %d)",
                 target, p[n - 1].threads, p[peak].median, p[peak].threads);
    json_object_object_add(o, "knee", knee);
    json_object_object_add(o, "precision_pct", precision);
    json_object_object_add(o, "text", json_object_new_string(text));
    return o;
}
