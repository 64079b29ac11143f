/*
 * history_stats.h: statistics over a history of sessions, pure
 * functions of arrays of numbers (no I/O, no store): where a series of
 * comparable sessions changed (change points for `sbench history trend`),
 * whether the newest sessions sit after a slowdown (`sbench history
 * gate`), and a session against a saved session, allowing for the drift
 * between sessions (compare's saved target).
 *
 * The unit is the session, not the run.  Runs taken in one sitting share
 * the machine's mood of that time (neighbours, the page cache, the CPU's
 * frequency, the server's checkpoints), so the spread of repeats inside a
 * session understates how much two sessions on different days differ.
 * Each session enters as one value (the median throughput of its runs);
 * the spread between sessions is then part of the data.
 *
 * Change points: binary segmentation, as E-divisive does (Apache Otava),
 * with the circular cut of Olshen et al. (2004), so that a dip that came
 * back is found too.  In a segment every cut (one change at k, or an
 * interval [i, j) against the rest; every piece at least HS_MIN_SEGMENT
 * sessions) is scored by the difference of the mean log throughput of its
 * two groups times sqrt(l (n - l) / n); the best cut is a change when its
 * score is reached by at most a fraction alpha of the best scores of
 * random orderings of the segment (HS_PERMUTATIONS of them, from a
 * fixed seed: the same history gives the same answer).  Then each piece
 * is searched the same way.  When nothing changed and the sessions are
 * exchangeable (their drift is random, not a trend), the chance that a
 * series shows any change point is at most alpha whatever the shape of the
 * noise (a permutation test); tests/unit/history_stats_test.c measures
 * it.  A slow trend (an ageing disk, a filling table) is a real change and
 * is found as one.
 *
 * The size of a step is the difference of the mean log throughput of the
 * pieces around the change (the sessions since the change before it, and
 * those until the next one) with Welch's 95% interval (Student's t with
 * the Welch-Satterthwaite degrees of freedom: the pieces' spreads may
 * differ).  The interval is computed after the cut was chosen from the
 * same data, so a step found at the edge of significance looks a little
 * larger than it is.
 */
#ifndef SB_HISTORY_STATS_H
#define SB_HISTORY_STATS_H

#include <stddef.h>

/* Most sessions one analysis reads (the newest ones of a longer trend). */
#define HS_MAX_SESSIONS 200
/* Fewest sessions on each side of a change point. */
#define HS_MIN_SEGMENT 2
/* Random orderings per permutation test. */
#define HS_PERMUTATIONS 999
/* Most change points reported per series. */
#define HS_MAX_CHANGES 16

struct hs_change {
    int at;                 /* index of the first session after the change */
    double p_value;         /* of the permutation test that found it */
    double estimate;        /* log(after / before): the difference of mean logs */
    double low, high;       /* its 95% interval (log ratio) */
    double level;           /* 0.95 */
    int achievable;         /* 0: a piece of one session (no spread known) */
    int before_from;        /* sessions [before_from, at) against */
    int after_to;           /* sessions [at, after_to) */
};

/*
 * Change points of v[0..n-1] (each session's throughput, > 0, oldest
 * first) at level alpha (0.05): into out[0..max-1], in the order of the
 * series; *found is their number.  Returns 0, or -1 when n is out of
 * 0..HS_MAX_SESSIONS, a value is not positive, or out of memory.
 */
int hs_change_points(const double *v, int n, double alpha, struct hs_change *out, int max, int *found);

/* The verdict of the gate on a series. */
struct hs_gate_verdict {
    int fail;               /* 1: the newest sessions sit after a slowdown past the threshold */
    int changes;            /* change points found */
    struct hs_change last;  /* the newest change point (valid when changes > 0) */
};

/*
 * The gate: v[0..n-1] as hs_change_points; the newest change point is a
 * slowdown whose whole 95% interval lies below -fail_slower_pct percent.
 * When nothing changed, the gate fails in at most a fraction alpha of
 * histories.  Returns 0, or -1 as hs_change_points.
 */
int hs_gate(const double *v, int n, double fail_slower_pct, double alpha, struct hs_gate_verdict *out);

/*
 * A session against a saved session, the session being the unit: a and b
 * the median throughput of the saved session's runs and of this one's,
 * past[0..k-1] the medians of earlier sessions of the same configuration
 * (the history).  The difference of the two sessions in log is set
 * against the spread of log session medians in the history: estimate =
 * log(b / a), interval estimate +- t(0.975, k-1) * s * sqrt(2), s the
 * standard deviation of the history's log medians (two sessions each
 * drawn with that spread).  This assumes the session effects are roughly
 * normal on the log scale (with k of them no rank method can reach 95%: it
 * needs 39 sessions).  With fewer than HS_MIN_HISTORY sessions in the
 * history it cannot tell: achievable = 0 and why (when not NULL) says so.
 * Returns 0, or -1 on a bad argument.
 */
#define HS_MIN_HISTORY 3
struct hs_session_shift {
    double estimate, low, high;     /* log ratio b/a and its 95% interval */
    double between_sd;              /* s, log scale */
    double p_value;                 /* two-sided, of the t statistic */
    int sessions;                   /* k */
    int achievable, significant;
};
int hs_session_compare(double a, double b, const double *past, int k, struct hs_session_shift *out, char *why,
                       size_t whylen);

/* Two-sided 97.5% quantile of Student's t with df degrees of freedom, and
 * the two-sided p-value of |t| (df >= 1). */
double hs_t975(int df);
double hs_t_pvalue(double t, int df);

#endif
