/*
 * Text reports in sysbench 1.0's format: the "[ Ns ] thds: ..." lines
 * every --report-interval, and the final SQL statistics / General
 * statistics / Latency (ms) / Threads fairness sections.
 */
#include "report.h"

#include <math.h>

static double per_sec(uint64_t n, double secs)
{
    return secs > 0 ? (double)n / secs : 0.0;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

void sb_report_intermediate_text(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    fprintf(f, "[ %.0fs ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) ",
            r->elapsed, r->threads, per_sec(d->events, s), per_sec(sb_snap_total(d), s),
            per_sec(sb_snap_reads(d), s), per_sec(sb_snap_writes(d), s),
            per_sec(sb_snap_other(d), s));
    if (r->percentile > 0)
        fprintf(f, "lat (ms,%g%%): %.2f ", r->percentile,
                sb_histogram_count(r->latency) ? ms(sb_histogram_percentile(r->latency, r->percentile))
                                               : 0.0);
    fprintf(f, "err/s: %.2f reconn/s: %.2f\n", per_sec(d->ignored_errors, s),
            per_sec(d->reconnects, s));
    fflush(f);
}

static void mean_stddev(const double *v, int n, double *mean, double *sd)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    *mean = n ? sum / n : 0;
    for (int i = 0; i < n; i++)
        sq += (v[i] - *mean) * (v[i] - *mean);
    *sd = n ? sqrt(sq / n) : 0;
}

void sb_report_final_text(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
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
    fprintf(f, "\nGeneral statistics:\n");
    fprintf(f, "    total time:                          %.4fs\n", s);
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
    double ev[1024], ex[1024];
    int n = r->threads < 1024 ? r->threads : 1024;
    for (int i = 0; i < n; i++) {
        ev[i] = r->thread_events ? (double)r->thread_events[i] : 0;
        ex[i] = r->thread_busy_ns ? (double)r->thread_busy_ns[i] / 1e9 : 0;
    }
    double m, sd;
    mean_stddev(ev, n, &m, &sd);
    fprintf(f, "    events (avg/stddev):           %.4f/%.2f\n", m, sd);
    mean_stddev(ex, n, &m, &sd);
    fprintf(f, "    execution time (avg/stddev):   %.4f/%.2f\n", m, sd);
    fputc('\n', f);
    if (r->histogram)
        sb_report_histogram_text(f, h);
    fflush(f);
}

void sb_report_histogram_text(FILE *f, const sb_histogram *h)
{
    fprintf(f, "Latency histogram (values are in milliseconds)\n");
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
