/*
 * mysql driver: the fast path's pieces the library's path calls too,
 * kept below both (no circle of calls: tests/layout/layout.py): whether a
 * prepared statement may take the fast path (myd_wire_stmt_setup, at
 * prepare), the rows of a fast-path answer (myd_wire_fetch, from
 * fetch_row), and the stream given up with an answer unread
 * (myd_wire_abandon, at close).  The sends and reads are mysql_wire.c's.
 */
#include "mysql_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#ifdef MYD_MARIADB_CLIENT

/* Whether statement s (prepared from sql) may run on the fast path: its
 * result columns are all of types decoded exactly; not a CALL (whose
 * further results Connector/C handles in its own way).  Also keeps the
 * columns for answers that leave the metadata out.  0 or 1; -1 when out
 * of memory. */
int myd_wire_stmt_setup(sbd_stmt *s, const char *sql, size_t len,
                         const MYSQL_FIELD *f)
{
    size_t i = 0;
    while (i < len && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' ||
                       sql[i] == '\r' || sql[i] == '('))
        i++;
    if (len - i >= 4 && strncasecmp(sql + i, "CALL", 4) == 0)
        return 0;
    s->wire_select = len - i >= 6 && strncasecmp(sql + i, "SELECT", 6) == 0;
    if (s->ncols > 0) {
        s->wcols = calloc(2 * (size_t)s->ncols, sizeof *s->wcols);
        if (s->wcols == NULL)
            return -1;
        s->pcols = s->wcols + s->ncols;
    }
    for (unsigned k = 0; k < s->ncols; k++) {
        if (!myd_wire_type_handled((int)f[k].type) ||
            myd_wire_type_kind((int)f[k].type) != myd_column_type(f[k].type))
            return 0;
        s->wcols[k].type = (unsigned char)f[k].type;
        s->wcols[k].flags = (unsigned short)f[k].flags;
        s->pcols[k] = s->wcols[k];
    }
    return 1;
}

void myd_wire_abandon(sbd_conn *c)
{
    /* the rest of the answer is never read: nothing may use the stream */
    c->tp = &myd_tp_lib;
    c->wire_async = NULL;
    shutdown(mysql_get_socket(c->mysql), SHUT_RDWR);
}

int myd_wire_fetch(sbd_conn *c, struct sbd_value *row)
{
    if (c->wire_row >= c->wire.nrows)
        return SBD_DONE;
    int rc = myd_wire_row(&c->wire, c->wire_row++, c->cur->pcols, row);
    if (rc == MYD_WIRE_ROW_BAD)
        return myd_fail(c, "mysql: protocol violation: a result row does not hold "
                            "exactly its values");
    if (rc != 0)
        return myd_fail(c, "mysql: a result value of a type the fast path does not "
                            "decode");
    return SBD_OK;
}

#else /* libmysqlclient: no fast path */

int myd_wire_stmt_setup(sbd_stmt *s, const char *sql, size_t len,
                        const MYSQL_FIELD *f)
{
    (void)s;
    (void)sql;
    (void)len;
    (void)f;
    return 0;
}

/* Never called: nothing is sent over the fast path. */
int myd_wire_fetch(sbd_conn *c, struct sbd_value *row)
{
    (void)row;
    return myd_fail(c, "mysql: no wire fast path with this client library");
}

void myd_wire_abandon(sbd_conn *c)
{
    (void)c;
}

#endif
