/*
 * The table of report formats (--report-format, and the Lua reporters
 * sbench.report_default / report_csv / report_json), and what the formats
 * share: sysbench's stat table of a report, the spread of per-thread or
 * per-client counts.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adding a format is one new file (core/report_NAME.c, defining
 * sb_report_NAME with its functions; listed in core/meson.build) and one
 * entry below.  --report-format's accepted values and help, and the Lua
 * reporter sbench.<hook_name>, come from this table.  The first entry is
 * the default and the human report on stdout. */
extern const struct sb_report_format sb_report_text, sb_report_json, sb_report_csv;

const struct sb_report_format *const sb_report_formats[] = {
    &sb_report_text,
    &sb_report_json,
    &sb_report_csv,
    NULL,
};

const struct sb_report_format *sb_report_format_find(const char *name)
{
    for (int i = 0; name && sb_report_formats[i]; i++)
        if (strcmp(sb_report_formats[i]->name, name) == 0)
            return sb_report_formats[i];
    return NULL;
}

void sb_report_format_names(struct sb_report_format_names *t)
{
    size_t c = 0, n = 0, sl = 0;
    int nfmt = 0;
    while (sb_report_formats[nfmt])
        nfmt++;
    t->choices[0] = t->files[0] = t->slashed[0] = 0;
    t->plural = nfmt > 2;
    for (int i = 0; i < nfmt; i++) {
        const char *name = sb_report_formats[i]->name;
        c += (size_t)snprintf(t->choices + c, c < sizeof t->choices ? sizeof t->choices - c : 0,
                              "%s%s", i ? "|" : "", name);
        if (i == 0) /* the default: the report on stdout */
            continue;
        const char *sep = i == 1 ? "" : i == nfmt - 1 ? " and " : ", ";
        n += (size_t)snprintf(t->files + n, n < sizeof t->files ? sizeof t->files - n : 0, "%s%s", sep,
                              name);
        sl += (size_t)snprintf(t->slashed + sl, sl < sizeof t->slashed ? sizeof t->slashed - sl : 0,
                               "%s%s", i == 1 ? "" : "/", name);
    }
}

struct sb_report_stat sb_report_stat_of(const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    struct sb_report_stat s = {
        .time_interval = r->seconds,
        .time_total = r->elapsed,
        .threads_running = r->threads,
        .events = (double)d->events,
        .reads = (double)sb_snap_reads(d),
        .writes = (double)sb_snap_writes(d),
        .other = (double)sb_snap_other(d),
        .errors = (double)d->ignored_errors,
        .reconnects = (double)d->reconnects,
        .percentile = r->percentile,
    };
    if (r->latency && sb_histogram_count(r->latency) > 0) {
        if (r->percentile > 0)
            s.latency_pct = (double)sb_histogram_percentile(r->latency, r->percentile) / 1e9;
        s.latency_min = (double)sb_histogram_min(r->latency) / 1e9;
        s.latency_avg = sb_histogram_mean(r->latency) / 1e9;
        s.latency_max = (double)sb_histogram_max(r->latency) / 1e9;
        s.latency_sum = (double)sb_histogram_sum(r->latency) / 1e9;
    }
    return s;
}

struct sb_spread sb_report_spread(const uint64_t *v, int n)
{
    struct sb_spread sp = {0, 0, n > 0 ? v[0] : 0, n > 0 ? v[0] : 0};
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) {
        sum += (double)v[i];
        sp.min = v[i] < sp.min ? v[i] : sp.min;
        sp.max = v[i] > sp.max ? v[i] : sp.max;
    }
    sp.avg = n > 0 ? sum / n : 0;
    for (int i = 0; i < n; i++)
        sq += ((double)v[i] - sp.avg) * ((double)v[i] - sp.avg);
    sp.stddev = n > 0 ? sqrt(sq / n) : 0;
    return sp;
}

int sb_report_parse_percentiles(const char *list, double *out, int max)
{
    int n = 0;
    const char *p = list;
    while (p && *p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || v <= 0 || v > 100)
            return -1;
        if (n == max)
            return -2;
        out[n++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

