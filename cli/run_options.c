/*
 * The run command's options read into struct sb_run once, before the
 * engine starts (run_options.h): limits, rate, retries and reconnects,
 * the ignored SQLSTATEs, --forced-shutdown, --report-checkpoints, the
 * random numbers and the outputs.  Split from main.c, which wires the
 * programs together.
 */
#include "run_options.h"

#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/prometheus.h"
#include "../core/rate_profile.h"
#include "../core/report.h"
#include "../core/run.h"
#include "../lib/options.h"
#include "../lib/rand.h"

int sb_cli_parse_rand(struct sb_run *run)
{
    struct sb_options *o = run->opts;
    const char *t = sb_opt_str(o, "rand-type");
    static const char *names[] = {"uniform", "gaussian", "special", "pareto", "zipfian"};
    run->rand.kind = SB_RAND_SPECIAL;
    for (int i = 0; i < 5; i++)
        if (strcmp(t, names[i]) == 0)
            run->rand.kind = i;
    run->rand.spec_iter = (int)sb_opt_int(o, "rand-spec-iter");
    run->rand.spec_pct = sb_opt_num(o, "rand-spec-pct");
    run->rand.spec_res = sb_opt_num(o, "rand-spec-res");
    run->rand.pareto_h = sb_opt_num(o, "rand-pareto-h");
    run->rand.zipf_exp = sb_opt_num(o, "rand-zipfian-exp");
    run->rand.seed = (uint64_t)sb_opt_int(o, "rand-seed");
    return 0;
}

/* --forced-shutdown: off, N seconds, or N% of --time. */
static int parse_forced_shutdown(struct sb_run *run, char *err, size_t errlen)
{
    const char *v = sb_opt_str(run->opts, "forced-shutdown");
    run->forced_shutdown_ns = -1;
    if (v == NULL || strcmp(v, "off") == 0)
        return 0;
    char *end;
    double d = strtod(v, &end);
    if (end == v || d < 0 || d > 1e8 || (*end && strcmp(end, "%") != 0)) {
        snprintf(err, errlen, "invalid value '%.40s' for --forced-shutdown: expected off, seconds or N%%", v);
        return -1;
    }
    if (*end == '%')
        d = run->time_limit * d / 100.0;
    run->forced_shutdown_ns = (int64_t)(d * 1e9);
    return 0;
}

/* --report-checkpoints: whole seconds since the start, sorted (sysbench
 * sorts them too). */
