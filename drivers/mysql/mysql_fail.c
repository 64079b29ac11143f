/*
 * mysql driver: a connection's errors.  c->err filled from Connector/C's
 * connection or statement, from a server error the fast path read, or
 * with a fixed message; the message masked and made one line
 * (drivers/common/error.c).  Every path of the driver calls these; they
 * call only mysql_errors.c.
 */
#include "mysql_int.h"
#include "../common/error.h"

/* Fills c->err (the message masked and made one line); returns status. */
static int set_error(sbd_conn *c, int status, unsigned code, const char *sqlstate,
                     const char *msg)
{
    return sbc_error(&c->err, status, (long)code, sqlstate, myd_cfg.secret, "%s", msg);
}

int myd_conn_fail(sbd_conn *c)
{
    unsigned code = mysql_errno(c->mysql);
    return set_error(c, myd_classify(code, &myd_cfg.ignored), code, mysql_sqlstate(c->mysql),
                     mysql_error(c->mysql));
}

int myd_stmt_fail(sbd_conn *c, MYSQL_STMT *st)
{
    unsigned code = mysql_stmt_errno(st);
    return set_error(c, myd_classify(code, &myd_cfg.ignored), code, mysql_stmt_sqlstate(st),
                     mysql_stmt_error(st));
}

int myd_server_error(sbd_conn *c, unsigned code, const char *sqlstate, const char *msg)
{
    return set_error(c, myd_classify(code, &myd_cfg.ignored), code, sqlstate, msg);
}

int myd_fail(sbd_conn *c, const char *msg)
{
    return set_error(c, SBD_ERROR, 0, NULL, msg);
}
