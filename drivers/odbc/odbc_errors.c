/*
 * odbc driver: errors.  Reads an ODBC handle's first diagnostic record
 * into a struct sbd_error with every password masked (odbc_scrub), and
 * classifies it by SQLSTATE, then by the dialect's native codes: what is
 * worth a retry (deadlocks, serialization failures, timeouts) and what
 * means the connection is gone.
 */
#include "odbc_int.h"
#include "../common/error.h"

#include <stdio.h>
#include <string.h>

static int classify(const char *state, long native, const char *dialect)
{
    if (strncmp(state, "40", 2) == 0)
        return SBD_RETRY;           /* 40001, 40P01, 40003, ... */
    if (strcmp(state, "HYT00") == 0 || strcmp(state, "HYT01") == 0)
        return SBD_RETRY;           /* timeouts */
    if (strcmp(state, "57014") == 0)
        return SBD_RETRY;           /* statement cancelled: how psqlODBC
                                       (statement_timeout) and DB2 report
                                       SQL_ATTR_QUERY_TIMEOUT expiring */
    if (strncmp(state, "08", 2) == 0)
        return SBD_CONN_LOST;
    if (strncmp(state, "57P0", 4) == 0)
        return SBD_CONN_LOST;       /* PostgreSQL: session terminated,
                                       server shutting down */
    if (dialect == NULL)
        return SBD_ERROR;
    if (strcmp(dialect, "mysql") == 0) {
        if (native == 1213 || native == 1205)   /* deadlock, lock wait */
            return SBD_RETRY;
        if (native == 1969 || native == 3024)   /* statement time limit */
            return SBD_RETRY;
        if (native == 2006 || native == 2013 || native == 2055 ||
            native == 1927 || native == 5013 || native == 5014)
            /* gone away, lost, killed; Connector/C network read/write */
            return SBD_CONN_LOST;
    } else if (strcmp(dialect, "db2") == 0) {
        if (native == -911 || native == -913)   /* deadlock/timeout */
            return SBD_RETRY;
        if (native == -30081 || native == -30080)/* communication error */
            return SBD_CONN_LOST;
    } else if (strcmp(dialect, "sqlite") == 0) {
        if (native == 5 || native == 6)         /* BUSY, LOCKED */
            return SBD_RETRY;
    }
    return SBD_ERROR;
}

/* Fills e from the first diagnostic record of handle h (after a call that
 * returned rc); `what` (may be NULL) prefixes the message, which is made
 * one line with every password masked. */
void odbc_diag(struct sbd_error *e, SQLSMALLINT htype, SQLHANDLE h,
               SQLRETURN rc, const char *dialect, const char *what)
{
    SQLCHAR state[6] = "";
    SQLINTEGER native = 0;
    SQLCHAR msg[1024] = "";
    SQLSMALLINT mlen = 0;
    SQLRETURN r = SQL_ERROR;
    char text[1024];

    if (h != SQL_NULL_HANDLE && rc != SQL_INVALID_HANDLE)
        r = SQLGetDiagRec(htype, h, 1, state, &native, msg, sizeof msg, &mlen);
    if (SQL_SUCCEEDED(r)) {
        snprintf(text, sizeof text, "%s%s%s", what ? what : "", what ? ": " : "",
                 (char *)msg);
    } else {
        state[0] = 0;
        native = 0;
        snprintf(text, sizeof text, "%s: ODBC call failed with return code %d (no diagnostics)",
                 what ? what : "odbc", (int)rc);
    }
    odbc_scrub(text, sizeof text);
    sbc_error(e, classify((char *)state, native, dialect), native, (char *)state, NULL,
              "%s", text);
}

int odbc_set_error(struct sbd_error *e, int status, const char *msg)
{
    return sbc_error(e, status, 0, NULL, NULL, "%s", msg);
}

int odbc_conn_diag(sbd_conn *c, SQLSMALLINT htype, SQLHANDLE h, SQLRETURN rc,
                   const char *what)
{
    odbc_diag(&c->err, htype, h, rc, c->dialect, what);
    return c->err.status;
}

