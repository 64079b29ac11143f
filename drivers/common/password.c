/*
 * Passwords from the command line or a file: see password.h.
 */
#include "password.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void sbc_password_free(char *pw)
{
    if (pw == NULL)
        return;
    explicit_bzero(pw, strlen(pw));
    free(pw);
}

int sbc_password_file(const char *path, const char *option, char **out,
                      char *errbuf, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(errbuf, errlen, "%s: cannot open %s: %s", option, path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    errno = 0;
    ssize_t n = getline(&line, &cap, f);
    int err = n < 0 && ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (n > 0 && line[n - 1] == '\n')
        line[--n] = 0;
    if (n > 0 && line[n - 1] == '\r')
        line[--n] = 0;
    if (n <= 0) {
        if (line != NULL) {
            explicit_bzero(line, cap);
            free(line);
        }
        if (err != 0)
            snprintf(errbuf, errlen, "%s: cannot read %s: %s", option, path, strerror(err));
        else
            snprintf(errbuf, errlen, "%s: %s has no password (its first line is empty)",
                     option, path);
        return -1;
    }
    *out = line;
    return 0;
}


int sbc_password_get(const struct sbd_host *h, const char *name, char **out,
                     char *errbuf, size_t errlen)
{
    char opt[64], file_opt[64];
    *out = NULL;
    snprintf(opt, sizeof opt, "%s-password", name);
    snprintf(file_opt, sizeof file_opt, "%s-password-file", name);
    const char *pw = h->opt_str(opt);         /* "" is a password too */
    const char *path = h->opt_str(file_opt);
    if (path != NULL && *path == 0)
        path = NULL;
    if (pw != NULL && path != NULL) {
        snprintf(errbuf, errlen, "give only one of --%s and --%s", opt, file_opt);
        return -1;
    }
    if (path != NULL) {
        char flag[70];
        snprintf(flag, sizeof flag, "--%s", file_opt);
        return sbc_password_file(path, flag, out, errbuf, errlen);
    }
    if (pw != NULL && (*out = strdup(pw)) == NULL) {
        snprintf(errbuf, errlen, "--%s: out of memory", opt);
        return -1;
    }
    return 0;
}
