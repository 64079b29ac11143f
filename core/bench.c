/*
 * The run command: worker threads run events; the main thread reports
 * every --report-interval (text, JSON or CSV), stops the run by time, event
 * count, signal or forced shutdown, and prints the final report with the
 * server's own counters beside sbench's.
 */
#include "run.h"

#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../lua/lua_env.h"
#include "clients.h"
#include "db.h"
#include "hdr_log.h"
#include "prometheus.h"
#include "driver_loader.h"
#include "options.h"
#include "report.h"
#include "worker.h"

extern volatile sig_atomic_t sb_interrupted;

static void print_header(struct sb_run *run)
{
    printf("sbench %s (Lua %s.%s, driver %s%s%s)\n\n", SB_VERSION, LUA_VERSION_MAJOR,
           LUA_VERSION_MINOR, run->drv ? run->drv->name : "none",
           run->drv && run->drv->client_version ? ": " : "",
           run->drv && run->drv->client_version ? run->drv->client_version() : "");
    printf("Running the test with following options:\n");
    if (sb_opt_is_set(run->opts, "clients"))
        printf("Number of threads: %d, clients: %d\n", run->threads, run->clients);
    else
        printf("Number of threads: %d\n", run->threads);
    if (run->report_interval > 0)
        printf("Report intermediate results every %g second(s)\n", run->report_interval);
    if (run->warmup > 0)
        printf("Warmup time: %g second(s)\n", run->warmup);
    if (run->rand.seed)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)run->rand.seed);
    else
        printf("Initializing random number generator from current time\n");
    if (sb_opt_str(run->opts, "db-ps-mode") && strcmp(sb_opt_str(run->opts, "db-ps-mode"), "disable") == 0)
        printf("Prepared statements: disabled (--db-ps-mode=disable)\n");
    if (run->pipeline > 0)
        printf("Pipelining: up to %d statements in flight per connection (--pipeline)\n", run->pipeline);
    printf("\n\nInitializing worker threads...\n\n");
    fflush(stdout);
}

/* Merged histograms of all workers at one moment. */
struct hset {
    sb_histogram *lat, *kind[SB_Q_NKINDS], *lag, *conn;
};

static int hset_init(struct hset *h, const sb_histogram *tmpl)
{
    h->lat = sb_histogram_clone_empty(tmpl);
    h->lag = sb_histogram_clone_empty(tmpl);
    h->conn = sb_histogram_clone_empty(tmpl);
    int ok = h->lat && h->lag && h->conn;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        ok = ok && (h->kind[k] = sb_histogram_clone_empty(tmpl)) != NULL;
    return ok ? 0 : -1;
}

static void hset_free(struct hset *h)
{
    sb_histogram_destroy(h->lat);
    sb_histogram_destroy(h->lag);
    sb_histogram_destroy(h->conn);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(h->kind[k]);
}

static void hset_copy(struct hset *d, const struct hset *s)
{
    sb_histogram_copy(d->lat, s->lat);
    sb_histogram_copy(d->lag, s->lag);
    sb_histogram_copy(d->conn, s->conn);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_copy(d->kind[k], s->kind[k]);
}

static void hset_sub(struct hset *d, const struct hset *s)
{
    sb_histogram_subtract(d->lat, s->lat);
    sb_histogram_subtract(d->lag, s->lag);
    sb_histogram_subtract(d->conn, s->conn);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_subtract(d->kind[k], s->kind[k]);
}

/* Reads every worker's counters and histograms. */
static void take(struct sb_run *run, struct sb_snapshot *s, struct hset *h)
{
    struct sb_thread_stats *ts[4096];
    int n = run->threads < 4096 ? run->threads : 4096;
    for (int i = 0; i < n; i++)
        ts[i] = &run->workers[i]->stats;
    sb_stats_snapshot(ts, n, s);
    sb_stats_merge_latency(ts, n, h->lat);
    sb_stats_merge_lag(ts, n, h->lag);
    sb_stats_merge_connect(ts, n, h->conn);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_stats_merge_kind(ts, n, k, h->kind[k]);
}

