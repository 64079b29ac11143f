/*
 * The JSON report format (--report-format=json, and sbench.report_json):
 * one object per line, "interval" or "final" (schema in
 * docs/report-json.md).  Pure functions of struct sb_report.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hdr_log.h"
#include "report_phases.h"
#include "report_server.h"
#include "../lib/jsonw.h"

static double per_sec(uint64_t n, double s) { return s > 0 ? (double)n / s : 0.0; }
static double per_sec_d(double n, double s) { return s > 0 ? n / s : 0.0; }
static double ms(int64_t ns) { return (double)ns / 1e6; }

/* Most --percentiles entries a statement kind's latency lists. */
#define SB_MAX_PERCENTILES_JSON 32

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

/* "connection_phases_ms": the phases the driver saw (ABI 1.6), each
 * with its percentiles; tls only when a session had TLS. */
static void json_phases(FILE *f, const struct sb_report *r)
{
    static const double pcts[] = {50, 95, 99};
    int n = 0;
    for (int p = 0; p < SB_CONN_NPHASES; p++) {
        const sb_histogram *h = r->connect_phase[p];
        if (h == NULL || sb_histogram_count(h) == 0)
            continue;
        fprintf(f, "%s\"%s\":", n++ ? "," : ",\"connection_phases_ms\":{", sb_conn_phase_names[p]);
        hist_obj(f, h, pcts, 3);
    }
    if (n > 0)
        fputc('}', f);
}

/* A name (a statement's, an event type's, an SQLSTATE a server sent) as
 * a JSON string, through lib/jsonw.c: escaped, and valid UTF-8 whatever
 * its bytes.  Names are short (39 bytes; 6 each escaped). */
static void json_name(FILE *f, const char *name)
{
    char buf[6 * 64 + 3];
    struct sb_jw w;
    sb_jw_init(&w, buf, sizeof buf);
    sb_jw_str(&w, name);
    fputs(w.truncated ? "\"\"" : buf, f);
}

/* A histogram whole, for sbench merge: exact count, min, max and sum in
 * ns, and its buckets as HdrHistogram's base64 V2 compressed encoding. */
static void hist_exact(FILE *f, const sb_histogram *h)
{
    if (h == NULL) { /* an event type without a histogram (out of memory) */
        fprintf(f, "null"); /* sbench merge refuses the file, naming the histogram */
        return;
    }
    size_t cap = sb_hdr_base64_bound(h) + 1;
    char *b64 = malloc(cap);
    if (b64 == NULL || sb_hdr_encode_base64(h, b64, cap) < 0) {
        free(b64);
        fprintf(f, "null"); /* sbench merge refuses the file, naming the histogram */
        return;
    }
    fprintf(f, "{\"count\":%llu,\"min_ns\":%lld,\"max_ns\":%lld,\"sum_ns\":%lld,\"hdr\":\"%s\"}",
            (unsigned long long)sb_histogram_count(h), (long long)sb_histogram_min(h),
            (long long)sb_histogram_max(h), (long long)sb_histogram_sum(h), b64);
    free(b64);
}

