/*
 * Output files that could not be written whole (partial.h).
 */
#include "partial.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_set_aside(const char *option, const char *path, int err)
{
    const char *why = err ? strerror(err) : "a write failed";
    size_t n = strlen(path) + sizeof ".partial";
    char *to = malloc(n);
    if (to != NULL) {
        snprintf(to, n, "%s.partial", path);
        if (rename(path, to) == 0) {
            fprintf(stderr, "sbench: writing %s file '%s' failed (%s): what was written is in "
                    "'%s'\n", option, path, why, to);
            free(to);
            return;
        }
        free(to);
    }
    remove(path);
    fprintf(stderr, "sbench: writing %s file '%s' failed (%s): removed\n", option, path, why);
}
