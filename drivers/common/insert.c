/*
 * The INSERT of a bulk load through a prepared statement: see insert.h.
 */
#include "insert.h"

#include <stdlib.h>
#include <string.h>

/* Copies the NUL-terminated s to p; returns the end of the copy. */
static char *put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

char *sbc_insert_sql(const char *table, const char *const *columns, int ncolumns)
{
    /* "INSERT INTO " " (" ") VALUES (" ")" and a NUL: 26 bytes; a column
     * adds its name, ", " twice and "?" */
    size_t len = 26 + strlen(table);
    for (int i = 0; i < ncolumns; i++)
        len += strlen(columns[i]) + 5;
    char *sql = malloc(len);
    if (sql == NULL)
        return NULL;
    char *p = put(sql, "INSERT INTO ");
    p = put(p, table);
    p = put(p, " (");
    for (int i = 0; i < ncolumns; i++) {
        p = put(p, i ? ", " : "");
        p = put(p, columns[i]);
    }
    p = put(p, ") VALUES (");
    for (int i = 0; i < ncolumns; i++)
        p = put(p, i ? ", ?" : "?");
    p = put(p, ")");
    *p = 0;
    return sql;
}
