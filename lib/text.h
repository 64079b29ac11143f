/*
 * Integers to and from decimal text, for every driver (parameters, COPY and
 * INSERT rows, result columns, option values): no printf-style formatting,
 * no allocation, no locale, so they may run on the hot path.
 */
#ifndef SBENCH_DRIVERS_TEXT_H
#define SBENCH_DRIVERS_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Room sbc_i64_to_text and sbc_u64_to_text may write: 20 characters
 * ("-9223372036854775808", "18446744073709551615") and a NUL. */
#define SBC_INT_TEXT_MAX 21

/* Writes v in decimal at out (SBC_INT_TEXT_MAX bytes of room), then a NUL;
 * returns the number of characters before the NUL.  Never fails. */
size_t sbc_i64_to_text(int64_t v, char *out);
size_t sbc_u64_to_text(uint64_t v, char *out);

/* Parses the len bytes at s (not necessarily NUL-terminated) as a decimal
 * integer with an optional sign: 0 and *out set, or -1 (*out untouched)
 * when they are not exactly that or the value does not fit in int64_t. */
int sbc_text_to_i64(const char *s, size_t len, int64_t *out);

#endif /* SBENCH_DRIVERS_TEXT_H */
