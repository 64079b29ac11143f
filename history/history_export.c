/*
 * history_export.c: `sbench history export`: the runs a filter selects
 * as CSV (one line per run, the record's columns) or JSON (a list of
 * objects; --with-report adds each run's report lines), to stdout or
 * --output (written whole: a temporary file renamed at the end).
 */
#include "history_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../lib/options.h"
#include "../results/json_get.h"

static const char *const columns[] = {
    "id", "run_id", "session", "source", "time", "time_utc", "workload", "options_digest", "driver",
    "host", "port", "dbname", "target", "point", "repeat", "labels", "tps", "qps", "errors",
    "reconnects", "transactions", "seconds", "lat_avg_ms", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms",
    "lat_max_ms", "nopm", "server_version", "sbench_version", "driver_version", "cmdline", "host_load",
    NULL,
};

/* Column i of r as a JSON value (a new reference; NULL for a missing figure). */
static json_object *value(const struct sb_hist_run *r, int i)
{
    const char *const texts[] = {[1] = r->run_id, [2] = r->session, [3] = r->source, [6] = r->workload,
                                 [7] = r->options_digest, [8] = r->driver, [9] = r->host,
                                 [11] = r->dbname, [12] = r->target, [15] = r->labels,
                                 [28] = r->server_version, [29] = r->sbench_version,
                                 [30] = r->driver_version, [31] = r->cmdline};
    const double figs[] = {[16] = r->tps, r->qps, r->errors, r->reconnects, r->transactions, r->seconds,
                           r->lat_avg_ms, r->lat_p50_ms, r->lat_p95_ms, r->lat_p99_ms, r->lat_max_ms,
                           r->nopm};
    char when[32];
    switch (i) {
    case 0: return json_object_new_int64(r->id);
    case 4: return json_object_new_double(r->time);
    case 5: hist_time_text(r->time, when, sizeof when); return json_object_new_string(when);
    case 10: return json_object_new_int(r->port);
    case 13: return json_object_new_int(r->point);
    case 14: return json_object_new_int(r->repeat);
    case 32: return isfinite(r->host_load) ? json_object_new_double(r->host_load) : NULL;
    default: break;
    }
    if (i >= 16 && i <= 27)
        return isfinite(figs[i]) ? json_object_new_double(figs[i]) : NULL;
    return json_object_new_string(texts[i] ? texts[i] : "");
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else
        fputs(s, f);
    fputc(last ? '\n' : ',', f);
}

static void write_csv(FILE *f, const struct sb_hist_runs *runs)
{
    for (int i = 0; columns[i]; i++)
        csv_field(f, columns[i], columns[i + 1] == NULL);
    for (size_t k = 0; k < runs->n; k++)
        for (int i = 0; columns[i]; i++) {
            json_object *v = value(&runs->v[k], i);
            csv_field(f, v == NULL ? "" : json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                                   : json_object_to_json_string(v),
                      columns[i + 1] == NULL);
            json_object_put(v);
        }
}

/* The report's lines as a list (lines that do not parse are left out). */
static json_object *report_lines(const char *report)
{
    json_object *list = json_object_new_array(), *o;
    struct sb_json_lines jl;
    char err[256];
    if (report && sb_json_lines_init(&jl, report, strlen(report), err, sizeof err) == 0)
        while (sb_json_lines_next(&jl, &o, err, sizeof err) == 1)
            json_object_array_add(list, o);
    if (report)
        sb_json_lines_close(&jl);
    return list;
}

static void write_json(FILE *f, const struct sb_hist_runs *runs, int with_report)
{
    fputs("[", f);
    for (size_t k = 0; k < runs->n; k++) {
        json_object *o = json_object_new_object();
        for (int i = 0; columns[i]; i++)
            json_object_object_add(o, columns[i], value(&runs->v[k], i));
        if (with_report)
            json_object_object_add(o, "report", report_lines(runs->v[k].report));
        fprintf(f, "%s\n%s", k ? "," : "", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    }
    fputs("]\n", f);
}

int hist_cmd_export(struct hist_cmd *c)
{
    const char *format = sb_opt_str(c->o, "format"), *path = sb_opt_str(c->o, "output");
    int json = strcmp(format, "json") == 0;
    if (!json && strcmp(format, "csv") != 0) {
        fprintf(stderr, "sbench history export: --format=%s: csv or json\n", format);
        return 2;
    }
    c->f.with_report = json && sb_opt_bool(c->o, "with-report");
    struct sb_hist_runs runs;
    char err[1024], tmp[4200];
    if (sb_history_query(c->h, &c->f, &runs, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        return 1;
    }
    FILE *f = stdout;
    if (path && *path) {
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        if ((f = fopen(tmp, "w")) == NULL) {
            fprintf(stderr, "sbench history export: cannot write '%s': %s\n", path, strerror(errno));
            sb_hist_runs_free(&runs);
            return 1;
        }
    }
    json ? write_json(f, &runs, c->f.with_report) : write_csv(f, &runs);
    sb_hist_runs_free(&runs);
    if (f == stdout)
        return 0;
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "sbench history export: writing '%s' failed\n", path);
        unlink(tmp);
        return 1;
    }
    return 0;
}