/* Events of each of the n clients, by client id (sbench.cid), minus base
 * (when not NULL): a multiplexing worker counts its clients tid + i * T
 * at client_events[i]; a worker with one connection is client tid. */
static void client_counts(struct sb_run *run, uint64_t *out, int n, const uint64_t *base)
{
    for (int t = 0; t < run->threads; t++) {
        struct sb_worker *w = run->workers[t];
        if (w->nclients == 0) {
            if (t < n)
                out[t] = SB_GET(w->stats.events);
            continue;
        }
        for (int i = 0; i < w->nclients; i++) {
            int cid = t + i * run->threads;
            if (cid < n)
                out[cid] = SB_GET(w->client_events[i]);
        }
    }
    for (int i = 0; base && i < n; i++)
        out[i] -= base[i];
}

static void diff_snap(struct sb_snapshot *d, const struct sb_snapshot *a, const struct sb_snapshot *b)
{
    *d = *a; /* connection counts stay cumulative */
    /* errors by kind: what happened in the window */
    for (int i = 0; i < d->nerrors; i++)
        for (int k = 0; k < b->nerrors; k++)
            if (b->errors[k].native_code == d->errors[i].native_code &&
                strcmp(b->errors[k].sqlstate, d->errors[i].sqlstate) == 0) {
                d->errors[i].ignored -= b->errors[k].ignored;
                d->errors[i].fatal -= b->errors[k].fatal;
            }
    int kept = 0;
    for (int i = 0; i < d->nerrors; i++)
        if (d->errors[i].ignored || d->errors[i].fatal)
            d->errors[kept++] = d->errors[i];
    d->nerrors = kept;
    d->events -= b->events;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        d->queries[k] -= b->queries[k];
    d->ignored_errors -= b->ignored_errors;
    d->reconnects -= b->reconnects;
    d->failed_events -= b->failed_events;
    d->retried_events -= b->retried_events;
    d->late_events -= b->late_events;
    d->pipelined -= b->pipelined;
    d->busy_ns -= b->busy_ns;
}

struct reporter {
    const struct sb_report_format *fmt;   /* --report-format, into out */
    const struct sb_report_format *human; /* the report on stdout; NULL when fmt has stdout */
    FILE *out;              /* machine-readable output; stdout or --output */
    int nout, nhuman;       /* reports written so far to out, to stdout */
    double pcts[32];
    int npcts;
    char meta[16384];       /* JSON object describing the run */
};

static void json_str(char *buf, size_t len, size_t *used, const char *s)
{
    size_t u = *used;
    if (u + 2 >= len)
        return;
    buf[u++] = '"';
    for (; s && *s && u + 8 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            buf[u++] = '\\';
            buf[u++] = (char)ch;
        } else if (ch < 0x20) {
            u += (size_t)snprintf(buf + u, len - u, "\\u%04x", ch);
        } else {
            buf[u++] = (char)ch;
        }
    }
    buf[u++] = '"';
    buf[u] = 0;
    *used = u;
}

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Describes the run as a JSON object: versions, driver, server, workload,
 * every option (secrets masked), seed, host, start time. */
