/*
 * merge_sum.c: the shards of one run added up (see merge_shard.h): counts
 * summed, histograms added bucket for bucket with their exact min, max and
 * sum, per-thread and per-client counts put side by side, and reporting
 * windows lined up on the wall clock: a window goes to the slot of the
 * run's grid (the earliest start of measuring + k * --report-interval)
 * nearest to its start.  With --start-at every shard's windows sit on that
 * grid; without it they may be up to half a window off (m->misaligned).
 */
#include "merge_shard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 10000000

/* *a += b; 1 when the sum would not fit (untrusted shards' counts). */
#define ADD_U64(a, b) (__builtin_add_overflow((a), (b), &(a)) ? 1 : 0)

/* a += b: every count and the errors by (SQLSTATE, native code).  0, or
 * -1 when a sum would overflow (the shards' counts cannot all be true). */
static int snap_add(struct sb_snapshot *a, const struct sb_snapshot *b)
{
    int over = ADD_U64(a->events, b->events);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        over |= ADD_U64(a->queries[k], b->queries[k]);
    over |= ADD_U64(a->ignored_errors, b->ignored_errors) | ADD_U64(a->reconnects, b->reconnects) |
            ADD_U64(a->failed_events, b->failed_events) | ADD_U64(a->busy_ns, b->busy_ns) |
            ADD_U64(a->connects, b->connects) | ADD_U64(a->connect_ns, b->connect_ns) |
            ADD_U64(a->retried_events, b->retried_events) | ADD_U64(a->late_events, b->late_events) |
            ADD_U64(a->pipelined, b->pipelined);
    int max = (int)(sizeof a->errors / sizeof a->errors[0]);
    for (int i = 0; i < b->nerrors; i++) {
        int j;
        for (j = 0; j < a->nerrors; j++)
            if (strcmp(a->errors[j].sqlstate, b->errors[i].sqlstate) == 0 &&
                a->errors[j].native_code == b->errors[i].native_code)
                break;
        if (j == a->nerrors) {
            if (j == max)
                continue;
            a->errors[j] = b->errors[i];
            a->errors[j].ignored = a->errors[j].fatal = 0;
            a->nerrors++;
        }
        over |= ADD_U64(a->errors[j].ignored, b->errors[i].ignored) |
                ADD_U64(a->errors[j].fatal, b->errors[i].fatal);
    }
    return over ? -1 : 0;
}

/* *dst += src, creating *dst (empty, precision p) first; -1 out of memory. */
static int hist_add(sb_histogram **dst, const sb_histogram *src, double p)
{
    if (src == NULL)
        return 0;
    if (*dst == NULL && (*dst = mg_hist_new(p)) == NULL)
        return -1;
    return sb_histogram_add(*dst, src);
}

int mg_slot(struct mg_run *m, double start, char *err, size_t errlen)
{
    double k = floor((start - m->t0) / m->interval + 0.5);
    if (!(k >= -1 && k < MAX_SLOTS)) {
        snprintf(err, errlen, "a window starts %.0f s away from the run's start", start - m->t0);
        return -1;
    }
    if (k < 0) /* half a window before the earliest start: the first slot */
        k = 0;
    double off = fabs(start - (m->t0 + k * m->interval));
    if (off > m->misaligned)
        m->misaligned = off;
    while (k >= m->nw) {
        if (m->nw == m->wcap) {
            int cap = m->wcap ? m->wcap * 2 : 64;
            struct mg_window *w = realloc(m->w, (size_t)cap * sizeof *w);
            if (!w)
                goto oom;
            m->w = w;
            m->wcap = cap;
        }
        struct mg_window *t = &m->w[m->nw];
        memset(t, 0, sizeof *t);
        t->start = INFINITY;
        t->end = -INFINITY;
        if ((t->lat = mg_hist_new(m->sh[0]->precision)) == NULL)
            goto oom;
        m->nw++;
    }
    return (int)k;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The shards' window counts into their slots (their latencies are there
 * already, from the logs). */
static int sum_windows(struct mg_run *m)
{
    for (int s = 0; s < m->nsh; s++)
        for (int i = 0; i < m->sh[s]->nw; i++) {
            const struct mg_window *w = &m->sh[s]->w[i];
            struct mg_window *t = &m->w[w->slot];
            if (snap_add(&t->d, &w->d) != 0)
                return -1;
            t->lat_sum_ns += w->lat_sum_ns;
            t->threads += w->threads;
            t->shards++;
            t->start = w->start < t->start ? w->start : t->start;
            t->end = w->end > t->end ? w->end : t->end;
            if (t->phase[0] == 0)
                memcpy(t->phase, w->phase, sizeof t->phase);
        }
    for (int k = 0; k < m->nw; k++) {
        struct mg_window *t = &m->w[k];
        if (t->shards == 0) { /* no shard reported here */
            t->start = m->t0 + k * m->interval;
            t->end = t->start + m->interval;
        }
        t->seconds = t->end - t->start;
        /* the window's exact sum; min and max stay the bounds of its
         * lowest and highest buckets, as in the run's own window lines */
        sb_histogram_set_summary(t->lat, sb_histogram_min(t->lat), sb_histogram_max(t->lat),
                                 t->lat_sum_ns);
    }
    return 0;
}

