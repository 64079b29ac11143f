/*
 * Unit test of the MySQL driver's error handling (drivers/mysql/
 * mysql_errors.c): native error numbers map to the right sbench status,
 * --mysql-ignore-errors parses and validates.  No server needed.
 */
#include "mysql_errors.h"

#include <sbench/driver.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void expect_int(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "FAIL: %s: got %d, want %d\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    struct myd_ignore ign;
    char err[256];

    /* Default list. */
    expect_int(myd_parse_ignore("1213,1020,1205", &ign, err, sizeof err), 0, "parse default");
    expect_int(ign.n, 3, "default has 3 codes");
    expect_int(myd_classify(1213, &ign), SBD_RETRY, "deadlock");
    expect_int(myd_classify(1205, &ign), SBD_RETRY, "lock wait timeout");
    expect_int(myd_classify(1020, &ign), SBD_RETRY, "record changed (listed)");
    expect_int(myd_classify(1062, &ign), SBD_ERROR, "duplicate key");
    expect_int(myd_classify(1146, &ign), SBD_ERROR, "missing table");
    expect_int(myd_classify(0, &ign), SBD_ERROR, "no code");
    /* Connection loss wins over everything. */
    static const unsigned lost[] = {2006, 2013, 2055, 2011, 2002, 2003, 1053, 1927, 4031};
    for (size_t i = 0; i < sizeof lost / sizeof lost[0]; i++)
        expect_int(myd_classify(lost[i], &ign), SBD_CONN_LOST, "connection lost");
    expect_int(myd_classify(2014, &ign), SBD_ERROR, "commands out of sync");

    /* Deadlock and lock wait timeout retry even with an empty list. */
    expect_int(myd_parse_ignore("none", &ign, err, sizeof err), 0, "parse none");
    expect_int(ign.n + ign.all, 0, "none is empty");
    expect_int(myd_classify(1213, &ign), SBD_RETRY, "deadlock, empty list");
    expect_int(myd_classify(1205, NULL), SBD_RETRY, "lock wait, no list");
    expect_int(myd_classify(1020, &ign), SBD_ERROR, "1020 not listed");
    expect_int(myd_parse_ignore("", &ign, err, sizeof err), 0, "parse empty");

    /* Spaces, listed codes, "all". */
    expect_int(myd_parse_ignore(" 1062 , 1146,", &ign, err, sizeof err), 0, "parse spaced");
    expect_int(ign.n, 2, "two codes");
    expect_int(myd_classify(1062, &ign), SBD_RETRY, "listed 1062");
    expect_int(myd_classify(2013, &ign), SBD_CONN_LOST, "lost beats list");
    expect_int(myd_parse_ignore("ALL", &ign, err, sizeof err), 0, "parse ALL");
    expect_int(myd_classify(1062, &ign), SBD_RETRY, "all: server error");
    expect_int(myd_classify(3572, &ign), SBD_RETRY, "all: MySQL 8 server error");
    expect_int(myd_classify(2014, &ign), SBD_ERROR, "all: client error stays");
    expect_int(myd_classify(2006, &ign), SBD_CONN_LOST, "all: lost stays");

    /* Invalid lists. */
    expect_int(myd_parse_ignore("1213,abc", &ign, err, sizeof err), -1, "reject abc");
    if (strstr(err, "'abc'") == NULL || strchr(err, '\n') != NULL) {
        fprintf(stderr, "FAIL: bad message for abc: %s\n", err);
        failures++;
    }
    expect_int(myd_parse_ignore("12x", &ign, err, sizeof err), -1, "reject 12x");
    expect_int(myd_parse_ignore("-5", &ign, err, sizeof err), -1, "reject -5");
    expect_int(myd_parse_ignore("0", &ign, err, sizeof err), -1, "reject 0");
    expect_int(myd_parse_ignore("99999999999999999999", &ign, err, sizeof err), -1,
               "reject huge");

    /* Messages. */
    /* Messages (one line, password masked, cut safely) are the common
     * library's now: tests/unit/drvcommon_test.c checks them. */

    if (failures != 0) {
        fprintf(stderr, "mysql_errors_test: %d failures\n", failures);
        return 1;
    }
    printf("mysql_errors_test: all passed\n");
    return 0;
}
