/*
 * merge_load.c: one shard's files for `sbench merge` (see merge_shard.h):
 * the JSON lines report (interval lines, then the final line with its
 * run.shard tag and merge_data) parsed with json-c (results/json_get.c), and the HdrHistogram
 * interval log (results/hdr_read.c), checked against each other.  Every byte
 * is untrusted: whatever is missing, malformed or inconsistent is one line
 * naming the file (and the line), never a crash.
 */
#include "merge_shard.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/hdr_read.h"
#include "../results/json_get.h"
#include "../results/readfile.h"
#include "../results/report_check.h"


/* Where a message points: file and line (0: the file as a whole). */
struct ctx {
    const char *path;
    int line;
    char *err;
    size_t errlen;
};

static int bad(struct ctx *c, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->line > 0)
        snprintf(c->err, c->errlen, "%s:%d: %s", c->path, c->line, msg);
    else
        snprintf(c->err, c->errlen, "%s: %s", c->path, msg);
    return -1;
}

static int is_int(json_object *v) { return json_object_is_type(v, json_type_int); }
static int is_str(json_object *v) { return json_object_is_type(v, json_type_string); }
static int is_arr(json_object *v) { return json_object_is_type(v, json_type_array); }
static int is_obj(json_object *v) { return json_object_is_type(v, json_type_object); }

/* The whole file, NUL-terminated, into *buf (caller frees); 0, or -1. */
static int slurp(struct ctx *c, char **buf, size_t *len)
{
    char msg[256];
    *buf = sb_read_file(c->path, SB_READ_FILE_MAX, len, msg, sizeof msg);
    return *buf ? 0 : bad(c, "%s", msg);
}

/* ---- JSON fields (results/json_get.c), the message prefixed with where ---- */

static int get_u64(struct ctx *c, json_object *o, const char *path, uint64_t *out)
{
    char msg[200];
    return sb_json_get_u64(o, path, out, msg, sizeof msg) ? bad(c, "%s", msg) : 0;
}

static int get_i64(struct ctx *c, json_object *o, const char *path, int64_t *out)
{
    char msg[200];
    return sb_json_get_i64(o, path, out, msg, sizeof msg) ? bad(c, "%s", msg) : 0;
}

static int get_num(struct ctx *c, json_object *o, const char *path, double *out)
{
    char msg[200];
    return sb_json_get_num(o, path, out, msg, sizeof msg) ? bad(c, "%s", msg) : 0;
}

static int get_str(struct ctx *c, json_object *o, const char *path, char *out, size_t len)
{
    char msg[200];
    return sb_json_get_str(o, path, out, len, msg, sizeof msg) ? bad(c, "%s", msg) : 0;
}

/* The server's counters of a final line ("server"): each a count, or null
 * when unknown (-1 here); "reset" (only true): they started again during
 * the run, so every count is null.  A negative count, which no server
 * counts, is refused, and so is a count beside "reset". */
static int server_counters(struct ctx *c, json_object *srv, struct mg_shard *s)
{
    if (!is_obj(srv))
        return bad(c, "\"server\" is not an object");
    json_object *reset = NULL;
    int has_reset = json_object_object_get_ex(srv, "reset", &reset);
    if (has_reset && !(json_object_is_type(reset, json_type_boolean) && json_object_get_boolean(reset)))
        return bad(c, "\"server.reset\" is not true (the only value it has)");
    for (int i = 0; i < SB_SERVER_COUNTERS; i++) {
        const char *name = sb_server_counter_names[i];
        json_object *v;
        char msg[200];
        int64_t *x = sb_server_counter_at(&s->server, i);
        *x = -1;
        if (!json_object_object_get_ex(srv, name, &v))
            return bad(c, "\"server.%s\" is missing", name);
        if (v != NULL && sb_json_get_i64(srv, name, x, msg, sizeof msg))
            return bad(c, "\"server.%s\" is neither a count nor null", name);
        if (v != NULL && *x < 0)
            return bad(c, "\"server.%s\" is %lld: a count is never negative", name, (long long)*x);
        if (v != NULL && has_reset)
            return bad(c, "\"server.%s\" is %lld beside \"reset\": the counts are unknown", name,
                       (long long)*x);
    }
    s->server_reset = has_reset;
    s->server_valid = 1;
    return 0;
}

