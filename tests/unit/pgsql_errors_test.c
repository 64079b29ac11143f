/*
 * Unit test of the pgsql driver's error classification (drivers/pgsql/
 * pgsql_errors.c): SQLSTATEs map to the sbench status the driver reports,
 * checked against PostgreSQL's own list (errcodes.txt).  No server.
 */
#include "pgsql_errors.h"

#include <sbench/driver.h>

#include <stdio.h>

static int failures;

static void expect(const char *state, int conn_bad, int want)
{
    int got = pgd_classify(state, conn_bad);
    if (got != want) {
        fprintf(stderr, "FAIL: %s (conn_bad %d): got %d, want %d\n",
                state ? state : "(null)", conn_bad, got, want);
        failures++;
    }
}

int main(void)
{
    /* retried: serialization_failure, deadlock_detected, lock_not_available */
    expect("40001", 0, SBD_RETRY);
    expect("40P01", 0, SBD_RETRY);
    expect("55P03", 0, SBD_RETRY);
    /* the connection is gone: class 08, admin_shutdown, crash_shutdown,
     * cannot_connect_now */
    expect("08000", 0, SBD_CONN_LOST);
    expect("08003", 0, SBD_CONN_LOST);
    expect("08006", 0, SBD_CONN_LOST);
    expect("08P01", 0, SBD_CONN_LOST);
    expect("57P01", 0, SBD_CONN_LOST);
    expect("57P02", 0, SBD_CONN_LOST);
    expect("57P03", 0, SBD_CONN_LOST);
    /* everything else is an error: unique_violation, syntax_error,
     * undefined_table, query_canceled (statement_timeout), other class 40
     * and 55 states, idle_session_timeout's neighbour 57P04 */
    expect("23505", 0, SBD_ERROR);
    expect("42601", 0, SBD_ERROR);
    expect("42P01", 0, SBD_ERROR);
    expect("57014", 0, SBD_ERROR);
    expect("40002", 0, SBD_ERROR);
    expect("40003", 0, SBD_ERROR);
    expect("55006", 0, SBD_ERROR);
    expect("57P04", 0, SBD_ERROR);
    /* no SQLSTATE, or not five characters */
    expect(NULL, 0, SBD_ERROR);
    expect("", 0, SBD_ERROR);
    expect("4000", 0, SBD_ERROR);
    expect("400011", 0, SBD_ERROR);
    /* a connection libpq knows is bad is lost whatever the state says */
    expect("23505", 1, SBD_CONN_LOST);
    expect(NULL, 1, SBD_CONN_LOST);
    expect("40001", 1, SBD_CONN_LOST);
    if (failures != 0) {
        fprintf(stderr, "pgsql_errors_test: %d failures\n", failures);
        return 1;
    }
    printf("pgsql_errors_test: all passed\n");
    return 0;
}