static int parse_checkpoints(struct sb_run *run, char *err, size_t errlen)
{
    const char *list = sb_opt_str(run->opts, "report-checkpoints");
    run->ncheckpoints = 0;
    for (const char *p = list; p && *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 100000000 || (*end && *end != ',') || !isdigit((unsigned char)*p)) {
            snprintf(err, errlen, "invalid --report-checkpoints list '%.200s': whole seconds "
                     "separated by commas", list);
            return -1;
        }
        if (run->ncheckpoints == SB_MAX_CHECKPOINTS) {
            snprintf(err, errlen, "invalid --report-checkpoints list: at most %d checkpoints",
                     SB_MAX_CHECKPOINTS);
            return -1;
        }
        int i = run->ncheckpoints++;
        while (i > 0 && run->checkpoints[i - 1] > (double)v) { /* insertion sort */
            run->checkpoints[i] = run->checkpoints[i - 1];
            i--;
        }
        run->checkpoints[i] = (double)v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* --db-ignore-sqlstates into run->ignore_sqlstates: a comma list of
 * 5-character SQLSTATEs (empty entries skipped).  0, or -1 with one line
 * in err. */
static int parse_ignore_sqlstates(struct sb_run *run, char *err, size_t errlen)
{
    const char *p = sb_opt_str(run->opts, "db-ignore-sqlstates");
    run->nignore_sqlstates = 0;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        int ok = n == 5;
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)p[i]);
        if (n > 0 && !ok) {
            snprintf(err, errlen,
                     "invalid --db-ignore-sqlstates entry '%.*s': a SQLSTATE is 5 letters or digits",
                     (int)(n > 40 ? 40 : n), p);
            return -1;
        }
        if (n > 0) {
            if (run->nignore_sqlstates == SB_MAX_IGNORE_SQLSTATES) {
                snprintf(err, errlen, "invalid --db-ignore-sqlstates list: at most %d SQLSTATEs",
                         SB_MAX_IGNORE_SQLSTATES);
                return -1;
            }
            memcpy(run->ignore_sqlstates[run->nignore_sqlstates++], p, 5);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* The options of the run command the run loop and workers use. */
void sb_cli_read_run_options(struct sb_run *run)
{
    const struct sb_options *o = run->opts;
    run->time_limit = (double)sb_opt_int(o, "time");
    run->event_limit = (uint64_t)sb_opt_int(o, "events");
    run->report_interval = sb_opt_num(o, "report-interval");
    run->warmup = (double)sb_opt_int(o, "warmup-time");
    run->percentile = sb_opt_num(o, "percentile");
    run->max_retries = (int)sb_opt_int(o, "max-retries");
    run->db_reconnect = sb_opt_bool(o, "db-reconnect");
    run->reconnect_per_event = strcmp(sb_opt_str(o, "reconnect"), "transaction") == 0;
    run->rate = sb_opt_num(o, "rate");
    run->rate_backlog_max = (double)sb_opt_int(o, "rate-backlog-max");
    run->rate_fixed = strcmp(sb_opt_str(o, "rate-distribution"), "fixed") == 0;
    run->paced = run->rate > 0 || run->reconnect_per_event;
    run->latency_limit_ns = (int64_t)(sb_opt_num(o, "latency-limit") * 1e6);
    run->clients_given = sb_opt_is_set(o, "clients");
    run->want_pipeline = (int)sb_opt_int(o, "pipeline");
    const char *io = sb_opt_str(o, "io");
    run->want_io = io && strcmp(io, "poll") == 0 ? SB_IO_POLL
                   : io && strcmp(io, "uring") == 0 ? SB_IO_URING : SB_IO_AUTO;
    run->server_counters = sb_opt_bool(o, "db-server-counters");
    run->server_metrics = sb_opt_bool(o, "server-metrics");
    run->server_settings = sb_opt_bool(o, "db-server-settings");
}

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

/* The outputs of the run command: --report-format, --percentiles,
 * --output, --hdr-log, --prometheus, --histogram.  Returns 0, or -1 with
 * one line in err (a usage error). */
static int parse_outputs(struct sb_run *run, char *err, size_t errlen)
{
    struct sb_options *o = run->opts;
    const char *fmt = sb_opt_str(o, "report-format");
    run->report_format = sb_report_format_find(fmt);
    if (run->report_format == NULL) { /* the choices checked it already */
        snprintf(err, errlen, "invalid value '%.40s' for --report-format", fmt);
        return -1;
    }
    const char *list = sb_opt_str(o, "percentiles");
    run->npercentiles = sb_report_parse_percentiles(list, run->percentiles, SB_MAX_PERCENTILES);
    if (run->npercentiles == -2) {
        snprintf(err, errlen, "invalid --percentiles list '%.200s': at most %d numbers", list,
                 SB_MAX_PERCENTILES);
        return -1;
    }
    if (run->npercentiles < 0) {
        snprintf(err, errlen, "invalid --percentiles list '%.200s': numbers in (0, 100] separated by commas",
                 list);
        return -1;
    }
    run->output_path = nonempty(sb_opt_str(o, "output"));
    run->hdr_log_path = nonempty(sb_opt_str(o, "hdr-log"));
    run->prom_addr = nonempty(sb_opt_str(o, "prometheus"));
    char msg[512];
    if (run->prom_addr && sb_prom_check_addr(run->prom_addr, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "--prometheus: %s", msg);
        return -1;
    }
    run->histogram = sb_opt_bool(o, "histogram");
    return 0;
}

/* --rate-profile: parsed once; --rate becomes its peak (so every check
 * of run->rate > 0 sees a paced run), and without --time the run lasts
 * the profile (warm-up included). */
static int parse_rate_profile(struct sb_run *run, char *err, size_t errlen)
{
    const char *spec = nonempty(sb_opt_str(run->opts, "rate-profile"));
    if (spec == NULL)
        return 0;
    if (sb_opt_is_set(run->opts, "rate")) {
        snprintf(err, errlen, "--rate and --rate-profile cannot be given together (a profile sets the rate)");
        return -1;
    }
    struct sb_rate_profile *rp = sb_rate_profile_parse(spec, "--rate-profile", err, errlen);
    if (rp == NULL)
        return -1;
    if (rp->peak <= 0) {
        sb_rate_profile_free(rp);
        snprintf(err, errlen, "invalid --rate-profile '%.200s': its rate is 0 throughout", spec);
        return -1;
    }
    run->rate_profile = rp; /* the process's lifetime */
    run->rate = rp->peak;
    run->paced = 1;
    if (!sb_opt_is_set(run->opts, "time"))
        run->time_limit = ceil(rp->length - run->warmup) > 1 ? ceil(rp->length - run->warmup) : 1;
    return 0;
}

/* --clients-profile: the same grammar, its values clients, at most
 * --clients (or --threads without it). */
static int parse_clients_profile(struct sb_run *run, char *err, size_t errlen)
{
    const char *spec = nonempty(sb_opt_str(run->opts, "clients-profile"));
    if (spec == NULL)
        return 0;
    struct sb_rate_profile *cp = sb_rate_profile_parse(spec, "--clients-profile", err, errlen);
    if (cp == NULL)
        return -1;
    if (cp->peak > run->clients + 0.5 || cp->peak < 0.5) {
        snprintf(err, errlen, "invalid --clients-profile '%.200s': it asks up to %.0f clients; from 1 to "
                 "--clients (%d) may be active", spec, cp->peak, run->clients);
        sb_rate_profile_free(cp);
        return -1;
    }
    run->clients_profile = cp; /* the process's lifetime */
    run->paced = 1;
    double length = run->rate_profile && run->rate_profile->length > cp->length ? run->rate_profile->length
                                                                                 : cp->length;
    if (!sb_opt_is_set(run->opts, "time"))
        run->time_limit = ceil(length - run->warmup) > 1 ? ceil(length - run->warmup) : 1;
    return 0;
}

int sb_cli_parse_run_options(struct sb_run *run, char *err, size_t errlen)
{
    return parse_rate_profile(run, err, errlen) != 0 || parse_clients_profile(run, err, errlen) != 0 || parse_forced_shutdown(run, err, errlen) != 0 || parse_checkpoints(run, err, errlen) != 0 ||
                   parse_ignore_sqlstates(run, err, errlen) != 0 || parse_outputs(run, err, errlen) != 0
               ? -1
               : 0;
}
