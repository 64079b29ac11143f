/*
 * shard_gen.c: writes the files of a synthetic sharded run with sbench's
 * own writers (core/report_json.c, core/hdr_log.c) and what one process
 * fed with every sample would have reported, for sbench merge's exactness
 * test (tests/measure/merge_exact.sh) and its benchmark (bench/merge.sh).
 *
 *   shard_gen DIR SHARDS WINDOWS EVENTS_PER_WINDOW SEED
 *
 * writes DIR/shard-I.json and DIR/shard-I.hlog for I in 0..SHARDS-1 (one
 * run id, 1-second windows on one grid, latencies log-normal with a tail,
 * shard I slower by I * 5%), and DIR/expected.txt: "count N", "min NS",
 * "max NS", "sum NS", "pP NS" for the --percentiles list, then "window K
 * COUNT P99NS" per window, from one histogram per window and one for the
 * run that every sample went into (not from the shards' files).
 *
 * Events have TPC-C's type names (sbench.event_type), a different set per
 * shard (shard I draws from set I % 3; set 2 leaves a tenth of its events
 * untyped), with retries and failures; expected.txt adds "type NAME COUNT
 * RETRIES FAILED MIN MAX SUM P95 P99" per type from one histogram per type
 * fed every shard's samples, and DIR/expected-text.txt is the text report
 * one process that ran every event would print (sbench's own text writer
 * on those histograms, types in the order the shards first name them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/hdr_log.h"
#include "../../core/histogram.h"
#include "../../core/report.h"
#include "../../core/shard.h"
#include "../../core/stats.h"

static const double pcts[] = {50, 90, 95, 99, 99.9, 99.99};
#define NPCTS 6
#define T0 1767000000.0

/* The event types (the tpcc workload's, so the text report's TPC-C
 * section is printed too) and each shard's set of them, by index into
 * type_names; -1 ends a set. */
static const char *const type_names[] = {"new_order", "payment", "order_status", "delivery",
                                         "stock_level", "new_order_rollback"};
#define NTYPES 6
static const int type_sets[3][4] = {{0, 1, 2, -1}, {1, 3, 5, 0}, {4, 0, -1, -1}};

/* Events by type: one shard's (as its run reports them), or every
 * shard's (one histogram per type fed every sample); order: the types in
 * the order they were first named. */
struct typed {
    sb_histogram *lat[NTYPES];
    uint64_t retries[NTYPES], failed[NTYPES];
    int order[NTYPES], n;
};

static uint64_t rng;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* log-normal around 2 ms, 1% of a slow tail up to seconds */
static int64_t latency(double slow)
{
    double z = sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
    double v = 2e6 * exp(0.6 * z) * slow;
    if (uniform() < 0.01)
        v *= 20 + 200 * uniform();
    return (int64_t)v;
}

static sb_histogram *hist(void)
{
    return sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, 0.01);
}

/* The type of shard s's next event (index into type_names), or -1. */
static int pick_type(int s)
{
    const int *set = type_sets[s % 3];
    int n = 0;
    while (n < 4 && set[n] >= 0)
        n++;
    if (s % 3 == 2 && uniform() < 0.1)
        return -1;
    return set[(int)(uniform() * n)];
}

/* An event of type ty took v ns. */
static void type_event(struct typed *t, int ty, int64_t v)
{
    if (t->lat[ty] == NULL) {
        t->lat[ty] = hist();
        t->order[t->n++] = ty;
    }
    sb_histogram_record(t->lat[ty], v);
}

/* The report section the shards declare (as workloads/tpcc.lua does, one
 * row of each kind), for the merged and the one-process text alike. */
static const struct sb_report_sections *declared_sections(void)
{
    static struct sb_report_sections all;
    if (all.n > 0)
        return &all;
    static const struct sb_section_row rows[] = {
        {SB_ROW_PER_MINUTE, "NOPM (New-Orders committed/min):", "new_order", "", 0, 0, 0, 0, 0, 0},
        {SB_ROW_PER_MINUTE, "TPM (transactions/min):", "*", "", 0, 0, 0, 0, 0, 0},
        {SB_ROW_SHARE, "New-Orders rolled back:", "new_order_rollback", "new_order,new_order_rollback", 0, 0, 1, 0, 0, 0},
        {SB_ROW_SHARE, "District deliveries (units):", "delivery", "delivery", 0, 0, 0, 1, 10, 0},
        {SB_ROW_MIX, "mix, retries and failures per type:",
         "new_order,payment,order_status,delivery,stock_level,new_order_rollback", "", 0, 0, 0, 0, 0, 0},
        {SB_ROW_PERCENTILE, "New-Order 90th percentile:", "new_order", "", 90, 5000, 0, 0, 0, 0},
        {SB_ROW_PERCENTILE, "Stock-Level 99th percentile:", "stock_level", "", 99, 0.5, 0, 0, 0, 0},
    };
    struct sb_report_section sec = {.title = "TPC-C (a TPC-C-like workload, not an audited tpmC):"};
    sec.nrows = (int)(sizeof rows / sizeof rows[0]);
    memcpy(sec.rows, rows, sizeof rows);
    char err[200];
    if (sb_report_sections_add(&all, &sec, err, sizeof err) < 0) {
        fprintf(stderr, "shard_gen: %s\n", err);
        exit(1);
    }
    return &all;
}

