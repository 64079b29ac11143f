/*
 * history_stats_test.c: the statistics over sessions of `sbench history`
 * and of compare's saved target (compare/history_stats.h), on simulated
 * histories whose truth is set:
 *  - Student's t quantiles and p-values against published tables;
 *  - A/A histories (30 sessions, nothing changed; each session's runs
 *    share a session effect three times larger than the spread inside the
 *    session; normal, and heavy-tailed with neighbours slowing 10% of the
 *    sessions): the share of histories in which a change point is found,
 *    and the share that fail the gate, are at most the stated 5% (within
 *    3 standard errors of the simulation);
 *  - histories with a -15% capacity step at a known session: the change is
 *    found at that session, its interval covers the true step, and the
 *    gate fails;
 *  - a session against a saved session under the same session drift: the
 *    old way (the two sessions' runs as if interleaved, Mann-Whitney) says
 *    "different" far more often than 5% (the A/A 2 of 5); the
 *    session as the unit stays at 5%, and with too little history it
 *    cannot tell and says why.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../compare/compare_stats.h"
#include "../../history/history_stats.h"
#include "check.h"

/* splitmix64 and Box-Muller: reproducible, no libc rand */
static uint64_t rng_state = 20261207;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return (((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

#define REPEATS 3
#define WITHIN 0.01     /* spread of runs inside a session (log) */
#define BETWEEN 0.03    /* spread of sessions (log) */

/* One session of capacity `level` (log): its runs into runs[REPEATS]; the
 * median returned.  heavy: a neighbour slows 10% of the sessions by 20%. */
static double session(double level, int heavy, double *runs)
{
    double effect = BETWEEN * normal();
    if (heavy && uniform() < 0.1)
        effect += log(0.8);
    for (int r = 0; r < REPEATS; r++)
        runs[r] = 1000 * exp(level + effect + WITHIN * normal());
    return cmp_median(runs, REPEATS);
}

/* n sessions, the capacity falling by `step` (log) from session `at`. */
static void history(double *v, int n, int at, double step, int heavy)
{
    double runs[REPEATS];
    for (int i = 0; i < n; i++)
        v[i] = session(i >= at ? step : 0, heavy, runs);
}

static void test_t(void)
{
    /* two-sided 5% points of Student's t (any statistics table) */
    static const struct { int df; double t; } tab[] = {{1, 12.706}, {2, 4.303}, {4, 2.776}, {10, 2.228}, {30, 2.042}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        CHECK(fabs(hs_t975(tab[i].df) - tab[i].t) < 0.001, "t975(%d) = %.4f, table %.3f", tab[i].df,
              hs_t975(tab[i].df), tab[i].t);
        CHECK(fabs(hs_t_pvalue(tab[i].t, tab[i].df) - 0.05) < 0.0002, "p(t=%.3f, df=%d) = %.5f", tab[i].t,
              tab[i].df, hs_t_pvalue(tab[i].t, tab[i].df));
    }
    CHECK(fabs(hs_t_pvalue(1.0, 1) - 0.5) < 1e-9, "p(1, df 1) = %.6f (Cauchy: 0.5)", hs_t_pvalue(1.0, 1));
    CHECK(hs_t_pvalue(0, 5) > 0.999999, "p(0) = %.6f", hs_t_pvalue(0, 5));
}

/* A/A: no more change points or gate failures than alpha says. */
static void test_aa(int heavy)
{
    enum { HISTORIES = 2000, N = 30 };
    double v[N];
    int any = 0, fails = 0;
    for (int h = 0; h < HISTORIES; h++) {
        history(v, N, N, 0, heavy);
        struct hs_gate_verdict g;
        CHECK(hs_gate(v, N, 5, 0.05, &g) == 0, "gate");
        any += g.changes > 0;
        fails += g.fail;
    }
    double se = sqrt(0.05 * 0.95 / HISTORIES), rate = (double)any / HISTORIES;
    printf("A/A (%s noise, %d histories of %d sessions): a change point in %.2f%%, the gate failed in %.2f%% "
           "(stated: at most 5%%)\n", heavy ? "heavy-tailed" : "normal", HISTORIES, N, 100 * rate,
           100.0 * fails / HISTORIES);
    CHECK(rate <= 0.05 + 3 * se, "A/A change points in %.2f%% of histories", 100 * rate);
    /* heavy tails make the permutation distribution lumpy (an interval
     * holding just the slow sessions scores alike in many orderings), so
     * the test is then more cautious than 5%: no lower bound there */
    CHECK(heavy || rate >= 0.05 - 4 * se, "A/A change points in %.2f%%: the test is far more cautious than stated",
          100 * rate);
    CHECK((double)fails / HISTORIES <= 0.05 + 3 * se, "A/A gate failed in %.2f%%", 100.0 * fails / HISTORIES);
}

/* A -15% capacity step at session `at` of n. */
static void test_step(int n, int at, double min_found)
{
    enum { HISTORIES = 500 };
    double v[HS_MAX_SESSIONS], step = log(0.85);
    int right = 0, covered = 0, fails = 0, wrong_place = 0;
    for (int h = 0; h < HISTORIES; h++) {
        history(v, n, at, step, 0);
        struct hs_gate_verdict g;
        CHECK(hs_gate(v, n, 5, 0.05, &g) == 0, "gate");
        fails += g.fail;
        if (g.changes > 0 && g.last.at == at) {
            right++;
            covered += g.last.achievable && g.last.low <= step && step <= g.last.high;
        } else if (g.changes > 0)
            wrong_place++;
    }
    printf("-15%% step at session %d of %d: found there in %.1f%% (elsewhere %.1f%%), its 95%% interval covered "
           "the step in %.1f%% of those, gate failed in %.1f%%\n", at, n, 100.0 * right / HISTORIES,
           100.0 * wrong_place / HISTORIES, right ? 100.0 * covered / right : 0, 100.0 * fails / HISTORIES);
    CHECK(right >= min_found * HISTORIES, "step found at session %d in %d of %d", at, right, HISTORIES);
    CHECK(fails >= min_found * HISTORIES, "gate failed in %d of %d", fails, HISTORIES);
    CHECK(right == 0 || covered >= 0.9 * right, "interval covered the step in %d of %d", covered, right);
}

/* A -15% step then recovered: the newest sessions are not slower, the
 * gate passes though both changes are found. */
static void test_recovered(void)
{
    double v[30], runs[REPEATS];
    int passes = 0, two = 0;
    for (int h = 0; h < 200; h++) {
        for (int i = 0; i < 30; i++)
            v[i] = session(i >= 10 && i < 20 ? log(0.85) : 0, 0, runs);
        struct hs_gate_verdict g;
        hs_gate(v, 30, 5, 0.05, &g);
        passes += !g.fail;
        two += g.changes >= 2;
    }
    CHECK(passes >= 190, "recovered history passed the gate %d of 200", passes);
    CHECK(two >= 180, "both changes found in %d of 200", two);
}

/* A saved session against a new one, nothing changed. */
static void test_session_aa(void)
{
    enum { TRIES = 4000, PAST = 8 };
    double a[REPEATS], b[REPEATS], past[PAST];
    int naive = 0, unit = 0, naive_ok = 0;
    for (int i = 0; i < TRIES; i++) {
        for (int k = 0; k < PAST; k++)
            past[k] = session(0, 0, a);
        session(0, 0, a);
        session(0, 0, b);
        double a8[8], b8[8];
        for (int r = 0; r < 8; r++) { /* the naive way needs repeats enough to be achievable */
            a8[r] = a[r % REPEATS] * exp(WITHIN * normal());
            b8[r] = b[r % REPEATS] * exp(WITHIN * normal());
        }
        struct cmp_shift sh;
        if (cmp_compare(a8, 8, b8, 8, 0.95, &sh) == 0) {
            naive_ok++;
            naive += sh.significant;
        }
        struct hs_session_shift ss;
        CHECK(hs_session_compare(cmp_median(a, REPEATS), cmp_median(b, REPEATS), past, PAST, &ss, NULL, 0) == 0, "session compare");
        unit += ss.significant;
    }
    double se = sqrt(0.05 * 0.95 / TRIES);
    printf("saved session A/A (%d tries, %d earlier sessions): runs as interleaved repeats called a difference in "
           "%.1f%%, the session as the unit in %.2f%% (stated 5%%)\n", TRIES, PAST, 100.0 * naive / naive_ok,
           100.0 * unit / TRIES);
    CHECK((double)naive / naive_ok > 0.3, "the naive way should show the issue: %.1f%%", 100.0 * naive / naive_ok);
    CHECK((double)unit / TRIES <= 0.05 + 3 * se, "session unit A/A: %.2f%%", 100.0 * unit / TRIES);
    CHECK((double)unit / TRIES >= 0.05 - 4 * se, "session unit A/A: %.2f%%, far under 5%%", 100.0 * unit / TRIES);

    /* too little history: cannot tell, and why */
    char why[300];
    struct hs_session_shift ss;
    CHECK(hs_session_compare(cmp_median(a, REPEATS), cmp_median(b, REPEATS), past, 2, &ss, why, sizeof why) == 0, "2 sessions");
    CHECK(!ss.achievable && !ss.significant, "2 sessions: achievable %d", ss.achievable);
    CHECK(strstr(why, "2 earlier sessions of this configuration in the history, 3 needed") != NULL, "why: %s", why);

    /* a -15% session against a long history is found */
    int found = 0;
    for (int i = 0; i < 500; i++) {
        for (int k = 0; k < 20; k++)
            past[k % PAST] = session(0, 0, a);
        session(0, 0, a);
        session(log(0.85), 0, b);
        hs_session_compare(cmp_median(a, REPEATS), cmp_median(b, REPEATS), past, PAST, &ss, NULL, 0);
        found += ss.significant && ss.high < 0;
    }
    printf("saved session -15%%: found slower in %.1f%%\n", 100.0 * found / 500);
    CHECK(found >= 0.8 * 500, "-15%% against a saved session found in %d of 500", found);
}

static void test_bad_input(void)
{
    double v[3] = {1, -1, 2};
    struct hs_change c[4];
    int found;
    CHECK(hs_change_points(v, 3, 0.05, c, 4, &found) == -1, "negative throughput refused");
    CHECK(hs_change_points(v, HS_MAX_SESSIONS + 1, 0.05, c, 4, &found) == -1, "too many sessions refused");
    CHECK(hs_change_points(v, 1, 0.05, c, 4, &found) == 0 && found == 0, "one session: no change");
}

int main(void)
{
    test_t();
    PASS("Student's t against the tables");
    test_bad_input();
    PASS("bad input refused");
    test_aa(0);
    PASS("A/A, normal session drift: at most 5% false alarms");
    test_aa(1);
    PASS("A/A, heavy-tailed session drift: at most 5% false alarms");
    test_step(30, 20, 0.95);
    PASS("-15% step at session 20 of 30 found there");
    test_step(30, 27, 0.8);
    PASS("-15% step at session 27 of 30 found there");
    test_recovered();
    PASS("a step that came back passes the gate");
    test_session_aa();
    PASS("a session against a saved session");
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