/* "merge_data": what sbench merge adds up exactly (docs/report-json.md). */
static void merge_data(FILE *f, const struct sb_report *r)
{
    fprintf(f, ",\"merge_data\":{\"latency\":");
    hist_exact(f, r->latency);
    fprintf(f, ",\"kinds\":{");
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", sb_qkind_names[k]);
        hist_exact(f, r->kind[k]);
    }
    fputc('}', f);
    if (r->connect) {
        fprintf(f, ",\"connect\":");
        hist_exact(f, r->connect);
    }
    if (r->lag) {
        fprintf(f, ",\"lag\":");
        hist_exact(f, r->lag);
    }
    fprintf(f, ",\"named\":[");
    for (int i = 0; i < r->nnamed; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_name(f, r->named_name[i]);
        fprintf(f, ",\"count\":%llu,\"latency\":", (unsigned long long)r->named_count[i]);
        hist_exact(f, r->named_latency[i]);
        fputc('}', f);
    }
    fputc(']', f);
    if (r->ntypes > 0) { /* sbench.event_type: each type's counts and latencies */
        fprintf(f, ",\"types\":[");
        for (int ty = 0; ty < r->ntypes; ty++) {
            fprintf(f, "%s{\"name\":", ty ? "," : "");
            json_name(f, r->type_name[ty]);
            fprintf(f, ",\"count\":%llu,\"retries\":%llu,\"failed\":%llu,\"units\":%llu,\"latency\":",
                    (unsigned long long)r->d.type_count[ty], (unsigned long long)r->d.type_retries[ty],
                    (unsigned long long)r->d.type_failed[ty], (unsigned long long)r->d.type_units[ty]);
            hist_exact(f, r->type_latency[ty]);
            fputc('}', f);
        }
        fputc(']', f);
    }
    fprintf(f, ",\"thread_events\":[");
    for (int i = 0; r->thread_events && i < r->threads; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->thread_events[i]);
    fprintf(f, "],\"thread_busy_ns\":[");
    for (int i = 0; r->thread_busy_ns && i < r->threads; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)r->thread_busy_ns[i]);
    fprintf(f, "],\"connects\":%llu,\"connect_ns\":%lld,\"pipelined\":%llu}",
            (unsigned long long)r->d.connects, (long long)r->d.connect_ns,
            (unsigned long long)r->d.pipelined);
}

static const double kind_pcts[] = {95, 99};

/* Counts, rates and latency statements of one kind (or name) as
 * {"count":..,"rate":..,"latency_ms":{..}}. */
static void json_kind(FILE *f, uint64_t count, double s, const sb_histogram *h,
                      const double *pcts, int npcts)
{
    fprintf(f, "{\"count\":%llu,\"rate\":", (unsigned long long)count);
    num(f, per_sec(count, s));
    fprintf(f, ",\"latency_ms\":");
    hist_obj(f, h, pcts, npcts);
    fputc('}', f);
}

/* Into kpcts (2 + SB_MAX_PERCENTILES_JSON long): p95, p99 and the
 * --percentiles list, ascending, each once.  Returns how many. */
static int kind_percentiles(const struct sb_report *r, double *kpcts)
{
    int nk = 0;
    kpcts[nk++] = 95;
    kpcts[nk++] = 99;
    for (int i = 0; i < r->npercentiles && i < SB_MAX_PERCENTILES_JSON; i++) {
        int seen = 0;
        for (int j = 0; j < nk; j++)
            seen |= kpcts[j] == r->percentiles[i];
        if (!seen)
            kpcts[nk++] = r->percentiles[i];
    }
    for (int i = 1; i < nk; i++) /* insertion sort: a few entries */
        for (int j = i; j > 0 && kpcts[j - 1] > kpcts[j]; j--) {
            double t = kpcts[j];
            kpcts[j] = kpcts[j - 1];
            kpcts[j - 1] = t;
        }
    return nk;
}

/* Statements by kind, by the names the workload gave them, and
 * transactions by type. */
static void json_statements(FILE *f, const struct sb_report *r, double s)
{
    double kpcts[2 + SB_MAX_PERCENTILES_JSON];
    int nk = kind_percentiles(r, kpcts);
    fprintf(f, ",\"kinds\":{");
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", sb_qkind_names[k]);
        json_kind(f, r->d.queries[k], s, r->kind[k], kpcts, nk);
    }
    fprintf(f, "}");
    if (r->nnamed > 0) {
        fprintf(f, ",\"named\":{");
        for (int i = 0; i < r->nnamed; i++) {
            fprintf(f, "%s", i ? "," : "");
            json_name(f, r->named_name[i]);
            fputc(':', f);
            json_kind(f, r->named_count[i], s, r->named_latency[i], kind_pcts, 2);
        }
        fputc('}', f);
    }
    if (r->ntypes > 0) { /* sbench.event_type: transactions by type */
        const struct sb_snapshot *d = &r->d;
        fprintf(f, ",\"types\":{");
        for (int ty = 0; ty < r->ntypes; ty++) {
            fprintf(f, "%s", ty ? "," : "");
            json_name(f, r->type_name[ty]);
            fprintf(f, ":{\"count\":%llu,\"retries\":%llu,\"failed\":%llu,\"units\":%llu,\"rate\":",
                    (unsigned long long)d->type_count[ty], (unsigned long long)d->type_retries[ty],
                    (unsigned long long)d->type_failed[ty], (unsigned long long)d->type_units[ty]);
            num(f, per_sec(d->type_count[ty], s));
            fprintf(f, ",\"latency_ms\":");
            hist_obj(f, r->type_latency[ty], kind_pcts, 2);
            fputc('}', f);
        }
        fputc('}', f);
    }
}

