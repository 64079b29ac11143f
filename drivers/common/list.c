/*
 * Comma-separated option values: see list.h.
 */
#include "list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

void sbc_list_free(struct sbc_list *l)
{
    free(l->text);
    free(l->items);
    l->text = NULL;
    l->items = NULL;
    l->n = 0;
}

int sbc_list_parse(struct sbc_list *l, const char *value, const char *option,
                   const char *what, char *errbuf, size_t errlen)
{
    sbc_list_free(l);
    size_t len = strlen(value);
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += value[i] == ',';
    l->items = calloc((size_t)n, sizeof *l->items);
    l->text = malloc(len + 1);
    if (l->items == NULL || l->text == NULL) {
        sbc_list_free(l);
        snprintf(errbuf, errlen, "%s: out of memory", option);
        return -1;
    }
    memcpy(l->text, value, len + 1);
    char *p = l->text;
    for (int k = 0; k < n; k++) {
        char *comma = strchr(p, ',');
        char *end = comma != NULL ? comma : p + strlen(p);
        char *next = comma != NULL ? comma + 1 : end;
        while (p < end && blank(*p))
            p++;
        while (end > p && blank(end[-1]))
            end--;
        if (p == end) {
            snprintf(errbuf, errlen, "%s: empty %s in '%s'", option, what, value);
            sbc_list_free(l);
            return -1;
        }
        *end = 0;
        l->items[l->n++] = p;
        p = next;
    }
    return 0;
}

const char *sbc_list_pick(const struct sbc_list *l, int thread_id)
{
    if (l->n == 0)
        return NULL;
    unsigned id = thread_id < 0 ? 0u : (unsigned)thread_id;
    return l->items[id % (unsigned)l->n];
}
