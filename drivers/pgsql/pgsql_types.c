/*
 * pgsql driver: column types and numbers to and from PostgreSQL's text
 * format, without printf-style formatting or allocation, for the hot path
 * (parameters, result columns, COPY rows).
 *
 * Doubles are written so that float8in and numeric_in read back exactly the
 * same double: a short decimal when one is provably exact (the Clinger fast
 * path: an integer below 2^53 times or divided by an exact power of ten),
 * else the exact binary value expanded to decimal with a small big-integer
 * and correctly rounded to 17 significant digits, which always round-trips.
 */
#include "pgsql_int.h"
#include "../../lib/text.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Type OIDs from PostgreSQL's pg_type.dat (stable across versions). */
enum {
    OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26,
    OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700
};

int pgd_type_kind(unsigned oid)
{
    switch (oid) {
    case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
        return SBD_TYPE_INT;
    case OID_FLOAT4: case OID_FLOAT8: case OID_NUMERIC:
        return SBD_TYPE_DOUBLE;
    case OID_BYTEA:
        return SBD_TYPE_BYTES;
    default:
        return SBD_TYPE_STRING;
    }
}

int64_t pgd_parse_int(const char *s, size_t len)
{
    int64_t v = 0;
    sbc_text_to_i64(s, len, &v);
    return v;
}

