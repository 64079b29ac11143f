/*
 * compare_html.c: the HTML report of a comparison, one self-contained file
 * (no script, no external reference: the charts are inline SVG, the style
 * is inline).  The charts are drawn by gnuplot (Debian's gnuplot-nox, its
 * svg terminal): one gnuplot process for all of them, data passed inline as
 * datablocks, each SVG kept in the chart directory too (for slides and
 * READMEs) and embedded with its ids prefixed so that several SVGs can
 * share one document.  Charts: per workload, throughput against threads
 * (median and its interval per target); per point, the latency percentile
 * curves of the targets (HdrHistogram's plot: x = 1/(1 - percentile), log
 * scales) and the throughput of every run over time.  Every number of the
 * tables carries its exact value in a data-value attribute.  A pure
 * function of the summary, apart from gnuplot.
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CHARTS 512

struct chart {
    char id[200];               /* element id and file name */
    char caption[300];
};

struct html {
    const json_t *sum;
    const char *dir;            /* chart directory */
    FILE *gp;                   /* the gnuplot script */
    struct chart charts[MAX_CHARTS];
    int ncharts;
    int gnuplot_ok;
    char gnuplot_msg[300];
};

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

/* ---- charts ---- */

/* A new chart with element id and file name "PREFIX-WORKLOAD[-tTHREADS]"
 * (threads < 0: none); its gnuplot preamble goes to the script. */
static struct chart *new_chart(struct html *h, const char *caption, const char *prefix, const char *wl, long threads)
{
    if (h->ncharts == MAX_CHARTS)
        return NULL;
    struct chart *c = &h->charts[h->ncharts++];
    if (threads >= 0)
        snprintf(c->id, sizeof c->id, "%s-%s-t%ld", prefix, wl, threads);
    else
        snprintf(c->id, sizeof c->id, "%s-%s", prefix, wl);
    snprintf(c->caption, sizeof c->caption, "%s", caption);
    fprintf(h->gp, "reset\nset terminal svg size 760,380 dynamic enhanced font 'sans,11' background '#ffffff'\n");
    fprintf(h->gp, "set output '%s/%s.svg'\nset key outside right top\nset grid\n", h->dir, c->id);
    return c;
}

static const json_t *point(const struct html *h, const char *wl, long threads, const char *target)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(h->sum, "points"), i, x)
        if (!strcmp(str(x, "workload"), wl) && !strcmp(str(x, "target"), target) &&
            json_integer_value(json_object_get(x, "threads")) == threads)
            return x;
    return NULL;
}

