/*
 * The text report format (--report-format=text, the default, and
 * sbench.report_default): sysbench 1.0's "[ Ns ] thds: ..." lines every
 * --report-interval, the final SQL statistics / General statistics /
 * Latency (ms) / Threads fairness sections, then sbench's own sections
 * (and the sections the workload declared, core/report_sections.c).
 */
#include "report.h"
#include "report_phases.h"
#include "report_server.h"

#include <math.h>

static double per_sec(uint64_t n, double secs)
{
    return secs > 0 ? (double)n / secs : 0.0;
}

static double rate(double n, double secs) { return secs > 0 ? n / secs : 0.0; }

static double ms(int64_t ns) { return (double)ns / 1e6; }

/* sysbench's "[ Ns ] thds: ..." line; lat only with_lat (sysbench's own
 * report_default always prints it, the interval line only for a
 * --percentile above 0).  err_label: "err/s:" on sysbench's interval line,
 * "err/s" (no colon) in sysbench 1.0.20's Lua sysbench.report_default, so
 * that regexes written for either keep matching. */
static void text_line(FILE *f, const struct sb_report_stat *st, int with_lat, const char *err_label)
{
    double s = st->time_interval;
    fprintf(f, "[ %.0fs ] thds: %.0f tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) ",
            st->time_total, st->threads_running, rate(st->events, s),
            rate(st->reads + st->writes + st->other, s), rate(st->reads, s), rate(st->writes, s),
            rate(st->other, s));
    if (with_lat)
        fprintf(f, "lat (ms,%g%%): %.2f ", st->percentile, st->latency_pct * 1000);
    fprintf(f, "%s %.2f reconn/s: %.2f\n", err_label, rate(st->errors, s), rate(st->reconnects, s));
    fflush(f);
}

static void text_interval(FILE *f, const struct sb_report *r, int nth)
{
    (void)nth;
    struct sb_report_stat st = sb_report_stat_of(r);
    if (r->no_sql) { /* sysbench's line for a test without SQL (cpu, memory, ...) */
        fprintf(f, "[ %.0fs ] thds: %.0f eps: %4.2f lat (ms,%g%%): %4.2f\n", st.time_total,
                st.threads_running, rate(st.events, st.time_interval), st.percentile,
                st.latency_pct * 1000);
        fflush(f);
        return;
    }
    text_line(f, &st, r->percentile > 0, "err/s:");
}

static void text_hook_line(FILE *f, const struct sb_report_stat *st, int nth)
{
    (void)nth;
    text_line(f, st, 1, "err/s");
}

/* Thread i's events (busy == 0) or execution time in seconds (busy == 1). */
static double thread_value(const struct sb_report *r, int busy, int i)
{
    if (!busy)
        return r->thread_events ? (double)r->thread_events[i] : 0;
    return r->thread_busy_ns ? (double)r->thread_busy_ns[i] / 1e9 : 0;
}

/* Mean and standard deviation (population, as sysbench) of that value
 * over every thread of the run. */
static void thread_spread(const struct sb_report *r, int busy, double *mean, double *sd)
{
    int n = r->threads;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++)
        sum += thread_value(r, busy, i);
    *mean = n ? sum / n : 0;
    for (int i = 0; i < n; i++)
        sq += (thread_value(r, busy, i) - *mean) * (thread_value(r, busy, i) - *mean);
    *sd = n ? sqrt(sq / n) : 0;
}