static int hex_digit(unsigned char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* A bytea's text ("\\x" and two hex digits a byte, bytea_output = hex)
 * decoded in place into its raw bytes: the value's memory is the
 * connection's result buffer.  Any other form (bytea_output = escape) is
 * left as the server sent it.  Not NUL-terminated afterwards: use .len. */
static void decode_bytea_hex(struct sbd_value *v)
{
    if (v->len < 2 || v->s[0] != '\\' || v->s[1] != 'x' || (v->len & 1) != 0)
        return;
    for (size_t i = 2; i < v->len; i++)
        if (hex_digit((unsigned char)v->s[i]) < 0)
            return;
    char *out = (char *)v->s;
    size_t n = (v->len - 2) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(hex_digit((unsigned char)v->s[2 + 2 * i]) << 4 |
                        hex_digit((unsigned char)v->s[3 + 2 * i]));
    v->len = n;
}

void pgd_convert_value(struct sbd_value *v)
{
    if (v->type == SBD_TYPE_INT) {
        v->i = pgd_parse_int(v->s, v->len);
        v->d = (double)v->i;
    } else if (v->type == SBD_TYPE_DOUBLE) {
        v->d = strtod_l(v->s, NULL, pgd_cfg.c_locale);
    } else if (v->type == SBD_TYPE_BYTES) {
        decode_bytea_hex(v);
    }
}

static const double pow10_exact[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

#define TWO53 9007199254740992.0

/* Writes digits of u (no sign) and returns their count. */
static size_t put_uint(char *dst, uint64_t u)
{
    return sbc_u64_to_text(u, dst);
}

/* Writes exponent "e+N"/"e-N". */
static size_t put_exp(char *dst, int e)
{
    size_t len = 0;
    dst[len++] = 'e';
    dst[len++] = e < 0 ? '-' : '+';
    return len + sbc_i64_to_text(e < 0 ? -e : e, dst + len);
}

/* Fast path for a positive finite d: 1 and the text when d equals a
 * decimal n / 10^k or n * 10^k with n < 2^53 and k <= 22, which a correctly
 * rounding reader maps back to d exactly. */
static int fmt_short(char *dst, double d, size_t *outlen)
{
#if FLT_EVAL_METHOD == 0
    for (int k = 0; k <= 22; k++) {
        double x = d * pow10_exact[k];
        if (x >= TWO53)
            break;
        uint64_t n = (uint64_t)(x + 0.5);
        if ((double)n / pow10_exact[k] != d)
            continue;
        char digits[20];
        size_t m = put_uint(digits, n), len = 0;
        size_t kk = (size_t)k;
        if (kk == 0) {
            memcpy(dst, digits, m);
            len = m;
        } else if (m > kk) {
            memcpy(dst, digits, m - kk);
            len = m - kk;
            dst[len++] = '.';
            memcpy(dst + len, digits + (m - kk), kk);
            len += kk;
        } else {
            dst[len++] = '0';
            dst[len++] = '.';
            for (size_t z = m; z < kk; z++)
                dst[len++] = '0';
            memcpy(dst + len, digits, m);
            len += m;
        }
        *outlen = len;
        return 1;
    }
    if (d >= TWO53 && d < 1e38) {
        for (int e = 22; e >= 1; e--) { /* smallest n first */
            double n = d / pow10_exact[e];
            if (n >= TWO53 || n != floor(n) || n * pow10_exact[e] != d)
                continue;
            size_t len = put_uint(dst, (uint64_t)n);
            *outlen = len + put_exp(dst + len, e);
            return 1;
        }
    }
#else
    (void)dst; (void)d; (void)outlen;
#endif
    return 0;
}

/* Slow exact path for a positive finite d: d = m * 2^e2 is expanded into
 * all its decimal digits (at most ~770) with base-1e9 limbs, then rounded
 * half-to-even to 17 significant digits. */
#define LIMBS 100
static size_t fmt_exact(char *dst, double d)
{
    uint32_t limb[LIMBS];
    int nl, ex;
    double f = frexp(d, &ex);
    uint64_t m = (uint64_t)ldexp(f, 53);
    int e2 = ex - 53, p10 = 0;
    limb[0] = (uint32_t)(m % 1000000000u);
    limb[1] = (uint32_t)(m / 1000000000u);
    nl = limb[1] ? 2 : 1;
    /* multiply by 2^e2 (e2 >= 0) or by 5^-e2 while the value is scaled
     * by 10^e2 */
    int left = e2 >= 0 ? e2 : -e2;
    while (left > 0) {
        uint64_t mul;
        if (e2 >= 0) {
            int s = left < 29 ? left : 29;
            mul = (uint64_t)1 << s;
            left -= s;
        } else {
            int s = left < 13 ? left : 13;
            mul = 1;
            for (int i = 0; i < s; i++)
                mul *= 5;
            left -= s;
        }
        uint64_t carry = 0;
        for (int i = 0; i < nl; i++) {
            uint64_t v = limb[i] * mul + carry;
            limb[i] = (uint32_t)(v % 1000000000u);
            carry = v / 1000000000u;
        }
        while (carry != 0 && nl < LIMBS) {
            limb[nl++] = (uint32_t)(carry % 1000000000u);
            carry /= 1000000000u;
        }
    }
    if (e2 < 0)
        p10 = e2;
    /* limbs to a digit string */
    char digits[LIMBS * 9 + 1];
    size_t nd = put_uint(digits, limb[nl - 1]);
    for (int i = nl - 2; i >= 0; i--) {
        uint32_t v = limb[i];
        for (int j = 8; j >= 0; j--) {
            digits[nd + (size_t)j] = (char)('0' + v % 10);
            v /= 10;
        }
        nd += 9;
    }
    /* value = digits * 10^p10; scientific exponent of the first digit */
    int exp10 = (int)nd - 1 + p10;
    size_t sig = nd;
    if (nd > 17) {
        sig = 17;
        int up = 0;
        if (digits[17] > '5') {
            up = 1;
        } else if (digits[17] == '5') {
            for (size_t i = 18; i < nd && !up; i++)
                up = digits[i] != '0';
            if (!up)
                up = (digits[16] - '0') % 2 == 1;
        }
        if (up) {
            size_t i = 17;
            while (i > 0 && digits[i - 1] == '9')
                digits[--i] = '0';
            if (i == 0) {
                digits[0] = '1';
                exp10++;
            } else {
                digits[i - 1]++;
            }
        }
    }
    while (sig > 1 && digits[sig - 1] == '0')
        sig--;
    size_t len = 0;
    dst[len++] = digits[0];
    if (sig > 1) {
        dst[len++] = '.';
        memcpy(dst + len, digits + 1, sig - 1);
        len += sig - 1;
    }
    return len + put_exp(dst + len, exp10);
}

size_t pgd_fmt_double(char *dst, double d)
{
    if (isnan(d)) {
        memcpy(dst, "NaN", 3);
        return 3;
    }
    if (isinf(d)) {
        if (d > 0) {
            memcpy(dst, "Infinity", 8);
            return 8;
        }
        memcpy(dst, "-Infinity", 9);
        return 9;
    }
    size_t len = 0;
    if (signbit(d)) {
        dst[len++] = '-';
        d = -d;
    }
    if (d == 0) {
        dst[len++] = '0';
        return len;
    }
    size_t n;
    if (fmt_short(dst + len, d, &n))
        return len + n;
    return len + fmt_exact(dst + len, d);
}
