/*
 * secret_mask.c: masks the passwords in a connection string, a URI or a
 * command line before it is shown; see secret_mask.h for the forms.
 */
#include "secret_mask.h"

#include <ctype.h>
#include <string.h>

struct out {
    char *buf;
    size_t cap, len;
};

static void put(struct out *o, const char *s, size_t n)
{
    while (n-- > 0 && o->len + 1 < o->cap)
        o->buf[o->len++] = *s++;
}

static int key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* a password key: ends in "password" (any case), or is "pwd" */
static int password_key(const char *k, size_t n)
{
    if (n == 3 && strncasecmp(k, "pwd", 3) == 0)
        return 1;
    return n >= 8 && strncasecmp(k + n - 8, "password", 8) == 0;
}

/* the end of the value that starts at v */
static const char *value_end(const char *v)
{
    if (*v == '\'') { /* libpq: backslash escapes inside single quotes */
        for (v++; *v && *v != '\''; v++)
            if (*v == '\\' && v[1])
                v++;
        return *v ? v + 1 : v;
    }
    if (*v == '"') {
        const char *q = strchr(v + 1, '"');
        return q ? q + 1 : v + strlen(v);
    }
    if (*v == '{') { /* ODBC: "}}" is a literal brace */
        for (v++; *v; v++) {
            if (*v == '}' && v[1] == '}')
                v++;
            else if (*v == '}')
                return v + 1;
        }
        return v;
    }
    while (*v && !isspace((unsigned char)*v) && *v != ';' && *v != '&')
        v++;
    return v;
}

/* a URI's authority at p (just after "://"): the user information's
 * password masked; returns where the copy goes on */
static const char *uri_authority(const char *p, struct out *o)
{
    size_t n = strcspn(p, "/?#");
    const char *at = NULL;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '@')
            at = p + i;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (colon == NULL)
        return p;
    put(o, p, (size_t)(colon - p) + 1);
    put(o, "***", 3);
    return at;
}

char *sb_secret_mask(const char *in, char *out, size_t cap)
{
    struct out o = {out, cap, 0};
    const char *p = in;
    while (*p) {
        if (strncmp(p, "://", 3) == 0) {
            put(&o, p, 3);
            p = uri_authority(p + 3, &o);
            continue;
        }
        if (key_char(*p)) { /* a whole word: p is never inside one here */
            const char *k = p;
            while (key_char(*p))
                p++;
            put(&o, k, (size_t)(p - k));
            const char *eq = p;
            while (*eq == ' ' || *eq == '\t')
                eq++;
            if (*eq == '=' && password_key(k, (size_t)(p - k))) {
                put(&o, p, (size_t)(eq - p) + 1);
                p = eq + 1;
                while (*p == ' ' || *p == '\t')
                    p++;
                put(&o, "***", 3);
                /* one command-line option (--x-password=V): V is the rest */
                p = k == in && k[0] == '-' && k[1] == '-' ? p + strlen(p) : value_end(p);
            }
            continue;
        }
        put(&o, p, 1);
        p++;
    }
    if (cap > 0)
        out[o.len] = 0;
    return out;
}