static void chart_throughput(struct html *h, const char *wl)
{
    const json_t *spec = json_object_get(h->sum, "spec");
    const json_t *threads = json_object_get(spec, "threads");
    if (new_chart(h, "Throughput against threads: median of the repeats, bars: its confidence interval",
                  "chart-tps", wl, -1) == NULL)
        return;
    long lo = 0, hi = 0;
    size_t i, k;
    json_t *t, *tg;
    json_array_foreach(threads, i, t) {
        long v = (long)json_integer_value(t);
        lo = i == 0 || v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (hi >= 4 * lo)
        fprintf(h->gp, "set logscale x 2\n");
    fprintf(h->gp, "set xlabel 'threads'\nset ylabel 'transactions per second'\nset yrange [0:*]\n");
    fprintf(h->gp, "set xrange [%g:%g]\n", hi >= 4 * lo ? lo / 1.3 : lo - 0.5, hi >= 4 * lo ? hi * 1.3 : hi + 0.5);
    fprintf(h->gp, "set xtics (");
    json_array_foreach(threads, i, t)
        fprintf(h->gp, "%s%lld", i ? ", " : "", (long long)json_integer_value(t));
    fprintf(h->gp, ")\n");
    json_array_foreach(json_object_get(spec, "targets"), k, tg) {
        fprintf(h->gp, "$T%zu << EOD\n", k);
        json_array_foreach(threads, i, t) {
            const json_t *p = point(h, wl, (long)json_integer_value(t), str(tg, "name"));
            if (p) {
                const json_t *v = json_object_get(p, "tps");
                fprintf(h->gp, "%lld %.17g %.17g %.17g\n", (long long)json_integer_value(t), num(v, "median"),
                        num(v, "low"), num(v, "high"));
            }
        }
        fprintf(h->gp, "EOD\n");
    }
    fprintf(h->gp, "plot ");
    json_array_foreach(json_object_get(spec, "targets"), k, tg)
        fprintf(h->gp, "%s$T%zu using 1:2:3:4 with yerrorlines lw 2 pt 7 lc %zu title '%s'", k ? ", " : "", k,
                k + 1, str(tg, "name"));
    fprintf(h->gp, "\n");
}

static void chart_latency(struct html *h, const char *wl, long threads)
{
    if (new_chart(h, "Latency by percentile, repeats merged (HdrHistogram percentile plot)", "chart-lat", wl,
                  threads) == NULL)
        return;
    fprintf(h->gp, "set logscale xy\nset xlabel 'percentile'\nset ylabel 'latency (ms)'\n");
    /* tic labels are formats: '%%%%' prints one '%' */
    fprintf(h->gp, "set xtics ('0%%%%' 1, '90%%%%' 10, '99%%%%' 100, '99.9%%%%' 1000, '99.99%%%%' 10000, '99.999%%%%' 100000)\n");
    size_t k;
    json_t *tg;
    const json_t *targets = json_object_get(json_object_get(h->sum, "spec"), "targets");
    int any = 0;
    json_array_foreach(targets, k, tg) {
        const json_t *p = point(h, wl, threads, str(tg, "name"));
        const json_t *curve = json_object_get(json_object_get(p, "latency_ms"), "curve");
        fprintf(h->gp, "$L%zu << EOD\n", k);
        size_t i;
        json_t *pt;
        json_array_foreach(curve, i, pt) /* x = 1 / (1 - p) */
            fprintf(h->gp, "%.17g %.17g\n", 1 / (1 - json_number_value(json_array_get(pt, 0)) / 100),
                    json_number_value(json_array_get(pt, 1)));
        if (json_array_size(curve) == 0)
            fprintf(h->gp, "1 NaN\n");
        fprintf(h->gp, "EOD\n");
        any = 1;
    }
    if (!any)
        return;
    fprintf(h->gp, "plot ");
    json_array_foreach(targets, k, tg)
        fprintf(h->gp, "%s$L%zu using 1:2 with steps lw 2 lc %zu title '%s'", k ? ", " : "", k, k + 1, str(tg, "name"));
    fprintf(h->gp, "\n");
}

static void chart_time(struct html *h, const char *wl, long threads)
{
    if (new_chart(h, "Throughput of every run over time (one line per repeat)", "chart-time", wl, threads) == NULL)
        return;
    fprintf(h->gp, "set xlabel 'seconds (after warm-up)'\nset ylabel 'transactions per second'\nset yrange [0:*]\n");
    const json_t *targets = json_object_get(json_object_get(h->sum, "spec"), "targets");
    size_t i, k, n = 0;
    json_t *r, *tg;
    char plot[16384] = "";
    size_t used = 0;
    json_array_foreach(targets, k, tg)
        json_array_foreach(json_object_get(h->sum, "runs"), i, r) {
            if (strcmp(str(r, "workload"), wl) || strcmp(str(r, "target"), str(tg, "name")) ||
                json_integer_value(json_object_get(r, "threads")) != threads)
                continue;
            fprintf(h->gp, "$R%zu << EOD\n", n);
            size_t q;
            json_t *pt;
            json_array_foreach(json_object_get(r, "intervals"), q, pt)
                fprintf(h->gp, "%.17g %.17g\n", json_number_value(json_array_get(pt, 0)),
                        json_number_value(json_array_get(pt, 1)));
            if (json_array_size(json_object_get(r, "intervals")) == 0)
                fprintf(h->gp, "0 NaN\n");
            fprintf(h->gp, "EOD\n");
            long rep = (long)json_integer_value(json_object_get(r, "repeat"));
            if (used < sizeof plot - 200)
                used += (size_t)snprintf(plot + used, sizeof plot - used,
                                         "%s$R%zu using 1:2 with linespoints pt 7 ps 0.4 lc %zu dt %ld title '%s r%ld'",
                                         n ? ", " : "", n, k + 1, (rep - 1) % 5 + 1, str(tg, "name"), rep);
            n++;
        }
    if (n)
        fprintf(h->gp, "plot %s\n", plot);
}

/* Runs gnuplot on the script; 0 when it drew every chart. */
static int run_gnuplot(struct html *h, const char *script)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/gnuplot.log", h->dir);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *f = freopen(log, "w", stderr);
        (void)f;
        dup2(2, 1);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(h->gnuplot_msg, sizeof h->gnuplot_msg,
                 "charts not drawn: gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
        return -1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(h->gnuplot_msg, sizeof h->gnuplot_msg, "charts not drawn: gnuplot failed (see %.200s)", log);
        return -1;
    }
    return 0;
}

