/*
 * The sampler of the server's evidence (server_sampler.h).  Its reads run
 * on the counters' connection, between the reporting thread's other work:
 * a failed read turns the sampler off for the rest of the run with one
 * line on stderr, and the run goes on.  Every read returns within the
 * drivers' SBD_SAMPLE_TIMEOUT_MS, so a silent server holds the reporting
 * thread at most that long once (the clients never wait for it).
 */
#include "server_sampler.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../lib/options.h"
#include "clock.h"
#include "db_int.h"
#include "host_stat.h"

#define WAIT_PERIOD_NS 100000000LL /* active-session samples: ~10 a second */

static void fill_unknown(struct sbd_server_sample *x)
{
    memset(x, 0xff, sizeof *x); /* every count -1 */
    x->struct_size = sizeof *x;
}

/* The server runs here: a Unix socket or a loopback name. */
static int server_is_local(struct sb_run *run)
{
    const char *dialect = run->drv->name;
    char opt[32];
    snprintf(opt, sizeof opt, "%s-host", dialect);
    const char *h = sb_opt_str(run->opts, opt);
    return h == NULL || h[0] == 0 || h[0] == '/' || strcmp(h, "localhost") == 0 ||
           strncmp(h, "127.", 4) == 0 || strcmp(h, "::1") == 0;
}

/* Times one of the sampler's statements into s->win. */
static void count_query(struct sb_sampler *s, int64_t t0)
{
    double ms = (double)(sb_now_ns() - t0) / 1e6;
    s->win.queries++;
    s->win.query_ms += ms;
    if (ms > s->win.query_ms_max)
        s->win.query_ms_max = ms;
}

/* A read that began at t0 failed: the sampler stops, one line says why (a
 * read that lasted its whole deadline timed out: the driver dropped the
 * connection, SBD_SAMPLE_TIMEOUT_MS). */
static void turn_off(struct sb_sampler *s, const char *what, int64_t t0)
{
    const struct sbd_error *e = s->run->drv->last_error(s->w->reader->dc);
    if (sb_now_ns() - t0 >= (int64_t)SBD_SAMPLE_TIMEOUT_MS * 1000000) {
        fprintf(stderr, "sbench: server metrics stop: %s timed out after %d s (the server did "
                "not answer; the run goes on without them)\n", what,
                SBD_SAMPLE_TIMEOUT_MS / 1000);
        snprintf(s->why, sizeof s->why, "stopped during the run: %s timed out after %d s", what,
                 SBD_SAMPLE_TIMEOUT_MS / 1000);
    } else {
        fprintf(stderr, "sbench: server metrics stop: %s failed: %.300s\n", what,
                e != NULL ? e->message : "");
        snprintf(s->why, sizeof s->why, "stopped during the run: %s failed", what);
    }
    s->on = 0;
}

static int read_sample(struct sb_sampler *s, struct sbd_server_sample *x)
{
    fill_unknown(x);
    int64_t t0 = sb_now_ns();
    int rc = s->run->drv->server_sample(s->w->reader->dc, x);
    count_query(s, t0);
    if (rc != SBD_OK)
        turn_off(s, "reading the server's counters", t0);
    return rc == SBD_OK;
}

void sb_sampler_start(struct sb_sampler *s, struct sb_run *run, struct sb_server_watch *w)
{
    /* not the published totals: the exporter's thread may read them */
    memset(s, 0, offsetof(struct sb_sampler, published));
    s->run = run;
    s->w = w;
    const struct sbd_driver *d = run->drv;
    if (!run->server_metrics)
        return;
    if (!(d->caps & SBD_CAP_SERVER_SAMPLE) || d->server_sample == NULL || d->server_waits == NULL) {
        snprintf(s->why, sizeof s->why, "the %s driver samples none of the server's metrics",
                 d->name);
        return;
    }
    if (!w->have || w->reader == NULL || w->reader->dc == NULL) {
        snprintf(s->why, sizeof s->why, "the server's counters are not read%s",
                 run->server_counters ? "" : " (--db-server-counters=off)");
        return;
    }
    s->on = s->started = 1;
    s->local = server_is_local(run);
    if (!read_sample(s, &s->last))
        return;
    s->last.commits = w->before.commits; /* the windows add up to after - before */
    s->last.rollbacks = w->before.rollbacks;
    if (s->last.wait_events_now == 0) /* said once: the waits are states only */
        fprintf(stderr, "sbench: server metrics: performance_schema is off on this server (or its "
                "events_waits_current consumer): the sessions' waits are sampled as PROCESSLIST "
                "states and InnoDB lock waits\n");
    if (s->local)
        sb_host_stat_read(&s->host_last);
    s->next_wait = sb_now_ns();
}

void sb_sampler_rebase(struct sb_sampler *s)
{
    struct sbd_server_sample now;
    if (!s->on || !read_sample(s, &now))
        return;
    s->last = now;
    if (s->local)
        sb_host_stat_read(&s->host_last);
    memset(&s->win, 0, sizeof s->win);
}

void sb_sampler_tick(struct sb_sampler *s, int64_t now)
{
    if (!s->on || now < s->next_wait)
        return;
    struct sbd_wait w[SB_SAMPLED_WAITS];
    int n = 0;
    int64_t t0 = sb_now_ns();
    int rc = s->run->drv->server_waits(s->w->reader->dc, w, SB_SAMPLED_WAITS, &n);
    count_query(s, t0);
    if (rc != SBD_OK) {
        turn_off(s, "an active-session sample", t0);
        return;
    }
    for (int i = 0; i < n; i++)
        sb_wait_tally_add(&s->win.waits, w[i].name, w[i].sessions);
    s->win.waits.samples++;
    while (s->next_wait <= now)
        s->next_wait += WAIT_PERIOD_NS;
}