/* The counts of a report line (interval or final) into d. */
static int snapshot(struct ctx *c, json_object *o, struct sb_snapshot *d)
{
    memset(d, 0, sizeof *d);
    char path[64];
    if (get_u64(c, o, "transactions", &d->events) || get_u64(c, o, "ignored_errors", &d->ignored_errors) ||
        get_u64(c, o, "reconnects", &d->reconnects) ||
        get_u64(c, o, "retried_transactions", &d->retried_events) ||
        get_u64(c, o, "failed_transactions", &d->failed_events) ||
        get_u64(c, o, "late_transactions", &d->late_events))
        return -1;
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        snprintf(path, sizeof path, "kinds.%s.count", sb_qkind_names[k]);
        if (get_u64(c, o, path, &d->queries[k]))
            return -1;
    }
    json_object *errs = sb_json_member(o, "errors");
    if (!is_arr(errs))
        return bad(c, "\"errors\" is missing or not a list");
    for (size_t i = 0; i < json_object_array_length(errs); i++) {
        json_object *e = json_object_array_get_idx(errs, i);
        if (d->nerrors == (int)(sizeof d->errors / sizeof d->errors[0]))
            return bad(c, "more kinds of errors than sbench keeps");
        int64_t native = 0;
        __typeof__(d->errors[0]) *x = &d->errors[d->nerrors];
        if (get_str(c, e, "sqlstate", x->sqlstate, sizeof x->sqlstate) ||
            get_i64(c, e, "native_code", &native) || get_u64(c, e, "ignored", &x->ignored) ||
            get_u64(c, e, "fatal", &x->fatal))
            return -1;
        x->native_code = (long)native;
        d->nerrors++;
    }
    return 0;
}

/* merge_data's exact histogram object {count, min_ns, max_ns, sum_ns, hdr}. */
static int exact_hist(struct ctx *c, json_object *o, const char *what, double precision,
                      sb_histogram **out)
{
    uint64_t count;
    int64_t mn = 0, mx = 0, sum = 0;
    json_object *hdr = sb_json_member(o, "hdr");
    if (!is_obj(o))
        return bad(c, "merge_data's %s histogram is missing", what);
    if (get_u64(c, o, "count", &count) || get_i64(c, o, "min_ns", &mn) ||
        get_i64(c, o, "max_ns", &mx) || get_i64(c, o, "sum_ns", &sum))
        return -1;
    if (!is_str(hdr))
        return bad(c, "merge_data's %s histogram has no \"hdr\"", what);
    *out = mg_hist_new(precision);
    if (*out == NULL)
        return bad(c, "out of memory");
    char msg[256];
    if (sb_hdr_decode_add(json_object_get_string(hdr), json_object_get_string_len(hdr), *out, msg, sizeof msg) != 0)
        return bad(c, "merge_data's %s histogram: %s", what, msg);
    if (sb_histogram_count(*out) != count)
        return bad(c, "merge_data's %s histogram holds %llu values, its count says %llu", what,
                   (unsigned long long)sb_histogram_count(*out), (unsigned long long)count);
    if (count && (mn > mx || mn < 0))
        return bad(c, "merge_data's %s histogram: min above max", what);
    sb_histogram_set_summary(*out, mn, mx, sum);
    return 0;
}

static int int_list(struct ctx *c, json_object *o, const char *what, int n, int64_t *out)
{
    json_object *a = sb_json_member(o, what);
    if (!is_arr(a) || (int)json_object_array_length(a) != n)
        return bad(c, "\"%s\" is missing or not %d numbers", what, n);
    for (int i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        if (!is_int(v) || json_object_get_int64(v) < 0)
            return bad(c, "\"%s\" holds something other than counts", what);
        out[i] = (int64_t)json_object_get_int64(v);
    }
    return 0;
}

/* merge_data.types[i].name into out: 1 to SB_TYPE_NAME_MAX - 1 bytes
 * without control characters (the report writes them as '?') or NULs. */
static int type_name(struct ctx *c, json_object *e, size_t i, char *out)
{
    json_object *v = sb_json_member(e, "name");
    if (!is_str(v))
        return bad(c, "merge_data.types[%zu] has no \"name\"", i);
    const char *name = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    int ok = len > 0 && len < SB_TYPE_NAME_MAX && strlen(name) == len;
    for (size_t k = 0; ok && k < len; k++)
        ok = (unsigned char)name[k] >= 0x20;
    if (!ok)
        return bad(c, "merge_data.types[%zu]: the name is not an event type's (1 to %d characters, "
                      "no control characters)", i, SB_TYPE_NAME_MAX - 1);
    memcpy(out, name, len + 1);
    return 0;
}