/* Copies the SVG of chart c into f from its <svg element on, ids and
 * references prefixed with the chart's id. */
static int embed_svg(const struct html *h, const struct chart *c, FILE *f)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.svg", h->dir, c->id);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int started = 0;
    static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#", NULL};
    while (getline(&line, &cap, in) > 0) {
        if (!started && strncmp(line, "<svg", 4) != 0)
            continue;
        started = 1;
        for (const char *p = line; *p;) {
            int hit = 0;
            for (int k = 0; pats[k]; k++) {
                size_t n = strlen(pats[k]);
                if (strncmp(p, pats[k], n) == 0) {
                    fprintf(f, "%s%s_", pats[k], c->id);
                    p += n;
                    hit = 1;
                    break;
                }
            }
            if (!hit)
                fputc(*p++, f);
        }
    }
    free(line);
    fclose(in);
    return started ? 0 : -1;
}

static void figure(const struct html *h, const char *prefix, const char *wl, long threads, const char *series,
                   FILE *f)
{
    char id[300];
    if (threads >= 0)
        snprintf(id, sizeof id, "%s-%s-t%ld", prefix, wl, threads);
    else
        snprintf(id, sizeof id, "%s-%s", prefix, wl);
    for (int i = 0; i < h->ncharts; i++)
        if (strcmp(h->charts[i].id, id) == 0) {
            fprintf(f, "<figure class=\"chart\" id=\"%s\" data-series=\"", id);
            esc(f, series);
            fprintf(f, "\">\n");
            if (!h->gnuplot_ok || embed_svg(h, &h->charts[i], f) != 0)
                fprintf(f, "<p class=\"warn\">%s</p>\n", h->gnuplot_msg[0] ? h->gnuplot_msg : "chart missing");
            fprintf(f, "<figcaption>");
            esc(f, h->charts[i].caption);
            fprintf(f, "</figcaption></figure>\n");
        }
}

/* ---- tables ---- */

static void cell(FILE *f, const char *key, double v, const char *fmt)
{
    fprintf(f, "<td data-key=\"%s\" data-value=\"%.17g\">", key, v);
    fprintf(f, fmt, v);
    fprintf(f, "</td>");
}

