/*
 * Filling a struct sbd_error: see error.h.  The message is formatted into a
 * scratch buffer four times the message's size, so that a password is
 * masked before the text is cut (a cut could leave half of one).
 */
#include "error.h"

#include <stdio.h>
#include <string.h>

#define SCRATCH (4 * sizeof ((struct sbd_error *)0)->message)

static int is_blank(unsigned char c)
{
    return c == ' ' || c < 0x20 || c == 0x7f;
}

/* A character that continues a word (a name such as sbtest1 or sbtest_pg):
 * a password is masked only where it is not part of a longer word. */
static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || (unsigned char)c >= 0x80;
}

void sbc_mask(char *buf, size_t cap, const char *secret)
{
    size_t sl = secret != NULL ? strlen(secret) : 0;
    if (sl == 0 || strstr(buf, secret) == NULL)
        return;
    char out[SCRATCH];
    size_t o = 0;
    if (cap > sizeof out)
        cap = sizeof out;
    for (const char *s = buf; *s != 0 && o + 1 < cap;) {
        if (strncmp(s, secret, sl) == 0 && (s == buf || !is_word(s[-1]) || !is_word(secret[0])) &&
            (!is_word(s[sl]) || !is_word(secret[sl - 1]))) {
            for (const char *m = "***"; *m != 0 && o + 1 < cap; m++)
                out[o++] = *m;
            s += sl;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = 0;
    memcpy(buf, out, o + 1);
}

/* Copies src into dst (cap bytes) as one line: blank runs become one
 * space, none at the ends; a cut never splits a UTF-8 sequence. */
static void one_line(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    int space = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s != 0; s++) {
        if (is_blank(*s)) {
            space = o > 0;
            continue;
        }
        if (o + (size_t)space + 1 >= cap) {
            /* full: a continuation byte next means the cut would split
             * a character: drop its first bytes too */
            if (!space && (*s & 0xc0) == 0x80) {
                while (o > 0 && ((unsigned char)dst[o - 1] & 0xc0) == 0x80)
                    o--;
                if (o > 0 && ((unsigned char)dst[o - 1] & 0xc0) == 0xc0)
                    o--;
            }
            while (o > 0 && dst[o - 1] == ' ')
                o--;
            break;
        }
        if (space)
            dst[o++] = ' ';
        space = 0;
        dst[o++] = (char)*s;
    }
    dst[o] = 0;
}

int sbc_verror(struct sbd_error *e, int status, long native_code, const char *sqlstate,
               const char *secret, const char *fmt, va_list ap)
{
    char buf[SCRATCH];
    e->status = status;
    e->native_code = native_code;
    if (sqlstate != NULL && strlen(sqlstate) == 5)
        memcpy(e->sqlstate, sqlstate, 6);
    else
        e->sqlstate[0] = 0;
    if (vsnprintf(buf, sizeof buf, fmt, ap) < 0)
        buf[0] = 0;
    sbc_mask(buf, sizeof buf, secret);
    one_line(e->message, sizeof e->message, buf);
    return status;
}

int sbc_error(struct sbd_error *e, int status, long native_code, const char *sqlstate,
              const char *secret, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbc_verror(e, status, native_code, sqlstate, secret, fmt, ap);
    va_end(ap);
    return status;
}

const char *sbc_secret(const char *password, const char *const *names)
{
    if (password == NULL)
        return "";
    for (; names && *names; names++)
        if (strcmp(*names, password) == 0)
            return "";
    return password;
}

void sbc_error_mask(struct sbd_error *e, const char *secret)
{
    sbc_mask(e->message, sizeof e->message, secret);
    char buf[sizeof e->message];
    memcpy(buf, e->message, sizeof buf);
    one_line(e->message, sizeof e->message, buf);
}
