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
#include "../lib/html.h"

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
    const json_object *sum;
    const char *dir;            /* chart directory */
    FILE *gp;                   /* the gnuplot script */
    struct chart charts[MAX_CHARTS];
    int ncharts;
    int gnuplot_ok;
    char gnuplot_msg[300];
};

static const char *str(const json_object *o, const char *key)
{
    const char *s = sb_json_str(o, key);
    return s ? s : "";
}

#define esc cmp_html_esc

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

static const json_object *point(const struct html *h, const char *wl, long threads, const char *target)
{
    const json_object *points = sb_json_member(h->sum, "points");
    for (size_t i = 0; i < sb_json_len(points); i++) {
        const json_object *x = sb_json_elem(points, i);
        if (!strcmp(str(x, "workload"), wl) && !strcmp(str(x, "target"), target) && sb_json_int(x, "threads") == threads)
            return x;
    }
    return NULL;
}

/* Each knee of workload wl (compare_knee.c) as a dashed vertical line in
 * its target's colour, labelled, on the throughput chart. */
static void knee_marks(struct html *h, const char *wl)
{
    const json_object *targets = sb_json_at(h->sum, "spec.targets"), *sweeps = sb_json_member(h->sum, "sweeps");
    for (size_t k = 0; k < sb_json_len(targets); k++)
        for (size_t q = 0; q < sb_json_len(sweeps); q++) {
            const json_object *x = sb_json_elem(sweeps, q), *knee = sb_json_member(x, "knee");
            const char *name = str(sb_json_elem(targets, k), "name");
            if (strcmp(str(x, "workload"), wl) || strcmp(str(x, "target"), name) ||
                !json_object_is_type(knee, json_type_object))
                continue;
            long t = (long)sb_json_int(knee, "threads");
            fprintf(h->gp, "set arrow from %ld, graph 0 to %ld, graph 1 nohead dt 2 lw 1.5 lc %zu\n", t, t, k + 1);
            fprintf(h->gp, "set label 'knee: %s' at %ld, graph %.2f offset 0.5,0 tc lt %zu font ',9'\n", name, t,
                    0.95 - 0.06 * (double)k, k + 1);
        }
}

