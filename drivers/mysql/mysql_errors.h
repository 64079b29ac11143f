/*
 * MySQL driver: error classification and message hygiene, kept free of the
 * client library's headers so tests/unit/mysql_errors_test.c can check them
 * without a server.
 */
#ifndef SBENCH_MYSQL_ERRORS_H
#define SBENCH_MYSQL_ERRORS_H

#include <stddef.h>

#define SBMY_MAX_IGNORED 64

/* Parsed --mysql-ignore-errors. */
struct sbmy_ignore {
    int all;                              /* "all": every server error */
    int n;
    unsigned codes[SBMY_MAX_IGNORED];
};

/* Parses "all", "none", "" or a comma list of error numbers into *out.
 * Returns 0, or -1 with one line in errbuf. */
int sbmy_parse_ignore(const char *spec, struct sbmy_ignore *out,
                      char *errbuf, size_t errlen);

/* enum sbd_status for native error `code`: SBD_CONN_LOST when the
 * connection is gone, SBD_RETRY for deadlocks, lock wait timeouts and the
 * ignored errors, SBD_ERROR otherwise.  `ign` may be NULL. */
int sbmy_classify(unsigned code, const struct sbmy_ignore *ign);

/* Copies src into dst (dstlen > 0) as one line: CR/LF/TAB become spaces,
 * trailing spaces are dropped, and every occurrence of `secret` (if
 * non-empty) becomes "***".  Always NUL-terminates. */
void sbmy_copy_message(char *dst, size_t dstlen, const char *src,
                       const char *secret);

#endif