static void points_table(const struct html *h, const char *wl, FILE *f)
{
    fprintf(f, "<table class=\"points\" data-workload=\"%s\">\n<tr><th>threads</th><th>target</th><th>n</th>"
               "<th>median tps</th><th>CI low</th><th>CI high</th><th>CI level</th><th>min</th><th>max</th>"
               "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>mean ms</th></tr>\n", wl);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(h->sum, "points"), i, p) {
        if (strcmp(str(p, "workload"), wl))
            continue;
        const json_t *t = json_object_get(p, "tps"), *l = json_object_get(p, "latency_ms");
        const json_t *pc = json_object_get(l, "percentiles");
        fprintf(f, "<tr data-threads=\"%lld\" data-target=\"%s\"><td>%lld</td><td>%s</td>",
                (long long)json_integer_value(json_object_get(p, "threads")), str(p, "target"),
                (long long)json_integer_value(json_object_get(p, "threads")), str(p, "target"));
        cell(f, "tps.n", num(t, "n"), "%.0f");
        cell(f, "tps.median", num(t, "median"), "%.1f");
        cell(f, "tps.low", num(t, "low"), "%.1f");
        cell(f, "tps.high", num(t, "high"), "%.1f");
        cell(f, "tps.level", num(t, "level") * 100, "%.1f%%");
        cell(f, "tps.min", num(t, "min"), "%.1f");
        cell(f, "tps.max", num(t, "max"), "%.1f");
        cell(f, "latency_ms.50", num(pc, "50"), "%.3f");
        cell(f, "latency_ms.95", num(pc, "95"), "%.3f");
        cell(f, "latency_ms.99", num(pc, "99"), "%.3f");
        cell(f, "latency_ms.99.9", num(pc, "99.9"), "%.3f");
        cell(f, "latency_ms.mean", num(l, "mean"), "%.3f");
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void verdicts(const struct html *h, const char *wl, FILE *f)
{
    fprintf(f, "<ul class=\"verdicts\">\n");
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(h->sum, "verdicts"), i, v) {
        if (wl && strcmp(str(v, "workload"), wl))
            continue;
        fprintf(f, "<li class=\"%s\" data-workload=\"%s\" data-threads=\"%lld\" data-a=\"%s\" data-b=\"%s\" "
                   "data-change=\"%.17g\" data-low=\"%.17g\" data-high=\"%.17g\" data-p=\"%.17g\"><b>%s, %lld threads:</b> ",
                json_is_true(json_object_get(v, "significant")) ? "sig" : "nosig", str(v, "workload"),
                (long long)json_integer_value(json_object_get(v, "threads")), str(v, "a"), str(v, "b"),
                num(v, "change_pct"), num(v, "low_pct"), num(v, "high_pct"), num(v, "p_value"), str(v, "workload"),
                (long long)json_integer_value(json_object_get(v, "threads")));
        esc(f, str(v, "text"));
        fprintf(f, " <span class=\"p\">(p = %.3g)</span></li>\n", num(v, "p_value"));
    }
    fprintf(f, "</ul>\n");
}

