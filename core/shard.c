/*
 * shard.c: a run as one shard of a group (see shard.h): its share of the
 * load applied to the run, and its clock (--start-at, where measuring
 * started, the CPU it used).  The pure parts are in shard_id.c.
 */
#include "shard.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "../lib/options.h"
#include "report.h"
#include "run.h"


/* ---- the run's share ---- */

/* path with every {shard} replaced by the index, into out; -1 if too long. */
static int expand_path(const char *path, int index, char *out, size_t len)
{
    size_t u = 0;
    for (const char *p = path; *p;) {
        int n;
        if (strncmp(p, "{shard}", 7) == 0) {
            n = snprintf(out + u, len - u, "%d", index);
            p += 7;
        } else {
            n = snprintf(out + u, len - u, "%c", *p++);
        }
        if (n < 0 || (size_t)n >= len - u)
            return -1;
        u += (size_t)n;
    }
    out[u] = 0;
    return 0;
}

static int64_t epoch_ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

int sb_shard_apply(struct sb_run *run, char *err, size_t errlen)
{
    struct sb_shard *s = &run->shard;
    const struct sb_options *o = run->opts;
    if (sb_shard_identify(s, o, env_get, err, errlen) != 0)
        return -1;
    const char *start = sb_opt_str(o, "start-at");
    if (start && *start) {
        if (sb_parse_start_at(start, &s->start_at_ns) != 0) {
            snprintf(err, errlen, "invalid value '%.60s' for --start-at: expected seconds since the "
                     "epoch (date +%%s) or YYYY-MM-DDTHH:MM:SSZ (date -u +%%FT%%TZ)", start);
            return -1;
        }
        int64_t late = epoch_ns_now() - s->start_at_ns;
        if (strcmp(run->command, "run") == 0 && late > 1000000000LL) {
            snprintf(err, errlen, "--start-at=%.60s passed %.1f s ago: give a time far enough ahead "
                     "for every shard to be connected", start, (double)late / 1e9);
            return -1;
        }
    }
    s->run_seed = run->rand.seed;
    s->total_rate = run->rate;
    s->total_events = run->event_limit;
    if (sb_shard_settings_digest(o, s->settings) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (run->output_path) {
        if (expand_path(run->output_path, s->index, s->output, sizeof s->output) != 0) {
            snprintf(err, errlen, "--output: the path is too long");
            return -1;
        }
        run->output_path = s->output;
    }
    if (run->hdr_log_path) {
        if (expand_path(run->hdr_log_path, s->index, s->hdr_log, sizeof s->hdr_log) != 0) {
            snprintf(err, errlen, "--hdr-log: the path is too long");
            return -1;
        }
        run->hdr_log_path = s->hdr_log;
    }
    if (!s->given)
        return 0;
    if (strcmp(run->command, "run") == 0 &&
        (!run->output_path || !run->hdr_log_path ||
         strcmp(run->report_format->name, "json") != 0)) {
        snprintf(err, errlen, "shard %d of %d (from %s) writes what 'sbench merge' reads: give "
                 "--report-format=json --output=FILE --hdr-log=FILE ({shard} in a path is the index)",
                 s->index, s->count, s->source);
        return -1;
    }
    /* the group's totals, split: rates evenly, events so that the shares
     * add up to the total exactly */
    run->rate = s->total_rate / s->count;
    run->paced = run->rate > 0 || run->reconnect_per_event;
    if (s->total_events) {
        uint64_t n = (uint64_t)s->count;
        run->event_limit = s->total_events / n + ((uint64_t)s->index < s->total_events % n);
        if (run->event_limit == 0) {
            snprintf(err, errlen, "--events=%llu is fewer than the %d shards",
                     (unsigned long long)s->total_events, s->count);
            return -1;
        }
    }
    run->rand.seed = sb_shard_seed(run->rand.seed, s->index, s->count);
    if (s->index != 0) /* the server's counters are read and sampled once, by shard 0 */
        run->server_counters = run->server_metrics = 0;
    return 0;
}

/* ---- the clock ---- */

double sb_epoch_of_mono(int64_t mono)
{
    int64_t m = sb_now_ns(), e = epoch_ns_now();
    return (double)(e + (mono - m)) / 1e9;
}

int64_t sb_shard_wait_start(const struct sb_shard *s)
{
    int64_t target = sb_now_ns() + (s->start_at_ns - epoch_ns_now());
    int64_t now = sb_now_ns();
    if (now - target > 1000000000LL) {
        fprintf(stderr, "sbench: --start-at passed %.1f s before this shard's workers were ready: "
                "start later (shard %d of %d)\n", (double)(now - target) / 1e9, s->index, s->count);
        return -1;
    }
    while (now < target && !sb_interrupted) {
        int64_t d = target - now;
        sb_sleep_ns(d > 50000000LL ? 50000000LL : d);
        now = sb_now_ns();
    }
    return sb_interrupted ? -1 : target;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

void sb_shard_mark_start(struct sb_shard *s, int64_t mono)
{
    s->measure_start = sb_epoch_of_mono(mono);
    s->cpu_start = cpu_seconds();
}

void sb_shard_mark_end(struct sb_shard *s)
{
    s->cpu_s = cpu_seconds() - s->cpu_start;
}
