/*
 * jsonw_test.c: unit tests for lib/jsonw.c, sbench's bounded JSON writer:
 * strings with every kind of invalid UTF-8 (lone continuation bytes,
 * sequences cut short at 2, 3 and 4 bytes, overlong forms, surrogates,
 * code points past U+10FFFF, bytes that never start one) come out as
 * valid JSON with U+FFFD per maximal subpart, and valid UTF-8 unchanged;
 * json-c (strict, UTF-8 validated) parses each and gives the expected
 * string.  Truncation into a small buffer is flagged, never a partial
 * sequence.
 *
 *   jsonw_test          the table below; prints "N passed, 0 failed"
 *   jsonw_test --dump   for tests/unit/jsonw_utf8.py: each line of stdin
 *                       is a string in hex; writes {"s":STRING} for it
 */
#include "../../lib/jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define R "\xef\xbf\xbd" /* U+FFFD */

static int passed, failed;

static const struct {
    const char *what, *in, *want;
} cases[] = {
    {"ascii, quote, backslash, control", "a\"b\\c\x01\n", "a\"b\\c\x01\n"},
    {"valid 2-byte", "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},
    {"valid 3-byte", "\xe2\x82\xac \xed\x9f\xbf \xee\x80\x80 " R, "\xe2\x82\xac \xed\x9f\xbf \xee\x80\x80 " R},
    {"valid 4-byte, U+10000 and U+10FFFF", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"},
    {"lone continuation", "a\x80z", "a" R "z"},
    {"continuations in a row", "\x80\xbf\x80", R R R},
    {"truncated 2-byte at the end", "a\xc3", "a" R},
    {"truncated 2-byte before ascii", "\xc3z", R "z"},
    {"truncated 3-byte after 1", "\xe2z", R "z"},
    {"truncated 3-byte after 2", "\xe2\x82z", R "z"},
    {"truncated 3-byte at the end", "\xe2\x82", R},
    {"truncated 4-byte after 2", "\xf0\x9f", R},
    {"truncated 4-byte after 3", "\xf0\x9f\x98z", R "z"},
    {"truncated then valid", "\xe2\x82\xc3\xa9", R "\xc3\xa9"},
    {"overlong 2-byte (C0, C1)", "\xc0\x80\xc1\xbf", R R R R},
    {"overlong 3-byte", "\xe0\x80\x80\xe0\x9f\xbf", R R R R R R},
    {"overlong 4-byte", "\xf0\x80\x80\x80\xf0\x8f\xbf\xbf", R R R R R R R R},
    {"surrogates", "\xed\xa0\x80\xed\xbf\xbf", R R R R R R},
    {"surrogate pair as CESU-8", "\xed\xa0\xbd\xed\xb8\x80", R R R R R R},
    {"past U+10FFFF (F4 90)", "\xf4\x90\x80\x80", R R R R},
    {"past U+10FFFF (F5..F7)", "\xf5\x80\x80\x80\xf7\xbf\xbf\xbf", R R R R R R R R},
    {"5- and 6-byte forms", "\xf8\x88\x80\x80\x80\xfc\x84\x80\x80\x80\x80", R R R R R R R R R R R},
    {"FE, FF", "\xfe\xff", R R},
    {"invalid inside quotes and escapes", "\"\x80\\\xc3\"", "\"" R "\\" R "\""},
};

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
        printf("ok %s\n", what);
    } else {
        failed++;
        printf("FAIL %s: %s\n", what, detail);
    }
}

/* The string of {"s": ...} parsed by json-c strictly with UTF-8 checked,
 * compared with want. */
static void parse_back(const char *what, const char *text, const char *want)
{
    struct json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
    enum json_tokener_error je = json_tokener_get_error(tok);
    json_tokener_free(tok);
    json_object *s = NULL;
    char detail[600];
    if (o == NULL || je != json_tokener_success || !json_object_object_get_ex(o, "s", &s)) {
        snprintf(detail, sizeof detail, "json-c refuses %s (%s)", text, json_tokener_error_desc(je));
        check(0, what, detail);
    } else {
        const char *got = json_object_get_string(s);
        snprintf(detail, sizeof detail, "json-c reads \"%s\", want \"%s\"", got, want);
        check((size_t)json_object_get_string_len(s) == strlen(want) && strcmp(got, want) == 0, what, detail);
    }
    json_object_put(o);
}

static void write_obj(char *buf, size_t len, const char *s, struct sb_jw *w)
{
    sb_jw_init(w, buf, len);
    sb_jw_raw(w, "{");
    sb_jw_key(w, "s", 1);
    sb_jw_str(w, s);
    sb_jw_raw(w, "}");
}

static int dump(void)
{
    char line[8192], s[4096], out[16384];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = 0;
        for (char *p = line; p[0] && p[1] && p[0] != '\n' && n + 1 < sizeof s; p += 2) {
            unsigned v;
            if (sscanf(p, "%2x", &v) != 1 || v == 0) {
                fprintf(stderr, "jsonw_test --dump: not hex without 00: %s", line);
                return 2;
            }
            s[n++] = (char)v;
        }
        s[n] = 0;
        struct sb_jw w;
        write_obj(out, sizeof out, s, &w);
        if (w.truncated) {
            fprintf(stderr, "jsonw_test --dump: truncated\n");
            return 2;
        }
        printf("%s\n", out);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--dump") == 0)
        return dump();
    char out[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_jw w;
        write_obj(out, sizeof out, cases[i].in, &w);
        check(!w.truncated, cases[i].what, "truncated");
        parse_back(cases[i].what, out, cases[i].want);
    }
    /* a sequence that does not fit is left out whole, and flagged: the
     * whole text, "ab" U+20AC U+FFFD in quotes, takes 10 bytes and a NUL,
     * and its only bytes >= 0x80 are in 3-byte sequences */
    for (size_t len = 2; len <= 11; len++) { /* 11: it fits */
        struct sb_jw w;
        char small[16];
        memset(small, 'x', sizeof small);
        sb_jw_init(&w, small, len);
        sb_jw_str(&w, "ab\xe2\x82\xac\x80");
        int high = 0;
        for (size_t k = 0; k < w.used; k++)
            high += (unsigned char)small[k] >= 0x80;
        char what[64];
        snprintf(what, sizeof what, "truncation into %zu bytes", len);
        check(w.truncated == (len < 11) && small[w.used] == 0 && w.used < len && high % 3 == 0, what, small);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