static void final_text(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    if (r->no_sql)
        goto general;
    fprintf(f, "SQL statistics:\n");
    fprintf(f, "    queries performed:\n");
    fprintf(f, "        read:                            %llu\n", (unsigned long long)sb_snap_reads(d));
    fprintf(f, "        write:                           %llu\n", (unsigned long long)sb_snap_writes(d));
    fprintf(f, "        other:                           %llu\n", (unsigned long long)sb_snap_other(d));
    fprintf(f, "        total:                           %llu\n", (unsigned long long)sb_snap_total(d));
    fprintf(f, "    transactions:                        %-6llu (%.2f per sec.)\n",
            (unsigned long long)d->events, per_sec(d->events, s));
    fprintf(f, "    queries:                             %-6llu (%.2f per sec.)\n",
            (unsigned long long)sb_snap_total(d), per_sec(sb_snap_total(d), s));
    fprintf(f, "    ignored errors:                      %-6llu (%.2f per sec.)\n",
            (unsigned long long)d->ignored_errors, per_sec(d->ignored_errors, s));
    fprintf(f, "    reconnects:                          %-6llu (%.2f per sec.)\n",
            (unsigned long long)d->reconnects, per_sec(d->reconnects, s));
    if (r->unfinished > 0)
        fprintf(f, "    Number of unfinished transactions on forced shutdown: %d\n", r->unfinished);
    fputc('\n', f);
general:
    fprintf(f, "General statistics:\n");
    fprintf(f, "    total time:                          %.4fs\n", r->elapsed);
    fprintf(f, "    total number of events:              %llu\n", (unsigned long long)d->events);
    if (d->connects > 0) {
        fprintf(f, "    connections opened:                  %llu\n", (unsigned long long)d->connects);
        fprintf(f, "    average connection time (ms):        %.3f\n",
                ms(d->connect_ns) / (double)d->connects);
    }
    const sb_histogram *h = r->latency;
    int empty = sb_histogram_count(h) == 0;
    fprintf(f, "\nLatency (ms):\n");
    fprintf(f, "         min:                              %10.2f\n", empty ? 0.0 : ms(sb_histogram_min(h)));
    fprintf(f, "         avg:                              %10.2f\n", empty ? 0.0 : sb_histogram_mean(h) / 1e6);
    fprintf(f, "         max:                              %10.2f\n", empty ? 0.0 : ms(sb_histogram_max(h)));
    if (r->percentile > 0) {
        char label[32];
        double p = r->percentile;
        if (p == floor(p))
            snprintf(label, sizeof label, "%.0fth percentile:", p);
        else
            snprintf(label, sizeof label, "%gth percentile:", p);
        fprintf(f, "         %-34s%10.2f\n", label,
                empty ? 0.0 : ms(sb_histogram_percentile(h, p)));
    }
    fprintf(f, "         sum:                              %10.2f\n", ms(sb_histogram_sum(h)));
    fprintf(f, "\nThreads fairness:\n");
    double m, sd;
    thread_spread(r, 0, &m, &sd);
    fprintf(f, "    events (avg/stddev):           %.4f/%.2f\n", m, sd);
    thread_spread(r, 1, &m, &sd);
    fprintf(f, "    execution time (avg/stddev):   %.4f/%.2f\n", m, sd);
    if (r->client_events && r->clients > 0) {
        struct sb_spread sp = sb_report_spread(r->client_events, r->clients);
        fprintf(f, "\nClients fairness:\n");
        fprintf(f, "    events (avg/stddev):           %.4f/%.2f\n", sp.avg, sp.stddev);
        fprintf(f, "    events (min/max):              %llu/%llu\n", (unsigned long long)sp.min,
                (unsigned long long)sp.max);
    }
    fputc('\n', f);
    if (r->histogram) {
        fprintf(f, "Latency histogram (values are in milliseconds)\n");
        sb_report_histogram_text(f, h);
    }
    fflush(f);
}

void sb_report_histogram_text(FILE *f, const sb_histogram *h)
{
    fprintf(f, "       value  ------------- distribution ------------- count\n");
    uint64_t maxc = 0;
    int nb = sb_histogram_bucket_count(h);
    for (int i = 0; i < nb; i++)
        if (sb_histogram_count_at(h, i) > maxc)
            maxc = sb_histogram_count_at(h, i);
    for (int i = 0; i < nb; i++) {
        uint64_t c = sb_histogram_count_at(h, i);
        if (c == 0)
            continue;
        int stars = maxc ? (int)((double)c * 40.0 / (double)maxc) : 0;
        if (stars == 0)
            stars = 1;
        fprintf(f, "%12.3f |%-40.*s %llu\n", ms(sb_histogram_bucket_highest(h, i)), stars,
                "****************************************", (unsigned long long)c);
    }
    fputc('\n', f);
}

