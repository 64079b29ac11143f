/*
 * pgsql driver: which PostgreSQL errors are worth a retry and which mean
 * the connection is gone; see pgsql_errors.h.
 */
#include "pgsql_errors.h"

#include <sbench/driver.h>

#include <string.h>

int pgd_classify(const char *state, int conn_bad)
{
    if (conn_bad)
        return SBD_CONN_LOST;
    if (state == NULL || strlen(state) != 5)
        return SBD_ERROR;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
        strcmp(state, "55P03") == 0)
        return SBD_RETRY;
    if (strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
        strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0)
        return SBD_CONN_LOST;
    return SBD_ERROR;
}
