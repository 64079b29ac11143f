/*
 * odbc driver: type mapping.  ODBC SQL types of result columns to sbench
 * types (enum sbd_type), and sbench types of parameters to the ODBC C and
 * SQL types they are bound with.  No allocation.
 */
#include "odbc_int.h"

/* ------------------------------------------------------------------ */
/* Results.                                                            */

static int map_type(SQLSMALLINT t)
{
    switch (t) {
    case SQL_BIT:
    case SQL_TINYINT:
    case SQL_SMALLINT:
    case SQL_INTEGER:
    case SQL_BIGINT:
        return SBD_TYPE_INT;
    case SQL_REAL:
    case SQL_FLOAT:
    case SQL_DOUBLE:
    case SQL_DECIMAL:
    case SQL_NUMERIC:
        return SBD_TYPE_DOUBLE;
    case SQL_TYPE_DATE:
    case SQL_DATE:
        return SBD_TYPE_DATE;
    case SQL_TYPE_TIME:
    case SQL_TIME:
        return SBD_TYPE_TIME;
    case SQL_TYPE_TIMESTAMP:
    case SQL_TIMESTAMP:
        return SBD_TYPE_DATETIME;
    case SQL_BINARY:
    case SQL_VARBINARY:
    case SQL_LONGVARBINARY:
        return SBD_TYPE_BYTES;
    default:
        return SBD_TYPE_STRING;
    }
}

int odbc_describe(sbd_conn *c, SQLHSTMT h, int ncols, int *types)
{
    for (int i = 0; i < ncols; i++) {
        SQLSMALLINT dt = 0, dd = 0, nl = 0, namelen = 0;
        SQLULEN size = 0;
        SQLRETURN rc = SQLDescribeCol(h, (SQLUSMALLINT)(i + 1), NULL, 0, &namelen,
                                      &dt, &size, &dd, &nl);
        if (!SQL_SUCCEEDED(rc))
            return odbc_conn_diag(c, SQL_HANDLE_STMT, h, rc, "SQLDescribeCol");
        types[i] = map_type(dt);
    }
    return SBD_OK;
}

/* ------------------------------------------------------------------ */
/* Parameters.                                                         */

/* Chooses C and SQL types for an sbench type; *bytes is the buffer size
 * for character data (0 for numbers), *colsize the ODBC column size. */
void odbc_param_types(int type, SQLSMALLINT *ctype, SQLSMALLINT *sqltype,
                      SQLULEN *colsize, size_t *bytes)
{
    *colsize = 0;
    *bytes = 0;
    switch (type) {
    case SBD_TYPE_INT:
        *ctype = SQL_C_SBIGINT;
        *sqltype = SQL_BIGINT;
        *colsize = 19;
        break;
    case SBD_TYPE_DOUBLE:
        *ctype = SQL_C_DOUBLE;
        *sqltype = SQL_DOUBLE;
        *colsize = 15;
        break;
    case SBD_TYPE_DATE:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_DATE;
        *colsize = 10;
        *bytes = 32;
        break;
    case SBD_TYPE_TIME:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_TIME;
        *colsize = 8;
        *bytes = 32;
        break;
    case SBD_TYPE_DATETIME:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_TIMESTAMP;
        *colsize = 19;
        *bytes = 32;
        break;
    case SBD_TYPE_BYTES:
        *ctype = SQL_C_BINARY;
        *sqltype = SQL_LONGVARBINARY;
        *bytes = ODBC_STR_INIT;
        *colsize = ODBC_STR_INIT - 1;
        break;
    default: /* STRING, NULL */
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_VARCHAR;
        *bytes = ODBC_STR_INIT;
        *colsize = ODBC_STR_INIT - 1;
        break;
    }
}

