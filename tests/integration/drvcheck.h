/*
 * drvcheck's shared helpers: the loaded driver, the check counter and the
 * statement helpers of drvcheck.c, used by the checks in drvcheck_async.c
 * (nonblocking and pipelined calls, every driver) and drvcheck_null.c (the
 * null driver's own model).
 */
#ifndef DRVCHECK_H
#define DRVCHECK_H

#include <sbench/driver.h>

#include <stddef.h>
#include <stdint.h>

extern const struct sbd_driver *drv;
extern int checks;
/* A statement every server rejects as a syntax error. */
extern const char *const not_sql;

/* Prints the failed check (with c's last error when c is not NULL) and
 * exits 1. */
void fail(sbd_conn *c, const char *what);
#define CHECK(cond, conn, what) do { if (!(cond)) fail(conn, what); checks++; } while (0)

/* A driver option as drvcheck was given it (or its default); NULL if none. */
const char *h_opt_str(const char *name);
long long h_opt_int(const char *name);

/* A column value as an integer (INT, DOUBLE or a string of digits). */
int64_t value_int(const struct sbd_value *v);
/* query that must succeed. */
void run(sbd_conn *c, const char *sql, struct sbd_result_info *info);
/* The one integer a query answers (one row, one column). */
int64_t query_int(sbd_conn *c, const char *sql);
/* BEGIN/COMMIT/ROLLBACK through the driver's call, or as a query. */
int txn(sbd_conn *c, int (*fn)(sbd_conn *), const char *sql);
/* Waits with poll() for the oldest statement in flight; poll_result's
 * final status.  *agains (when not NULL) counts the SBD_AGAIN answers. */
int nb_wait(sbd_conn *c, struct sbd_result_info *info, int *agains);
/* send_query then nb_wait. */
int nb_query(sbd_conn *c, const char *sql, struct sbd_result_info *info);

/* drvcheck_async.c */
void check_nonblocking_basics(sbd_conn *c);
void check_pipeline(sbd_conn *c, int stores_data);
/* SBD_CAP_HOST_IO (ABI 1.4), on a connection of its own. */
void check_host_io(void);
/* drvcheck_bytes.c: SBD_TYPE_BYTES and query_stream (ABI 1.3), on a
 * driver that stores data, drvcheck_t loaded */
void check_abi_1_3(sbd_conn *c);
/* drvcheck_null.c */
void check_null_model(sbd_conn *c);

#endif
