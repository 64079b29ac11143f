/*
 * pgsql driver: classification of PostgreSQL's errors by SQLSTATE, kept
 * free of libpq so that tests/unit/pgsql_errors_test.c checks it without a
 * server (as mysql_errors.h does for the mysql driver).
 */
#ifndef SBENCH_PGSQL_ERRORS_H
#define SBENCH_PGSQL_ERRORS_H

/* enum sbd_status of a server error with SQLSTATE `state` (may be NULL or
 * not five characters: SBD_ERROR): SBD_CONN_LOST when conn_bad (the
 * connection is known to be gone), for class 08 and for the shutdown
 * states 57P01..57P03; SBD_RETRY for serialization failure (40001),
 * deadlock (40P01) and lock not available (55P03); else SBD_ERROR. */
int pgd_classify(const char *state, int conn_bad);

#endif /* SBENCH_PGSQL_ERRORS_H */