static void runs_table(const struct html *h, FILE *f)
{
    fprintf(f, "<table class=\"runs\">\n<tr><th>order</th><th>run</th><th>tps</th><th>transactions</th><th>seconds</th>"
               "<th>p95 ms</th><th>client CPU</th><th>machine busy</th><th>busy before</th><th>load 1m</th><th>command</th></tr>\n");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(h->sum, "runs"), i, r) {
        fprintf(f, "<tr data-run=\"%s\"><td>%lld</td><td>%s</td>", str(r, "id"),
                (long long)json_integer_value(json_object_get(r, "order")), str(r, "id"));
        cell(f, "tps", num(r, "tps"), "%.1f");
        cell(f, "transactions", num(r, "transactions"), "%.0f");
        cell(f, "seconds", num(r, "seconds"), "%.2f");
        cell(f, "latency_ms.95", num(json_object_get(r, "latency_ms"), "95"), "%.3f");
        cell(f, "client_cpu_share", num(r, "client_cpu_share") * 100, "%.0f%%");
        cell(f, "machine_busy_share", num(r, "machine_busy_share") * 100, "%.0f%%");
        cell(f, "busy_share_before", num(r, "busy_share_before") * 100, "%.0f%%");
        cell(f, "loadavg_1m", num(r, "loadavg_1m"), "%.2f");
        fprintf(f, "<td class=\"cmd\">");
        esc(f, str(r, "command"));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void environment(const struct html *h, FILE *f)
{
    const json_t *env = json_object_get(h->sum, "environment");
    fprintf(f, "<section id=\"environment\"><h2>Environment</h2>\n<p>sbench ");
    esc(f, str(env, "sbench_version"));
    fprintf(f, "</p>\n<table class=\"env\"><tr><th>machine</th><td>");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(env, "machine"), k, v) {
        char *s = json_dumps(v, JSON_ENCODE_ANY);
        esc(f, k);
        fputs(": ", f);
        esc(f, s ? s : "");
        fputs("<br>", f);
        free(s);
    }
    fprintf(f, "</td></tr>\n");
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(env, "targets"), i, t) {
        fprintf(f, "<tr><th>");
        esc(f, str(t, "name"));
        fprintf(f, "</th><td>driver ");
        esc(f, str(t, "driver"));
        fprintf(f, ", client ");
        esc(f, str(t, "client_version"));
        fprintf(f, ", server ");
        esc(f, str(t, "server_version"));
        if (json_object_get(t, "from")) {
            fprintf(f, ", saved runs from ");
            esc(f, str(t, "from"));
        }
        const json_t *spec_t = json_array_get(json_object_get(json_object_get(h->sum, "spec"), "targets"), i);
        fprintf(f, "<br>options:");
        size_t q;
        json_t *o;
        json_array_foreach(json_object_get(spec_t, "options"), q, o) {
            fputc(' ', f);
            esc(f, json_string_value(o));
        }
        if (json_is_object(json_object_get(t, "facts"))) {
            char *s = json_dumps(json_object_get(t, "facts"), JSON_COMPACT);
            fprintf(f, "<br>facts: ");
            esc(f, s ? s : "");
            free(s);
        }
        fprintf(f, "</td></tr>\n");
    }
    if (json_is_string(json_object_get(env, "command"))) {
        fprintf(f, "<tr><th>command</th><td class=\"cmd\">");
        esc(f, str(env, "command"));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<p>Every run's exact command is in the table of runs.</p></section>\n");
}

static const char style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;font-size:90%;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "th{background:#f0f0f0}td.cmd{text-align:left;font-family:monospace;font-size:80%}"
    "li.sig{font-weight:bold}li.nosig{color:#555}.warn{color:#a40}figure{margin:1em 0}"
    "figcaption{font-size:90%;color:#555}svg{max-width:100%;height:auto}";