/* out = b - a for the cumulative members (-1 where either is unknown),
 * b's for the levels of now. */
static void sample_diff(struct sbd_server_sample *out, const struct sbd_server_sample *b,
                        const struct sbd_server_sample *a)
{
    const int64_t *pb = &b->commits, *pa = &a->commits;
    int64_t *po = &out->commits;
    size_t n = (sizeof *out - offsetof(struct sbd_server_sample, commits)) / sizeof(int64_t);
    for (size_t i = 0; i < n; i++)
        po[i] = pb[i] < 0 || pa[i] < 0 ? -1 : pb[i] - pa[i];
    out->struct_size = sizeof *out;
    out->locks_waiting_now = b->locks_waiting_now;
    out->history_length_now = b->history_length_now;
    out->wait_events_now = b->wait_events_now;
}

/* Adds the differences of window w into the run's total t. */
static void add_total(struct sb_sampled *t, const struct sb_sampled *w)
{
    int64_t *pt = &t->d.commits;
    const int64_t *pw = &w->d.commits;
    size_t n = (sizeof t->d - offsetof(struct sbd_server_sample, commits)) / sizeof(int64_t);
    if (!t->valid)
        t->d = w->d;
    else
        for (size_t i = 0; i < n; i++)
            pt[i] = pt[i] < 0 || pw[i] < 0 ? -1 : pt[i] + pw[i];
    t->d.locks_waiting_now = w->d.locks_waiting_now;
    t->d.history_length_now = w->d.history_length_now;
    t->d.wait_events_now = w->d.wait_events_now;
    t->valid = 1;
    sb_wait_tally_merge(&t->waits, &w->waits);
    t->host.have = w->host.have;
    int64_t *ht = &t->host.user;
    const int64_t *hw = &w->host.user;
    for (int i = 0; i < 8; i++)
        ht[i] += hw[i];
    t->queries += w->queries;
    t->query_ms += w->query_ms;
    if (w->query_ms_max > t->query_ms_max)
        t->query_ms_max = w->query_ms_max;
}

/* The last read: until two reads agree on commits and statements (the
 * backends flush their statistics as they go idle), at most 10 reads. */
static int read_settled(struct sb_sampler *s, struct sbd_server_sample *x)
{
    struct sbd_server_sample prev;
    for (int tries = 0; tries < 10; tries++) {
        if (tries > 0)
            sb_sleep_ns(200000000LL);
        if (!read_sample(s, x))
            return 0;
        if (tries > 0 && x->commits == prev.commits && x->statements == prev.statements &&
            x->rows_written == prev.rows_written)
            break;
        prev = *x;
    }
    return 1;
}

const struct sb_sampled *sb_sampler_window(struct sb_sampler *s, int last, double from,
                                          double to)
{
    struct sbd_server_sample now;
    if (!s->on || !(last ? read_settled(s, &now) : read_sample(s, &now))) {
        /* stopped during the run: windows without evidence (empty CSV
         * fields), so that every window has the same columns */
        memset(&s->out, 0, sizeof s->out);
        return s->started ? &s->out : NULL;
    }
    sample_diff(&s->win.d, &now, &s->last);
    s->win.valid = 1;
    if (s->local) {
        struct sb_host_stat h;
        sb_host_stat_read(&h);
        sb_host_stat_diff(&s->win.host, &h, &s->host_last);
        s->host_last = h;
    }
    s->last = now;
    sb_wait_tally_sort(&s->win.waits);
    add_total(&s->total, &s->win);
    int nc = s->total.ncheckpoint_windows;
    if (s->win.d.checkpoints_req > 0 && nc < 4) {
        s->total.checkpoint_window[nc][0] = from;
        s->total.checkpoint_window[nc][1] = to;
        s->total.ncheckpoint_windows++;
    }
    s->out = s->win;
    memset(&s->win, 0, sizeof s->win);
    for (int i = 0; i < SB_SAMPLE_FIELDS; i++)
        atomic_store_explicit(&s->published[i], sb_sample_field(&s->total.d, i),
                              memory_order_relaxed);
    atomic_store_explicit(&s->published_valid, 1, memory_order_release);
    return &s->out;
}

const struct sb_sampled *sb_sampler_total(struct sb_sampler *s)
{
    if (!s->on || !s->total.valid) /* a part of the run is not the run's */
        return NULL;
    sb_wait_tally_sort(&s->total.waits);
    return &s->total;
}

void sb_sampler_prom(FILE *out, struct sb_sampler *s)
{
    if (!atomic_load_explicit(&s->published_valid, memory_order_acquire))
        return;
    for (int i = 0; i < SB_SAMPLE_FIELDS; i++) {
        int64_t v = atomic_load_explicit(&s->published[i], memory_order_relaxed);
        const char *name = sb_sample_field_names[i];
        size_t n = strlen(name);
        int level = n > 4 && strcmp(name + n - 4, "_now") == 0;
        if (v < 0)
            continue; /* the server does not tell */
        fprintf(out, "# HELP sbench_server_%.*s%s The server's %.*s %s (--server-metrics).\n",
                (int)(level ? n - 4 : n), name, level ? "" : "_total", (int)(level ? n - 4 : n),
                name, level ? "at the last window's end" : "since the run started, to the last "
                "window's end");
        fprintf(out, "# TYPE sbench_server_%.*s%s %s\n", (int)(level ? n - 4 : n), name,
                level ? "" : "_total", level ? "gauge" : "counter");
        fprintf(out, "sbench_server_%.*s%s %lld\n", (int)(level ? n - 4 : n), name,
                level ? "" : "_total", (long long)v);
    }
}
