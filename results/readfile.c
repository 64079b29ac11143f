/*
 * readfile.c: a whole file read into memory, bounded (readfile.h).
 */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sb_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (b == NULL) {
            fclose(f);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        n += fread(b + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        if (cap > max) {
            free(b);
            fclose(f);
            snprintf(err, errlen, "larger than %zu bytes", max);
            return NULL;
        }
        char *nb = realloc(b, cap * 2);
        if (nb == NULL)
            free(b);
        b = nb;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(b);
        snprintf(err, errlen, "cannot read: %s", strerror(EIO));
        return NULL;
    }
    b[n] = 0;
    *len = n;
    return b;
}
