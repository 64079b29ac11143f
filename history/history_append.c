/*
 * history_append.c: one record appended to the store in one transaction,
 * with its labels (table sbench_run_labels, which the filters read).  A run id
 * already in the store is kept as it is, so that importing a report
 * twice, or a report the run itself recorded, adds nothing.
 */
#include "history_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The labels "KEY=VALUE\n..." of run id into sbench_run_labels. */
static int append_labels(struct sb_history *h, const char *id, const char *labels, char *err,
                         size_t errlen)
{
    const char *p = labels ? labels : "";
    while (*p) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            char *key = strndup(p, (size_t)(eq - p)), *value = strndup(eq + 1, (size_t)(end - eq - 1));
            const char *params[] = {id, key, value};
            int rc = key && value ? hist_sql(h, "INSERT INTO sbench_run_labels (run, key, value) VALUES "
                                                "($1, $2, $3)", params, 3, NULL, err, errlen)
                                  : (snprintf(err, errlen, "out of memory"), -1);
            free(key);
            free(value);
            if (rc != 0)
                return -1;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* The INSERT of every column, ON CONFLICT on run_id doing nothing. */
static void insert_sql(char *sql, size_t len)
{
    size_t n = (size_t)snprintf(sql, len, "INSERT INTO sbench_runs (");
    for (int i = 0; i < HIST_NCOLS; i++)
        n += (size_t)snprintf(sql + n, len - n, "%s%s", i ? ", " : "", hist_columns[i]);
    n += (size_t)snprintf(sql + n, len - n, ") VALUES (");
    for (int i = 0; i < HIST_NCOLS; i++)
        n += (size_t)snprintf(sql + n, len - n, "%s$%d", i ? ", " : "", i + 1);
    snprintf(sql + n, len - n, ") ON CONFLICT (run_id) DO NOTHING RETURNING id");
}

int sb_history_append(struct sb_history *h, const struct sb_hist_run *r, int64_t *id, char *err,
                      size_t errlen)
{
    static struct hist_params p; /* large: not on the stack */
    char sql[2048];
    struct hist_rows rows = {0};
    int added = 0;
    if (r->run_id == NULL || *r->run_id == '\0') {
        snprintf(err, errlen, "the record has no run id");
        return -1;
    }
    hist_row_params(r, &p);
    insert_sql(sql, sizeof sql);
    if (hist_sql(h, h->pg ? "BEGIN" : "BEGIN IMMEDIATE", NULL, 0, NULL, err, errlen) != 0)
        return -1;
    if (hist_sql(h, sql, p.v, HIST_NCOLS, &rows, err, errlen) != 0)
        goto fail;
    added = rows.nrows == 1;
    if (!added) { /* there already */
        hist_rows_free(&rows);
        const char *params[] = {r->run_id};
        if (hist_sql(h, "SELECT id FROM sbench_runs WHERE run_id = $1", params, 1, &rows, err, errlen) != 0)
            goto fail;
    }
    if (rows.nrows != 1 || rows.cells[0] == NULL) {
        snprintf(err, errlen, "the store did not answer the run's number");
        goto fail;
    }
    if (added && append_labels(h, rows.cells[0], r->labels, err, errlen) != 0)
        goto fail;
    if (hist_sql(h, "COMMIT", NULL, 0, NULL, err, errlen) != 0)
        goto fail;
    if (id)
        *id = strtoll(rows.cells[0], NULL, 10);
    hist_rows_free(&rows);
    return added ? 0 : 1;
fail:;
    char ignored[256];
    hist_rows_free(&rows);
    hist_sql(h, "ROLLBACK", NULL, 0, NULL, ignored, sizeof ignored);
    return -1;
}
