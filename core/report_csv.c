/*
 * The CSV report format (--report-format=csv, and sbench.report_csv): a
 * header row, then one row per reporting window (a run without windows
 * gets one row for the whole run).  Pure functions of struct sb_report.
 */
#include "report.h"
#include "report_server.h"

static double per_sec(uint64_t n, double s) { return s > 0 ? (double)n / s : 0.0; }
static double per_sec_d(double n, double s) { return s > 0 ? n / s : 0.0; }
static double ms(int64_t ns) { return (double)ns / 1e6; }

static void csv_header(FILE *f, const struct sb_report *r)
{
    fprintf(f, "time,threads,tps,qps,reads_per_sec,writes_per_sec,other_per_sec,"
               "latency_avg_ms,latency_max_ms");
    for (int i = 0; i < r->npercentiles; i++)
        fprintf(f, ",latency_p%g_ms", r->percentiles[i]);
    fprintf(f, ",errors_per_sec,reconnects_per_sec");
    if (r->sampled) /* the server's evidence (--server-metrics) */
        sb_sampled_csv_header(f);
    if (r->phase) /* a profiled run (--rate-profile, --clients-profile) */
        fprintf(f, ",phase");
    fputc('\n', f);
}

static void csv_row(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    const sb_histogram *h = r->latency;
    int has = sb_histogram_count(h) > 0;
    fprintf(f, "%.3f,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f", r->elapsed, r->threads,
            per_sec(d->events, s), per_sec(sb_snap_total(d), s), per_sec(sb_snap_reads(d), s),
            per_sec(sb_snap_writes(d), s), per_sec(sb_snap_other(d), s),
            has ? sb_histogram_mean(h) / 1e6 : 0.0, has ? ms(sb_histogram_max(h)) : 0.0);
    for (int i = 0; i < r->npercentiles; i++)
        fprintf(f, ",%.3f", has ? ms(sb_histogram_percentile(h, r->percentiles[i])) : 0.0);
    fprintf(f, ",%.2f,%.2f", per_sec(d->ignored_errors, s), per_sec(d->reconnects, s));
    if (r->sampled)
        sb_sampled_csv_row(f, r->sampled, s);
    if (r->phase) /* quoted: a step's rates are separated by commas */
        fprintf(f, ",\"%s\"", r->phase);
    fputc('\n', f);
    fflush(f);
}

static void csv_interval(FILE *f, const struct sb_report *r, int nth)
{
    if (nth == 0)
        csv_header(f, r);
    csv_row(f, r);
}

/* The rows are the windows; only a run without any gets a row here. */
static void csv_final(FILE *f, const struct sb_report *r, const char *meta, int nth)
{
    (void)meta;
    if (nth == 0)
        csv_interval(f, r, nth);
}

/* sysbench 1.0's sysbench.report_csv line: no header, its own columns. */
static void csv_hook_line(FILE *f, const struct sb_report_stat *st, int nth)
{
    (void)nth;
    double s = st->time_interval;
    fprintf(f, "%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", st->time_total,
            st->threads_running, per_sec_d(st->events, s),
            per_sec_d(st->reads + st->writes + st->other, s), per_sec_d(st->reads, s),
            per_sec_d(st->writes, s), per_sec_d(st->other, s), st->latency_pct * 1000,
            per_sec_d(st->errors, s), per_sec_d(st->reconnects, s));
    fflush(f);
}

const struct sb_report_format sb_report_csv = {
    .name = "csv",
    .interval = csv_interval,
    .final = csv_final,
    .hook_name = "report_csv",
    .hook_line = csv_hook_line,
};
