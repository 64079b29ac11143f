/*
 * sqlite driver: errors.  SQLite's result codes to struct sbd_error: BUSY
 * and LOCKED (a writer on another connection held on longer than the busy
 * timeout) are SBD_RETRY, everything else SBD_ERROR; a constraint
 * violation carries SQLSTATE 23000.
 */
#include "sqlite_int.h"
#include "../common/error.h"

#include <string.h>

int sqlite_status_of(int rc)
{
    int prim = rc & 0xff;
    return (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) ? SBD_RETRY : SBD_ERROR;
}

/* Records error rc of the last SQLite call on c; returns the sbd status. */
int sqlite_error(sbd_conn *c, int rc)
{
    const char *msg = sqlite3_errmsg(c->db);
    /* errmsg can lag behind when the code came from the driver itself */
    if (msg == NULL || strcmp(msg, "not an error") == 0)
        msg = sqlite3_errstr(rc);
    if (sqlite_status_of(rc) == SBD_RETRY)
        c->lock_lost = 1; /* --sqlite-begin=auto: the retry begins IMMEDIATE */
    return sbc_error(&c->err, sqlite_status_of(rc), rc,
                     (rc & 0xff) == SQLITE_CONSTRAINT ? "23000" : NULL, NULL, "%s", msg);
}

/* Records an error found by the driver itself (not by SQLite). */
int sqlite_driver_error(sbd_conn *c, const char *msg)
{
    return sbc_error(&c->err, SBD_ERROR, 0, NULL, NULL, "%s", msg);
}