/* merge_data.types, written when the run typed its events
 * (sbench.event_type): names, counts and exact latencies, checked against
 * what the core guarantees: a type counts each of its events once with its
 * latency (count = its histogram's), an event has at most one type (the
 * counts add up to at most the transactions) and a type's failure is a
 * failed transaction (the failures add up to at most those). */
static int types_list(struct ctx *c, struct mg_shard *s, json_object *md)
{
    json_object *types = sb_json_member(md, "types");
    if (types == NULL)
        return 0;
    if (!is_arr(types) || json_object_array_length(types) > SB_MAX_TYPES)
        return bad(c, "merge_data.types is not a list of at most %d event types", SB_MAX_TYPES);
    struct sb_snapshot *d = &s->d;
    uint64_t counted = 0, failed = 0;
    for (size_t i = 0; i < json_object_array_length(types); i++) {
        json_object *e = json_object_array_get_idx(types, i);
        char what[SB_TYPE_NAME_MAX + 16];
        s->ntypes = (int)i + 1; /* freed with s whatever happens below */
        if (!is_obj(e))
            return bad(c, "merge_data.types[%zu] is not an object", i);
        if (type_name(c, e, i, s->type_name[i]) || get_u64(c, e, "count", &d->type_count[i]) ||
            get_u64(c, e, "retries", &d->type_retries[i]) || get_u64(c, e, "failed", &d->type_failed[i]))
            return -1;
        /* units (sbench.event_type's): absent from an older sbench's
         * lines, where every event counted 1 */
        d->type_units[i] = d->type_count[i];
        if (sb_json_member(e, "units") && get_u64(c, e, "units", &d->type_units[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->type_name[j], s->type_name[i]) == 0)
                return bad(c, "event type %s twice in merge_data.types", s->type_name[i]);
        snprintf(what, sizeof what, "event type %s", s->type_name[i]);
        if (exact_hist(c, sb_json_member(e, "latency"), what, s->precision, &s->type_lat[i]))
            return -1;
        if (sb_histogram_count(s->type_lat[i]) != d->type_count[i])
            return bad(c, "event type %s: %llu events but %llu latencies", s->type_name[i],
                       (unsigned long long)d->type_count[i],
                       (unsigned long long)sb_histogram_count(s->type_lat[i]));
        if (d->type_count[i] > d->events - counted)
            return bad(c, "the event types count more events than the %llu transactions",
                       (unsigned long long)d->events);
        if (d->type_failed[i] > d->failed_events - failed)
            return bad(c, "the event types count more failures than the %llu failed transactions",
                       (unsigned long long)d->failed_events);
        counted += d->type_count[i];
        failed += d->type_failed[i];
    }
    d->ntypes = s->ntypes;
    return 0;
}

/* run.shard, run.host, the options the merge reads. */
static int run_meta(struct ctx *c, struct mg_shard *s, json_object *fin)
{
    json_object *run = sb_json_member(fin, "run");
    json_object *sh = sb_json_at(run, "shard");
    if (!is_obj(sh))
        return bad(c, "the final report has no run.shard: not written by a shard (--shard=I/N or a launcher)");
    int64_t idx = 0, cnt = 0;
    if (get_i64(c, sh, "index", &idx) || get_i64(c, sh, "count", &cnt) ||
        get_str(c, sh, "run_id", s->run_id, sizeof s->run_id) ||
        get_str(c, sh, "settings", s->settings, sizeof s->settings) ||
        get_num(c, sh, "measure_start", &s->measure_start) ||
        get_num(c, sh, "client_cpu_s", &s->client_cpu_s))
        return -1;
    if (cnt < 1 || cnt > 100000 || idx < 0 || idx >= cnt)
        return bad(c, "run.shard: index %lld of %lld is not a shard", (long long)idx, (long long)cnt);
    s->index = (int)idx;
    s->count = (int)cnt;
    int64_t cpus = 0;
    if (get_str(c, run, "host.name", s->host, sizeof s->host) || get_i64(c, run, "host.cpus", &cpus))
        return -1;
    s->cpus = cpus > 0 && cpus < 1 << 20 ? (int)cpus : 1;
    s->options = sb_json_member(run, "options");
    if (!is_obj(s->options))
        return bad(c, "run.options is missing");
    const char *prec = json_object_get_string(sb_json_member(s->options, "histogram-precision"));
    const char *ri = json_object_get_string(sb_json_member(s->options, "report-interval"));
    s->precision = prec ? strtod(prec, NULL) : 0;
    s->report_interval = ri ? strtod(ri, NULL) : -1;
    if (!(s->precision > 0 && s->precision < 1) || !(s->report_interval >= 0))
        return bad(c, "run.options: histogram-precision or report-interval missing or invalid");
    s->start_at = sb_json_member(s->options, "start-at") != NULL;
    json_object *io = sb_json_member(run, "io");
    if (io != NULL) { /* what the merged report says, so checked like the rest */
        const char *v = json_object_is_type(io, json_type_string) ? json_object_get_string(io) : "";
        if (strcmp(v, "blocking") != 0 && strcmp(v, "poll") != 0 && strcmp(v, "io_uring") != 0 &&
            strcmp(v, "io_uring_poll") != 0)
            return bad(c, "run.io is not blocking, poll, io_uring or io_uring_poll");
    }
    s->run = json_object_get(run);
    return 0;
}

/* The line's times, sums and rates (results/report_check.c). */
static int line_check(struct ctx *c, json_object *o)
{
    char msg[400];
    return sb_report_line_check(o, msg, sizeof msg) ? bad(c, "%s", msg) : 0;
}

/* The final line's "phases" (a profiled run): each phase's summary and its
 * latencies whole (merge_data.latency), checked against its count. */
static int phases_list(struct ctx *c, struct mg_shard *s, json_object *fin)
{
    json_object *a = sb_json_member(fin, "phases");
    if (a == NULL)
        return 0;
    if (!is_arr(a) || json_object_array_length(a) > SB_RATE_PROFILE_MAX_PHASES)
        return bad(c, "\"phases\" is not a list of at most %d phases", SB_RATE_PROFILE_MAX_PHASES);
    s->has_phases = 1;
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *e = json_object_array_get_idx(a, i);
        struct sb_phase_summary *p = &s->phases.s[i];
        int clients = sb_json_member(e, "clients") != NULL;
        if (i == 0)
            s->phases.clients = clients;
        s->phases.n = (int)i + 1; /* its histogram is freed with s whatever happens below */
        if (clients != s->phases.clients)
            return bad(c, "phase %zu has %s, the first phase has not", i + 1, clients ? "clients" : "asked_rate");
        if (get_str(c, e, "name", p->name, sizeof p->name) || get_num(c, e, "start", &p->start) ||
            get_num(c, e, "end", &p->end) || get_num(c, e, clients ? "clients" : "asked_rate", &p->asked) ||
            get_u64(c, e, "transactions", &p->events) || get_u64(c, e, "failed_transactions", &p->failed) ||
            get_u64(c, e, "ignored_errors", &p->ignored_errors) ||
            exact_hist(c, sb_json_at(e, "merge_data.latency"), p->name, s->precision, &s->phase_lat[i]))
            return -1;
        if (!(p->end >= p->start) || !(p->asked >= 0))
            return bad(c, "phase %zu ('%s') ends before it starts, or asked a negative rate", i + 1, p->name);
        if (sb_histogram_count(s->phase_lat[i]) > p->events)
            return bad(c, "phase %zu ('%s'): more latencies than transactions", i + 1, p->name);
    }
    return 0;
}

