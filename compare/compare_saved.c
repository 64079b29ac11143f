/*
 * compare_saved.c: a verdict that involves a saved target, the session
 * being the unit (docs/compare.md, "A saved target").  A saved target's
 * runs were taken in another session: the drift between two sessions
 * (another day's neighbours, page cache, CPU clock) is not in the spread of
 * either session's repeats, so taking them as interleaved repeats makes
 * differences out of drift.  The spread between sessions is read from the
 * run history instead (history/): the earlier sessions of the saved
 * runs' configuration (same workload and options digest, so same thread
 * count), each summarised by its median throughput, this comparison's own
 * session left out; history_session.c sets the difference against it.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../history/history_stats.h"
#include "compare_stats.h"
#include "../history/history.h"
#include "../results/readfile.h"

/* The history record of a run's JSON report at path: 0, or -1 with err. */
static int record_of(const char *path, struct sb_hist_run *r, char *err, size_t errlen)
{
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, errlen);
    if (buf == NULL)
        return -1;
    int rc = sb_hist_run_from_report(buf, len, "compare", "", NULL, 0, r, err, errlen);
    free(buf);
    return rc;
}

static int is_own(const struct sb_hist_run *r, char *const *own, int nown)
{
    for (int i = 0; i < nown; i++)
        if (own[i] && strcmp(own[i], r->run_id) == 0)
            return 1;
    return 0;
}

/* The median throughput of each session of runs (oldest first by their
 * first run) into past, leaving out sessions holding a run of own. */
static int session_medians(const struct sb_hist_runs *runs, char *const *own, int nown, double *past, int max)
{
    int k = 0;
    char *done = calloc(runs->n ? runs->n : 1, 1);
    double *v = malloc(sizeof *v * (runs->n ? runs->n : 1));
    for (size_t i = 0; done && v && i < runs->n; i++) {
        if (done[i])
            continue;
        int n = 0, mine = 0;
        for (size_t j = i; j < runs->n; j++) {
            if (done[j] || strcmp(runs->v[j].session, runs->v[i].session))
                continue;
            done[j] = 1;
            mine |= is_own(&runs->v[j], own, nown);
            if (runs->v[j].tps > 0)
                v[n++] = runs->v[j].tps;
        }
        if (!mine && n > 0) {
            if (k == max) /* keep the newest */
                memmove(past, past + 1, sizeof *past * (size_t)--k);
            past[k++] = cmp_median(v, n);
        }
    }
    free(done);
    free(v);
    return k;
}

static int saved_history(const char *history, const char *saved_path, const char *const *own_paths, int nown,
                      double *past, int max, char *why, size_t whylen)
{
    struct sb_history *h = NULL;
    char err[400];
    int rc = sb_history_open(history, &h, err, sizeof err);
    if (rc != 0) {
        snprintf(why, whylen, "the runs were taken in two sessions, and the drift between sessions is unknown: %s",
                 rc == 1 ? "the run history is off" : err);
        return -1;
    }
    struct sb_hist_run saved;
    char *own[CMP_MAX_REPEATS] = {0};
    if (record_of(saved_path, &saved, err, sizeof err) != 0) {
        snprintf(why, whylen, "the saved run %.300s cannot be read for the history: %s", saved_path, err);
        sb_history_close(h);
        return -1;
    }
    for (int i = 0; i < nown && i < CMP_MAX_REPEATS; i++) {
        struct sb_hist_run r;
        if (record_of(own_paths[i], &r, err, sizeof err) == 0) {
            own[i] = strdup(r.run_id);
            sb_hist_run_free(&r);
        }
    }
    struct sb_hist_filter f = {.workload = saved.workload, .options_digest = saved.options_digest};
    struct sb_hist_runs runs = {0};
    int k = -1;
    if (sb_history_query(h, &f, &runs, err, sizeof err) != 0)
        snprintf(why, whylen, "the run history %s cannot be read: %s", sb_history_where(h), err);
    else
        k = session_medians(&runs, own, nown, past, max);
    sb_hist_runs_free(&runs);
    sb_hist_run_free(&saved);
    for (int i = 0; i < CMP_MAX_REPEATS; i++)
        free(own[i]);
    sb_history_close(h);
    return k;
}

/* The run history the comparison's runs write to: a --history= of the
 * target's or the comparison's options, else the default (history.h). */
static const char *history_spec(const struct cmp_spec *s, int k)
{
    const struct cmp_strv *lists[] = {&s->targets[k].opts, &s->opts};
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < lists[l]->n; i++)
            if (strncmp(lists[l]->v[i], "--history=", 10) == 0)
                return lists[l]->v[i] + 10;
    return NULL;
}

int cmp_saved_shift(const struct cmp_spec *s, int ka, int kb, const struct cmp_point_runs *a,
                    const struct cmp_point_runs *b, struct cmp_shift *sh, struct hs_session_shift *ss, char *why,
                    size_t whylen)
{
    memset(sh, 0, sizeof *sh);
    sh->n = a->n;
    sh->m = b->n;
    why[0] = 0;
    int a_saved = s->targets[ka].from_dir != NULL, b_saved = s->targets[kb].from_dir != NULL;
    const struct cmp_point_runs *saved = a_saved ? a : b, *own = a_saved ? b : a;
    int nown = a_saved && b_saved ? 0 : own->n;
    double past[HS_MAX_SESSIONS];
    int k = saved_history(history_spec(s, a_saved ? ka : kb), saved->paths[0], (const char *const *)own->paths,
                          nown, past, HS_MAX_SESSIONS, why, whylen);
    if (hs_session_compare(cmp_median(a->tps, a->n), cmp_median(b->tps, b->n), past, k < 0 ? 0 : k, ss,
                           k < 0 ? NULL : why, whylen) != 0)
        return -1;
    sh->estimate = ss->estimate;
    sh->low = ss->low;
    sh->high = ss->high;
    sh->level = ss->achievable ? 0.95 : 0;
    sh->p_value = ss->p_value;
    sh->achievable = ss->achievable;
    sh->significant = ss->significant;
    return 0;
}
