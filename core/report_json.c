/*
 * Machine-readable reports: JSON (one object per line, "interval" or
 * "final"; schema in docs/report-json.md) and CSV (a header row, then one
 * row per reporting window).  Pure functions of struct sb_report.
 */
#include "report.h"

#include <math.h>
#include <string.h>

static double per_sec(uint64_t n, double s) { return s > 0 ? (double)n / s : 0.0; }
static double ms(int64_t ns) { return (double)ns / 1e6; }

/* Writes a JSON number; NaN/inf become 0 (JSON has neither). */
static void num(FILE *f, double v)
{
    if (!isfinite(v))
        v = 0;
    if (v == floor(v) && fabs(v) < 9e15)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.15g", v); /* %.6g lost digits: 1340506.5 came out as 1.34051e+06 */
}

static void hist_obj(FILE *f, const sb_histogram *h, const double *pcts, int npcts)
{
    int has = h && sb_histogram_count(h) > 0;
    fprintf(f, "{\"count\":%llu,\"min\":", has ? (unsigned long long)sb_histogram_count(h) : 0ULL);
    num(f, has ? ms(sb_histogram_min(h)) : 0);
    fprintf(f, ",\"avg\":");
    num(f, has ? sb_histogram_mean(h) / 1e6 : 0);
    fprintf(f, ",\"max\":");
    num(f, has ? ms(sb_histogram_max(h)) : 0);
    fprintf(f, ",\"sum\":");
    num(f, has ? ms(sb_histogram_sum(h)) : 0);
    fprintf(f, ",\"percentiles\":{");
    for (int i = 0; i < npcts; i++) {
        fprintf(f, "%s\"%g\":", i ? "," : "", pcts[i]);
        num(f, has ? ms(sb_histogram_percentile(h, pcts[i])) : 0);
    }
    fprintf(f, "}}");
}

