/*
 * sysbench's --config-file (see options.h): the file's lines turned into
 * --name=value arguments placed before the command line's own.
 */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIG_LINES 4096

/* The value of --config-file (or --config_file) in argv, NULL if none. */
static const char *config_path(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], "--config-file=", 14) == 0 || strncmp(argv[i], "--config_file=", 14) == 0)
            path = argv[i] + 14;
    return path;
}

/* One line of the file, trimmed in place: "" to skip, the argument
 * "--name[=value]" (allocated), or NULL when it is no option (errno 0) or
 * out of memory (errno ENOMEM). */
static char *config_arg(char *line)
{
    errno = 0;
    while (isspace((unsigned char)*line))
        line++;
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = 0;
    if (n == 0 || line[0] == '#')
        return strdup("");
    if (strncmp(line, "--", 2) == 0)
        line += 2;
    size_t name_len = strcspn(line, "=");
    if (name_len == 0)
        return NULL;
    for (size_t i = 0; i < name_len; i++)
        if (!isalnum((unsigned char)line[i]) && line[i] != '-' && line[i] != '_')
            return NULL;
    size_t len = strlen(line) + 3;
    char *arg = malloc(len);
    if (arg == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    snprintf(arg, len, "--%s", line);
    return arg;
}

int sb_options_config_file(int argc, char **argv, int *out_argc, char ***out_argv,
                           char *err, size_t errlen)
{
    *out_argc = argc;
    *out_argv = argv;
    const char *path = config_path(argc, argv);
    if (path == NULL)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read --config-file '%.200s': %s", path, strerror(errno));
        return -1;
    }
    char **v = calloc((size_t)argc + MAX_CONFIG_LINES + 1, sizeof *v);
    int n = 0, lineno = 0, rc = 0;
    char line[8192];
    if (v == NULL) {
        snprintf(err, errlen, "out of memory");
        fclose(f);
        return -1;
    }
    v[n++] = argv[0];
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        char *arg = config_arg(line);
        if (arg == NULL) {
            snprintf(err, errlen, "--config-file '%.200s', line %d: %s", path, lineno,
                     errno == ENOMEM ? "out of memory" : "expected option=value");
            rc = -1;
        } else if (*arg == 0) {
            free(arg);
        } else if (n == MAX_CONFIG_LINES) {
            snprintf(err, errlen, "--config-file '%.200s': more than %d options", path,
                     MAX_CONFIG_LINES - 1);
            free(arg);
            rc = -1;
        } else {
            v[n++] = arg;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "cannot read --config-file '%.200s': %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (rc != 0) {
        for (int i = 1; i < n; i++)
            free(v[i]);
        free(v);
        return -1;
    }
    for (int i = 1; i < argc; i++)
        v[n++] = argv[i];
    *out_argc = n;
    *out_argv = v;
    return 0;
}