static void chart_throughput(struct html *h, const char *wl)
{
    const json_object *spec = sb_json_member(h->sum, "spec");
    const json_object *threads = sb_json_member(spec, "threads"), *targets = sb_json_member(spec, "targets");
    if (new_chart(h, "Throughput against threads: median of the repeats, bars: its interval (order statistics, at the level of the table's \"level\" column: the closest to 95% the repeats allow); dashed: a knee",
                  "chart-tps", wl, -1) == NULL)
        return;
    long lo = 0, hi = 0;
    size_t nth = sb_json_len(threads), ntg = sb_json_len(targets);
    for (size_t i = 0; i < nth; i++) {
        long v = (long)sb_json_int_of(sb_json_elem(threads, i));
        lo = i == 0 || v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (hi >= 4 * lo)
        fprintf(h->gp, "set logscale x 2\n");
    fprintf(h->gp, "set xlabel 'threads'\nset ylabel 'transactions per second'\nset yrange [0:*]\n");
    fprintf(h->gp, "set xrange [%g:%g]\n", hi >= 4 * lo ? lo / 1.3 : lo - 0.5, hi >= 4 * lo ? hi * 1.3 : hi + 0.5);
    fprintf(h->gp, "set xtics (");
    for (size_t i = 0; i < nth; i++)
        fprintf(h->gp, "%s%lld", i ? ", " : "", (long long)sb_json_int_of(sb_json_elem(threads, i)));
    fprintf(h->gp, ")\n");
    knee_marks(h, wl);
    for (size_t k = 0; k < ntg; k++) {
        fprintf(h->gp, "$T%zu << EOD\n", k);
        for (size_t i = 0; i < nth; i++) {
            long t = (long)sb_json_int_of(sb_json_elem(threads, i));
            const json_object *p = point(h, wl, t, str(sb_json_elem(targets, k), "name"));
            if (p) {
                const json_object *v = sb_json_member(p, "tps");
                fprintf(h->gp, "%ld %.17g %.17g %.17g\n", t, sb_json_num(v, "median"), sb_json_num(v, "low"),
                        sb_json_num(v, "high"));
            }
        }
        fprintf(h->gp, "EOD\n");
    }
    fprintf(h->gp, "plot ");
    for (size_t k = 0; k < ntg; k++)
        fprintf(h->gp, "%s$T%zu using 1:2:3:4 with yerrorlines lw 2 pt 7 lc %zu title '%s'", k ? ", " : "", k,
                k + 1, str(sb_json_elem(targets, k), "name"));
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
    const json_object *targets = sb_json_at(h->sum, "spec.targets");
    size_t ntg = sb_json_len(targets);
    for (size_t k = 0; k < ntg; k++) {
        const json_object *p = point(h, wl, threads, str(sb_json_elem(targets, k), "name"));
        const json_object *curve = sb_json_at(p, "latency_ms.curve");
        fprintf(h->gp, "$L%zu << EOD\n", k);
        for (size_t i = 0; i < sb_json_len(curve); i++) { /* x = 1 / (1 - p) */
            const json_object *pt = sb_json_elem(curve, i);
            fprintf(h->gp, "%.17g %.17g\n", 1 / (1 - sb_json_num_of(sb_json_elem(pt, 0)) / 100),
                    sb_json_num_of(sb_json_elem(pt, 1)));
        }
        if (sb_json_len(curve) == 0)
            fprintf(h->gp, "1 NaN\n");
        fprintf(h->gp, "EOD\n");
    }
    if (ntg == 0)
        return;
    fprintf(h->gp, "plot ");
    for (size_t k = 0; k < ntg; k++)
        fprintf(h->gp, "%s$L%zu using 1:2 with steps lw 2 lc %zu title '%s'", k ? ", " : "", k, k + 1,
                str(sb_json_elem(targets, k), "name"));
    fprintf(h->gp, "\n");
}

static void chart_time(struct html *h, const char *wl, long threads)
{
    if (new_chart(h, "Throughput of every run over time (one line per repeat)", "chart-time", wl, threads) == NULL)
        return;
    fprintf(h->gp, "set xlabel 'seconds (after warm-up)'\nset ylabel 'transactions per second'\nset yrange [0:*]\n");
    const json_object *targets = sb_json_at(h->sum, "spec.targets"), *runs = sb_json_member(h->sum, "runs");
    size_t n = 0;
    char plot[16384] = "";
    size_t used = 0;
    for (size_t k = 0; k < sb_json_len(targets); k++)
        for (size_t i = 0; i < sb_json_len(runs); i++) {
            const json_object *r = sb_json_elem(runs, i), *tg = sb_json_elem(targets, k);
            if (strcmp(str(r, "workload"), wl) || strcmp(str(r, "target"), str(tg, "name")) ||
                sb_json_int(r, "threads") != threads)
                continue;
            fprintf(h->gp, "$R%zu << EOD\n", n);
            const json_object *iv = sb_json_member(r, "intervals");
            for (size_t q = 0; q < sb_json_len(iv); q++) {
                const json_object *pt = sb_json_elem(iv, q);
                fprintf(h->gp, "%.17g %.17g\n", sb_json_num_of(sb_json_elem(pt, 0)), sb_json_num_of(sb_json_elem(pt, 1)));
            }
            if (sb_json_len(iv) == 0)
                fprintf(h->gp, "0 NaN\n");
            fprintf(h->gp, "EOD\n");
            long rep = (long)sb_json_int(r, "repeat");
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
    return sb_svg_embed(f, path, c->id); /* lib/html.c */
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
               "<th>median tps</th><th>its interval: low</th><th>high</th><th>level</th><th>min</th><th>max</th>"
               "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>mean ms</th></tr>\n", wl);
    const json_object *points = sb_json_member(h->sum, "points");
    for (size_t i = 0; i < sb_json_len(points); i++) {
        const json_object *p = sb_json_elem(points, i);
        if (strcmp(str(p, "workload"), wl))
            continue;
        const json_object *t = sb_json_member(p, "tps"), *l = sb_json_member(p, "latency_ms");
        const json_object *pc = sb_json_member(l, "percentiles");
        fprintf(f, "<tr data-threads=\"%lld\" data-target=\"%s\"><td>%lld</td><td>%s</td>",
                (long long)sb_json_int(p, "threads"), str(p, "target"), (long long)sb_json_int(p, "threads"),
                str(p, "target"));
        cell(f, "tps.n", sb_json_num(t, "n"), "%.0f");
        cell(f, "tps.median", sb_json_num(t, "median"), "%.1f");
        cell(f, "tps.low", sb_json_num(t, "low"), "%.1f");
        cell(f, "tps.high", sb_json_num(t, "high"), "%.1f");
        cell(f, "tps.level", sb_json_num(t, "level") * 100, "%.1f%%");
        cell(f, "tps.min", sb_json_num(t, "min"), "%.1f");
        cell(f, "tps.max", sb_json_num(t, "max"), "%.1f");
        cell(f, "latency_ms.50", sb_json_num(pc, "50"), "%.3f");
        cell(f, "latency_ms.95", sb_json_num(pc, "95"), "%.3f");
        cell(f, "latency_ms.99", sb_json_num(pc, "99"), "%.3f");
        cell(f, "latency_ms.99.9", sb_json_num(pc, "99.9"), "%.3f");
        cell(f, "latency_ms.mean", sb_json_num(l, "mean"), "%.3f");
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void verdicts(const struct html *h, const char *wl, FILE *f)
{
    fprintf(f, "<ul class=\"verdicts\">\n");
    const json_object *all = sb_json_member(h->sum, "verdicts");
    for (size_t i = 0; i < sb_json_len(all); i++) {
        const json_object *v = sb_json_elem(all, i);
        if (wl && strcmp(str(v, "workload"), wl))
            continue;
        fprintf(f, "<li class=\"%s\" data-workload=\"%s\" data-threads=\"%lld\" data-a=\"%s\" data-b=\"%s\" "
                   "data-change=\"%.17g\" data-low=\"%.17g\" data-high=\"%.17g\" data-p=\"%.17g\"><b>%s, %lld threads:</b> ",
                sb_json_true(v, "significant") ? "sig" : "nosig", str(v, "workload"),
                (long long)sb_json_int(v, "threads"), str(v, "a"), str(v, "b"), sb_json_num(v, "change_pct"),
                sb_json_num(v, "low_pct"), sb_json_num(v, "high_pct"), sb_json_num(v, "p_value"), str(v, "workload"),
                (long long)sb_json_int(v, "threads"));
        esc(f, str(v, "text"));
        fprintf(f, " <span class=\"p\">(p = %.3g, Benjamini-Hochberg adjusted %.3g)</span>",
                sb_json_num(v, "p_value"), sb_json_num(v, "p_adjusted"));
        if (sb_json_str(v, "server_difference")) { /* compare_evidence.c */
            fprintf(f, "<br><span class=\"server\">The servers' own evidence: ");
            esc(f, str(v, "server_difference"));
            fprintf(f, "</span>");
        }
        fprintf(f, "</li>\n");
    }
    fprintf(f, "</ul>\n");
}

static void runs_table(const struct html *h, FILE *f)
{
    fprintf(f, "<table class=\"runs\">\n<tr><th>order</th><th>run</th><th>tps</th><th>transactions</th><th>seconds</th>"
               "<th>p95 ms</th><th>client CPU</th><th>machine busy</th><th>busy before</th><th>load 1m</th><th>command</th></tr>\n");
    const json_object *runs = sb_json_member(h->sum, "runs");
    for (size_t i = 0; i < sb_json_len(runs); i++) {
        const json_object *r = sb_json_elem(runs, i);
        fprintf(f, "<tr data-run=\"%s\"><td>%lld</td><td>%s</td>", str(r, "id"), (long long)sb_json_int(r, "order"),
                str(r, "id"));
        cell(f, "tps", sb_json_num(r, "tps"), "%.1f");
        cell(f, "transactions", sb_json_num(r, "transactions"), "%.0f");
        cell(f, "seconds", sb_json_num(r, "seconds"), "%.2f");
        cell(f, "latency_ms.95", sb_json_num(sb_json_member(r, "latency_ms"), "95"), "%.3f");
        cell(f, "client_cpu_share", sb_json_num(r, "client_cpu_share") * 100, "%.0f%%");
        cell(f, "machine_busy_share", sb_json_num(r, "machine_busy_share") * 100, "%.0f%%");
        cell(f, "busy_share_before", sb_json_num(r, "busy_share_before") * 100, "%.0f%%");
        cell(f, "loadavg_1m", sb_json_num(r, "loadavg_1m"), "%.2f");
        fprintf(f, "<td class=\"cmd\">");
        esc(f, str(r, "command"));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* v as compact JSON text (owned by v; "null" for NULL) */
static const char *json_text(json_object *v)
{
    const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    return s ? s : "";
}

/* "<tr class=CLS ATTR=NAME><th>NAME</th>" (cls may be NULL) */
static void row_start(FILE *f, const char *cls, const char *attr, const char *name)
{
    fprintf(f, "<tr%s%s%s %s=\"", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", attr);
    esc(f, name);
    fprintf(f, "\"><th>");
    esc(f, name);
    fprintf(f, "</th>");
}

/* One row of the machine table: a label, the member key (dotted) of
 * the machine object it shows, its text. */
static void fact_row(FILE *f, const char *label, const char *key, const char *text)
{
    fprintf(f, "<tr><th>%s</th><td data-key=\"%s\">", label, key);
    esc(f, text);
    fprintf(f, "</td></tr>\n");
}

static double mb(const json_object *o, const char *path)
{
    return sb_json_num_of(sb_json_at(o, path)) / (1024.0 * 1024.0);
}

/* The machine's facts (sbench info's host object). */
static void machine_table(const json_object *env, FILE *f)
{
    const json_object *m = sb_json_member(env, "machine");
    char t[1600];
    fprintf(f, "<table class=\"env\" id=\"machine\" data-from=\"");
    esc(f, str(env, "machine_from"));
    fprintf(f, "\">\n");
    fact_row(f, "OS", "os", str(m, "os"));
    snprintf(t, sizeof t, "%s %s (%s) %s", str(m, "sysname"), str(m, "kernel"), str(m, "arch"),
             str(m, "kernel_version"));
    fact_row(f, "kernel", "kernel", t);
    fact_row(f, "host name", "name", str(m, "name"));
    fact_row(f, "CPU model", "cpu_model", str(m, "cpu_model"));
    snprintf(t, sizeof t, "%lld online (%lld configured)", (long long)sb_json_int(m, "cpus"),
             (long long)sb_json_int(m, "cpus_configured"));
    fact_row(f, "CPUs", "cpus", t);
    snprintf(t, sizeof t, "%.0f MB total, %.0f MB available", mb(m, "memory_bytes"),
             mb(m, "memory_available_bytes"));
    fact_row(f, "memory", "memory_bytes", t);
    snprintf(t, sizeof t, "%s on %s (%s), %.0f MB free of %.0f MB (%.0f MB usable), working directory %s",
             str(sb_json_member(m, "fs"), "mount"), str(sb_json_member(m, "fs"), "device"),
             str(sb_json_member(m, "fs"), "type"), mb(m, "fs.free_bytes"), mb(m, "fs.total_bytes"),
             mb(m, "fs.available_bytes"), str(m, "cwd"));
    fact_row(f, "file system", "fs", t);
    snprintf(t, sizeof t, "%s (available: %s)", str(m, "clocksource"), str(m, "clocksources_available"));
    fact_row(f, "clock source", "clocksource", t);
    const json_object *l = sb_json_member(m, "loadavg");
    snprintf(t, sizeof t, "%.2f %.2f %.2f", sb_json_num_of(sb_json_elem(l, 0)), sb_json_num_of(sb_json_elem(l, 1)),
             sb_json_num_of(sb_json_elem(l, 2)));
    fact_row(f, "load average at the start", "loadavg", sb_json_len(l) == 3 ? t : "");
    fprintf(f, "</table>\n");
    const json_object *drivers = sb_json_member(env, "drivers");
    if (sb_json_len(drivers) == 0)
        return;
    fprintf(f, "<table class=\"env\" id=\"drivers\"><tr><th>driver</th><th>client library</th><th>file</th></tr>\n");
    for (size_t i = 0; i < sb_json_len(drivers); i++) {
        const json_object *d = sb_json_elem(drivers, i);
        row_start(f, NULL, "data-driver", str(d, "name"));
        fprintf(f, "<td>");
        esc(f, sb_json_str(d, "error") ? "does not load: " : "");
        esc(f, sb_json_str(d, "error") ? str(d, "error") : str(d, "client_version"));
        fprintf(f, "</td><td class=\"cmd\">");
        esc(f, str(d, "path"));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* A setting's "VALUE UNIT" (unit may be NULL). */
static void setting_text(FILE *f, const char *v, const char *u)
{
    esc(f, v ? v : "");
    if (u && *u) {
        fputc(' ', f);
        esc(f, u);
    }
}

/* The settings that differ between targets, highlighted, then each
 * target's whole list, collapsed. */
static void settings_tables(const json_object *env, FILE *f)
{
    const json_object *targets = sb_json_member(env, "targets"), *differ = sb_json_member(env, "settings_differ");
    fprintf(f, "<h3>Server settings that differ</h3>\n");
    int with = (int)sb_json_int(env, "settings_targets");
    if (sb_json_len(differ) == 0) {
        fprintf(f, "<p id=\"settings-differ-none\">%s</p>\n",
                with >= 2 ? "None: no setting that two targets have differs between them."
                          : with ? "Only one target's server settings were read." : "No server settings were read.");
    } else {
        fprintf(f, "<table class=\"differs\" id=\"settings-differ\"><tr><th>setting</th>");
        for (size_t i = 0; i < sb_json_len(targets); i++) {
            fprintf(f, "<th>");
            esc(f, str(sb_json_elem(targets, i), "name"));
            fprintf(f, "</th>");
        }
        fprintf(f, "</tr>\n");
        for (size_t q = 0; q < sb_json_len(differ); q++) {
            const json_object *d = sb_json_elem(differ, q);
            row_start(f, "differs", "data-setting", str(d, "name"));
            for (size_t i = 0; i < sb_json_len(targets); i++) {
                const char *name = str(sb_json_elem(targets, i), "name");
                const char *v = sb_json_str(sb_json_member(d, "values"), name);
                fprintf(f, "<td data-target=\"");
                esc(f, name);
                fprintf(f, "\" data-value=\"");
                esc(f, v ? v : "");
                fprintf(f, "\">");
                if (v)
                    setting_text(f, v, sb_json_str(sb_json_member(d, "units"), name));
                else
                    fputs("<i>none</i>", f);
                fprintf(f, "</td>");
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table>\n");
    }
    for (size_t i = 0; i < sb_json_len(targets); i++) {
        const json_object *t = sb_json_elem(targets, i);
        json_object *settings = sb_json_at(t, "server_settings.settings");
        if (!json_object_is_type(settings, json_type_object) || json_object_object_length(settings) == 0)
            continue;
        fprintf(f, "<details class=\"settings\" data-target=\"");
        esc(f, str(t, "name"));
        fprintf(f, "\"><summary>");
        esc(f, str(t, "name"));
        fprintf(f, ": %d server settings (", json_object_object_length(settings));
        esc(f, str(sb_json_member(t, "server_settings"), "version"));
        fprintf(f, "), read after run ");
        esc(f, str(t, "server_settings_run"));
        fprintf(f, "</summary>\n<table class=\"settings\"><tr><th>setting</th><th>value</th></tr>\n");
        json_object_object_foreach(settings, name, e) {
            int d = 0;
            for (size_t q = 0; q < sb_json_len(differ) && !d; q++)
                d = strcmp(str(sb_json_elem(differ, q), "name"), name) == 0;
            row_start(f, d ? "differs" : NULL, "data-setting", name);
            fprintf(f, "<td>");
            setting_text(f, sb_json_str(e, "value"), sb_json_str(e, "unit"));
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table></details>\n");
    }
}

static void environment(const struct html *h, FILE *f)
{
    const json_object *env = sb_json_member(h->sum, "environment");
    fprintf(f, "<section id=\"environment\"><h2>Environment</h2>\n<p>sbench ");
    esc(f, str(env, "sbench_version"));
    fprintf(f, "</p>\n");
    machine_table(env, f);
    fprintf(f, "<table class=\"env\" id=\"targets\">\n");
    const json_object *targets = sb_json_member(env, "targets");
    for (size_t i = 0; i < sb_json_len(targets); i++) {
        const json_object *t = sb_json_elem(targets, i);
        fprintf(f, "<tr><th>");
        esc(f, str(t, "name"));
        fprintf(f, "</th><td>driver ");
        esc(f, str(t, "driver"));
        fprintf(f, ", client ");
        esc(f, str(t, "client_version"));
        fprintf(f, ", server ");
        esc(f, str(t, "server_version"));
        if (sb_json_member(t, "io")) { /* the first run's clients' I/O path */
            fprintf(f, ", I/O ");
            esc(f, str(t, "io"));
        }
        if (sb_json_member(t, "from")) {
            fprintf(f, ", saved runs from ");
            esc(f, str(t, "from"));
        }
        const json_object *opts = sb_json_member(sb_json_elem(sb_json_at(h->sum, "spec.targets"), i), "options");
        fprintf(f, "<br>options:");
        for (size_t q = 0; q < sb_json_len(opts); q++) {
            const char *o = json_object_get_string(sb_json_elem(opts, q));
            fputc(' ', f);
            esc(f, o ? o : "");
        }
        json_object *facts = sb_json_member(t, "facts");
        if (json_object_is_type(facts, json_type_object)) {
            fprintf(f, "<br>facts: ");
            esc(f, json_text(facts));
        }
        fprintf(f, "</td></tr>\n");
    }
    if (sb_json_str(env, "command")) {
        fprintf(f, "<tr><th>command</th><td class=\"cmd\">");
        esc(f, str(env, "command"));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
    settings_tables(env, f);
    fprintf(f, "<p>Every run's exact command is in the table of runs.</p></section>\n");
}

static const char style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;font-size:90%;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "th{background:#f0f0f0}td.cmd{text-align:left;font-family:monospace;font-size:80%}"
    "li.sig{font-weight:bold}li.nosig{color:#555}.warn{color:#a40}figure{margin:1em 0}"
    "figcaption{font-size:90%;color:#555}svg{max-width:100%;height:auto}"
    "table.env td,table.settings td{text-align:left}.differs td{background:#ffe08a;font-weight:bold}"
    "details.settings{margin:.3em 0}table.answer td:nth-child(3),table.answer td:nth-child(7),"
    "table.answer td:nth-child(8){text-align:left}";

static void body(struct html *h, FILE *f)
{
    const json_object *sum = h->sum, *spec = sb_json_member(sum, "spec");
    const json_object *targets = sb_json_member(spec, "targets"), *workloads = sb_json_member(spec, "workloads");
    const json_object *threads = sb_json_member(spec, "threads"), *sweeps = sb_json_member(sum, "sweeps");
    const json_object *warnings = sb_json_member(sum, "warnings");
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    esc(f, str(sum, "title"));
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>", style);
    esc(f, str(sum, "title"));
    fprintf(f, "</h1>\n<p>%lld of %lld runs, %s%lld repeats of %llds after %llds warm-up per point, generated %s.%s</p>\n",
            (long long)sb_json_int(sum, "runs_done"), (long long)sb_json_int(sum, "runs_planned"),
            sb_json_true(spec, "repeats_auto") ? "until settled, at most " : "", (long long)sb_json_int(spec, "repeats"), (long long)sb_json_int(spec, "time"),
            (long long)sb_json_int(spec, "warmup"), str(sum, "generated"),
            sb_json_true(sum, "complete") ? "" : " <b class=\"warn\">Incomplete: run the comparison again to finish it.</b>");
    cmp_html_answer(sum, f);
    fprintf(f, "<section id=\"verdicts\"><h2>Every verdict, pair by pair</h2>\n");
    verdicts(h, NULL, f);
    const json_object *g = sb_json_member(sum, "regression");
    if (strcmp(str(g, "status"), "off") != 0)
        fprintf(f, "<p id=\"regression\" data-status=\"%s\">Regression gate against %s (slower by more than %.1f%%): <b>%s</b></p>\n",
                str(g, "status"), str(g, "baseline"), sb_json_num(g, "threshold_pct"), str(g, "status"));
    fprintf(f, "</section>\n");
    char series[1024] = "";
    for (size_t i = 0; i < sb_json_len(targets); i++)
        snprintf(series + strlen(series), sizeof series - strlen(series), "%s%s", i ? " " : "",
                 str(sb_json_elem(targets, i), "name"));
    for (size_t i = 0; i < sb_json_len(workloads); i++) {
        const char *wl = str(sb_json_elem(workloads, i), "label");
        fprintf(f, "<section class=\"workload\" id=\"wl-%s\"><h2>%s</h2>\n", wl, wl);
        figure(h, "chart-tps", wl, -1, series, f);
        fprintf(f, "<h3>Scaling</h3>\n<ul class=\"scaling\">\n");
        for (size_t q = 0; q < sb_json_len(sweeps); q++) {
            const json_object *x = sb_json_elem(sweeps, q);
            if (!strcmp(str(x, "workload"), wl)) {
                fprintf(f, "<li>");
                esc(f, str(x, "text"));
                fprintf(f, "</li>\n");
            }
        }
        fprintf(f, "</ul>\n<h3>Limits: what limited each point</h3>\n<ul class=\"limits\">\n");
        const json_object *points = sb_json_member(sum, "points");
        for (size_t q = 0; q < sb_json_len(points); q++) { /* what limited each point */
            const json_object *x = sb_json_elem(points, q), *b = sb_json_member(x, "bottleneck");
            if (strcmp(str(x, "workload"), wl) || !sb_json_str(b, "text"))
                continue;
            fprintf(f, "<li class=\"limit\" data-verdict=\"%s\">%lld threads, %s: ", str(b, "verdict"),
                    (long long)sb_json_int(x, "threads"), str(x, "target"));
            esc(f, str(b, "text"));
            fprintf(f, "</li>\n");
        }
        fprintf(f, "</ul>\n");
        points_table(h, wl, f);
        for (size_t q = 0; q < sb_json_len(threads); q++) {
            long th = (long)sb_json_int_of(sb_json_elem(threads, q));
            fprintf(f, "<h3>%s, %ld threads</h3>\n", wl, th);
            figure(h, "chart-lat", wl, th, series, f);
            figure(h, "chart-time", wl, th, series, f);
        }
        fprintf(f, "</section>\n");
    }
    fprintf(f, "<section id=\"warnings\"><h2>Warnings</h2>\n<ul>\n");
    for (size_t i = 0; i < sb_json_len(warnings); i++) {
        const json_object *w = sb_json_elem(warnings, i);
        fprintf(f, "<li data-kind=\"%s\">%s: ", str(w, "kind"), str(w, "run"));
        esc(f, str(w, "text"));
        fprintf(f, "</li>\n");
    }
    if (sb_json_len(warnings) == 0)
        fprintf(f, "<li>none</li>\n");
    fprintf(f, "</ul></section>\n<section id=\"runs-section\"><h2>Every run</h2>\n");
    runs_table(h, f);
    fprintf(f, "</section>\n");
    environment(h, f);
    fprintf(f, "<section id=\"method\"><h2>Method</h2><p>");
    esc(f, str(sum, "method"));
    fprintf(f, "</p></section>\n</body></html>\n");
}

int cmp_html_report(const json_object *sum, const char *path, const char *chart_dir, char *err, size_t errlen)
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
    const json_object *workloads = sb_json_at(sum, "spec.workloads"), *threads = sb_json_at(sum, "spec.threads");
    for (size_t i = 0; i < sb_json_len(workloads); i++) {
        const char *wl = str(sb_json_elem(workloads, i), "label");
        chart_throughput(&h, wl);
        for (size_t q = 0; q < sb_json_len(threads); q++) {
            long th = (long)sb_json_int_of(sb_json_elem(threads, q));
            chart_latency(&h, wl, th);
            chart_time(&h, wl, th);
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
