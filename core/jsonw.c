/*
 * The bounded JSON writer (core/jsonw.h).
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

void sb_jw_str(struct sb_jw *w, const char *s)
{
    put(w, "\"", 1);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        char esc[8];
        if (ch == '"' || ch == '\\') {
            esc[0] = '\\';
            esc[1] = (char)ch;
            put(w, esc, 2);
        } else if (ch < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", ch);
            put(w, esc, 6);
        } else {
            put(w, s, 1);
        }
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
