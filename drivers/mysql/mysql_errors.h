/*
 * MySQL driver: error classification, kept free of the
 * client library's headers so tests/unit/mysql_errors_test.c can check them
 * without a server.
 */
#ifndef SBENCH_MYSQL_ERRORS_H
#define SBENCH_MYSQL_ERRORS_H

#include <stddef.h>

#define MYD_MAX_IGNORED 64

/* Parsed --mysql-ignore-errors. */
struct myd_ignore {
    int all;                              /* "all": every server error */
    int n;
    unsigned codes[MYD_MAX_IGNORED];
};

/* Parses "all", "none", "" or a comma list of error numbers into *out.
 * Returns 0, or -1 with one line in errbuf. */
int myd_parse_ignore(const char *spec, struct myd_ignore *out,
                      char *errbuf, size_t errlen);

/* enum sbd_status for native error `code`: SBD_CONN_LOST when the
 * connection is gone, SBD_RETRY for deadlocks, lock wait timeouts and the
 * ignored errors, SBD_ERROR otherwise.  `ign` may be NULL. */
int myd_classify(unsigned code, const struct myd_ignore *ign);

#endif
