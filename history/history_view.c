/*
 * history_view.c: what the `sbench history` subcommands share: times read
 * and written, a target's text, one run found, and the figures of a run's
 * report (its final line, its windows' interval) read back from the store
 * (a store another machine writes is untrusted too: read with results/).
 */
#include "history_cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../results/json_get.h"

void hist_time_text(double t, char *buf, size_t len)
{
    time_t s = (time_t)t;
    struct tm tm;
    if (!isfinite(t) || gmtime_r(&s, &tm) == NULL) {
        snprintf(buf, len, "?");
        return;
    }
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

double hist_time_parse(const char *s)
{
    char *end;
    if (s[0] == '@') {
        double t = strtod(s + 1, &end);
        return end > s + 1 && *end == '\0' && t >= 0 ? t : -1;
    }
    double n = strtod(s, &end);
    if (end > s && isdigit((unsigned char)s[0]) && end[0] && !end[1] && strchr("dhm", end[0])) {
        double unit = end[0] == 'd' ? 86400 : end[0] == 'h' ? 3600 : 60;
        return (double)time(NULL) - n * unit;
    }
    struct tm tm = {0};
    char tail[8] = "";
    int k = sscanf(s, "%4d-%2d-%2d%*[T ]%2d:%2d:%2d%7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, tail);
    if (k < 3 || (k == 3 && strlen(s) != 10) || (k >= 4 && k < 5) || (tail[0] && strcmp(tail, "Z") != 0))
        return -1;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    return t == (time_t)-1 ? -1 : (double)t;
}

void hist_target_text(const struct sb_hist_run *r, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", r->driver && *r->driver ? r->driver : "?");
    if (n >= 0 && (size_t)n < len && ((r->host && *r->host) || r->port || (r->dbname && *r->dbname)))
        snprintf(buf + n, len - (size_t)n, "://%s:%d/%s", r->host ? r->host : "", r->port,
                 r->dbname ? r->dbname : "");
}

json_object *hist_final_line(const struct sb_hist_run *r)
{
    if (r->report == NULL)
        return NULL;
    struct sb_json_lines jl;
    json_object *o = NULL, *fin = NULL;
    char err[256];
    if (sb_json_lines_init(&jl, r->report, strlen(r->report), err, sizeof err) == 0)
        while (sb_json_lines_next(&jl, &o, err, sizeof err) == 1) {
            const char *type = sb_json_str(o, "type");
            if (type && strcmp(type, "final") == 0) {
                json_object_put(fin);
                fin = o;
            } else
                json_object_put(o);
        }
    sb_json_lines_close(&jl);
    return fin;
}

/* Student's t at 97.5% for df degrees of freedom. */
static double t975(int df)
{
    static const double t[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    return df <= 30 ? t[df] : df <= 60 ? 2.00 : df <= 120 ? 1.98 : 1.96;
}

void hist_windows_of(const struct sb_hist_run *r, struct hist_windows *w)
{
    memset(w, 0, sizeof *w);
    size_t total = sb_hist_window_tps(r, NULL, 0);
    double *tps = total >= 2 ? malloc(total * sizeof *tps) : NULL;
    if (tps == NULL)
        return;
    sb_hist_window_tps(r, tps, total);
    double sum = 0, sum2 = 0;
    int n = (int)total;
    for (int i = 0; i < n; i++)
        sum += tps[i], sum2 += tps[i] * tps[i];
    free(tps);
    w->n = n;
    w->mean = sum / n;
    double var = (sum2 - sum * sum / n) / (n - 1);
    w->half = t975(n - 1) * sqrt(var > 0 ? var : 0) / sqrt(n);
}

int hist_one_run(struct sb_history *h, const char *which, struct sb_hist_run *out)
{
    struct sb_hist_filter f = {.run = which, .with_report = 1};
    struct sb_hist_runs runs;
    char err[1024];
    if (sb_history_query(h, &f, &runs, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        return -1;
    }
    if (runs.n != 1) {
        fprintf(stderr, "sbench history: %s run '%s' in %s\n", runs.n ? "more than one" : "no", which,
                sb_history_where(h));
        sb_hist_runs_free(&runs);
        return -1;
    }
    *out = runs.v[0];
    runs.n = 0; /* the record is the caller's now */
    sb_hist_runs_free(&runs);
    return 0;
}