static void build_meta(struct sb_run *run, struct reporter *rp, const char *server_version,
                       const char *start, const char *end)
{
    char *b = rp->meta;
    size_t len = sizeof rp->meta, u = 0;
#define LIT(s) do { u += (size_t)snprintf(b + u, u < len ? len - u : 0, "%s", s); } while (0)
    LIT("{\"sbench_version\":");
    json_str(b, len, &u, SB_VERSION);
    LIT(",\"driver\":");
    json_str(b, len, &u, run->drv->name);
    LIT(",\"client_version\":");
    json_str(b, len, &u, run->drv->client_version ? run->drv->client_version() : "");
    LIT(",\"server_version\":");
    json_str(b, len, &u, server_version ? server_version : "");
    LIT(",\"workload\":");
    json_str(b, len, &u, run->script_name);
    LIT(",\"script\":");
    json_str(b, len, &u, run->script);
    char tmp[128];
    snprintf(tmp, sizeof tmp, ",\"random_seed\":%llu", (unsigned long long)run->workers[0]->rand.seed);
    LIT(tmp);
    struct utsname un;
    uname(&un);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    snprintf(tmp, sizeof tmp, ",\"host\":{\"cpus\":%ld,\"memory_bytes\":%.0f,\"name\":", cpus, mem);
    LIT(tmp);
    json_str(b, len, &u, un.nodename);
    LIT(",\"kernel\":");
    json_str(b, len, &u, un.release);
    LIT("},\"start_time\":");
    json_str(b, len, &u, start);
    if (end) {
        LIT(",\"end_time\":");
        json_str(b, len, &u, end);
    }
    LIT(",\"options\":{");
    const struct sb_options *o = run->opts;
    int first = 1;
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *p = sb_options_at(o, i);
        const char *v = p->value ? p->value : p->def;
        if (v == NULL || strcmp(p->name, "help") == 0 || strcmp(p->name, "version") == 0)
            continue;
        if (!first)
            LIT(",");
        first = 0;
        json_str(b, len, &u, p->name);
        LIT(":");
        int secret = p->kind == SB_OPT_SECRET || strstr(p->name, "password") != NULL;
        json_str(b, len, &u, secret ? "***" : v);
    }
    LIT("}}");
#undef LIT
    if (u >= len) /* truncated: keep it valid */
        snprintf(b, len, "{\"truncated\":true}");
}

