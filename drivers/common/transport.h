/*
 * A transport: the statement calls of struct sbd_driver that a connection
 * routes one way or another (through a client library, or over a driver's
 * wire-protocol fast path).  A driver that has more than one picks one per
 * connection when it connects, keeps a pointer to it on the connection and
 * replaces it only when the connection changes mode (a pipeline) or a
 * path gives the connection up; its driver-table calls check what every
 * transport needs and call through the pointer, so no statement tests
 * which path to take (the pgsql and mysql drivers).
 */
#ifndef SBENCH_DRIVERS_TRANSPORT_H
#define SBENCH_DRIVERS_TRANSPORT_H

#include <sbench/driver.h>

#include <stddef.h>

struct sbc_transport {
    /* as sbd_driver's query and execute */
    int (*query)(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
    int (*execute)(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams,
                   struct sbd_result_info *info);
    /* as sbd_driver's send_query and send_execute; NULL without
     * nonblocking statements */
    int (*send_query)(sbd_conn *c, const char *sql, size_t len);
    int (*send_execute)(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams);
    /* enters (on) or leaves pipeline mode; called only for a change, with
     * nothing in flight when leaving; NULL without pipelines */
    int (*pipeline)(sbd_conn *c, int on);
};

#endif /* SBENCH_DRIVERS_TRANSPORT_H */
