/*
 * Integers to and from decimal text: see text.h.  Digits are written two at
 * a time from a table, from the end, after counting them: about half the
 * divisions of the digit-by-digit loop.
 */
#include "text.h"

/* "00" "01" ... "99" */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t sbc_u64_to_text(uint64_t u, char *out)
{
    /* count the digits (at most 20), then write them from the end */
    size_t n = 1;
    for (uint64_t p = 10; n < 20 && u >= p; p *= 10)
        n++;
    char *o = out + n;
    *o = 0;
    while (u >= 100) {
        const char *d = digit_pairs + (u % 100) * 2;
        u /= 100;
        *--o = d[1];
        *--o = d[0];
    }
    if (u >= 10) {
        *--o = digit_pairs[u * 2 + 1];
        *--o = digit_pairs[u * 2];
    } else {
        *--o = (char)('0' + u);
    }
    return n;
}

size_t sbc_i64_to_text(int64_t v, char *out)
{
    if (v >= 0)
        return sbc_u64_to_text((uint64_t)v, out);
    *out = '-';
    return 1 + sbc_u64_to_text(0 - (uint64_t)v, out + 1);
}

int sbc_text_to_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    uint64_t v = 0;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return -1;
    for (; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}
