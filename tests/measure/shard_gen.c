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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdr_log.h"
#include "histogram.h"
#include "report.h"
#include "shard.h"
#include "stats.h"

static const double pcts[] = {50, 90, 95, 99, 99.9, 99.99};
#define NPCTS 6
#define T0 1767000000.0

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
    extern const struct sb_report_format sb_report_json;
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
    fclose(ef);
    return 0;
}