static int parse_percentiles(const char *list, double *out, int max)
{
    int n = 0;
    const char *p = list;
    while (p && *p && n < max) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || v <= 0 || v > 100)
            return -1;
        out[n++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

/* The server's own counters, read on one connection kept for the run
 * (drivers leave that connection's own reads out of the counts, so the
 * difference of two reads is what the workers did).  Returns 1 when read. */
static int read_server(struct sb_run *run, struct sb_conn **reader, struct sbd_server_counters *out,
                       char *version, size_t vlen)
{
    const struct sbd_driver *d = run->drv;
    if (!sb_opt_bool(run->opts, "db-server-counters") || !(d->caps & SBD_CAP_SERVER_COUNTERS) ||
        d->struct_size < offsetof(struct sbd_driver, server_counters) + sizeof(d->server_counters) ||
        d->server_counters == NULL)
        return 0;
    if (*reader == NULL) {
        struct sbd_error err;
        *reader = sb_conn_open(0, &run->control->stats, &err);
        if (*reader == NULL)
            return 0;
    }
    int ok = d->server_counters((*reader)->dc, out) == SBD_OK;
    if (version && d->server_version)
        snprintf(version, vlen, "%s", d->server_version((*reader)->dc));
    return ok;
}

/* Writes report r: the human report on stdout (or the script's report hook
 * instead), and the chosen format into its file. */
static void emit(struct sb_run *run, struct reporter *rp, struct sb_report *r, int final)
{
    if (rp->human) {
        /* a script's own report hook replaces the text report */
        int hooked = l_report_hook(run->control, final ? "report_cumulative" : "report_intermediate", r);
        if (hooked < 0) {
            sb_report_worker_error(run->control);
            atomic_store(&run->stop, 1);
        }
        if (hooked == 0 && final)
            rp->human->final(stdout, r, rp->meta, rp->nhuman++);
        else if (hooked == 0)
            rp->human->interval(stdout, r, rp->nhuman++);
    }
    if (rp->fmt != rp->human) {
        if (final)
            rp->fmt->final(rp->out, r, rp->meta, rp->nout++);
        else
            rp->fmt->interval(rp->out, r, rp->nout++);
    }
}

/* Prometheus scrapes: runs on the exporter's thread, reads the workers'
 * counters and histograms (relaxed atomics), merges into its own scratch
 * histogram. */
struct prom_ctx {
    struct sb_run *run;
    sb_histogram *scratch;
};

static void prom_collect(void *arg, FILE *out)
{
    struct prom_ctx *pc = arg;
    struct sb_run *run = pc->run;
    struct sb_thread_stats *ts[4096];
    int n = run->threads < 4096 ? run->threads : 4096;
    for (int i = 0; i < n; i++)
        ts[i] = &run->workers[i]->stats;
    struct sb_snapshot s = {0};
    sb_stats_snapshot(ts, n, &s);
    s.time = (double)(sb_now_ns() - run->start_ns) / 1e9;
    sb_stats_merge_latency(ts, n, pc->scratch);
    sb_prom_format(out, &s, pc->scratch, run->drv->name, run->script_name);
}

int sb_run_benchmark(struct sb_run *run)
{
    int n = run->threads;
    struct sb_options *o = run->opts;
    static struct reporter rp;
    rp.fmt = sb_report_format_find(sb_opt_str(o, "report-format"));
    rp.out = stdout;
    rp.npcts = parse_percentiles(sb_opt_str(o, "percentiles"), rp.pcts, 32);
    if (rp.npcts < 0) {
        fprintf(stderr, "sbench: invalid --percentiles list '%s': numbers in (0, 100] separated by commas\n",
                sb_opt_str(o, "percentiles"));
        return 2;
    }
    const char *outpath = sb_opt_str(o, "output");
    char tmppath[4200] = "";
    if (outpath && *outpath) {
        snprintf(tmppath, sizeof tmppath, "%s.tmp", outpath);
        rp.out = fopen(tmppath, "w");
        if (rp.out == NULL) {
            fprintf(stderr, "sbench: cannot write --output file '%s': %s\n", outpath, strerror(errno));
            return 1;
        }
    }
    /* Clients fairness: reported whenever --clients differs from
     * --threads, also when the driver falls back to a thread per client */
    int nclients = sb_opt_is_set(o, "clients") && run->clients != run->threads ? run->clients : 0;
    if (run->clients > run->threads && !sb_clients_can_multiplex(run->drv)) {
        fprintf(stderr, "sbench: driver %s cannot multiplex connections: running one client per "
                "thread (--threads=%d)\n", run->drv ? run->drv->name : "none", run->clients);
        run->threads = run->clients;
        n = run->threads;
    }
    int want_pipeline = (int)sb_opt_int(run->opts, "pipeline");
    run->pipeline = sb_db_set_pipeline(want_pipeline);
    if (want_pipeline > 0 && run->pipeline == 0)
        fprintf(stderr, "sbench: driver %s cannot pipeline statements: --pipeline=%d ignored, "
                "every statement waits for its answer\n", run->drv ? run->drv->name : "none",
                want_pipeline);
    /* the first format is the human one: on stdout unless the chosen
     * format takes stdout */
    rp.human = rp.fmt == sb_report_formats[0] || rp.out != stdout ? sb_report_formats[0] : NULL;
    if (rp.human)
        print_header(run);
    if (l_call_global(run->control, "init") < 0) {
        sb_report_worker_error(run->control);
        return 1;
    }
    run->workers = calloc((size_t)n, sizeof *run->workers);
    uint64_t *events = calloc((size_t)n, sizeof *events), *base_events = calloc((size_t)n, sizeof *events);
    int64_t *busy = calloc((size_t)n, sizeof *busy), *base_busy = calloc((size_t)n, sizeof *busy);
    uint64_t *cl_events = calloc((size_t)nclients + 1, sizeof *cl_events);
    uint64_t *base_cl_events = calloc((size_t)nclients + 1, sizeof *cl_events);
    if (!run->workers || !events || !busy || !base_events || !base_busy || !cl_events ||
        !base_cl_events) {
        fprintf(stderr, "FATAL: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        run->workers[i] = sb_worker_create(run, i);
        if (!run->workers[i]) {
            fprintf(stderr, "FATAL: out of memory\n");
            return 1;
        }
    }
    struct hset cur, prev, win, base;
    const sb_histogram *tmpl = run->workers[0]->stats.latency;
    if (hset_init(&cur, tmpl) || hset_init(&prev, tmpl) || hset_init(&win, tmpl) ||
        hset_init(&base, tmpl)) {
        fprintf(stderr, "FATAL: out of memory\n");
        return 1;
    }

    struct sb_hdr_log *hdr = NULL;
    const char *hdr_path = sb_opt_str(o, "hdr-log");
    if (hdr_path && *hdr_path) {
        char err[512];
        struct timespec now_rt;
        clock_gettime(CLOCK_REALTIME, &now_rt);
        hdr = sb_hdr_log_open(hdr_path, (double)now_rt.tv_sec + now_rt.tv_nsec / 1e9, err, sizeof err);
        if (hdr == NULL) {
            fprintf(stderr, "sbench: --hdr-log: %s\n", err);
            return 1;
        }
    }
    struct prom_ctx pctx = {run, sb_histogram_clone_empty(tmpl)};
    struct sb_prom *prom = NULL;
    const char *prom_addr = sb_opt_str(o, "prometheus");
    if (prom_addr && *prom_addr) {
        char err[512];
        prom = sb_prom_start(prom_addr, prom_collect, &pctx, err, sizeof err);
        if (prom == NULL) {
            fprintf(stderr, "sbench: --prometheus: %s\n", err);
            return 1;
        }
    }

    char server_version[256] = "", start_iso[64], end_iso[64];
    struct sbd_server_counters sc0, sc1;
    struct sb_conn *reader = NULL;
    int have_server = read_server(run, &reader, &sc0, server_version, sizeof server_version);
    iso_now(start_iso, sizeof start_iso);


    sb_install_signals();
    sb_worker_gate_init(n);
    atomic_store(&run->running, n);
    for (int i = 0; i < n; i++) {
        if (pthread_create(&run->workers[i]->thread, NULL, sb_worker_thread, run->workers[i]) != 0) {
            fprintf(stderr, "FATAL: cannot start thread %d of %d\n", i + 1, n);
            _exit(1); /* threads already started wait on the barrier */
        }
    }
    /* the clock starts as the workers are released, so a run that ends
     * before this thread gets to run again is still timed right */
    if (run->clients > run->threads) /* keep the connects out of the timed run */
        while (sb_workers_ready() < n)
            sb_sleep_ns(1000000LL);
    int64_t start = sb_now_ns();
    sb_worker_gate_open();
    if (!atomic_load(&run->fatal) && rp.human)
        printf("Threads started!\n\n");
    fflush(stdout);

    run->start_ns = start;
    int64_t measure_start = start;
    int warmed = run->warmup <= 0;
    int64_t warm_end = start + (int64_t)(run->warmup * 1e9);
    int64_t deadline = run->time_limit > 0 ? warm_end + (int64_t)(run->time_limit * 1e9) : 0;
    int64_t interval = (int64_t)(run->report_interval * 1e9);
    int64_t next_report = interval > 0 ? warm_end + interval : 0;
    int64_t last_report = warm_end;
    struct sb_snapshot base_snap = {0}, prev_snap = {0}, now_snap;
    int64_t stop_at = 0;
    int unfinished = 0;
    struct sb_report r;

    for (;;) {
        if (atomic_load(&run->running) == 0)
            break;
        int64_t now = sb_now_ns();
        if (sb_interrupted && !atomic_load(&run->stop)) {
            fprintf(stderr, "\nsbench: interrupted, finishing the events in flight (Ctrl-C again to exit now)\n");
            atomic_store(&run->stop, 1);
        }
        if (!warmed && now >= warm_end) {
            take(run, &base_snap, &base);
            for (int i = 0; i < n; i++) {
                base_events[i] = SB_GET(run->workers[i]->stats.events);
                base_busy[i] = SB_GET(run->workers[i]->stats.busy_ns);
            }
            client_counts(run, base_cl_events, nclients, NULL);
            prev_snap = base_snap;
            hset_copy(&prev, &base);
            measure_start = now;
            last_report = now;
            warmed = 1;
        }
        if (deadline && now >= deadline && !atomic_load(&run->stop))
            atomic_store(&run->stop, 1);
        if (atomic_load(&run->stop) && !stop_at)
            stop_at = now;
        if (warmed && next_report && now >= next_report && !atomic_load(&run->stop)) {
            take(run, &now_snap, &cur);
            hset_copy(&win, &cur);
            hset_sub(&win, &prev);
            memset(&r, 0, sizeof r);
            diff_snap(&r.d, &now_snap, &prev_snap);
            r.elapsed = floor((double)(now - measure_start) / 1e9 + 0.5);
            /* the window really covered: a late reporter (a stopped or
             * starved process) must not inflate the rates */
            r.seconds = (double)(now - last_report) / 1e9;
            r.threads = atomic_load(&run->running);
            r.latency = win.lat;
            r.percentile = run->percentile;
            r.percentiles = rp.pcts;
            r.npercentiles = rp.npcts;
            for (int k = 0; k < SB_Q_NKINDS; k++)
                r.kind[k] = win.kind[k];
            r.lag = run->rate > 0 ? win.lag : NULL;
            emit(run, &rp, &r, 0);
            if (hdr)
                sb_hdr_log_write(hdr, (double)(last_report - measure_start) / 1e9, r.seconds, win.lat);
            prev_snap = now_snap;
            hset_copy(&prev, &cur);
            last_report = now;
            while (next_report <= now) /* skip the slots that were missed */
                next_report += interval;
        }
        /* forced shutdown: stop waiting for workers after the grace time */
        if (stop_at && run->forced_shutdown_ns >= 0 && now - stop_at > run->forced_shutdown_ns) {
            for (int i = 0; i < n; i++)
                unfinished += SB_GET(run->workers[i]->stats.in_event);
            break;
        }
        int64_t wait = 10000000LL;
        if (next_report && next_report - now < wait)
            wait = next_report - now;
        if (deadline && !stop_at && deadline - now < wait)
            wait = deadline - now;
        sb_sleep_ns(wait > 0 ? wait : 1000);
    }
    int64_t end = stop_at ? stop_at : sb_now_ns();
    if (unfinished == 0)
        for (int i = 0; i < n; i++)
            pthread_join(run->workers[i]->thread, NULL);
    int failed = sb_report_thread_errors(run->workers, n);

    /* final report */
    take(run, &now_snap, &cur);
    if (run->warmup > 0 && warmed)
        hset_sub(&cur, &base);
    memset(&r, 0, sizeof r);
    diff_snap(&r.d, &now_snap, &base_snap);
    r.seconds = (double)((end > measure_start ? end : measure_start) - measure_start) / 1e9;
    r.elapsed = r.seconds;
    r.threads = n;
    r.latency = cur.lat;
    r.percentile = run->percentile;
    r.percentiles = rp.pcts;
    r.npercentiles = rp.npcts;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        r.kind[k] = cur.kind[k];
    r.connect = cur.conn;
    r.lag = run->rate > 0 ? cur.lag : NULL;
    r.latency_limit_ms = (double)run->latency_limit_ns / 1e6;
    r.pipeline = run->pipeline;
    for (int i = 0; i < n; i++) {
        events[i] = SB_GET(run->workers[i]->stats.events) - base_events[i];
        busy[i] = SB_GET(run->workers[i]->stats.busy_ns) - base_busy[i];
    }
    r.thread_events = events;
    r.thread_busy_ns = busy;
    if (nclients > 0) {
        client_counts(run, cl_events, nclients, base_cl_events);
        r.client_events = cl_events;
        r.clients = nclients;
    }
    r.unfinished = unfinished;
    r.histogram = sb_opt_bool(o, "histogram");
    /* statements the workload named: merged by name over the threads */
    sb_histogram *named_h[SB_MAX_NAMED] = {0};
    for (int i = 0; i < n; i++) {
        struct sb_thread_stats *ts = &run->workers[i]->stats;
        int nn = atomic_load_explicit(&ts->nnamed, memory_order_acquire);
        for (int k = 0; k < nn; k++) {
            int m;
            for (m = 0; m < r.nnamed; m++)
                if (strcmp(r.named_name[m], ts->named[k].name) == 0)
                    break;
            if (m == r.nnamed) {
                if (m >= SB_MAX_NAMED || (named_h[m] = sb_histogram_clone_empty(tmpl)) == NULL)
                    continue;
                r.named_name[m] = ts->named[k].name;
                r.named_latency[m] = named_h[m];
                r.nnamed++;
            }
            r.named_count[m] += SB_GET(ts->named[k].count);
            sb_histogram_add(named_h[m], ts->named[k].latency);
        }
    }
    if (have_server && unfinished == 0) {
        /* backends flush their statistics as they exit: read until two
         * reads agree (at most ~2 s); the reader's own reads are left out
         * by the driver */
        for (int tries = 0; tries < 10; tries++) {
            sb_sleep_ns(200000000LL);
            struct sbd_server_counters a;
            if (!read_server(run, &reader, &a, NULL, 0))
                break;
            int stable = tries > 0 && a.commits == sc1.commits && a.statements == sc1.statements;
            sc1 = a;
            r.server_counters_valid = 1;
            if (stable)
                break;
        }
        if (r.server_counters_valid) {
            int64_t *b0 = &sc0.commits, *b1 = &sc1.commits, *out = &r.server.commits;
            for (int i = 0; i < 7; i++)
                out[i] = (b0[i] >= 0 && b1[i] >= 0) ? b1[i] - b0[i] : -1;
        }
    }
    sb_conn_close(reader);
    iso_now(end_iso, sizeof end_iso);
    build_meta(run, &rp, server_version, start_iso, end_iso);
    if (sb_interrupted)
        fprintf(stderr, "sbench: run interrupted after %.1fs: the report covers what ran\n", r.seconds);
    /* threads that failed before running anything: their errors say it
     * all, an empty report would only hide them */
    if (!failed || r.d.events > 0)
        emit(run, &rp, &r, 1);
    if (hdr) {
        if (next_report == 0) /* no intervals: the whole run is one */
            sb_hdr_log_write(hdr, 0, r.seconds, cur.lat);
        if (sb_hdr_log_close(hdr) != 0) {
            fprintf(stderr, "sbench: writing --hdr-log file '%s' failed\n", hdr_path);
            failed = 1;
        }
    }
    sb_prom_stop(prom);
    sb_histogram_destroy(pctx.scratch);
    if (rp.out != stdout) {
        int bad = ferror(rp.out);
        if (fclose(rp.out) != 0 || bad || rename(tmppath, outpath) != 0) {
            fprintf(stderr, "sbench: writing --output file '%s' failed\n", outpath);
            failed = 1;
        }
    }
    if (unfinished > 0) {
        fflush(stdout);
        _exit(1);
    }
    if (!failed && l_call_global(run->control, "done") < 0) {
        sb_report_worker_error(run->control);
        failed = 1;
    }
    for (int m = 0; m < SB_MAX_NAMED; m++)
        sb_histogram_destroy(named_h[m]);
    sb_worker_gate_destroy();
    hset_free(&cur);
    hset_free(&prev);
    hset_free(&win);
    hset_free(&base);
    for (int i = 0; i < n; i++)
        sb_worker_destroy(run->workers[i]);
    free(run->workers);
    run->workers = NULL;
    free(events);
    free(busy);
    free(base_events);
    free(base_busy);
    free(cl_events);
    free(base_cl_events);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sbench: the report could not be written to standard output\n");
        failed = 1;
    }
    if (failed)
        return 1;
    if (sb_interrupted)
        return 130;
    return 0;
}
