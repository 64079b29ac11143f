/*
 * MySQL driver: maps native error numbers to sbench statuses and parses
 * --mysql-ignore-errors.  Numbers are spelled out here (same in
 * MariaDB Connector/C and Oracle's libmysqlclient) so this file needs no
 * client library headers.
 */
#include "mysql_errors.h"

#include <sbench/driver.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Server errors. */
#define ER_LOCK_WAIT_TIMEOUT     1205
#define ER_LOCK_DEADLOCK         1213
#define ER_SERVER_SHUTDOWN       1053
#define ER_CONNECTION_KILLED     1927 /* MariaDB */
#define ER_CLIENT_INTERACTION_TIMEOUT 4031 /* MySQL 8 */
/* Client library errors (CR_*). */
#define CR_MIN_ERROR             2000
#define CR_MAX_ERROR             2999
#define CR_CONNECTION_ERROR      2002
#define CR_CONN_HOST_ERROR       2003
#define CR_SERVER_GONE_ERROR     2006
#define CR_SERVER_HANDSHAKE_ERR  2012
#define CR_SERVER_LOST           2013
#define CR_TCP_CONNECTION        2011
#define CR_SERVER_LOST_EXTENDED  2055

static int is_conn_lost(unsigned code)
{
    switch (code) {
    case CR_CONNECTION_ERROR:
    case CR_CONN_HOST_ERROR:
    case CR_SERVER_GONE_ERROR:
    case CR_TCP_CONNECTION:
    case CR_SERVER_HANDSHAKE_ERR:
    case CR_SERVER_LOST:
    case CR_SERVER_LOST_EXTENDED:
    case ER_SERVER_SHUTDOWN:
    case ER_CONNECTION_KILLED:
    case ER_CLIENT_INTERACTION_TIMEOUT:
        return 1;
    default:
        return 0;
    }
}

int myd_classify(unsigned code, const struct myd_ignore *ign)
{
    if (is_conn_lost(code))
        return SBD_CONN_LOST;
    if (code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT)
        return SBD_RETRY;
    if (ign != NULL) {
        /* "all" covers server errors only: a client library error such as
         * "commands out of sync" would repeat forever. */
        if (ign->all && code != 0 && (code < CR_MIN_ERROR || code > CR_MAX_ERROR))
            return SBD_RETRY;
        for (int i = 0; i < ign->n; i++)
            if (ign->codes[i] == code)
                return SBD_RETRY;
    }
    return SBD_ERROR;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int myd_parse_ignore(const char *spec, struct myd_ignore *out,
                      char *errbuf, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (spec == NULL)
        return 0;
    const char *p = spec;
    while (*p != 0) {
        while (is_space(*p) || *p == ',')
            p++;
        if (*p == 0)
            break;
        const char *start = p;
        while (*p != 0 && *p != ',' && !is_space(*p))
            p++;
        size_t n = (size_t)(p - start);
        if (n == 3 && strncasecmp(start, "all", 3) == 0) {
            out->all = 1;
            continue;
        }
        if (n == 4 && strncasecmp(start, "none", 4) == 0)
            continue;
        unsigned long v = 0;
        size_t i = 0;
        for (; i < n && start[i] >= '0' && start[i] <= '9' && v < 1000000; i++)
            v = v * 10 + (unsigned long)(start[i] - '0');
        if (i != n || v == 0 || v >= 1000000) {
            snprintf(errbuf, errlen,
                     "--mysql-ignore-errors: '%.*s' is not an error number "
                     "(expected a comma list of numbers, 'all' or 'none')",
                     (int)(n > 40 ? 40 : n), start);
            return -1;
        }
        if (out->n == MYD_MAX_IGNORED) {
            snprintf(errbuf, errlen, "--mysql-ignore-errors: more than %d codes",
                     MYD_MAX_IGNORED);
            return -1;
        }
        out->codes[out->n++] = (unsigned)v;
    }
    return 0;
}
