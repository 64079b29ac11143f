/*
 * history_changes_view.c: the change points of a trend, printed (`sbench
 * history trend`, and `gate` before its verdict; docs/history.md, "Change
 * points and the gate").  The trend's runs are grouped into sessions (a
 * compare invocation's repeats are one session, a plain run is its own),
 * each session one value, the median throughput of its runs; runs taken
 * on a saturated machine (the 1-minute load per CPU at or above
 * --saturated-load as the run ended) are set aside and named.  The
 * statistics are history_stats.h's; what changed at a change point is
 * diff's (history_show.c), between the last run before it and the first
 * run after it.
 */
#include "history_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_stats.h"
#include "../lib/options.h"

/* The sessions of a series: each one's median tps and its first run. */
struct sessions {
    double tps[HS_MAX_SESSIONS];
    const struct sb_hist_run *first[HS_MAX_SESSIONS], *last[HS_MAX_SESSIONS];
    int n, runs;
};

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The load per CPU at or above which a run is set aside (0: never). */
static double saturated_load(const struct hist_cmd *c)
{
    const char *s = sb_opt_str(c->o, "saturated-load");
    if (s == NULL || strcmp(s, "off") == 0)
        return 0;
    return atof(s);
}

/* The runs of one session starting at run i (not yet used) into v. */
static int session_runs(const struct sb_hist_runs *runs, size_t i, char *used, double limit, double *v,
                        const struct sb_hist_run **last)
{
    int n = 0;
    for (size_t j = i; j < runs->n; j++) {
        const struct sb_hist_run *r = &runs->v[j];
        if (used[j] || strcmp(r->session, runs->v[i].session) != 0)
            continue;
        used[j] = 1;
        if (limit > 0 && isfinite(r->host_load) && r->host_load >= limit)
            continue;
        if (isfinite(r->tps) && r->tps > 0)
            v[n++] = r->tps, *last = r;
    }
    return n;
}

/* Groups runs into sessions (the newest HS_MAX_SESSIONS) and names the
 * runs set aside on stdout.  Returns 0, or -1 when out of memory. */
static int group_sessions(const struct hist_cmd *c, const struct sb_hist_runs *runs, struct sessions *s)
{
    double limit = saturated_load(c);
    char *used = calloc(runs->n ? runs->n : 1, 1);
    double *v = malloc(sizeof *v * (runs->n ? runs->n : 1));
    int aside = 0;
    memset(s, 0, sizeof *s);
    for (size_t i = 0; used && v && i < runs->n; i++) {
        const struct sb_hist_run *r = &runs->v[i];
        if (limit > 0 && isfinite(r->host_load) && r->host_load >= limit)
            fprintf(c->out, "%s run %lld (load per CPU %.2f)", aside++ ? "," : "set aside, taken on a saturated "
                    "machine (1-minute load per CPU at or above --saturated-load):", (long long)r->id, r->host_load);
    }
    if (aside)
        fprintf(c->out, "\n");
    for (size_t i = 0; used && v && i < runs->n; i++) {
        if (used[i])
            continue;
        const struct sb_hist_run *last = NULL;
        int n = session_runs(runs, i, used, limit, v, &last);
        if (n == 0)
            continue;
        if (s->n == HS_MAX_SESSIONS) { /* keep the newest */
            memmove(s->tps, s->tps + 1, sizeof s->tps[0] * (HS_MAX_SESSIONS - 1));
            memmove(s->first, s->first + 1, sizeof s->first[0] * (HS_MAX_SESSIONS - 1));
            memmove(s->last, s->last + 1, sizeof s->last[0] * (HS_MAX_SESSIONS - 1));
            s->n--;
        }
        qsort(v, (size_t)n, sizeof *v, by_double);
        s->tps[s->n] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        s->first[s->n] = &runs->v[i];
        s->last[s->n++] = last;
        s->runs += n;
    }
    int ok = used && v;
    free(used);
    free(v);
    return ok ? 0 : -1;
}

static double pct(double logratio)
{
    return (exp(logratio) - 1) * 100;
}

/* One change point: where, the step, what changed. */
static void print_change(FILE *f, const struct sessions *s, const struct hs_change *ch)
{
    const struct sb_hist_run *after = s->first[ch->at], *before = s->last[ch->at - 1];
    char when[32];
    hist_time_text(after->time, when, sizeof when);
    fprintf(f, "\nchange at run %lld (%s; session %d of %d, %s): %s%.1f%% (95%% CI %+.1f%% to %+.1f%%; "
            "%d sessions before, %d after; p = %.3f)\n", (long long)after->id, when, ch->at + 1, s->n,
            after->session, ch->estimate < 0 ? "" : "+", pct(ch->estimate), pct(ch->low), pct(ch->high),
            ch->at - ch->before_from, ch->after_to - ch->at, ch->p_value);
    fprintf(f, "what changed from run %lld to run %lld:\n", (long long)before->id, (long long)after->id);
    hist_diff_changes(f, before, after);
}

int hist_trend_changes(struct hist_cmd *c, const struct sb_hist_runs *runs, double fail_slower,
                       struct hs_gate_verdict *g, long long *gate_run)
{
    struct sessions *s = malloc(sizeof *s);
    struct hs_change ch[HS_MAX_CHANGES];
    int found = 0;
    if (s == NULL || group_sessions(c, runs, s) != 0 ||
        hs_change_points(s->tps, s->n, 0.05, ch, HS_MAX_CHANGES, &found) != 0 ||
        (g && hs_gate(s->tps, s->n, fail_slower, 0.05, g) != 0)) {
        fprintf(stderr, "sbench history: out of memory\n");
        free(s);
        return -1;
    }
    fprintf(c->out, "\nChange points (each session one value, the median tps of its runs; %d sessions of %d runs; "
            "5%% level, permutation test):%s\n", s->n, s->runs,
            found                          ? ""
            : s->n < 2 * HS_MIN_SEGMENT ? " too few sessions to find one (a change needs 2 on each side)"
                                           : " none");
    for (int i = 0; i < found; i++)
        print_change(c->out, s, &ch[i]);
    if (g && g->changes > 0)
        *gate_run = (long long)s->first[g->last.at]->id;
    free(s);
    return 0;
}
