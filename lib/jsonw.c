/*
 * The bounded JSON writer (lib/jsonw.h): strings escaped, and always
 * valid UTF-8 (a server's message, a version string or a file name may
 * not be: invalid bytes become U+FFFD).
 */
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sb_jw_init(struct sb_jw *w, char *buf, size_t len)
{
    w->buf = buf;
    w->len = len;
    w->used = 0;
    w->truncated = 0;
    buf[0] = 0;
}

static void put(struct sb_jw *w, const char *s, size_t n)
{
    if (w->used + n + 1 > w->len) {
        w->truncated = 1;
        return;
    }
    memcpy(w->buf + w->used, s, n);
    w->used += n;
    w->buf[w->used] = 0;
}

void sb_jw_raw(struct sb_jw *w, const char *s)
{
    put(w, s, strlen(s));
}

/*
 * The UTF-8 sequence at s (s[0] >= 0x80), by the Unicode standard's table
 * of well-formed byte sequences (no overlong forms, no surrogates, nothing
 * past U+10FFFF): its length (2..4) when well formed, else minus the
 * length of its maximal subpart (the bytes that began a well-formed
 * sequence before one did not fit; at least 1), which becomes one U+FFFD
 * (the Unicode standard's recommended practice, as Python's and the WHATWG
 * decoders do).  A NUL is never a continuation byte, so a string ending
 * inside a sequence is not read past.
 */
static int utf8_seq(const unsigned char *s)
{
    unsigned char b = s[0], lo = 0x80, hi = 0xbf;
    int n;
    if (b >= 0xc2 && b <= 0xdf)
        n = 2;
    else if (b >= 0xe0 && b <= 0xef)
        n = 3;
    else if (b >= 0xf0 && b <= 0xf4)
        n = 4;
    else
        return -1; /* a continuation byte alone, C0/C1 (overlong), F5..FF */
    if (b == 0xe0)
        lo = 0xa0; /* below: overlong */
    else if (b == 0xed)
        hi = 0x9f; /* above: a surrogate */
    else if (b == 0xf0)
        lo = 0x90; /* below: overlong */
    else if (b == 0xf4)
        hi = 0x8f; /* above: past U+10FFFF */
    for (int k = 1; k < n; k++) {
        if (s[k] < lo || s[k] > hi)
            return -k;
        lo = 0x80;
        hi = 0xbf;
    }
    return n;
}

void sb_jw_str(struct sb_jw *w, const char *s)
{
    put(w, "\"", 1);
    while (s && *s) {
        unsigned char ch = (unsigned char)*s;
        char esc[8];
        if (ch == '"' || ch == '\\') {
            esc[0] = '\\';
            esc[1] = (char)ch;
            put(w, esc, 2);
        } else if (ch < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", ch);
            put(w, esc, 6);
        } else if (ch >= 0x80) {
            int n = utf8_seq((const unsigned char *)s);
            if (n > 0) {
                put(w, s, (size_t)n);
            } else {
                put(w, "\xef\xbf\xbd", 3); /* U+FFFD */
                n = -n;
            }
            s += n;
            continue;
        } else {
            put(w, s, 1);
        }
        s++;
    }
    put(w, "\"", 1);
}

void sb_jw_num(struct sb_jw *w, double v)
{
    char t[40];
    if (!isfinite(v))
        v = 0;
    if (v == floor(v) && fabs(v) < 9e15)
        snprintf(t, sizeof t, "%.0f", v);
    else
        snprintf(t, sizeof t, "%.15g", v);
    sb_jw_raw(w, t);
}

void sb_jw_key(struct sb_jw *w, const char *key, int first)
{
    if (!first)
        put(w, ",", 1);
    sb_jw_str(w, key);
    put(w, ":", 1);
}