/* r's types: t's, in the order they were first named; the declared
 * sections. */
static void report_types(struct sb_report *r, const struct typed *t)
{
    r->sections = declared_sections();
    r->ntypes = r->d.ntypes = t->n;
    for (int i = 0; i < t->n; i++) {
        int ty = t->order[i];
        r->type_name[i] = type_names[ty];
        r->type_latency[i] = t->lat[ty];
        r->d.type_count[i] = sb_histogram_count(t->lat[ty]);
        r->d.type_retries[i] = t->retries[ty];
        r->d.type_failed[i] = t->failed[ty];
        r->d.type_units[i] = r->d.type_count[i]; /* 1 per event */
    }
}

static void report_of(struct sb_report *r, const sb_histogram *lat, const sb_histogram *const *kind,
                      double seconds, int threads)
{
    memset(r, 0, sizeof *r);
    r->seconds = seconds;
    r->threads = threads;
    r->d.events = r->d.queries[SB_Q_SELECT] = sb_histogram_count(lat);
    r->latency = lat;
    r->percentile = 95;
    r->percentiles = pcts;
    r->npercentiles = NPCTS;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        r->kind[k] = kind[k];
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: shard_gen DIR SHARDS WINDOWS EVENTS_PER_WINDOW SEED\n");
        return 2;
    }
    const char *dir = argv[1];
    int nsh = atoi(argv[2]), nw = atoi(argv[3]), per = atoi(argv[4]);
    rng = strtoull(argv[5], NULL, 10) | 1;
    if (nsh < 1 || nw < 1 || per < 0)
        return 2;
    extern const struct sb_report_format sb_report_json, sb_report_text;
    struct typed alltypes = {0};
    uint64_t allfailed = 0;
    sb_histogram *all = hist(), **allw = calloc((size_t)nw, sizeof *allw);
    for (int w = 0; w < nw; w++)
        allw[w] = hist();
    char path[4096], meta[4096], shardj[512], tag[256];
    for (int s = 0; s < nsh; s++) {
        struct sb_shard sh = {.given = 1, .index = s, .count = nsh, .source = "--shard",
                              .run_id = "gen-1", .settings = "0123456789abcdef", .run_seed = 1,
                              .measure_start = T0, .cpu_s = 0.5 + s * 0.01};
        snprintf(path, sizeof path, "%s/shard-%d.json", dir, s);
        FILE *jf = fopen(path, "w");
        snprintf(path, sizeof path, "%s/shard-%d.hlog", dir, s);
        char err[256];
        struct sb_hdr_log *log = sb_hdr_log_open(path, T0, err, sizeof err);
        if (!jf || !log) {
            fprintf(stderr, "shard_gen: cannot write in %s\n", dir);
            return 1;
        }
        sb_shard_hlog_tag(&sh, tag, sizeof tag);
        sb_hdr_log_comment(log, tag);
        sb_histogram *tot = hist(), *win = hist(), *empty = hist();
        struct typed types = {0};
        uint64_t failed = 0;
        const sb_histogram *kinds[SB_Q_NKINDS], *wkinds[SB_Q_NKINDS];
        for (int k = 0; k < SB_Q_NKINDS; k++)
            kinds[k] = wkinds[k] = empty;
        kinds[SB_Q_SELECT] = tot;
        wkinds[SB_Q_SELECT] = win;
        struct sb_report r;
        for (int w = 0; w < nw; w++) {
            sb_histogram_reset(win);
            for (int e = 0; e < per; e++) {
                int64_t v = latency(1.0 + 0.05 * s);
                sb_histogram_record(win, v);
                sb_histogram_record(tot, v);
                sb_histogram_record(all, v);
                sb_histogram_record(allw[w], v);
                int ty = pick_type(s);
                if (ty < 0)
                    continue;
                type_event(&types, ty, v);
                type_event(&alltypes, ty, v);
                if (uniform() < 0.05) { /* restarted once before it completed */
                    types.retries[ty]++;
                    alltypes.retries[ty]++;
                }
                if (uniform() < 0.01) { /* and another one given up */
                    types.failed[ty]++;
                    alltypes.failed[ty]++;
                    failed++;
                    allfailed++;
                }
            }
            report_of(&r, win, wkinds, 1.0, 2);
            r.elapsed = w + 1;
            r.last_window = w == nw - 1;
            sb_report_json.interval(jf, &r, w);
            sb_hdr_log_write(log, w, 1.0, win);
        }
        report_of(&r, tot, kinds, nw, 2);
        r.elapsed = nw;
        r.connect = empty;
        uint64_t te[2] = {sb_histogram_count(tot) / 2, sb_histogram_count(tot) - sb_histogram_count(tot) / 2};
        int64_t busy[2] = {(int64_t)nw * 1000000000, (int64_t)nw * 1000000000};
        r.thread_events = te;
        r.thread_busy_ns = busy;
        r.merge_data = 1;
        r.d.failed_events = failed;
        report_types(&r, &types);
        sb_shard_meta_json(&sh, shardj, sizeof shardj);
        snprintf(meta, sizeof meta,
                 "{\"sbench_version\":\"gen\",\"driver\":\"null\",\"client_version\":\"\",\"server_version\":\"\","
                 "\"workload\":\"gen\",\"script\":\"gen\",\"random_seed\":18446744073709551615,"
                 "\"host\":{\"cpus\":2,\"memory_bytes\":0,\"name\":\"gen-%d\",\"kernel\":\"\",\"os\":\"gen\","
                 "\"arch\":\"gen\",\"cpu_model\":\"gen\",\"clocksource\":\"tsc\",\"fs\":{\"type\":\"tmpfs\","
                 "\"device\":\"gen\",\"mount\":\"/\",\"total_bytes\":0,\"free_bytes\":0,\"available_bytes\":0}},"
                 "\"start_time\":\"2026-01-01T00:00:00Z\",\"end_time\":\"2026-01-01T00:10:00Z\","
                 "\"options\":{\"histogram-precision\":\"0.01\",\"report-interval\":\"1\",\"percentile\":\"95\","
                 "\"percentiles\":\"50,90,95,99,99.9,99.99\",\"threads\":\"2\",\"shard\":\"%d/%d\"},\"shard\":%s}",
                 s, s, nsh, shardj);
        sb_report_json.final(jf, &r, meta, nw);
        if (fclose(jf) != 0 || sb_hdr_log_close(log) != 0) {
            fprintf(stderr, "shard_gen: writing failed\n");
            return 1;
        }
        sb_histogram_destroy(tot);
        sb_histogram_destroy(win);
        sb_histogram_destroy(empty);
        for (int ty = 0; ty < NTYPES; ty++)
            sb_histogram_destroy(types.lat[ty]);
    }
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    FILE *ef = fopen(path, "w");
    fprintf(ef, "count %llu\nmin %lld\nmax %lld\nsum %lld\n", (unsigned long long)sb_histogram_count(all),
            (long long)sb_histogram_min(all), (long long)sb_histogram_max(all),
            (long long)sb_histogram_sum(all));
    for (int i = 0; i < NPCTS; i++)
        fprintf(ef, "p%g %lld\n", pcts[i], (long long)sb_histogram_percentile(all, pcts[i]));
    for (int w = 0; w < nw; w++)
        fprintf(ef, "window %d %llu %lld\n", w, (unsigned long long)sb_histogram_count(allw[w]),
                (long long)sb_histogram_percentile(allw[w], 99));
    for (int i = 0; i < alltypes.n; i++) {
        int ty = alltypes.order[i];
        const sb_histogram *h = alltypes.lat[ty];
        fprintf(ef, "type %s %llu %llu %llu %lld %lld %lld %lld %lld\n", type_names[ty],
                (unsigned long long)sb_histogram_count(h), (unsigned long long)alltypes.retries[ty],
                (unsigned long long)alltypes.failed[ty], (long long)sb_histogram_min(h),
                (long long)sb_histogram_max(h), (long long)sb_histogram_sum(h),
                (long long)sb_histogram_percentile(h, 95), (long long)sb_histogram_percentile(h, 99));
    }
    fclose(ef);
    /* the text report of one process that ran every event */
    const sb_histogram *kinds[SB_Q_NKINDS];
    sb_histogram *empty = hist();
    for (int k = 0; k < SB_Q_NKINDS; k++)
        kinds[k] = k == SB_Q_SELECT ? all : empty;
    struct sb_report r;
    report_of(&r, all, kinds, nw, 2 * nsh);
    r.elapsed = nw;
    r.d.failed_events = allfailed;
    report_types(&r, &alltypes);
    snprintf(path, sizeof path, "%s/expected-text.txt", dir);
    FILE *tf = fopen(path, "w");
    if (!tf) {
        fprintf(stderr, "shard_gen: cannot write in %s\n", dir);
        return 1;
    }
    sb_report_text.final(tf, &r, NULL, 0);
    if (fclose(tf) != 0) {
        fprintf(stderr, "shard_gen: writing failed\n");
        return 1;
    }
    return 0;
}
