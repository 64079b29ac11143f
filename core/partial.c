/*
 * Output files that could not be written whole (partial.h).
 */
#include "partial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sb_partial_said(const char *option, const char *path, int err)
{
    const char *why = err ? strerror(err) : "a write failed";
    size_t n = strlen(path) + sizeof ".partial";
    char *partial = malloc(n);
    if (partial != NULL) {
        snprintf(partial, n, "%s.partial", path);
        if (access(partial, F_OK) == 0) {
            fprintf(stderr, "sbench: writing %s file '%s' failed (%s): what was written is in "
                    "'%s'\n", option, path, why, partial);
            free(partial);
            return;
        }
        free(partial);
    }
    fprintf(stderr, "sbench: writing %s file '%s' failed (%s)\n", option, path, why);
}
