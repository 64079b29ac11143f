/*
 * Filling a result value (struct sbd_value), one way for every driver's
 * fetch_row: the type and NULL flag set and the payload cleared, or set to
 * the value's text, before the driver puts the number or the string in.  Inline: it runs per column on
 * the hot path.
 */
#ifndef SBENCH_DRIVERS_VALUE_H
#define SBENCH_DRIVERS_VALUE_H

#include <sbench/driver.h>

#include <stddef.h>

/* v becomes an empty value of enum sbd_type `type`: SQL NULL when
 * is_null, else 0 / "" until the caller fills it. */
static inline void sbc_value_reset(struct sbd_value *v, int type, int is_null)
{
    v->type = type;
    v->is_null = is_null;
    v->i = 0;
    v->d = 0;
    v->s = NULL;
    v->len = 0;
}

/* v becomes a value of `type` whose text is s[0..len) (its number, if
 * any, still 0 for the caller to parse), or SQL NULL when s is NULL. */
static inline void sbc_value_text(struct sbd_value *v, int type, const char *s, size_t len)
{
    v->type = type;
    v->is_null = s == NULL;
    v->i = 0;
    v->d = 0;
    v->s = s;
    v->len = s != NULL ? len : 0;
}

#endif /* SBENCH_DRIVERS_VALUE_H */