/* The final line: counts, histograms, per-thread and per-client counts. */
static int final_line(struct ctx *c, struct mg_shard *s, json_object *fin)
{
    if (line_check(c, fin) || run_meta(c, s, fin) || snapshot(c, fin, &s->d) || get_num(c, fin, "seconds", &s->seconds))
        return -1;
    int64_t threads = 0;
    if (get_i64(c, fin, "threads", &threads))
        return -1;
    if (threads < 1 || threads > 10000000)
        return bad(c, "\"threads\" is not a thread count");
    s->threads = (int)threads;
    json_object *md = sb_json_member(fin, "merge_data");
    if (!is_obj(md))
        return bad(c, "the final report has no merge_data: not written by a shard (--shard=I/N or a launcher)");
    if (exact_hist(c, sb_json_member(md, "latency"), "latency", s->precision, &s->lat) ||
        exact_hist(c, sb_json_member(md, "connect"), "connect", s->precision, &s->connect))
        return -1;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        if (exact_hist(c, sb_json_at(md, "kinds") ? sb_json_member(sb_json_at(md, "kinds"), sb_qkind_names[k]) : NULL,
                       sb_qkind_names[k], s->precision, &s->kind[k]))
            return -1;
    if (sb_json_member(md, "lag") &&
        exact_hist(c, sb_json_member(md, "lag"), "lag", s->precision, &s->lag))
        return -1;
    /* the line check made transactions = latency_ms.count + script_transactions */
    uint64_t timed = 0;
    if (get_u64(c, fin, "latency_ms.count", &timed))
        return -1;
    if (timed != sb_histogram_count(s->lat))
        return bad(c, "\"latency_ms.count\" is %llu, but merge_data's latency histogram holds %llu",
                   (unsigned long long)timed, (unsigned long long)sb_histogram_count(s->lat));
    json_object *named = sb_json_member(md, "named");
    if (!is_arr(named) || json_object_array_length(named) > SB_MAX_NAMED)
        return bad(c, "merge_data.named is missing or too long");
    for (size_t i = 0; i < json_object_array_length(named); i++) {
        json_object *e = json_object_array_get_idx(named, i);
        s->nnamed = (int)i + 1; /* freed with s whatever happens below */
        if (get_str(c, e, "name", s->named_name[i], sizeof s->named_name[i]) ||
            get_u64(c, e, "count", &s->named_count[i]) ||
            exact_hist(c, sb_json_member(e, "latency"), s->named_name[i], s->precision, &s->named_lat[i]))
            return -1;
    }
    if (types_list(c, s, md) || phases_list(c, s, fin))
        return -1;
    char why[300];
    if (mg_sections_parse(fin, &s->sections, why, sizeof why) < 0)
        return bad(c, "%s", why);
    s->thread_events = calloc((size_t)s->threads, sizeof *s->thread_events);
    s->thread_busy_ns = calloc((size_t)s->threads, sizeof *s->thread_busy_ns);
    if (!s->thread_events || !s->thread_busy_ns)
        return bad(c, "out of memory");
    if (int_list(c, md, "thread_events", s->threads, (int64_t *)s->thread_events) ||
        int_list(c, md, "thread_busy_ns", s->threads, s->thread_busy_ns) ||
        get_u64(c, md, "connects", &s->d.connects) || get_i64(c, md, "connect_ns", &s->d.connect_ns) ||
        get_u64(c, md, "pipelined", &s->d.pipelined))
        return -1;
    json_object *ce = sb_json_at(fin, "clients_fairness.events");
    if (ce) {
        if (!is_arr(ce) || json_object_array_length(ce) == 0 || json_object_array_length(ce) > 10000000)
            return bad(c, "clients_fairness.events is not a list of counts");
        s->nclients = (int)json_object_array_length(ce);
        s->client_events = calloc((size_t)s->nclients, sizeof *s->client_events);
        if (!s->client_events)
            return bad(c, "out of memory");
        if (int_list(c, sb_json_member(fin, "clients_fairness"), "events", s->nclients,
                     (int64_t *)s->client_events))
            return -1;
    }
    json_object *srv = sb_json_member(fin, "server");
    if (srv && server_counters(c, srv, s))
        return -1;
    char msg[300];
    if (mg_load_sampled(fin, &s->sampled, msg, sizeof msg))
        return bad(c, "%s", msg);
    int64_t v = 0;
    if (sb_json_member(fin, "unfinished_on_forced_shutdown") &&
        get_i64(c, fin, "unfinished_on_forced_shutdown", &v))
        return -1;
    s->unfinished = (int)v;
    v = 0;
    if (sb_json_at(fin, "pipeline.depth") && get_i64(c, fin, "pipeline.depth", &v))
        return -1;
    s->pipeline_depth = (int)v;
    return 0;
}

