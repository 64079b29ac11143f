/*
 * history_query.c: the runs a filter selects (sbench history's list,
 * show, diff, trend, export, and the statistics): one SELECT built from
 * the filter with a parameter per value, oldest first.
 */
#include "history_rows.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS (8 + 2 * SB_HIST_MAX_LABELS)

struct where {
    char sql[8192];
    size_t len;
    const char *p[MAX_PARAMS];
    char own[MAX_PARAMS][256]; /* values made here */
    int n;
};

/* Appends " AND " fmt, where each %d is the next parameter's number;
 * values holds nvalues values for it. */
static void cond(struct where *w, const char *fmt, const char *const *values, int nvalues)
{
    w->len += (size_t)snprintf(w->sql + w->len, sizeof w->sql - w->len, " AND ");
    for (const char *f = fmt; *f && w->len < sizeof w->sql; f++) {
        if (f[0] == '%' && f[1] == 'd') {
            w->len += (size_t)snprintf(w->sql + w->len, sizeof w->sql - w->len, "$%d", w->n + 1);
            w->n++;
            f++;
        } else
            w->sql[w->len++] = *f;
    }
    w->sql[w->len < sizeof w->sql ? w->len : sizeof w->sql - 1] = '\0';
    for (int i = 0; i < nvalues; i++)
        w->p[w->n - nvalues + i] = values[i];
}

static int all_digits(const char *s)
{
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* The filter's conditions into w.  0, or -1 with err. */
static int conditions(struct where *w, const struct sb_hist_filter *f, char *err, size_t errlen)
{
    if (f->run && *f->run) {
        if (all_digits(f->run))
            cond(w, "id = %d", &f->run, 1);
        else {
            snprintf(w->own[0], sizeof w->own[0], "%s%%", f->run);
            const char *v = w->own[0];
            cond(w, "run_id LIKE %d", &v, 1);
        }
    }
    if (f->workload)
        cond(w, "workload = %d", &f->workload, 1);
    if (f->session)
        cond(w, "session = %d", &f->session, 1);
    if (f->options_digest)
        cond(w, "options_digest = %d", &f->options_digest, 1);
    if (f->target) {
        const char *v[] = {f->target, f->target, f->target};
        cond(w, "(target = %d OR driver = %d OR driver || '://' || host || ':' || CAST(port AS TEXT)"
                " || '/' || dbname = %d)", v, 3);
    }
    if (f->since > 0) {
        snprintf(w->own[1], sizeof w->own[1], "%.17g", f->since);
        const char *v = w->own[1];
        cond(w, "time >= %d", &v, 1);
    }
    if (f->until > 0) {
        snprintf(w->own[2], sizeof w->own[2], "%.17g", f->until);
        const char *v = w->own[2];
        cond(w, "time <= %d", &v, 1);
    }
    for (int i = 0; i < f->nlabels && i < SB_HIST_MAX_LABELS; i++) {
        const char *eq = strchr(f->labels[i], '=');
        if (eq == NULL || eq == f->labels[i]) {
            snprintf(err, errlen, "label filter '%s' is not KEY=VALUE", f->labels[i]);
            return -1;
        }
        snprintf(w->own[3 + i], sizeof w->own[3 + i], "%.*s", (int)(eq - f->labels[i]), f->labels[i]);
        const char *v[] = {w->own[3 + i], eq + 1};
        cond(w, "EXISTS (SELECT 1 FROM sbench_run_labels l WHERE l.run = sbench_runs.id AND l.key = %d"
                " AND l.value = %d)", v, 2);
    }
    if (w->len >= sizeof w->sql - 1) {
        snprintf(err, errlen, "the filter is too long");
        return -1;
    }
    return 0;
}

/* The whole SELECT of f into sql. */
static void select_sql(const struct sb_hist_filter *f, const struct where *w, char *sql, size_t len)
{
    size_t n = (size_t)snprintf(sql, len, "SELECT id");
    for (int i = 0; i < HIST_NCOLS; i++)
        n += (size_t)snprintf(sql + n, len - n, ", %s", strcmp(hist_columns[i], "report") == 0 && !f->with_report
                              ? "NULL AS report" : hist_columns[i]);
    if (f->limit > 0)
        snprintf(sql + n, len - n, " FROM sbench_runs WHERE 1 = 1%s ORDER BY time DESC, id DESC LIMIT %d",
                 w->sql, f->limit);
    else
        snprintf(sql + n, len - n, " FROM sbench_runs WHERE 1 = 1%s ORDER BY time, id", w->sql);
}

int sb_history_query(struct sb_history *h, const struct sb_hist_filter *f, struct sb_hist_runs *out,
                     char *err, size_t errlen)
{
    static struct where w;
    static char sql[12288];
    struct hist_rows rows = {0};
    memset(out, 0, sizeof *out);
    memset(&w, 0, sizeof w);
    if (conditions(&w, f, err, errlen) != 0)
        return -1;
    select_sql(f, &w, sql, sizeof sql);
    if (hist_sql(h, sql, w.p, w.n, &rows, err, errlen) != 0)
        return -1;
    if (rows.nrows && (out->v = calloc(rows.nrows, sizeof *out->v)) == NULL) {
        hist_rows_free(&rows);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    out->n = rows.nrows; /* zeroed: freeing a record not yet read is harmless */
    for (size_t i = 0; i < rows.nrows; i++) {
        /* newest first under a limit: turned back to oldest first */
        size_t to = f->limit > 0 ? rows.nrows - 1 - i : i;
        if (hist_row_read(rows.cells + i * (size_t)rows.ncols, rows.ncols, &out->v[to]) != 0) {
            hist_rows_free(&rows);
            sb_hist_runs_free(out);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    hist_rows_free(&rows);
    return 0;
}
