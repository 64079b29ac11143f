/*
 * pgsql driver: a connection's errors.  conn->err filled from libpq's
 * result or connection, from a server error the fast path read, or with a
 * fixed message; server notices logged.  Every message is made one line
 * and has the password masked (drivers/common/error.c).  Every path of the
 * driver calls these; they call only pgsql_sock.c and pgsql_errors.c.
 */
#include "pgsql_int.h"
#include "../common/error.h"

#include <stdlib.h>

int pgd_set_error(struct sbd_error *err, int status, const char *sqlstate, const char *prefix,
                  const char *msg)
{
    sbc_error(err, status, 0, sqlstate, pgd_cfg.secret, "%s %s", prefix ? prefix : "", msg);
    const char *names[] = {pgd_cfg.user ? pgd_cfg.user : "", pgd_cfg.dbname ? pgd_cfg.dbname : "",
                           NULL};
    sbc_error_mask(err, sbc_secret(getenv("PGPASSWORD"), names));
    return status;
}

int pgd_server_error(sbd_conn *c, const char *state, const char *msg, int conn_bad)
{
    if (msg == NULL || *msg == 0)
        msg = "unknown error (no message from the server)";
    return pgd_set_error(&c->err, pgd_classify(state, conn_bad), state, NULL, msg);
}

int pgd_error(sbd_conn *c, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (msg == NULL || *msg == 0)
        msg = res ? PQresultErrorMessage(res) : NULL;
    if (msg == NULL || *msg == 0)
        msg = PQerrorMessage(c->pg);
    if (msg == NULL || *msg == 0)
        msg = "unknown error (no message from libpq)";
    int bad = PQstatus(c->pg) == CONNECTION_BAD;
    if (bad)
        pgd_wire_off(c); /* libpq reports the broken connection from now on */
    if (bad && c->pq_timed_out) { /* pgsql_pqwait.c shut it down */
        state = NULL;
        msg = "connection to the server dropped: no complete answer within "
              "--db-query-timeout (and its grace)";
    }
    return pgd_server_error(c, state, msg, bad);
}

int pgd_fail(sbd_conn *c, const char *msg)
{
    return pgd_set_error(&c->err, SBD_ERROR, NULL, NULL, msg);
}

int pgd_lost(sbd_conn *c, const char *msg)
{
    return pgd_set_error(&c->err, SBD_CONN_LOST, NULL, NULL, msg);
}

void pgd_notice(const char *severity, const char *msg)
{
    struct sbd_error tmp;
    pgd_set_error(&tmp, SBD_OK, NULL, NULL, msg);
    pgd_cfg.host->log(SBD_LOG_DEBUG, "server %s: %s", severity ? severity : "NOTICE", tmp.message);
}