static int window_line(struct ctx *c, struct mg_window *w, json_object *o)
{
    double sum_ms;
    int64_t threads = 0;
    if (line_check(c, o) || snapshot(c, o, &w->d) || get_num(c, o, "seconds", &w->seconds) ||
        get_i64(c, o, "threads", &threads) || get_num(c, o, "latency_ms.sum", &sum_ms))
        return -1;
    if (w->seconds < 0 || threads < 0 || threads > 10000000)
        return bad(c, "\"seconds\" or \"threads\" out of range");
    w->threads = (int)threads;
    w->lat_sum_ns = llround(sum_ms * 1e6);
    w->line = c->line;
    if (get_u64(c, o, "latency_ms.count", &w->lat_count))
        return -1;
    json_object *ph = sb_json_member(o, "phase"); /* a profiled run's */
    if (ph && get_str(c, o, "phase", w->phase, sizeof w->phase))
        return -1;
    return 0;
}

/* The JSON lines file held in buf: interval lines into s->w, the final
 * line. */
static int load_json(struct mg_shard *s, const char *buf, size_t len, char *err, size_t errlen)
{
    struct ctx c = {s->json_path, 0, err, errlen};
    int rc = -1, cap = 0, have_final = 0, got;
    json_object *fin = NULL, *o;
    struct sb_json_lines lines;
    struct sb_report_windows sums = {0};
    char msg[400];
    if (sb_json_lines_init(&lines, buf, len, msg, sizeof msg) != 0) {
        bad(&c, "%s", msg);
        goto out;
    }
    while ((got = sb_json_lines_next(&lines, &o, msg, sizeof msg)) == 1) {
        c.line = lines.line;
        const char *type = sb_json_str(o, "type");
        if (have_final) {
            json_object_put(o);
            bad(&c, "a line after the final report");
            goto out;
        }
        if (type && strcmp(type, "final") == 0) {
            fin = o;
            have_final = 1;
            if (final_line(&c, s, fin) || (sb_report_windows_check(&sums, fin, msg, sizeof msg) && bad(&c, "%s", msg)))
                goto out;
            continue;
        }
        if (!type || strcmp(type, "interval") != 0) {
            json_object_put(o);
            bad(&c, "not an sbench JSON report line (\"type\" is neither interval nor final)");
            goto out;
        }
        if (s->nw == cap) {
            cap = cap ? cap * 2 : 64;
            struct mg_window *nw = realloc(s->w, (size_t)cap * sizeof *nw);
            if (!nw) {
                json_object_put(o);
                bad(&c, "out of memory");
                goto out;
            }
            s->w = nw;
        }
        memset(&s->w[s->nw], 0, sizeof s->w[0]);
        int wr = window_line(&c, &s->w[s->nw++], o);
        if (wr == 0)
            sb_report_windows_add(&sums, o);
        json_object_put(o);
        if (wr)
            goto out;
    }
    if (got < 0) {
        c.line = lines.line;
        bad(&c, "not a JSON report line (%s)", msg);
        goto out;
    }
    c.line = 0;
    if (!have_final) {
        bad(&c, "no final report line: the shard did not finish, or the file is truncated");
        goto out;
    }
    rc = 0;
out:
    json_object_put(fin);
    sb_json_lines_close(&lines);
    return rc;
}

