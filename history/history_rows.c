/*
 * history_rows.c: a record to and from the store's row: its columns in
 * one order (the INSERT's parameters, the SELECT's list), figures as
 * exact text (%.17g, NULL for NAN), and a row's strings parsed back.
 * Also frees records.
 */
#include "history_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hist_columns[HIST_NCOLS] = {
    "run_id", "session", "source", "time", "cmdline", "workload", "options_digest", "driver", "host",
    "port", "dbname", "target", "point_index", "repeat_index", "labels", "tps", "qps", "errors",
    "reconnects", "transactions", "seconds", "lat_avg_ms", "lat_p50_ms", "lat_p95_ms", "lat_p99_ms",
    "lat_max_ms", "nopm", "server_version", "sbench_version", "driver_version", "report",
    "host_load", /* schema version 2 */
};

/* The figures in column order from "tps" on (index 15 to 26). */
#define FIRST_FIGURE 15
static double *figure(struct sb_hist_run *r, int i)
{
    if (i == 31)
        return &r->host_load;
    double *f[] = {&r->tps, &r->qps, &r->errors, &r->reconnects, &r->transactions, &r->seconds,
                   &r->lat_avg_ms, &r->lat_p50_ms, &r->lat_p95_ms, &r->lat_p99_ms, &r->lat_max_ms,
                   &r->nopm};
    return f[i - FIRST_FIGURE];
}

static char **text(struct sb_hist_run *r, int i)
{
    switch (i) {
    case 0: return &r->run_id;
    case 1: return &r->session;
    case 2: return &r->source;
    case 4: return &r->cmdline;
    case 5: return &r->workload;
    case 6: return &r->options_digest;
    case 7: return &r->driver;
    case 8: return &r->host;
    case 10: return &r->dbname;
    case 11: return &r->target;
    case 14: return &r->labels;
    case 27: return &r->server_version;
    case 28: return &r->sbench_version;
    case 29: return &r->driver_version;
    case 30: return &r->report;
    default: return NULL;
    }
}

static int *integer(struct sb_hist_run *r, int i)
{
    return i == 9 ? &r->port : i == 12 ? &r->point : i == 13 ? &r->repeat : NULL;
}

void hist_row_params(const struct sb_hist_run *rc, struct hist_params *p)
{
    struct sb_hist_run *r = (struct sb_hist_run *)rc; /* read only */
    for (int i = 0; i < HIST_NCOLS; i++) {
        char **t = text(r, i);
        int *n = integer(r, i);
        p->v[i] = p->buf[i];
        if (t)
            p->v[i] = *t ? *t : "";
        else if (n)
            snprintf(p->buf[i], sizeof p->buf[i], "%d", *n);
        else if (i == 3)
            snprintf(p->buf[i], sizeof p->buf[i], "%.17g", r->time);
        else if (isfinite(*figure(r, i)))
            snprintf(p->buf[i], sizeof p->buf[i], "%.17g", *figure(r, i));
        else
            p->v[i] = NULL;
    }
    if (r->report == NULL)
        p->v[30] = NULL;
}

int hist_row_read(char *const *cells, int ncols, struct sb_hist_run *r)
{
    memset(r, 0, sizeof *r);
    r->id = cells[0] ? strtoll(cells[0], NULL, 10) : 0;
    for (int i = 0; i < HIST_NCOLS && i + 1 < ncols; i++) {
        const char *c = cells[i + 1];
        char **t = text(r, i);
        int *n = integer(r, i);
        if (t) {
            if (i == 30 && c == NULL)
                continue; /* no report asked for */
            if ((*t = strdup(c ? c : "")) == NULL)
                return -1;
        } else if (n)
            *n = c ? atoi(c) : 0;
        else if (i == 3)
            r->time = c ? strtod(c, NULL) : 0;
        else
            *figure(r, i) = c ? strtod(c, NULL) : NAN;
    }
    return 0;
}

void sb_hist_run_free(struct sb_hist_run *r)
{
    for (int i = 0; i < HIST_NCOLS; i++) {
        char **t = text(r, i);
        if (t) {
            free(*t);
            *t = NULL;
        }
    }
}

void sb_hist_runs_free(struct sb_hist_runs *runs)
{
    for (size_t i = 0; i < runs->n; i++)
        sb_hist_run_free(&runs->v[i]);
    free(runs->v);
    runs->v = NULL;
    runs->n = 0;
}