/* Statements the workloads named, merged by name. */
static int sum_named(struct mg_shard *t, const struct mg_shard *s, double p)
{
    for (int i = 0; i < s->nnamed; i++) {
        int m;
        for (m = 0; m < t->nnamed; m++)
            if (strcmp(t->named_name[m], s->named_name[i]) == 0)
                break;
        if (m == t->nnamed) {
            if (m == SB_MAX_NAMED)
                continue;
            memcpy(t->named_name[m], s->named_name[i], sizeof t->named_name[m]);
            t->nnamed++;
        }
        t->named_count[m] += s->named_count[i];
        if (hist_add(&t->named_lat[m], s->named_lat[i], p) != 0)
            return -1;
    }
    return 0;
}

/* Event types, merged by name in the order the shards (by index) first
 * name them: a type a shard did not have counts 0 there.  0, or -1 with
 * err set (more types than a run keeps, or out of memory). */
static int sum_types(struct mg_run *m, char *err, size_t errlen)
{
    struct mg_shard *t = &m->total;
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        for (int i = 0; i < x->ntypes; i++) {
            int ty;
            for (ty = 0; ty < t->ntypes; ty++)
                if (strcmp(t->type_name[ty], x->type_name[i]) == 0)
                    break;
            if (ty == SB_MAX_TYPES) {
                snprintf(err, errlen, "the shards have more than %d event types between them (%s of "
                         "shard %d is one too many)", SB_MAX_TYPES, x->type_name[i], x->index);
                return -1;
            }
            if (ty == t->ntypes)
                memcpy(t->type_name[t->ntypes++], x->type_name[i], sizeof t->type_name[0]);
            t->d.type_count[ty] += x->d.type_count[i];
            t->d.type_retries[ty] += x->d.type_retries[i];
            t->d.type_failed[ty] += x->d.type_failed[i];
            t->d.type_units[ty] += x->d.type_units[i];
            if (hist_add(&t->type_lat[ty], x->type_lat[i], t->precision) != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
    }
    t->d.ntypes = t->ntypes;
    return 0;
}

static int sum_final(struct mg_run *m)
{
    struct mg_shard *t = &m->total;
    double p = m->sh[0]->precision;
    long threads = 0, clients = 0;
    for (int s = 0; s < m->nsh; s++) {
        threads += m->sh[s]->threads;
        clients += m->sh[s]->nclients;
    }
    if (threads > 10000000 || clients > 10000000)
        return -1;
    t->threads = (int)threads;
    t->thread_events = calloc((size_t)threads, sizeof *t->thread_events);
    t->thread_busy_ns = calloc((size_t)threads, sizeof *t->thread_busy_ns);
    if (clients > 0)
        t->client_events = calloc((size_t)clients, sizeof *t->client_events);
    if (!t->thread_events || !t->thread_busy_ns || (clients > 0 && !t->client_events))
        return -1;
    t->precision = p;
    t->run = m->sh[0]->run;
    t->options = m->sh[0]->options;
    t->pipeline_depth = m->sh[0]->pipeline_depth;
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        if (snap_add(&t->d, &x->d) != 0)
            return -2;
        if (hist_add(&t->lat, x->lat, p) || hist_add(&t->connect, x->connect, p) ||
            hist_add(&t->lag, x->lag, p) || sum_named(t, x, p))
            return -1;
        for (int k = 0; k < SB_Q_NKINDS; k++)
            if (hist_add(&t->kind[k], x->kind[k], p))
                return -1;
        memcpy(t->thread_events + t->nw, x->thread_events, (size_t)x->threads * sizeof *x->thread_events);
        memcpy(t->thread_busy_ns + t->nw, x->thread_busy_ns, (size_t)x->threads * sizeof *x->thread_busy_ns);
        t->nw += x->threads; /* used as the fill mark here; no windows in the total */
        if (x->nclients > 0)
            memcpy(t->client_events + t->nclients, x->client_events,
                   (size_t)x->nclients * sizeof *x->client_events);
        t->nclients += x->nclients;
        t->unfinished += x->unfinished;
        if (x->index == 0 && x->server_valid) { /* read once, by shard 0 */
            t->server = x->server;
            t->server_reset = x->server_reset;
            t->server_valid = 1;
        }
        if (x->index == 0 && x->sampled.valid) /* sampled once, by shard 0 */
            t->sampled = x->sampled;
    }
    t->nw = 0;
    t->seconds = m->end - m->t0;
    return 0;
}

