/*
 * Per-phase summaries of a profiled run (report_phases.h): a tally taken
 * when each phase ends, less the one taken when it began.
 */
#include "report_phases.h"

#include <stdlib.h>

#include "report_fill.h"
#include "tally.h"

struct sb_phases {
    const struct sb_run *run;
    const struct sb_rate_profile *prof;
    int started;
    int next;               /* the phase being measured */
    int64_t from;           /* when its measured part began (ns) */
    struct sb_tally *mark, *cur, *diff;
    sb_histogram *lat[SB_RATE_PROFILE_MAX_PHASES]; /* each closed phase's latencies,
                                                      for a shard's merge_data */
    struct sb_phase_report rep;
};

struct sb_phases *sb_phases_create(const struct sb_run *run, const sb_histogram *tmpl, int nthreads,
                                   int nclients, int *oom)
{
    *oom = 0;
    const struct sb_rate_profile *prof = run->rate_profile ? run->rate_profile : run->clients_profile;
    if (prof == NULL)
        return NULL;
    struct sb_phases *p = calloc(1, sizeof *p);
    if (p) {
        p->run = run;
        p->prof = prof;
        p->rep.clients = run->rate_profile == NULL;
        p->mark = sb_tally_create(tmpl, nthreads, nclients);
        p->cur = sb_tally_create(tmpl, nthreads, nclients);
        p->diff = sb_tally_create(tmpl, nthreads, nclients);
    }
    if (p == NULL || !p->mark || !p->cur || !p->diff) {
        sb_phases_destroy(p);
        *oom = 1;
        return NULL;
    }
    return p;
}

void sb_phases_destroy(struct sb_phases *p)
{
    if (p == NULL)
        return;
    sb_tally_destroy(p->mark);
    sb_tally_destroy(p->cur);
    sb_tally_destroy(p->diff);
    for (int i = 0; i < SB_RATE_PROFILE_MAX_PHASES; i++)
        sb_histogram_destroy(p->lat[i]);
    free(p);
}

static double profile_seconds(const struct sb_phases *p, int64_t t)
{
    return (double)(t - p->run->start_ns) / 1e9;
}

void sb_phases_start(struct sb_phases *p, struct sb_thread_stats *const *ts, int64_t now)
{
    if (p == NULL)
        return;
    sb_tally_take(p->mark, p->run, ts);
    p->from = now;
    p->started = 1;
    p->next = sb_rate_profile_phase_at(p->prof, profile_seconds(p, now));
    if (p->next < 0)
        p->next = p->prof->nphases;
}

/* The phase being measured ends at `now`: its summary, and the next one
 * starts. */
static void close_phase(struct sb_phases *p, struct sb_thread_stats *const *ts, int64_t now)
{
    const struct sb_run *run = p->run;
    sb_tally_take(p->cur, run, ts);
    sb_tally_copy(p->diff, p->cur);
    sb_tally_sub(p->diff, p->mark);
    double secs = (double)(now - p->from) / 1e9;
    struct sb_report_span span = {.span = p->diff, .end = p->cur, .start = p->mark, .seconds = secs,
                                  .threads = run->threads};
    struct sb_report r;
    sb_report_fill(&r, SB_REPORT_WINDOW, run, &span);
    struct sb_phase_summary *s = &p->rep.s[p->rep.n++];
    *s = (struct sb_phase_summary){0};
    snprintf(s->name, sizeof s->name, "%s", p->prof->phase[p->next].name);
    double t0 = profile_seconds(p, p->from), t1 = profile_seconds(p, now), warm = run->warmup;
    s->start = t0 - warm;
    s->end = t1 - warm;
    s->asked = t1 > t0 ? (sb_rate_profile_mass(p->prof, t1) - sb_rate_profile_mass(p->prof, t0)) / (t1 - t0) : 0;
    if (!p->rep.clients) /* a shard's part of the profile (sb_shard_apply) */
        s->asked *= run->rate / p->prof->peak;
    s->events = r.d.events;
    s->failed = r.d.failed_events;
    s->ignored_errors = r.d.ignored_errors;
    s->tps = secs > 0 ? (double)r.d.events / secs : 0;
    if (r.latency && sb_histogram_count(r.latency) > 0) {
        s->p50_ms = (double)sb_histogram_percentile(r.latency, 50) / 1e6;
        s->p95_ms = (double)sb_histogram_percentile(r.latency, 95) / 1e6;
        s->p99_ms = (double)sb_histogram_percentile(r.latency, 99) / 1e6;
        s->max_ms = (double)sb_histogram_max(r.latency) / 1e6;
    }
    /* kept whole for sbench merge (a shard's merge_data); on the reporting
     * thread, once a phase */
    int i = p->rep.n - 1;
    if (r.latency && p->lat[i] == NULL)
        p->lat[i] = sb_histogram_clone_empty(r.latency);
    if (r.latency && p->lat[i])
        sb_histogram_copy(p->lat[i], r.latency);
    s->lat = r.latency ? p->lat[i] : NULL;
    sb_tally_copy(p->mark, p->cur);
    p->from = now;
    p->next++;
}

void sb_phases_tick(struct sb_phases *p, struct sb_thread_stats *const *ts, int64_t now)
{
    if (p == NULL || !p->started)
        return;
    while (p->next < p->prof->nphases &&
           now >= p->run->start_ns + (int64_t)(p->prof->phase[p->next].end * 1e9))
        close_phase(p, ts, now);
}

const struct sb_phase_report *sb_phases_finish(struct sb_phases *p, struct sb_thread_stats *const *ts,
                                               int64_t end)
{
    if (p == NULL || !p->started)
        return NULL;
    sb_phases_tick(p, ts, end);
    if (p->next < p->prof->nphases && end > p->from)
        close_phase(p, ts, end);
    return &p->rep;
}

const char *sb_phases_name_at(const struct sb_phases *p, int64_t now)
{
    if (p == NULL)
        return NULL;
    int i = sb_rate_profile_phase_at(p->prof, profile_seconds(p, now));
    return i < 0 ? NULL : p->prof->phase[i].name;
}
