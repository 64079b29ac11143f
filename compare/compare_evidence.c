/*
 * compare_evidence.c: the server's own evidence beside the client's in a
 * comparison (issue #43 item 5).  Per point (a target at a thread count),
 * what the point's runs sampled on the server (final.server_metrics of
 * their reports, --server-metrics): the cause most of them named, the top
 * waits of their sampled session time pooled over the runs, the buffer
 * hit ratio and the row lock waits per transaction.  Per verdict, one
 * sentence naming the difference between the two targets' evidence:
 * "mariadb waited on Lock:row lock wait 61% of its sampled session time,
 * postgresql on IO:WALWrite 38% (mariadb's runs named: ...; postgresql's:
 * ...)", so that a DBA reads why one was slower beside the verdict.
 */
#include "compare.h"

#include <stdio.h>
#include <string.h>

#include "../results/json_get.h"

#define TOP_WAITS 3
#define MAX_NAMES 64

/* Pooled waits of a point's runs: names and their sampled session counts. */
struct pool {
    char names[MAX_NAMES][64];
    double count[MAX_NAMES];
    int n;
    double sessions;                        /* session samples, all runs */
    double hit, read, lock_waits, commits;  /* -1: some run does not tell */
};

/* A string member, "" when missing (the results' files are read back). */
static const char *str(const json_object *o, const char *key)
{
    const char *s = sb_json_str(o, key);
    return s ? s : "";
}

static int same_point(const json_object *r, const char *wl, int threads, const char *target)
{
    return strcmp(str(r, "workload"), wl) == 0 && sb_json_int(r, "threads") == threads &&
           strcmp(str(r, "target"), target) == 0;
}

/* a += the member key of m, unless either is unknown (a < 0, or m's null) */
static void add_known(double *a, const json_object *m, const char *key)
{
    const json_object *v = sb_json_member(m, key);
    if (*a < 0 || v == NULL || json_object_get_type(v) == json_type_null)
        *a = -1;
    else
        *a += sb_json_num_of(v);
}

static void pool_run(struct pool *p, const json_object *m)
{
    const json_object *as = sb_json_member(m, "active_sessions"), *waits = sb_json_member(as, "waits");
    p->sessions += sb_json_num(as, "session_samples");
    for (size_t i = 0; i < sb_json_len(waits); i++) {
        const json_object *w = sb_json_elem(waits, i);
        const char *name = str(w, "name");
        int k = 0;
        while (k < p->n && strcmp(p->names[k], name) != 0)
            k++;
        if (k == p->n) {
            if (p->n == MAX_NAMES)
                continue;
            snprintf(p->names[p->n++], sizeof p->names[0], "%s", name);
        }
        p->count[k] += sb_json_num(w, "count");
    }
    add_known(&p->hit, m, "blks_hit");
    add_known(&p->read, m, "blks_read");
    add_known(&p->lock_waits, m, "lock_waits");
    add_known(&p->commits, m, "commits");
}

/* Whether two causes say the same but for their figures ("83%" and "80%
 * of sampled backend time in lock waits"): compared with every run of
 * digits and decimal points taken as one figure. */
int cmp_same_cause(const char *a, const char *b)
{
    for (;;) {
        int fa = *a >= '0' && *a <= '9', fb = *b >= '0' && *b <= '9';
        if (fa != fb)
            return 0;
        if (fa) {
            while ((*a >= '0' && *a <= '9') || *a == '.')
                a++;
            while ((*b >= '0' && *b <= '9') || *b == '.')
                b++;
            continue;
        }
        if (*a != *b)
            return 0;
        if (*a == 0)
            return 1;
        a++, b++;
    }
}

/* The cause most runs of the point named (figures aside: the first such
 * run's text), and in how many ("" when none). */
static const char *main_cause(const json_object *const *ms, int n, int *agree)
{
    const char *best = "";
    *agree = 0;
    for (int i = 0; i < n; i++) {
        const char *c = str(ms[i], "cause");
        int same = 0;
        for (int j = 0; c && c[0] && j < n; j++)
            same += cmp_same_cause(c, str(ms[j], "cause"));
        if (same > *agree) {
            best = c;
            *agree = same;
        }
    }
    return best;
}