/* A profiled run's phases, lined up by their place in the profile: counts
 * and what each shard was asked added up, latencies added bucket for
 * bucket, start and end on the merged run's clock (the earliest start and
 * the latest end of the shards' parts of the phase).  0, -1 out of memory,
 * -2 a sum that overflows, -3 shards that do not agree (err set). */
static int sum_phases(struct mg_run *m, char *err, size_t errlen)
{
    struct mg_shard *t = &m->total;
    const struct mg_shard *first = m->sh[0];
    for (int s = 0; s < m->nsh; s++)
        if (m->sh[s]->has_phases != first->has_phases || m->sh[s]->phases.clients != first->phases.clients) {
            snprintf(err, errlen, "%s and %s: not the same kind of profile (phases)", first->json_path,
                     m->sh[s]->json_path);
            return -3;
        }
    if (!first->has_phases)
        return 0;
    t->has_phases = 1;
    t->phases.clients = first->phases.clients;
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        double shift = x->measure_start - m->t0;
        for (int i = 0; i < x->phases.n; i++) {
            const struct sb_phase_summary *p = &x->phases.s[i];
            struct sb_phase_summary *o = &t->phases.s[i];
            if (i >= t->phases.n) {
                memset(o, 0, sizeof *o);
                memcpy(o->name, p->name, sizeof o->name);
                o->start = INFINITY;
                o->end = -INFINITY;
                t->phases.n = i + 1;
            } else if (strcmp(o->name, p->name) != 0) {
                snprintf(err, errlen, "%s: phase %d is '%s', another shard's '%s'", x->json_path, i + 1, p->name,
                         o->name);
                return -3;
            }
            if (ADD_U64(o->events, p->events) | ADD_U64(o->failed, p->failed) |
                ADD_U64(o->ignored_errors, p->ignored_errors))
                return -2;
            o->asked += p->asked; /* each shard was asked its part */
            o->start = fmin(o->start, shift + p->start);
            o->end = fmax(o->end, shift + p->end);
            if (hist_add(&t->phase_lat[i], x->phase_lat[i], first->precision))
                return -1;
        }
    }
    for (int i = 0; i < t->phases.n; i++) {
        struct sb_phase_summary *o = &t->phases.s[i];
        const sb_histogram *h = t->phase_lat[i];
        o->tps = o->end > o->start ? (double)o->events / (o->end - o->start) : 0;
        o->lat = h;
        if (h && sb_histogram_count(h) > 0) {
            o->p50_ms = (double)sb_histogram_percentile(h, 50) / 1e6;
            o->p95_ms = (double)sb_histogram_percentile(h, 95) / 1e6;
            o->p99_ms = (double)sb_histogram_percentile(h, 99) / 1e6;
            o->max_ms = (double)sb_histogram_max(h) / 1e6;
        }
    }
    return 0;
}

void mg_begin(struct mg_run *m)
{
    m->t0 = INFINITY;
    m->end = -INFINITY;
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        if (x->measure_start < m->t0)
            m->t0 = x->measure_start;
        if (x->measure_start + x->seconds > m->end)
            m->end = x->measure_start + x->seconds;
    }
    m->interval = m->sh[0]->report_interval;
}

int mg_sum(struct mg_run *m, char *err, size_t errlen)
{
    const char *over = "the shards' counts add up to more than 2^64-1: they cannot all be true";
    if (m->interval > 0 && sum_windows(m) != 0) {
        snprintf(err, errlen, "%s (a window)", over);
        return -1;
    }
    int rc = sum_final(m);
    if (rc != 0) {
        snprintf(err, errlen, "%s", rc == -2 ? over : "out of memory");
        return -1;
    }
    if ((rc = sum_phases(m, err, errlen)) != 0) {
        if (rc != -3)
            snprintf(err, errlen, "%s", rc == -2 ? over : "out of memory");
        return -1;
    }
    return sum_types(m, err, errlen);
}

void mg_run_free(struct mg_run *m)
{
    for (int k = 0; k < m->nw; k++)
        sb_histogram_destroy(m->w[k].lat);
    free(m->w);
    m->total.run = NULL; /* borrowed from the first shard */
    mg_shard_free(&m->total);
    for (int s = 0; s < m->nsh; s++) {
        mg_shard_free(m->sh[s]);
        free(m->sh[s]);
    }
    free(m->sh);
    memset(m, 0, sizeof *m);
}
