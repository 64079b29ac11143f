/*
 * mysql driver, wire fast path: column types and the values of binary
 * result rows (see mysql_wire.h), decoded into the driver's bindings as
 * Connector/C's fetch converts them.  No I/O, no Connector/C; the message
 * framing and parsing are in mysql_wire_proto.c.
 */
#include "mysql_wire.h"
#include "../common/buf.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <stdlib.h>
#include <string.h>

/* ---- types -------------------------------------------------------------- */

int myd_wire_type_kind(int t)
{
    switch (t) {
    case MYD_T_TINY: case MYD_T_SHORT: case MYD_T_INT24: case MYD_T_LONG:
    case MYD_T_LONGLONG: case MYD_T_YEAR:
        return SBD_TYPE_INT;
    case MYD_T_FLOAT: case MYD_T_DOUBLE: case MYD_T_DECIMAL: case MYD_T_NEWDECIMAL:
        return SBD_TYPE_DOUBLE;
    case MYD_T_DATE: case MYD_T_NEWDATE:
        return SBD_TYPE_DATE;
    case MYD_T_TIME:
        return SBD_TYPE_TIME;
    case MYD_T_DATETIME: case MYD_T_TIMESTAMP:
        return SBD_TYPE_DATETIME;
    case MYD_T_NULL:
        return SBD_TYPE_NULL;
    default:
        return SBD_TYPE_STRING;
    }
}

static int is_string_type(int t)
{
    switch (t) {
    case MYD_T_VARCHAR: case MYD_T_JSON: case MYD_T_ENUM: case MYD_T_SET:
    case MYD_T_TINY_BLOB: case MYD_T_MEDIUM_BLOB: case MYD_T_LONG_BLOB:
    case MYD_T_BLOB: case MYD_T_VAR_STRING: case MYD_T_STRING:
        return 1;
    default:
        return 0;
    }
}

int myd_wire_type_handled(int t)
{
    switch (t) {
    case MYD_T_TINY: case MYD_T_SHORT: case MYD_T_INT24: case MYD_T_LONG:
    case MYD_T_LONGLONG: case MYD_T_YEAR: case MYD_T_DOUBLE: case MYD_T_DECIMAL:
    case MYD_T_NEWDECIMAL: case MYD_T_NULL:
        return 1;
    default:
        return is_string_type(t);
    }
}

/* Bytes a non-NULL binary value of type t takes at p[0..n), or 0 when it
 * does not fit. */
static size_t binary_size(int t, const unsigned char *p, size_t n)
{
    size_t k;
    switch (t) {
    case MYD_T_NULL: return (size_t)-1; /* never has a value: caller checks */
    case MYD_T_TINY: k = 1; break;
    case MYD_T_SHORT: case MYD_T_YEAR: k = 2; break;
    case MYD_T_INT24: case MYD_T_LONG: case MYD_T_FLOAT: k = 4; break;
    case MYD_T_LONGLONG: case MYD_T_DOUBLE: k = 8; break;
    case MYD_T_DATE: case MYD_T_NEWDATE: case MYD_T_DATETIME: case MYD_T_TIMESTAMP:
    case MYD_T_TIME:
        if (n < 1)
            return 0;
        k = 1 + (size_t)p[0];
        break;
    default:
        return myd_wire_skip_lenstr(p, n);
    }
    return k <= n ? k : 0;
}

/* ---- rows ----------------------------------------------------------------- */

/* Connector/C turns a DECIMAL or string value into a number with strtod /
 * strtoll of its first 254 bytes. */
#define NUM_TEXT_MAX 254

/* s[0..len), at most NUM_TEXT_MAX bytes of it, NUL-terminated in buf. */
static const char *terminated(char *buf, const unsigned char *s, size_t len)
{
    if (len > NUM_TEXT_MAX)
        len = NUM_TEXT_MAX;
    memcpy(buf, s, len);
    buf[len] = 0;
    return buf;
}

