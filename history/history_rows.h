/*
 * history_rows.h: a record's columns in the store, in one order
 * (history_rows.c), for history_append.c and history_query.c.
 */
#ifndef SB_HISTORY_ROWS_H
#define SB_HISTORY_ROWS_H

#include "history_int.h"

#define HIST_NCOLS 32
extern const char *const hist_columns[HIST_NCOLS];

/* A record's values as text parameters, in column order (NULL: SQL NULL);
 * v points into buf or into the record. */
struct hist_params {
    const char *v[HIST_NCOLS];
    char buf[HIST_NCOLS][32];
};
void hist_row_params(const struct sb_hist_run *r, struct hist_params *p);

/* A row of cells: "id", then the columns in hist_columns' order.  0, or
 * -1 (out of memory; what was read is the caller's to free). */
int hist_row_read(char *const *cells, int ncols, struct sb_hist_run *r);

#endif
