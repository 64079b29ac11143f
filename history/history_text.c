/*
 * history_text.c: the small string helpers of history/ (history_text.h).
 */
#include "history.h"
#include "history_text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *hist_strdup(const char *s)
{
    return strdup(s ? s : "");
}

/* Length of the secret that starts at p: up to a blank, '@' excluded for
 * a URI's password, '&' or ';' for a DSN's. */
static size_t secret_len(const char *p, int uri)
{
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]) && p[n] != '&' && p[n] != ';' && !(uri && p[n] == '@'))
        n++;
    return n;
}

char *hist_masked(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(2 * len + 4); /* a secret of 1 byte grows to 3 */
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t skip = 0;
        if (strncmp(s + i, "password=", 9) == 0) {
            memcpy(out + o, s + i, 9), o += 9, i += 9;
            skip = secret_len(s + i, 0);
        } else if (strncmp(s + i, "://", 3) == 0) {
            memcpy(out + o, s + i, 3), o += 3, i += 3;
            size_t user = 0; /* user:password@ */
            while (s[i + user] && s[i + user] != ':' && s[i + user] != '@' && s[i + user] != '/' &&
                   !isspace((unsigned char)s[i + user]))
                user++;
            size_t pw = s[i + user] == ':' ? secret_len(s + i + user + 1, 1) : 0;
            if (s[i + user] == ':' && s[i + user + 1 + pw] == '@') {
                memcpy(out + o, s + i, user + 1), o += user + 1, i += user + 1;
                skip = pw;
            }
        } else {
            out[o++] = s[i++];
            continue;
        }
        if (skip > 0)
            memcpy(out + o, "***", 3), o += 3, i += skip;
    }
    out[o] = '\0';
    return out;
}

int sb_hist_label_check(const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (eq == NULL || eq == kv || strchr(kv, '\n') || eq - kv > 64 || strlen(eq + 1) > 1024) {
        snprintf(err, errlen, "--label='%s' is not KEY=VALUE (a key of 1 to 64 bytes, one line)", kv);
        return -1;
    }
    return 0;
}

/* labels[i]'s key is given again later (the last one counts). */
static int given_again(const char *const *labels, int n, int i)
{
    size_t klen = (size_t)(strchr(labels[i], '=') - labels[i]);
    for (int j = i + 1; j < n; j++)
        if (labels[j] && strncmp(labels[j], labels[i], klen + 1) == 0)
            return 1;
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *hist_labels_joined(const char *const *labels, int n)
{
    const char *v[SB_HIST_MAX_LABELS];
    size_t len = 1;
    int k = 0;
    for (int i = 0; i < n && k < SB_HIST_MAX_LABELS; i++)
        if (labels[i] && strchr(labels[i], '=') && !strchr(labels[i], '\n') && !given_again(labels, n, i)) {
            v[k++] = labels[i];
            len += strlen(labels[i]) + 1;
        }
    qsort(v, (size_t)k, sizeof v[0], by_text);
    char *out = malloc(len);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (int i = 0; i < k; i++)
        o += (size_t)sprintf(out + o, "%s%s", i ? "\n" : "", v[i]);
    out[o] = '\0';
    return out;
}