static double text_to_double(const unsigned char *s, size_t len)
{
    char buf[NUM_TEXT_MAX + 1];
    return strtod(terminated(buf, s, len), NULL);
}

static int64_t text_to_i64(const unsigned char *s, size_t len)
{
    char buf[NUM_TEXT_MAX + 1];
    return (int64_t)strtoll(terminated(buf, s, len), NULL, 10);
}

/* A DOUBLE value into an integer binding, as Connector/C's cast gives it on
 * x86-64 but without the cast's undefined behaviour for a NaN or a value
 * out of range (a server's bytes can say anything): those become
 * INT64_MIN, the processor's "integer indefinite". */
static int64_t double_to_i64(double d, int uns)
{
    if (uns && d > -1.0 && d < 18446744073709551616.0)
        return (int64_t)(uint64_t)d;
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return (int64_t)d;
    return INT64_MIN;
}

static int is_int_type(int t)
{
    return t == MYD_T_TINY || t == MYD_T_SHORT || t == MYD_T_YEAR || t == MYD_T_INT24 ||
           t == MYD_T_LONG || t == MYD_T_LONGLONG;
}

/* The kind a prepared column binds as: INT (a long long), DOUBLE, or a
 * string buffer for everything else (a NULL-typed column too). */
static int bind_kind(const struct myd_col *b)
{
    int k = myd_wire_type_kind(b->type);
    return k == SBD_TYPE_INT || k == SBD_TYPE_DOUBLE ? k : SBD_TYPE_STRING;
}

int myd_wire_convertible(int t, const struct myd_col *bind)
{
    if (t == MYD_T_NULL)
        return 1;
    int k = bind_kind(bind);
    if (is_int_type(t) || is_string_type(t) || t == MYD_T_DECIMAL || t == MYD_T_NEWDECIMAL)
        return 1;
    if (t == MYD_T_DOUBLE)
        return k != SBD_TYPE_STRING; /* Connector/C's own float formatting */
    return 0;
}

int myd_wire_conv_reserve(struct myd_wire *w)
{
    size_t need = (size_t)w->ncols * 24 + 1;
    char *p = sbc_grow(w->conv, &w->conv_cap, need, 1, 1024);
    if (p == NULL)
        return -1;
    w->conv = p;
    return 0;
}

/* A binary value as read off the wire, before the binding's conversion:
 * iv and dv are set only for their kind. */
struct raw {
    int is_int, is_dbl;     /* else a length-encoded string (DECIMAL too) */
    int64_t iv;             /* is_int: sign- or zero-extended */
    double dv;              /* is_dbl */
    const unsigned char *s; /* a string: its bytes */
    size_t sl;
};

/* Reads the non-NULL binary value of wire type t at q (binary_size said
 * it fits; `uns`: the column's UNSIGNED flag) into *x; the bytes it took. */
static size_t read_value(int t, const unsigned char *q, int uns, struct raw *x)
{
    x->is_int = x->is_dbl = 0;
    x->s = NULL;
    x->sl = 0;
    switch (t) {
    case MYD_T_TINY:
        x->is_int = 1;
        x->iv = uns ? (int64_t)q[0] : (int64_t)(signed char)q[0];
        return 1;
    case MYD_T_SHORT: case MYD_T_YEAR:
        x->is_int = 1;
        x->iv = uns ? (int64_t)myd_u16le(q) : (int64_t)(int16_t)myd_u16le(q);
        return 2;
    case MYD_T_INT24: case MYD_T_LONG:
        x->is_int = 1;
        x->iv = uns ? (int64_t)myd_u32le(q) : (int64_t)(int32_t)myd_u32le(q);
        return 4;
    case MYD_T_LONGLONG:
        x->is_int = 1;
        x->iv = (int64_t)myd_u64le(q);
        return 8;
    case MYD_T_DOUBLE: {
        uint64_t u = myd_u64le(q);
        x->is_dbl = 1;
        memcpy(&x->dv, &u, 8);
        return 8;
    }
    default: { /* DECIMAL and strings: length-encoded */
        uint64_t len;
        size_t n = myd_wire_lenenc(q, (size_t)-1 / 2, &len);
        x->s = q + n;
        x->sl = (size_t)len;
        return n + x->sl;
    }
    }
}