/* Threads and clients fairness (final report). */
static void json_fairness(FILE *f, const struct sb_report *r)
{
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
}

/* The server's counters: a count, or null when unknown (the server does
 * not have it, or "reset": its counters started again during the run). */
static void json_server(FILE *f, const struct sb_report *r)
{
    struct sbd_server_counters v = r->server;
    fprintf(f, ",\"server\":{");
    if (r->server_reset)
        fprintf(f, "\"reset\":true,");
    for (int i = 0; i < SB_SERVER_COUNTERS; i++) {
        int64_t x = *sb_server_counter_at(&v, i);
        fprintf(f, "%s\"%s\":", i ? "," : "", sb_server_counter_names[i]);
        if (x >= 0)
            fprintf(f, "%lld", (long long)x);
        else
            fprintf(f, "null");
    }
    fputc('}', f);
}

/* Errors, connections, pipelining, schedule lag, the server's counters. */
static void json_extras(FILE *f, const struct sb_report *r)
{
    const struct sb_snapshot *d = &r->d;
    fprintf(f, ",\"errors\":[");
    for (int i = 0; i < d->nerrors; i++) {
        fprintf(f, "%s{\"sqlstate\":", i ? "," : "");
        json_name(f, d->errors[i].sqlstate);
        fprintf(f, ",\"native_code\":%ld,\"ignored\":%llu,\"fatal\":%llu}", d->errors[i].native_code,
                (unsigned long long)d->errors[i].ignored, (unsigned long long)d->errors[i].fatal);
    }
    fprintf(f, "]");
    if (r->connect) {
        fprintf(f, ",\"connection_time_ms\":");
        hist_obj(f, r->connect, kind_pcts, 1);
        json_phases(f, r);
    }
    if (r->pipeline > 0)
        fprintf(f, ",\"pipeline\":{\"depth\":%d,\"pipelined\":%llu}", r->pipeline,
                (unsigned long long)d->pipelined);
    if (r->lag) {
        fprintf(f, ",\"schedule_lag_ms\":");
        hist_obj(f, r->lag, kind_pcts, 2);
    }
    json_fairness(f, r);
    if (r->unfinished)
        fprintf(f, ",\"unfinished_on_forced_shutdown\":%d", r->unfinished);
    if (r->server_counters_valid)
        json_server(f, r);
    sb_sampled_json(f, r->sampled, r->sampled_why, (double)r->d.events, r->seconds);
}

/* The final line's "phases": one summary per phase (report_phases.h);
 * with merge_data, each phase's latencies whole, for sbench merge. */
static void phases_json(FILE *f, const struct sb_phase_report *r, int merge_data)
{
    if (r == NULL)
        return;
    fprintf(f, ",\"phases\":[");
    for (int i = 0; i < r->n; i++) {
        const struct sb_phase_summary *s = &r->s[i];
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_name(f, s->name);
        fprintf(f, ",\"start\":%.6f,\"end\":%.6f,\"%s\":%.6f,\"transactions\":%llu,\"tps\":%.6f,"
                   "\"failed_transactions\":%llu,\"ignored_errors\":%llu,"
                   "\"latency_ms\":{\"p50\":%.6f,\"p95\":%.6f,\"p99\":%.6f,\"max\":%.6f}",
                s->start, s->end, r->clients ? "clients" : "asked_rate", s->asked,
                (unsigned long long)s->events, s->tps, (unsigned long long)s->failed,
                (unsigned long long)s->ignored_errors, s->p50_ms, s->p95_ms, s->p99_ms, s->max_ms);
        if (merge_data) {
            fprintf(f, ",\"merge_data\":{\"latency\":");
            hist_exact(f, s->lat);
            fputc('}', f);
        }
        fputc('}', f);
    }
    fprintf(f, "]");
}