static void body(struct html *h, FILE *f)
{
    const json_t *sum = h->sum, *spec = json_object_get(sum, "spec");
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    esc(f, str(sum, "title"));
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>", style);
    esc(f, str(sum, "title"));
    fprintf(f, "</h1>\n<p>%lld of %lld runs, %lld repeats of %llds after %llds warm-up per point, generated %s.%s</p>\n",
            (long long)json_integer_value(json_object_get(sum, "runs_done")),
            (long long)json_integer_value(json_object_get(sum, "runs_planned")),
            (long long)json_integer_value(json_object_get(spec, "repeats")),
            (long long)json_integer_value(json_object_get(spec, "time")),
            (long long)json_integer_value(json_object_get(spec, "warmup")), str(sum, "generated"),
            json_is_true(json_object_get(sum, "complete")) ? "" : " <b class=\"warn\">Incomplete: run the comparison again to finish it.</b>");
    fprintf(f, "<section id=\"verdicts\"><h2>Verdicts</h2>\n");
    verdicts(h, NULL, f);
    const json_t *g = json_object_get(sum, "regression");
    if (strcmp(str(g, "status"), "off") != 0)
        fprintf(f, "<p id=\"regression\" data-status=\"%s\">Regression gate against %s (slower by more than %.1f%%): <b>%s</b></p>\n",
                str(g, "status"), str(g, "baseline"), num(g, "threshold_pct"), str(g, "status"));
    fprintf(f, "</section>\n");
    char series[1024] = "";
    size_t i, q;
    json_t *w, *t;
    json_array_foreach(json_object_get(spec, "targets"), i, t)
        snprintf(series + strlen(series), sizeof series - strlen(series), "%s%s", i ? " " : "", str(t, "name"));
    json_array_foreach(json_object_get(spec, "workloads"), i, w) {
        const char *wl = str(w, "label");
        fprintf(f, "<section class=\"workload\" id=\"wl-%s\"><h2>%s</h2>\n", wl, wl);
        figure(h, "chart-tps", wl, -1, series, f);
        fprintf(f, "<ul class=\"scaling\">\n");
        json_t *x;
        json_array_foreach(json_object_get(sum, "sweeps"), q, x)
            if (!strcmp(str(x, "workload"), wl)) {
                fprintf(f, "<li>");
                esc(f, str(x, "text"));
                fprintf(f, "</li>\n");
            }
        fprintf(f, "</ul>\n");
        points_table(h, wl, f);
        json_array_foreach(json_object_get(spec, "threads"), q, x) {
            long th = (long)json_integer_value(x);
            fprintf(f, "<h3>%s, %ld threads</h3>\n", wl, th);
            figure(h, "chart-lat", wl, th, series, f);
            figure(h, "chart-time", wl, th, series, f);
        }
        fprintf(f, "</section>\n");
    }
    fprintf(f, "<section id=\"warnings\"><h2>Warnings</h2>\n<ul>\n");
    json_array_foreach(json_object_get(sum, "warnings"), i, w) {
        fprintf(f, "<li data-kind=\"%s\">%s: ", str(w, "kind"), str(w, "run"));
        esc(f, str(w, "text"));
        fprintf(f, "</li>\n");
    }
    if (json_array_size(json_object_get(sum, "warnings")) == 0)
        fprintf(f, "<li>none</li>\n");
    fprintf(f, "</ul></section>\n<section id=\"runs-section\"><h2>Every run</h2>\n");
    runs_table(h, f);
    fprintf(f, "</section>\n");
    environment(h, f);
    fprintf(f, "<section id=\"method\"><h2>Method</h2><p>");
    esc(f, str(sum, "method"));
    fprintf(f, "</p></section>\n</body></html>\n");
}

int cmp_html_report(const json_t *sum, const char *path, const char *chart_dir, char *err, size_t errlen)
{
    struct html h = {.sum = sum, .dir = chart_dir};
    if (mkdir(chart_dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", chart_dir, strerror(errno));
        return -1;
    }
    char script[4200];
    snprintf(script, sizeof script, "%s/charts.gp", chart_dir);
    h.gp = fopen(script, "w");
    if (h.gp == NULL) {
        snprintf(err, errlen, "cannot write %s: %s", script, strerror(errno));
        return -1;
    }
    const json_t *spec = json_object_get(sum, "spec");
    size_t i, q;
    json_t *w, *x;
    json_array_foreach(json_object_get(spec, "workloads"), i, w) {
        const char *wl = str(w, "label");
        chart_throughput(&h, wl);
        json_array_foreach(json_object_get(spec, "threads"), q, x) {
            chart_latency(&h, wl, (long)json_integer_value(x));
            chart_time(&h, wl, (long)json_integer_value(x));
        }
    }
    if (fclose(h.gp) != 0) {
        snprintf(err, errlen, "cannot write %s", script);
        return -1;
    }
    h.gnuplot_ok = run_gnuplot(&h, script) == 0;
    if (!h.gnuplot_ok)
        fprintf(stderr, "compare: %s\n", h.gnuplot_msg);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    body(&h, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
