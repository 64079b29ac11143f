/*
 * A bounded JSON writer over a caller's buffer, for the few JSON objects
 * the core builds as text (the run's metadata, `sbench info`): strings
 * escaped, numbers as JSON allows, and a truncation flag instead of an
 * overflow.  Nothing here allocates.
 */
#ifndef SB_JSONW_H
#define SB_JSONW_H

#include <stddef.h>

struct sb_jw {
    char *buf;        /* the caller's; always NUL-terminated */
    size_t len;       /* its size */
    size_t used;
    int truncated;    /* something did not fit: the text is not valid JSON */
};

/* Starts writing into buf[0..len-1] (len > 0). */
void sb_jw_init(struct sb_jw *w, char *buf, size_t len);
/* Appends s as it is (punctuation, an object the caller built). */
void sb_jw_raw(struct sb_jw *w, const char *s);
/* Appends s as a JSON string (NULL: ""): '"', '\\' and control characters
 * escaped, valid UTF-8 kept as it is, and each maximal subpart of an
 * invalid sequence (a lone continuation byte, a sequence cut short, an
 * overlong form, a surrogate, past U+10FFFF) written as U+FFFD. */
void sb_jw_str(struct sb_jw *w, const char *s);
/* Appends a number (NaN and infinities: 0); integers print without a point. */
void sb_jw_num(struct sb_jw *w, double v);
/* Appends "key": (a comma first unless first). */
void sb_jw_key(struct sb_jw *w, const char *key, int first);

#endif
