/*
 * history_html.c: `sbench history report --html=FILE`: the trend (the
 * runs like the newest selected one) as one self-contained HTML page:
 * tps per run with its windows' 95% interval and p95 latency, drawn by
 * gnuplot (its svg terminal, inline in the page), then a table of the runs
 * with what changed at each (labels, versions) from the one before.  Every
 * string from the store is escaped; the page is written whole (a
 * temporary file renamed) and loads nothing from elsewhere.
 */
#include "history_cli.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/options.h"

/* gnuplot gets this long to draw, then it is killed. */
#define GNUPLOT_SECONDS 60

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
}

/* The gnuplot script of the two charts into dir/plot.gp. */
static int write_script(const char *dir, const struct sb_hist_runs *runs)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    FILE *gp = fopen(path, "w");
    if (gp == NULL)
        return -1;
    fprintf(gp, "set terminal svg size 900,360 dynamic font 'sans,11'\nset grid\nset key top left\n"
                "set xlabel 'run (store number)'\nset xtics rotate by -45\nset offsets 0.5, 0.5, 0, 0\n");
    fprintf(gp, "set output '%s/tps.svg'\nset ylabel 'transactions per second'\n"
                "plot '-' using 1:2:3:4:xtic(5) with yerrorbars title '95%% interval of the windows' lc rgb '#1f77b4',"
                " '-' using 1:2 with linespoints title 'tps' lc rgb '#1f77b4'\n", dir);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < runs->n; i++) {
            struct hist_windows w;
            hist_windows_of(&runs->v[i], &w);
            double lo = w.n >= 2 ? w.mean - w.half : runs->v[i].tps, hi = w.n >= 2 ? w.mean + w.half : runs->v[i].tps;
            if (pass == 0)
                fprintf(gp, "%zu %.17g %.17g %.17g \"%lld\"\n", i, runs->v[i].tps, lo, hi, (long long)runs->v[i].id);
            else
                fprintf(gp, "%zu %.17g\n", i, runs->v[i].tps);
        }
        fprintf(gp, "e\n");
    }
    fprintf(gp, "set output '%s/p95.svg'\nset ylabel 'p95 latency (ms)'\n"
                "plot '-' using 1:2:xtic(3) with linespoints title 'p95' lc rgb '#d62728'\n", dir);
    for (size_t i = 0; i < runs->n; i++)
        if (isfinite(runs->v[i].lat_p95_ms))
            fprintf(gp, "%zu %.17g \"%lld\"\n", i, runs->v[i].lat_p95_ms, (long long)runs->v[i].id);
    fprintf(gp, "e\n");
    return fclose(gp);
}

