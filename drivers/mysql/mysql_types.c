/*
 * mysql driver: column types and values in the text protocol (plain
 * queries): the sbd_type a column of a MySQL type is reported as, and a
 * text value turned into it.  No allocation, no locale beyond strtod's.
 */
#include "mysql_int.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <stdlib.h>
#include <string.h>

int myd_column_type(enum enum_field_types t)
{
    switch (t) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_YEAR:
        return SBD_TYPE_INT;
    case MYSQL_TYPE_FLOAT:
    case MYSQL_TYPE_DOUBLE:
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
        return SBD_TYPE_DOUBLE;
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_NEWDATE:
        return SBD_TYPE_DATE;
    case MYSQL_TYPE_TIME:
        return SBD_TYPE_TIME;
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP:
        return SBD_TYPE_DATETIME;
    case MYSQL_TYPE_NULL:
        return SBD_TYPE_NULL;
    default:
        return SBD_TYPE_STRING;
    }
}

/* The text of a DOUBLE or DECIMAL value as a double (at most 79 bytes of
 * it: more digits cannot change a double). */
static double text_to_double(const char *s, size_t len)
{
    char buf[80];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return strtod(buf, NULL);
}

void myd_text_value(struct sbd_value *v, int type, const char *s, size_t len)
{
    sbc_value_reset(v, type, s == NULL);
    if (v->is_null)
        return;
    if (type == SBD_TYPE_INT) {
        if (sbc_text_to_i64(s, len, &v->i) != 0) {
            /* BIGINT UNSIGNED above INT64_MAX */
            v->type = SBD_TYPE_DOUBLE;
            v->d = text_to_double(s, len);
        }
    } else if (type == SBD_TYPE_DOUBLE) {
        v->d = text_to_double(s, len);
    } else {
        if (type == SBD_TYPE_NULL)
            v->type = SBD_TYPE_STRING;
        v->s = s;
        v->len = len;
    }
}
