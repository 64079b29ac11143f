/*
 * Merging per-thread statistics, differences of two snapshots (sbench's
 * and the server's own counters), and statement classification.
 */
#include "stats.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sbench/driver.h>

void sb_stats_snapshot(struct sb_thread_stats *const *threads, int n, struct sb_snapshot *out)
{
    double t = out->time;
    memset(out, 0, sizeof *out);
    out->time = t;
    for (int i = 0; i < n; i++) {
        const struct sb_thread_stats *s = threads[i];
        out->events += SB_GET(s->events);
        for (int k = 0; k < SB_Q_NKINDS; k++)
            out->queries[k] += SB_GET(s->queries[k]);
        out->ignored_errors += SB_GET(s->ignored_errors);
        out->reconnects += SB_GET(s->reconnects);
        out->failed_events += SB_GET(s->failed_events);
        out->busy_ns += sb_histogram_sum(s->latency); /* the events' latencies */
        uint64_t nc = SB_GET(s->connects);
        if (nc) {
            int64_t mn = SB_GET(s->connect_min_ns), mx = SB_GET(s->connect_max_ns);
            if (out->connects == 0 || mn < out->connect_min_ns)
                out->connect_min_ns = mn;
            if (mx > out->connect_max_ns)
                out->connect_max_ns = mx;
        }
        out->connects += nc;
        out->connect_ns += SB_GET(s->connect_ns);
        out->retried_events += SB_GET(s->retried_events);
        out->late_events += SB_GET(s->late_events);
        out->pipelined += SB_GET(s->pipelined);
        int ne = atomic_load_explicit(&s->nerrors, memory_order_acquire);
        for (int e = 0; e < ne; e++) {
            const struct sb_error_count *ec = &s->errors[e];
            int k;
            for (k = 0; k < out->nerrors; k++)
                if (strcmp(out->errors[k].sqlstate, ec->sqlstate) == 0 &&
                    out->errors[k].native_code == ec->native_code)
                    break;
            if (k == out->nerrors) {
                if (k >= (int)(sizeof out->errors / sizeof out->errors[0]))
                    continue;
                memcpy(out->errors[k].sqlstate, ec->sqlstate, 6);
                out->errors[k].native_code = ec->native_code;
                out->errors[k].status = ec->status;
                out->nerrors++;
            }
            out->errors[k].ignored += SB_GET(ec->ignored);
            out->errors[k].fatal += SB_GET(ec->fatal);
        }
        for (int ty = 0; ty < SB_MAX_TYPES; ty++) {
            out->type_count[ty] += SB_GET(s->types[ty].count);
            out->type_retries[ty] += SB_GET(s->types[ty].retries);
            out->type_failed[ty] += SB_GET(s->types[ty].failed);
            out->type_units[ty] += SB_GET(s->types[ty].units);
        }
    }
    out->ntypes = sb_event_type_count();
}

void sb_stats_record_type(struct sb_thread_stats *s, int ty, int64_t ns, uint64_t units)
{
    struct sb_type_stat *t = &s->types[ty];
    sb_histogram *h = atomic_load_explicit(&t->latency, memory_order_relaxed);
    if (h == NULL) {
        h = sb_histogram_create(1000, 3600LL * 1000000000LL, s->precision);
        if (h == NULL)
            return; /* out of memory: the type goes uncounted */
        atomic_store_explicit(&t->latency, h, memory_order_release);
    }
    sb_histogram_record(h, ns);
    SB_ADD(t->count, 1);
    SB_ADD(t->units, units);
}

void sb_stats_merge_type(struct sb_thread_stats *const *threads, int n, int ty, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++) {
        sb_histogram *h = atomic_load_explicit(&threads[i]->types[ty].latency, memory_order_acquire);
        if (h)
            sb_histogram_add(dst, h);
    }
}

void sb_stats_merge_latency(struct sb_thread_stats *const *threads, int n, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->latency);
}

