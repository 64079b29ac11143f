/*
 * history_text.c: the small string helpers of history/ (history_text.h).
 */
#include "history.h"
#include "history_text.h"

#include "../lib/secret_mask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *hist_strdup(const char *s)
{
    return strdup(s ? s : "");
}

char *hist_masked(const char *s)
{
    size_t cap = 2 * strlen(s) + 4; /* a secret of 1 byte grows to "***" */
    char *out = malloc(cap);
    return out ? sb_secret_mask(s, out, cap) : NULL;
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