json_object *cmp_point_server(const json_object *runs, const char *wl, int threads, const char *target)
{
    const json_object *ms[CMP_MAX_REPEATS];
    struct pool p = {0};
    int n = 0;
    for (size_t i = 0; i < sb_json_len(runs) && n < CMP_MAX_REPEATS; i++) {
        const json_object *r = sb_json_elem(runs, i);
        const json_object *m = sb_json_at(r, "final.server_metrics");
        if (!same_point(r, wl, threads, target) || !sb_json_true(m, "sampled"))
            continue;
        ms[n++] = m;
        pool_run(&p, m);
    }
    if (n == 0)
        return NULL;
    int agree;
    const char *cause = main_cause(ms, n, &agree);
    json_object *o = json_object_new_object(), *top = json_object_new_array();
    json_object_object_add(o, "runs", json_object_new_int(n));
    json_object_object_add(o, "cause", cmp_string(cause[0] ? cause : NULL));
    json_object_object_add(o, "cause_runs", json_object_new_int(agree));
    for (int t = 0; t < TOP_WAITS && p.sessions > 0; t++) {
        int best = -1;
        for (int k = 0; k < p.n; k++)
            if (p.count[k] > 0 && (best < 0 || p.count[k] > p.count[best]))
                best = k;
        if (best < 0)
            break;
        json_object *w = json_object_new_object();
        json_object_object_add(w, "name", json_object_new_string(p.names[best]));
        json_object_object_add(w, "share", cmp_real(p.count[best] / p.sessions));
        json_object_array_add(top, w);
        p.count[best] = -p.count[best]; /* taken */
    }
    json_object_object_add(o, "top_waits", top);
    int hit_known = p.hit >= 0 && p.read >= 0 && p.hit + p.read > 0;
    json_object_object_add(o, "hit_ratio", hit_known ? cmp_real(p.hit / (p.hit + p.read)) : NULL);
    int locks_known = p.lock_waits >= 0 && p.commits > 0;
    json_object_object_add(o, "row_lock_waits_per_txn", locks_known ? cmp_real(p.lock_waits / p.commits) : NULL);
    return o;
}

/* The point (wl, threads, target)'s server object among points, or NULL. */
static const json_object *point_server(const json_object *points, const char *wl, int threads, const char *target)
{
    for (size_t i = 0; i < sb_json_len(points); i++) {
        const json_object *p = sb_json_elem(points, i);
        if (same_point(p, wl, threads, target))
            return sb_json_member(p, "server");
    }
    return NULL;
}

/* "X waited on W 38% of its sampled session time": the first top wait that
 * is a wait (PostgreSQL's "CPU" is a session waiting on nothing). */
static void waited_on(const json_object *srv, const char *name, int first, char *buf, size_t len)
{
    const json_object *top = sb_json_member(srv, "top_waits");
    for (size_t i = 0; i < sb_json_len(top); i++) {
        const json_object *w = sb_json_elem(top, i);
        if (strcmp(str(w, "name"), "CPU") == 0)
            continue;
        snprintf(buf, len, "%s %s%s %.0f%%%s", name, first ? "waited on " : "on ", str(w, "name"),
                 sb_json_num(w, "share") * 100, first ? " of its sampled session time" : "");
        return;
    }
    snprintf(buf, len, "%s %s", name, first ? "was seen waiting on nothing" : "on nothing");
}

void cmp_server_differences(json_object *verdicts, const json_object *points)
{
    for (size_t i = 0; i < sb_json_len(verdicts); i++) {
        json_object *v = sb_json_elem(verdicts, i);
        const char *wl = str(v, "workload"), *a = str(v, "a"), *b = str(v, "b");
        int threads = (int)sb_json_int(v, "threads");
        const json_object *sa = point_server(points, wl, threads, a), *sb = point_server(points, wl, threads, b);
        if (sa == NULL || sb == NULL) {
            json_object_object_add(v, "server_difference", NULL);
            continue;
        }
        char wa[200], wb[200], text[1600];
        waited_on(sa, a, 1, wa, sizeof wa);
        waited_on(sb, b, 0, wb, sizeof wb);
        const char *ca = str(sa, "cause"), *cb = str(sb, "cause");
        snprintf(text, sizeof text, "%s, %s (%s's server named: %.300s; %s's: %.300s)", wa, wb, a,
                 ca[0] ? ca : "nothing", b, cb[0] ? cb : "nothing");
        json_object_object_add(v, "server_difference", json_object_new_string(text));
    }
}