int sb_classify_sql(const char *sql, size_t len)
{
    size_t i = 0;
    while (i < len && (isspace((unsigned char)sql[i]) || sql[i] == '('))
        i++;
    const char *w = sql + i;
    size_t n = 0;
    while (i + n < len && isalpha((unsigned char)w[n]))
        n++;
#define IS(word) (n == sizeof(word) - 1 && strncasecmp(w, word, n) == 0)
    if (IS("SELECT") || IS("WITH") || IS("SHOW") || IS("VALUES"))
        return SB_Q_SELECT;
    if (IS("INSERT") || IS("REPLACE") || IS("COPY"))
        return SB_Q_INSERT;
    if (IS("UPDATE"))
        return SB_Q_UPDATE;
    if (IS("DELETE"))
        return SB_Q_DELETE;
    if (IS("BEGIN") || IS("START"))
        return SB_Q_BEGIN;
    if (IS("COMMIT") || IS("END"))
        return SB_Q_COMMIT;
    if (IS("ROLLBACK"))
        return SB_Q_ROLLBACK;
#undef IS
    return SB_Q_OTHER;
}

int sb_sql_ends_txn(const char *sql, size_t len)
{
    int k = sb_classify_sql(sql, len);
    return k == SB_Q_COMMIT || k == SB_Q_ROLLBACK;
}

const char *const sb_qkind_names[SB_Q_NKINDS] = {"select", "insert", "update", "delete",
                                                 "begin",  "commit", "rollback", "other"};

void sb_stats_count_error(struct sb_thread_stats *s, const char *sqlstate, long native,
                          int status, int fatal)
{
    int n = atomic_load_explicit(&s->nerrors, memory_order_relaxed);
    const char *st = sqlstate ? sqlstate : "";
    for (int i = 0; i < n; i++) {
        struct sb_error_count *e = &s->errors[i];
        if (e->native_code == native && strncmp(e->sqlstate, st, 5) == 0) {
            if (fatal)
                SB_ADD(e->fatal, 1);
            else
                SB_ADD(e->ignored, 1);
            return;
        }
    }
    if (n >= SB_MAX_ERROR_KINDS)
        n = SB_MAX_ERROR_KINDS - 1; /* the last entry collects the rest */
    else {
        struct sb_error_count *e = &s->errors[n];
        snprintf(e->sqlstate, sizeof e->sqlstate, "%.5s", st);
        e->native_code = native;
        e->status = status;
        atomic_store_explicit(&s->nerrors, n + 1, memory_order_release);
    }
    if (fatal)
        SB_ADD(s->errors[n].fatal, 1);
    else
        SB_ADD(s->errors[n].ignored, 1);
}

int sb_stats_init(struct sb_thread_stats *s, double precision)
{
    const int64_t lo = SB_HIST_LOWEST_NS, hi = SB_HIST_HIGHEST_NS;
    s->precision = precision;
    s->latency = sb_histogram_create(lo, hi, precision);
    s->connect_latency = sb_histogram_create(lo, hi, precision);
    s->lag = sb_histogram_create(lo, hi, precision);
    int ok = s->latency && s->connect_latency && s->lag;
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        ok = (s->connect_phase[p] = sb_histogram_create(lo, hi, precision)) != NULL && ok;
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        s->kind_latency[k] = sb_histogram_create(lo, hi, precision);
        ok = ok && s->kind_latency[k];
    }
    return ok ? 0 : -1;
}

void sb_stats_free(struct sb_thread_stats *s)
{
    sb_histogram_destroy(s->latency);
    sb_histogram_destroy(s->connect_latency);
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        sb_histogram_destroy(s->connect_phase[p]);
    sb_histogram_destroy(s->lag);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(s->kind_latency[k]);
    int n = atomic_load_explicit(&s->nnamed, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        sb_histogram_destroy(s->named[i].latency);
    for (int ty = 0; ty < SB_MAX_TYPES; ty++)
        sb_histogram_destroy(atomic_load(&s->types[ty].latency));
}

int sb_stats_named_slot(struct sb_thread_stats *s, const char *name)
{
    int n = atomic_load_explicit(&s->nnamed, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        if (strncmp(s->named[i].name, name, sizeof s->named[i].name - 1) == 0)
            return i;
    if (n >= SB_MAX_NAMED)
        return -1;
    struct sb_named_stat *ns = &s->named[n];
    ns->latency = sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, s->precision);
    if (ns->latency == NULL)
        return -1;
    snprintf(ns->name, sizeof ns->name, "%s", name);
    atomic_store_explicit(&s->nnamed, n + 1, memory_order_release);
    return n;
}

void sb_stats_merge_kind(struct sb_thread_stats *const *threads, int n, int k, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->kind_latency[k]);
}

void sb_stats_merge_connect(struct sb_thread_stats *const *threads, int n, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->connect_latency);
}

void sb_stats_merge_connect_phase(struct sb_thread_stats *const *threads, int n, int p,
                                  sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->connect_phase[p]);
}