int mg_hlog_identity(const char *path, int *index, int *count, char *run_id, size_t run_id_len,
                     char *settings, size_t settings_len, char *err, size_t errlen)
{
    struct ctx c = {path, 0, err, errlen};
    char msg[200];
    int fd = sb_open_regular(path, msg, sizeof msg);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return bad(&c, "%s", fd < 0 ? msg : strerror(errno));
    }
    char line[512];
    int found = -1;
    for (int i = 0; i < 16 && found < 0 && fgets(line, sizeof line, f); i++) {
        line[strcspn(line, "\r\n")] = 0;
        size_t n = strlen(line);
        if (n > 3 && strncmp(line, "#[sbench shard ", 15) == 0 && line[n - 1] == ']') {
            line[n - 1] = 0;
            found = sb_shard_parse_hlog_tag(line + 2, index, count, run_id, run_id_len, settings,
                                            settings_len);
        }
    }
    fclose(f);
    if (found < 0)
        return bad(&c, "an HdrHistogram log without an sbench shard comment (not written by a shard)");
    return 0;
}

/* The log: its tag against the JSON's, one interval per window, each
 * added into its slot of m (a run without windows: into a scratch
 * histogram, only to be counted). */
static int load_hlog(struct mg_shard *s, struct mg_run *m, char *err, size_t errlen)
{
    struct ctx c = {s->hlog_path, 0, err, errlen};
    char *buf;
    size_t len;
    if (slurp(&c, &buf, &len))
        return -1;
    struct sb_hdr_reader r;
    struct sb_hdr_interval iv;
    sb_hdr_reader_init(&r, buf, len);
    int rc = -1, n = 0, got;
    char msg[300];
    int want = s->report_interval > 0 ? s->nw : 1;
    sb_histogram *scratch = mg_hist_new(s->precision);
    if (!scratch) {
        bad(&c, "out of memory");
        goto out;
    }
    while ((got = sb_hdr_reader_next(&r, &iv, msg, sizeof msg)) == 1) {
        c.line = iv.line;
        int idx, cnt;
        char rid[SB_RUN_ID_MAX + 1], set[17];
        if (sb_shard_parse_hlog_tag(r.tag, &idx, &cnt, rid, sizeof rid, set, sizeof set) != 0 ||
            !r.has_base) {
            bad(&c, "no sbench shard comment or BaseTime before the first interval");
            goto out;
        }
        if (idx != s->index || cnt != s->count || strcmp(rid, s->run_id) || strcmp(set, s->settings)) {
            bad(&c, "the log is shard %d of %d of run %s (settings %s), %s is shard %d of %d of run %s "
                    "(settings %s)", idx, cnt, rid, set, s->json_path, s->index, s->count, s->run_id,
                s->settings);
            goto out;
        }
        if (n == want) {
            bad(&c, "more intervals than %s has windows (%d)", s->json_path, want);
            goto out;
        }
        sb_histogram *h = scratch;
        if (s->report_interval > 0) {
            struct mg_window *w = &s->w[n];
            w->start = r.base_time + iv.start;
            w->end = w->start + w->seconds;
            if ((w->slot = mg_slot(m, w->start, msg, sizeof msg)) < 0) {
                bad(&c, "%s", msg);
                goto out;
            }
            h = m->w[w->slot].lat;
        }
        uint64_t before = sb_histogram_count(h);
        if (sb_hdr_decode_add(iv.hist, iv.hist_len, h, msg, sizeof msg) != 0) {
            bad(&c, "%s", msg);
            goto out;
        }
        uint64_t got_n = sb_histogram_count(h) - before;
        if (s->report_interval > 0 && got_n != s->w[n].lat_count) {
            bad(&c, "the interval holds %llu latencies, line %d of %s says %llu: not the same window's",
                (unsigned long long)got_n, s->w[n].line, s->json_path, (unsigned long long)s->w[n].lat_count);
            goto out;
        }
        s->log_count += got_n;
        n++;
    }
    c.line = 0;
    if (got < 0) {
        snprintf(c.err, c.errlen, "%s:%s", s->hlog_path, msg + 5); /* "line N: ..." -> "path:N: ..." */
        goto out;
    }
    if (n != want) {
        bad(&c, "%d intervals, %s has %d windows: truncated, or not the same shard's", n, s->json_path, want);
        goto out;
    }
    if (s->log_count != sb_histogram_count(s->lat)) {
        bad(&c, "its windows hold %llu latencies, the final report of %s %llu: truncated, or not the "
                "same shard's", (unsigned long long)s->log_count, s->json_path,
            (unsigned long long)sb_histogram_count(s->lat));
        goto out;
    }
    rc = 0;
out:
    sb_histogram_destroy(scratch);
    free(buf);
    return rc;
}

int mg_shard_parse_json(struct mg_shard *s, const char *path, const char *buf, size_t len, char *err,
                        size_t errlen)
{
    memset(s, 0, sizeof *s);
    if ((s->json_path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return load_json(s, buf, len, err, errlen);
}

int mg_shard_load_json(struct mg_shard *s, const char *path, char *err, size_t errlen)
{
    char msg[300];
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, msg, sizeof msg);
    if (buf == NULL) {
        memset(s, 0, sizeof *s);
        snprintf(err, errlen, "%s: %s", path, msg);
        return -1;
    }
    int rc = mg_shard_parse_json(s, path, buf, len, err, errlen);
    free(buf);
    return rc;
}

int mg_shard_load_hlog(struct mg_shard *s, const char *path, struct mg_run *m, char *err,
                       size_t errlen)
{
    if ((s->hlog_path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return load_hlog(s, m, err, errlen);
}