/* One JSON object on one line; type is "interval" or "final"; meta (may
 * be NULL) is a JSON object text written as "run". */
static void json_report(FILE *f, const struct sb_report *r, const char *type, const char *meta)
{
    const struct sb_snapshot *d = &r->d;
    double s = r->seconds;
    fprintf(f, "{\"type\":\"%s\",\"time\":", type);
    num(f, r->elapsed);
    fprintf(f, ",\"seconds\":");
    num(f, s);
    if (r->last_window)
        fprintf(f, ",\"last\":true");
    if (r->phase) {
        fprintf(f, ",\"phase\":");
        json_name(f, r->phase);
    }
    fprintf(f, ",\"threads\":%d,\"transactions\":%llu,\"tps\":", r->threads,
            (unsigned long long)d->events);
    num(f, per_sec(d->events, s));
    /* events a script counted itself (SB_CNT_TRX): no latency, so a
     * reader can check transactions = latency_ms.count + these */
    uint64_t timed = r->latency ? sb_histogram_count(r->latency) : 0;
    if (d->events > timed)
        fprintf(f, ",\"script_transactions\":%llu", (unsigned long long)(d->events - timed));
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
    if (r->npercentiles > 0)
        hist_obj(f, r->latency, r->percentiles, r->npercentiles);
    else
        hist_obj(f, r->latency, &one, one > 0 ? 1 : 0);
    json_statements(f, r, s);
    json_extras(f, r);
    if (r->sections) { /* the workload's declared sections, for sbench merge */
        fprintf(f, ",\"report_sections\":");
        sb_report_sections_json(f, r->sections);
    }
    if (r->merge_data)
        merge_data(f, r);
    phases_json(f, r->phases, r->merge_data); /* NULL: nothing */
    if (meta)
        fprintf(f, ",\"run\":%s", meta);
    fprintf(f, "}\n");
    fflush(f);
}

static void json_interval(FILE *f, const struct sb_report *r, int nth)
{
    (void)nth;
    json_report(f, r, "interval", NULL);
}

static void json_final(FILE *f, const struct sb_report *r, const char *meta, int nth)
{
    (void)nth;
    json_report(f, r, "final", meta);
}

/* sysbench 1.0's sysbench.report_json: one JSON array of its own objects
 * (not the ones above), an element per call, closed at the end of the run
 * by json_hook_end. */
static void json_hook_line(FILE *f, const struct sb_report_stat *st, int nth)
{
    double s = st->time_interval;
    fputs(nth == 0 ? "[\n" : ",\n", f);
    fprintf(f,
            "  {\n"
            "    \"time\": %4.0f,\n"
            "    \"threads\": %.0f,\n"
            "    \"tps\": %4.2f,\n"
            "    \"qps\": {\n"
            "      \"total\": %4.2f,\n"
            "      \"reads\": %4.2f,\n"
            "      \"writes\": %4.2f,\n"
            "      \"other\": %4.2f\n"
            "    },\n"
            "    \"latency\": %4.2f,\n"
            "    \"errors\": %4.2f,\n"
            "    \"reconnects\": %4.2f\n"
            "  }",
            st->time_total, st->threads_running, per_sec_d(st->events, s),
            per_sec_d(st->reads + st->writes + st->other, s), per_sec_d(st->reads, s),
            per_sec_d(st->writes, s), per_sec_d(st->other, s), st->latency_pct * 1000,
            per_sec_d(st->errors, s), per_sec_d(st->reconnects, s));
    fflush(f);
}

static void json_hook_end(FILE *f)
{
    fputs("\n]\n", f);
    fflush(f);
}

const struct sb_report_format sb_report_json = {
    .name = "json",
    .interval = json_interval,
    .final = json_final,
    .hook_name = "report_json",
    .hook_line = json_hook_line,
    .hook_end = json_hook_end,
};