static void kind_line(FILE *f, const char *name, uint64_t n, double secs, const sb_histogram *h)
{
    int has = h && sb_histogram_count(h) > 0;
    fprintf(f, "        %-16s %10llu (%10.2f per sec.)  avg: %8.3f  95th: %8.3f  99th: %8.3f  max: %8.3f\n",
            name, (unsigned long long)n, per_sec(n, secs),
            has ? sb_histogram_mean(h) / 1e6 : 0.0,
            has ? ms(sb_histogram_percentile(h, 95)) : 0.0,
            has ? ms(sb_histogram_percentile(h, 99)) : 0.0, has ? ms(sb_histogram_max(h)) : 0.0);
}

/* The phases of the connections' opening the driver saw (ABI 1.6), under
 * the Connection time line (a TLS line only for TLS sessions), then the
 * section's blank line. */
static void connect_phases_text(FILE *f, const struct sb_report *r)
{
    static const char *const label[SB_CONN_NPHASES] = {"TCP connect", "TLS handshake",
                                                       "authentication", "first query"};
    for (int p = 0; p < SB_CONN_NPHASES; p++) {
        const sb_histogram *h = r->connect_phase[p];
        if (h == NULL || sb_histogram_count(h) == 0)
            continue;
        fprintf(f, "    %-16s %8llu  min %.3f, avg %.3f, 95th %.3f, 99th %.3f, max %.3f\n", label[p],
                (unsigned long long)sb_histogram_count(h), ms(sb_histogram_min(h)),
                sb_histogram_mean(h) / 1e6, ms(sb_histogram_percentile(h, 95)),
                ms(sb_histogram_percentile(h, 99)), ms(sb_histogram_max(h)));
    }
    fputc('\n', f);
}

/* The sections sbench adds after sysbench's: percentiles, statement
 * kinds and names, errors, connections, schedule lag, server cross-check. */
static void extra_text(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    const sb_histogram *h = r->latency;
    if (r->npercentiles > 0 && sb_histogram_count(h) > 0) {
        fprintf(f, "Latency percentiles (ms):\n");
        for (int i = 0; i < r->npercentiles; i++)
            fprintf(f, "         %-8g %10.3f\n", r->percentiles[i],
                    ms(sb_histogram_percentile(h, r->percentiles[i])));
        fputc('\n', f);
    }
    if (r->ntypes > 0) {
        fprintf(f, "Transactions by type (latency in ms):\n");
        for (int ty = 0; ty < r->ntypes; ty++) {
            const sb_histogram *h = r->type_latency[ty];
            int has = h && sb_histogram_count(h) > 0;
            fprintf(f, "        %-20s %8llu (%8.2f per sec.)  avg: %8.3f  95th: %8.3f  max: %8.3f  "
                       "retries: %llu  failed: %llu\n",
                    r->type_name[ty], (unsigned long long)d->type_count[ty], per_sec(d->type_count[ty], s),
                    has ? sb_histogram_mean(h) / 1e6 : 0.0,
                    has ? ms(sb_histogram_percentile(h, 95)) : 0.0, has ? ms(sb_histogram_max(h)) : 0.0,
                    (unsigned long long)d->type_retries[ty], (unsigned long long)d->type_failed[ty]);
        }
        fputc('\n', f);
    }
    if (!r->no_sql) {
        fprintf(f, "Statements by kind (latency in ms):\n");
        for (int k = 0; k < SB_Q_NKINDS; k++)
            if (d->queries[k] > 0)
                kind_line(f, sb_qkind_names[k], d->queries[k], s, r->kind[k]);
        fputc('\n', f);
    }
    if (r->nnamed > 0) {
        fprintf(f, "Statements by name (latency in ms):\n");
        for (int i = 0; i < r->nnamed; i++)
            kind_line(f, r->named_name[i], r->named_count[i], s, r->named_latency[i]);
        fputc('\n', f);
    }
    if (r->pipeline > 0)
        fprintf(f, "Pipelining (--pipeline=%d): %llu statements sent while earlier ones were in flight\n\n",
                r->pipeline, (unsigned long long)d->pipelined);
    if (d->retried_events || d->failed_events || d->nerrors) {
        fprintf(f, "Errors:\n");
        fprintf(f, "    retried transactions:                %llu\n", (unsigned long long)d->retried_events);
        fprintf(f, "    failed transactions:                 %llu\n", (unsigned long long)d->failed_events);
        for (int i = 0; i < d->nerrors; i++)
            fprintf(f, "    SQLSTATE %-5s native %-6ld           ignored %llu, fatal %llu\n",
                    d->errors[i].sqlstate[0] ? d->errors[i].sqlstate : "-", d->errors[i].native_code,
                    (unsigned long long)d->errors[i].ignored, (unsigned long long)d->errors[i].fatal);
        fputc('\n', f);
    }
    if (r->connect && sb_histogram_count(r->connect) > 0) {
        const sb_histogram *c = r->connect;
        fprintf(f, "Connection time (ms): %llu connections, min %.3f, avg %.3f, max %.3f, 95th %.3f\n",
                (unsigned long long)sb_histogram_count(c), ms(sb_histogram_min(c)),
                sb_histogram_mean(c) / 1e6, ms(sb_histogram_max(c)), ms(sb_histogram_percentile(c, 95)));
        connect_phases_text(f, r);
    }
    if (r->lag && sb_histogram_count(r->lag) > 0) {
        const sb_histogram *l = r->lag;
        fprintf(f, "Rate control: latency is measured from each event's scheduled start\n");
        fprintf(f, "    schedule lag (ms): avg %.3f, 95th %.3f, max %.3f\n\n", sb_histogram_mean(l) / 1e6,
                ms(sb_histogram_percentile(l, 95)), ms(sb_histogram_max(l)));
    }
    if (r->latency_limit_ms > 0)
        fprintf(f, "Events above --latency-limit (%g ms): %llu (%.3f%%)\n\n", r->latency_limit_ms,
                (unsigned long long)d->late_events,
                d->events ? 100.0 * (double)d->late_events / (double)d->events : 0.0);
    if (r->server_counters_valid) {
        fprintf(f, "Server's own counters (cross-check):\n");
        if (r->server_reset)
            fprintf(f, "    unknown: during the run %s\n",
                    r->server_reset_why ? r->server_reset_why : "they started again from zero");
        if (r->server.commits >= 0)
            fprintf(f, "    commits:                             %lld (sbench counted %llu transactions)\n",
                    (long long)r->server.commits, (unsigned long long)d->events);
        if (r->server.rollbacks >= 0)
            fprintf(f, "    rollbacks:                           %lld\n", (long long)r->server.rollbacks);
        if (r->server.selects >= 0)
            fprintf(f, "    selects:                             %lld (sbench counted %llu reads)\n",
                    (long long)r->server.selects, (unsigned long long)sb_snap_reads(d));
        if (r->server.statements >= 0)
            fprintf(f, "    statements:                          %lld (sbench counted %llu queries)\n",
                    (long long)r->server.statements, (unsigned long long)sb_snap_total(d));
        fputc('\n', f);
    }
    fflush(f);
}

