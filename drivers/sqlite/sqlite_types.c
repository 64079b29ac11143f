/*
 * sqlite driver: values to and from SQLite.  A result row's columns by
 * their storage class (integer, real, text, blob, NULL), and parameters
 * bound by the type each value carries.  No allocation: strings point
 * into SQLite's row memory or are bound SQLITE_STATIC.
 */
#include "sqlite_int.h"

#include <limits.h>
#include <string.h>

void sqlite_fill_row(sqlite3_stmt *st, int ncols, struct sbd_value *row)
{
    for (int i = 0; i < ncols; i++) {
        struct sbd_value *v = &row[i];
        v->is_null = 0;
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
            v->type = SBD_TYPE_INT;
            v->i = sqlite3_column_int64(st, i);
            break;
        case SQLITE_FLOAT:
            v->type = SBD_TYPE_DOUBLE;
            v->d = sqlite3_column_double(st, i);
            break;
        case SQLITE_TEXT:
            v->type = SBD_TYPE_STRING;
            v->s = (const char *)sqlite3_column_text(st, i);
            v->len = (size_t)sqlite3_column_bytes(st, i);
            if (v->s == NULL) { /* out of memory while converting */
                v->s = "";
                v->len = 0;
            }
            break;
        case SQLITE_BLOB:
            v->type = SBD_TYPE_BYTES;
            v->s = sqlite3_column_blob(st, i);
            v->len = (size_t)sqlite3_column_bytes(st, i);
            if (v->s == NULL)   /* zero-length blob */
                v->s = "";
            break;
        default:
            v->type = SBD_TYPE_NULL;
            v->is_null = 1;
            v->s = NULL;
            v->len = 0;
            break;
        }
    }
}

int sqlite_is_text_type(int type)
{
    return type == SBD_TYPE_STRING || type == SBD_TYPE_TIME ||
           type == SBD_TYPE_DATE || type == SBD_TYPE_DATETIME || type == SBD_TYPE_BYTES;
}

/* Binds values[0..n-1] to st.  Strings are bound SQLITE_STATIC: with buf
 * (may be NULL) they are first copied there, as it must outlive the call;
 * without, the caller steps and resets st before returning. */
int sqlite_bind_values(sbd_conn *c, sqlite3_stmt *st, const struct sbd_value *v,
                       int n, char *buf)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        if (v[i].is_null || v[i].type == SBD_TYPE_NULL) {
            rc = sqlite3_bind_null(st, i + 1);
        } else if (v[i].type == SBD_TYPE_INT) {
            rc = sqlite3_bind_int64(st, i + 1, v[i].i);
        } else if (v[i].type == SBD_TYPE_DOUBLE) {
            rc = sqlite3_bind_double(st, i + 1, v[i].d);
        } else if (sqlite_is_text_type(v[i].type)) {
            const char *s = v[i].s;
            if (v[i].len == 0 || s == NULL) {
                s = "";
            } else if (buf != NULL) {
                memcpy(buf, s, v[i].len);
                s = buf;
                buf += v[i].len;
            }
            if (v[i].len > INT_MAX)
                return sqlite_driver_error(c, "string parameter too long for SQLite");
            rc = v[i].type == SBD_TYPE_BYTES
                     ? sqlite3_bind_blob(st, i + 1, s, (int)v[i].len, SQLITE_STATIC)
                     : sqlite3_bind_text(st, i + 1, s, (int)v[i].len, SQLITE_STATIC);
        } else {
            return sqlite_driver_error(c, "unknown parameter type");
        }
    }
    return rc == SQLITE_OK ? SBD_OK : sqlite_error(c, rc);
}