void sb_stats_merge_lag(struct sb_thread_stats *const *threads, int n, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->lag);
}

void sb_stats_note_connect(struct sb_thread_stats *s, int64_t ns)
{
    if (SB_GET(s->connects) == 0 || ns < SB_GET(s->connect_min_ns))
        atomic_store_explicit(&s->connect_min_ns, ns, memory_order_relaxed);
    if (ns > SB_GET(s->connect_max_ns))
        atomic_store_explicit(&s->connect_max_ns, ns, memory_order_relaxed);
    SB_ADD(s->connect_ns, ns);
    SB_ADD(s->connects, 1);
    sb_histogram_record(s->connect_latency, ns);
}

const char *const sb_conn_phase_names[SB_CONN_NPHASES] = {"tcp", "tls", "auth", "first_query"};

void sb_stats_note_connect_phases(struct sb_thread_stats *s, const int64_t ns[SB_CONN_NPHASES])
{
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        if (ns[p] > 0 || (ns[p] == 0 && p != SB_CONN_TLS))
            sb_histogram_record(s->connect_phase[p], ns[p]);
}

void sb_snapshot_diff(struct sb_snapshot *d, const struct sb_snapshot *a, const struct sb_snapshot *b)
{
    *d = *a; /* connection counts stay cumulative */
    /* errors by kind: what happened in the window */
    for (int i = 0; i < d->nerrors; i++)
        for (int k = 0; k < b->nerrors; k++)
            if (b->errors[k].native_code == d->errors[i].native_code &&
                strcmp(b->errors[k].sqlstate, d->errors[i].sqlstate) == 0) {
                d->errors[i].ignored -= b->errors[k].ignored;
                d->errors[i].fatal -= b->errors[k].fatal;
            }
    int kept = 0;
    for (int i = 0; i < d->nerrors; i++)
        if (d->errors[i].ignored || d->errors[i].fatal)
            d->errors[kept++] = d->errors[i];
    d->nerrors = kept;
    d->events -= b->events;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        d->queries[k] -= b->queries[k];
    d->ignored_errors -= b->ignored_errors;
    d->reconnects -= b->reconnects;
    d->failed_events -= b->failed_events;
    d->retried_events -= b->retried_events;
    d->late_events -= b->late_events;
    d->pipelined -= b->pipelined;
    d->busy_ns -= b->busy_ns;
    for (int ty = 0; ty < SB_MAX_TYPES; ty++) {
        d->type_count[ty] -= b->type_count[ty];
        d->type_retries[ty] -= b->type_retries[ty];
        d->type_failed[ty] -= b->type_failed[ty];
        d->type_units[ty] -= b->type_units[ty];
    }
}

/* one line per member below: a member added to the struct needs its line */
_Static_assert(sizeof(struct sbd_server_counters) == 7 * sizeof(int64_t),
               "struct sbd_server_counters changed: update sb_server_counters_diff");

const char *const sb_server_counter_names[SB_SERVER_COUNTERS] = {
    "commits", "rollbacks", "selects", "inserts", "updates", "deletes", "statements"};

int64_t *sb_server_counter_at(struct sbd_server_counters *c, int i)
{
    switch (i) {
    case 0: return &c->commits;
    case 1: return &c->rollbacks;
    case 2: return &c->selects;
    case 3: return &c->inserts;
    case 4: return &c->updates;
    case 5: return &c->deletes;
    default: return &c->statements;
    }
}

/* a - b, or -1 when either is unknown (-1) or when the counter went down
 * (the server reset it: the difference is unknown, counted in *down) */
static int64_t counter_diff(int64_t a, int64_t b, int *down)
{
    if (a < 0 || b < 0)
        return -1;
    if (a < b) {
        ++*down;
        return -1;
    }
    return a - b;
}

int sb_server_counters_diff(struct sbd_server_counters *d, const struct sbd_server_counters *a,
                            const struct sbd_server_counters *b)
{
    int down = 0;
    d->commits = counter_diff(a->commits, b->commits, &down);
    d->rollbacks = counter_diff(a->rollbacks, b->rollbacks, &down);
    d->selects = counter_diff(a->selects, b->selects, &down);
    d->inserts = counter_diff(a->inserts, b->inserts, &down);
    d->updates = counter_diff(a->updates, b->updates, &down);
    d->deletes = counter_diff(a->deletes, b->deletes, &down);
    d->statements = counter_diff(a->statements, b->statements, &down);
    return down;
}