void sb_report_json(FILE *f, const struct sb_report *r, const char *type, const char *meta)
{
    static const double kind_pcts[] = {95, 99};
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    fprintf(f, "{\"type\":\"%s\",\"time\":", type);
    num(f, r->elapsed);
    fprintf(f, ",\"seconds\":");
    num(f, s);
    fprintf(f, ",\"threads\":%d,\"transactions\":%llu,\"tps\":", r->threads,
            (unsigned long long)d->events);
    num(f, per_sec(d->events, s));
    fprintf(f, ",\"queries\":{\"read\":%llu,\"write\":%llu,\"other\":%llu,\"total\":%llu},\"qps\":",
            (unsigned long long)sb_snap_reads(d), (unsigned long long)sb_snap_writes(d),
            (unsigned long long)sb_snap_other(d), (unsigned long long)sb_snap_total(d));
    num(f, per_sec(sb_snap_total(d), s));
    fprintf(f, ",\"ignored_errors\":%llu,\"reconnects\":%llu,\"retried_transactions\":%llu,"
               "\"failed_transactions\":%llu,\"late_transactions\":%llu",
            (unsigned long long)d->ignored_errors, (unsigned long long)d->reconnects,
            (unsigned long long)d->retried_events, (unsigned long long)d->failed_events,
            (unsigned long long)d->late_events);
    double one = r->percentile;
    fprintf(f, ",\"latency_ms\":");
    if (r->npercentiles > 0) {
        hist_obj(f, r->latency, r->percentiles, r->npercentiles);
    } else {
        hist_obj(f, r->latency, &one, one > 0 ? 1 : 0);
    }
    fprintf(f, ",\"kinds\":{");
    int first = 1;
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        fprintf(f, "%s\"%s\":{\"count\":%llu,\"rate\":", first ? "" : ",", sb_qkind_names[k],
                (unsigned long long)d->queries[k]);
        first = 0;
        num(f, per_sec(d->queries[k], s));
        fprintf(f, ",\"latency_ms\":");
        hist_obj(f, r->kind[k], kind_pcts, 2);
        fputc('}', f);
    }
    fprintf(f, "}");
    if (r->nnamed > 0) {
        fprintf(f, ",\"named\":{");
        for (int i = 0; i < r->nnamed; i++) {
            fprintf(f, "%s\"", i ? "," : "");
            for (const char *c = r->named_name[i]; *c; c++)
                fprintf(f, (*c == '"' || *c == '\\') ? "\\%c" : ((unsigned char)*c < 0x20 ? "?" : "%c"), *c);
            fprintf(f, "\":{\"count\":%llu,\"rate\":", (unsigned long long)r->named_count[i]);
            num(f, per_sec(r->named_count[i], s));
            fprintf(f, ",\"latency_ms\":");
            hist_obj(f, r->named_latency[i], kind_pcts, 2);
            fputc('}', f);
        }
        fputc('}', f);
    }
    fprintf(f, ",\"errors\":[");
    for (int i = 0; i < d->nerrors; i++)
        fprintf(f, "%s{\"sqlstate\":\"%s\",\"native_code\":%ld,\"ignored\":%llu,\"fatal\":%llu}",
                i ? "," : "", d->errors[i].sqlstate, d->errors[i].native_code,
                (unsigned long long)d->errors[i].ignored, (unsigned long long)d->errors[i].fatal);
    fprintf(f, "]");
    if (r->connect) {
        fprintf(f, ",\"connection_time_ms\":");
        hist_obj(f, r->connect, kind_pcts, 1);
    }
    if (r->pipeline > 0)
        fprintf(f, ",\"pipeline\":{\"depth\":%d,\"pipelined\":%llu}", r->pipeline,
                (unsigned long long)d->pipelined);
    if (r->lag) {
        fprintf(f, ",\"schedule_lag_ms\":");
        hist_obj(f, r->lag, kind_pcts, 2);
    }
    if (r->thread_events) {
        double sum = 0, sq = 0;
        for (int i = 0; i < r->threads; i++)
            sum += (double)r->thread_events[i];
        double mean = r->threads ? sum / r->threads : 0;
        for (int i = 0; i < r->threads; i++)
            sq += ((double)r->thread_events[i] - mean) * ((double)r->thread_events[i] - mean);
        fprintf(f, ",\"threads_fairness\":{\"events_avg\":");
        num(f, mean);
        fprintf(f, ",\"events_stddev\":");
        num(f, r->threads ? sqrt(sq / r->threads) : 0);
        fprintf(f, "}");
    }
    if (r->client_events && r->clients > 0) {
        struct sb_spread sp = sb_report_spread(r->client_events, r->clients);
        fprintf(f, ",\"clients_fairness\":{\"clients\":%d,\"events_avg\":", r->clients);
        num(f, sp.avg);
        fprintf(f, ",\"events_stddev\":");
        num(f, sp.stddev);
        fprintf(f, ",\"events_min\":%llu,\"events_max\":%llu,\"events\":[",
                (unsigned long long)sp.min, (unsigned long long)sp.max);
        for (int i = 0; i < r->clients; i++)
            fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->client_events[i]);
        fprintf(f, "]}");
    }
    if (r->unfinished)
        fprintf(f, ",\"unfinished_on_forced_shutdown\":%d", r->unfinished);
    if (r->server_counters_valid)
        fprintf(f, ",\"server\":{\"commits\":%lld,\"rollbacks\":%lld,\"selects\":%lld,"
                   "\"inserts\":%lld,\"updates\":%lld,\"deletes\":%lld,\"statements\":%lld}",
                (long long)r->server.commits, (long long)r->server.rollbacks,
                (long long)r->server.selects, (long long)r->server.inserts,
                (long long)r->server.updates, (long long)r->server.deletes,
                (long long)r->server.statements);
    if (meta)
        fprintf(f, ",\"run\":%s", meta);
    fprintf(f, "}\n");
    fflush(f);
}

void sb_report_csv_header(FILE *f, const struct sb_report *r)
{
    fprintf(f, "time,threads,tps,qps,reads_per_sec,writes_per_sec,other_per_sec,"
               "latency_avg_ms,latency_max_ms");
    for (int i = 0; i < r->npercentiles; i++)
        fprintf(f, ",latency_p%g_ms", r->percentiles[i]);
    fprintf(f, ",errors_per_sec,reconnects_per_sec\n");
}

void sb_report_csv_row(FILE *f, const struct sb_report *r)
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
    fprintf(f, ",%.2f,%.2f\n", per_sec(d->ignored_errors, s), per_sec(d->reconnects, s));
    fflush(f);
}