int myd_wire_row(struct myd_wire *w, int r, const struct myd_col *bind, struct sbd_value *row)
{
    unsigned char *p = w->in + w->rows[2 * r];
    size_t n = w->rows[2 * r + 1];
    size_t at = 1 + ((size_t)w->ncols + 9) / 8;
    size_t conv_at = 0;
    int terminate = 0;
    for (int i = 0; i < w->ncols; i++) {
        struct sbd_value *v = &row[i];
        int t = w->cols[i].type;
        int k = bind_kind(&bind[i]);
        int kind = myd_wire_type_kind(bind[i].type);
        unsigned bit = (unsigned)i + 2;
        sbc_value_reset(v, kind == SBD_TYPE_NULL ? SBD_TYPE_NULL : k,
                        (p[1 + bit / 8] & (1u << (bit % 8))) != 0);
        if (v->is_null)
            continue;
        if (t == MYD_T_NULL)
            return MYD_WIRE_ROW_BAD; /* a value in a NULL-typed column */
        /* the value must lie inside the row */
        if (binary_size(t, p + at, n - at) == 0)
            return MYD_WIRE_ROW_BAD;
        if (!myd_wire_convertible(t, &bind[i]))
            return MYD_WIRE_ROW_TYPE;
        if (v->type == SBD_TYPE_NULL)
            v->type = SBD_TYPE_STRING;
        int uns = (w->cols[i].flags & MYD_WIRE_UNSIGNED_FLAG) != 0;
        struct raw val;
        at += read_value(t, p + at, uns, &val);
        if (k == SBD_TYPE_INT) {
            int64_t x;
            if (val.is_int)
                x = val.iv;
            else if (val.is_dbl)
                x = double_to_i64(val.dv, (bind[i].flags & MYD_WIRE_UNSIGNED_FLAG) != 0);
            else
                x = text_to_i64(val.s, val.sl);
            if ((bind[i].flags & MYD_WIRE_UNSIGNED_FLAG) && x < 0) {
                v->type = SBD_TYPE_DOUBLE; /* BIGINT UNSIGNED above INT64_MAX */
                v->d = (double)(uint64_t)x;
            } else {
                v->i = x;
            }
        } else if (k == SBD_TYPE_DOUBLE) {
            if (val.is_int)
                v->d = uns ? (double)(uint64_t)val.iv : (double)val.iv;
            else if (val.is_dbl)
                v->d = val.dv;
            else
                v->d = text_to_double(val.s, val.sl);
        } else if (val.is_int) {
            /* kept in w->conv (myd_wire_conv_reserve made room), terminated */
            char *o = w->conv + conv_at;
            size_t n = uns ? sbc_u64_to_text((uint64_t)val.iv, o) : sbc_i64_to_text(val.iv, o);
            v->s = o;
            v->len = n;
            conv_at += n + 1;
        } else {
            v->s = (const char *)val.s;
            v->len = val.sl;
            terminate = 1;
        }
    }
    if (at != n)
        return MYD_WIRE_ROW_BAD; /* bytes after the last value */
    /* every value is decoded: terminate the strings in place (each
     * terminator lands on a byte already decoded) */
    if (terminate)
        for (int i = 0; i < w->ncols; i++)
            if (row[i].s != NULL && (uintptr_t)row[i].s >= (uintptr_t)w->in &&
                (uintptr_t)row[i].s < (uintptr_t)(w->in + w->in_cap))
                w->in[(size_t)((uintptr_t)row[i].s - (uintptr_t)w->in) + row[i].len] = 0;
    return 0;
}