/* --rate-profile, --clients-profile: one line per phase (report_phases.h). */
static void phases_text(FILE *f, const struct sb_phase_report *r)
{
    if (r == NULL || r->n == 0)
        return;
    fprintf(f, "\nPhases (%s):\n", r->clients ? "--clients-profile" : "--rate-profile");
    fprintf(f, "    %-28s %15s %10s %10s %9s %9s %9s %9s %7s\n", "phase", "time (s)",
            r->clients ? "clients" : "asked/s", "tps", "p50 ms", "p95 ms", "p99 ms", "max ms", "failed");
    for (int i = 0; i < r->n; i++) {
        const struct sb_phase_summary *s = &r->s[i];
        char span[48];
        snprintf(span, sizeof span, "%.1f-%.1f", s->start, s->end);
        fprintf(f, "    %-28s %15s %10.2f %10.2f %9.2f %9.2f %9.2f %9.2f %7llu\n", s->name, span, s->asked,
                s->tps, s->p50_ms, s->p95_ms, s->p99_ms, s->max_ms, (unsigned long long)s->failed);
    }
}

static void text_final(FILE *f, const struct sb_report *r, const char *meta, int nth)
{
    (void)meta;
    (void)nth;
    fputc('\n', f);
    final_text(f, r);
    extra_text(f, r);
    sb_sampled_text(f, r->sampled, r->sampled_why, (double)r->d.events, r->seconds);
    sb_report_sections_text(f, r);
    phases_text(f, r->phases);
}

const struct sb_report_format sb_report_text = {
    .name = "text",
    .interval = text_interval,
    .final = text_final,
    .hook_name = "report_default",
    .hook_line = text_hook_line,
};