/* gnuplot on dir/plot.gp, at most GNUPLOT_SECONDS.  0, or -1 with why. */
static int run_gnuplot(const char *dir, char *why, size_t len)
{
    char script[4200], log[4200];
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    pid_t pid = fork();
    if (pid < 0)
        return snprintf(why, len, "cannot start gnuplot: %s", strerror(errno)), -1;
    if (pid == 0) {
        if (freopen(log, "w", stderr) == NULL)
            _exit(126);
        dup2(2, 1);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    pid_t got = 0;
    for (int tick = 0; tick < GNUPLOT_SECONDS * 20 && (got = waitpid(pid, &st, WNOHANG)) == 0; tick++) {
        struct timespec d = {0, 50000000};
        nanosleep(&d, NULL);
    }
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        return snprintf(why, len, "gnuplot did not finish in %d s", GNUPLOT_SECONDS), -1;
    }
    if (got < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return snprintf(why, len, WIFEXITED(st) && WEXITSTATUS(st) == 127
                        ? "gnuplot is not installed (Debian: apt-get install gnuplot-nox)"
                        : "gnuplot failed"), -1;
    return 0;
}

/* dir/NAME.svg into f from its <svg element on; -1 when it is not there. */
static int embed_svg(FILE *f, const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int started = 0;
    while (getline(&line, &cap, in) > 0) {
        started |= strncmp(line, "<svg", 4) == 0;
        if (started)
            fputs(line, f);
    }
    free(line);
    fclose(in);
    return started ? 0 : -1;
}

/* What changed at run b from run a: labels and versions. */
static void changes(FILE *f, const struct sb_hist_run *a, const struct sb_hist_run *b)
{
    const char *names[] = {"labels", "server", "driver", "sbench"};
    const char *va[] = {a->labels, a->server_version, a->driver_version, a->sbench_version};
    const char *vb[] = {b->labels, b->server_version, b->driver_version, b->sbench_version};
    int n = 0;
    for (int i = 0; i < 4; i++)
        if (strcmp(va[i], vb[i]) != 0) {
            fprintf(f, "%s%s: ", n++ ? "; " : "", names[i]);
            esc(f, va[i]);
            fputs(" &rarr; ", f);
            esc(f, vb[i]);
        }
}

static void write_table(FILE *f, const struct sb_hist_runs *runs)
{
    fputs("<table><tr><th>run</th><th>time (UTC)</th><th>tps</th><th>95% interval (windows)</th>"
          "<th>vs first</th><th>p95 ms</th><th>labels</th><th>changed from the run before</th></tr>\n", f);
    for (size_t i = 0; i < runs->n; i++) {
        const struct sb_hist_run *r = &runs->v[i];
        struct hist_windows w;
        hist_windows_of(r, &w);
        char when[32];
        hist_time_text(r->time, when, sizeof when);
        fprintf(f, "<tr><td>%lld</td><td>%s</td><td class=\"tps\">%.2f</td><td>", (long long)r->id, when, r->tps);
        if (w.n >= 2)
            fprintf(f, "%.2f &ndash; %.2f", w.mean - w.half, w.mean + w.half);
        fprintf(f, "</td><td>%+.1f%%</td><td>%.3f</td><td>", runs->v[0].tps > 0
                ? 100.0 * (r->tps - runs->v[0].tps) / runs->v[0].tps : 0.0, r->lat_p95_ms);
        esc(f, r->labels);
        fputs("</td><td>", f);
        if (i > 0)
            changes(f, &runs->v[i - 1], r);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void write_page(FILE *f, const struct sb_hist_runs *runs, const char *dir, int drawn, const char *why)
{
    const struct sb_hist_run *last = &runs->v[runs->n - 1];
    char target[256];
    hist_target_text(last, target, sizeof target);
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>sbench history: ", f);
    esc(f, last->workload);
    fputs("</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}.warn{color:#b00}</style></head><body>\n", f);
    fputs("<h1>Trend of ", f);
    esc(f, last->workload);
    fputs("</h1>\n<p>options digest ", f);
    esc(f, last->options_digest);
    fputs(", target ", f);
    esc(f, last->target && *last->target ? last->target : target);
    fprintf(f, ", %zu run%s (sbench history report)</p>\n", runs->n, runs->n == 1 ? "" : "s");
    static const char *const charts[] = {"tps", "p95"};
    for (int i = 0; i < 2; i++) {
        fprintf(f, "<figure id=\"chart-%s\">\n", charts[i]);
        if (!drawn || embed_svg(f, dir, charts[i]) != 0) {
            fputs("<p class=\"warn\">chart not drawn: ", f);
            esc(f, why[0] ? why : "gnuplot wrote no chart");
            fputs("</p>\n", f);
        }
        fputs("</figure>\n", f);
    }
    write_table(f, runs);
    fputs("</body></html>\n", f);
}

/* Removes the scratch folder's files and the folder. */
static void clean(const char *dir)
{
    static const char *const files[] = {"plot.gp", "gnuplot.log", "tps.svg", "p95.svg", NULL};
    char path[4200];
    for (int i = 0; files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

int hist_cmd_report(struct hist_cmd *c)
{
    const char *html = sb_opt_str(c->o, "html");
    if (html == NULL || *html == '\0') {
        fprintf(stderr, "sbench history report: give --html=FILE\n");
        return 2;
    }
    struct sb_hist_runs runs;
    if (hist_series(c, &runs) != 0)
        return 1;
    if (runs.n == 0) {
        fprintf(stderr, "sbench history report: no run matches in %s\n", sb_history_where(c->h));
        return 1;
    }
    char dir[1024], tmp[4200], why[300] = "";
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%.900s/sbench-history.XXXXXX", base && *base ? base : "/tmp");
    int drawn = mkdtemp(dir) != NULL && write_script(dir, &runs) == 0 && run_gnuplot(dir, why, sizeof why) == 0;
    if (!drawn)
        fprintf(stderr, "sbench history report: charts not drawn: %s\n", why[0] ? why : strerror(errno));
    if (strlen(html) > 4000) {
        fprintf(stderr, "sbench history report: --html: the path is too long\n");
        clean(dir);
        sb_hist_runs_free(&runs);
        return 2;
    }
    snprintf(tmp, sizeof tmp, "%.4000s.tmp", html);
    FILE *f = fopen(tmp, "w");
    int rc = 0;
    if (f == NULL) {
        fprintf(stderr, "sbench history report: cannot write '%s': %s\n", html, strerror(errno));
        rc = 1;
    } else {
        write_page(f, &runs, dir, drawn, why);
        int bad = ferror(f);
        if (fclose(f) != 0 || bad || rename(tmp, html) != 0) {
            fprintf(stderr, "sbench history report: writing '%s' failed\n", html);
            unlink(tmp);
            rc = 1;
        }
    }
    clean(dir);
    sb_hist_runs_free(&runs);
    return rc;
}
