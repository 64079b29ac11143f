/*
 * The INSERT a driver prepares for a bulk load it runs through a
 * prepared statement (odbc, sqlite): one text for every such driver,
 * "INSERT INTO table (c1, c2) VALUES (?, ?)", the names as the host gave
 * them.  Off the hot path: built once per load.
 */
#ifndef SBENCH_DRIVERS_INSERT_H
#define SBENCH_DRIVERS_INSERT_H

/* The INSERT of ncolumns (> 0) columns into table, with a '?' per column:
 * a new string owned by the caller (free), or NULL when out of memory. */
char *sbc_insert_sql(const char *table, const char *const *columns, int ncolumns);

#endif /* SBENCH_DRIVERS_INSERT_H */
