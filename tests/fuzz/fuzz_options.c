/* fuzz_options.c: libFuzzer target for the option parser (lib/options.c).
 * The input is split on '\0' and '\n' into argv[1..]; the registry then goes
 * through what main() does: core options registered, argv parsed, a
 * non-final resolve, driver/workload options registered, a final resolve,
 * then the accessors, the masked echo and the help printer.  Build and run:
 * tests/fuzz/fuzz.sh. */
#define _GNU_SOURCE
#include "../../lib/options.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEAK 9000

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    char *buf = malloc(size + 1);
    char **argv = malloc((size + 3) * sizeof *argv);
    if (!buf || !argv)
        abort();
    memcpy(buf, data, size);
    buf[size] = 0;
    int argc = 0;
    argv[argc++] = "sbench";
    char *start = buf;
    for (size_t i = 0; i <= size; i++) {
        if (i == size || buf[i] == '\n' || buf[i] == '\0') {
            buf[i] = 0;
            argv[argc++] = start;
            start = buf + i + 1;
        }
    }
    argv[argc] = NULL;

    struct sb_options *o = sb_options_create();
    if (!o)
        abort();
    sb_options_add(o, "threads", SB_OPT_INT, SB_SRC_CORE, "1", "threads", NULL, 1, 100000);
    sb_options_add(o, "time", SB_OPT_NUMBER, SB_SRC_CORE, "10", "seconds", NULL, 0, 0);
    sb_options_add(o, "histogram", SB_OPT_BOOL, SB_SRC_CORE, "off", "histogram", NULL, 0, 0);
    sb_options_add(o, "report-format", SB_OPT_STRING, SB_SRC_CORE, "text", "fmt", "text|json|csv", 0, 0);
    sb_options_add(o, "percentiles", SB_OPT_LIST, SB_SRC_CORE, "50,95", "list", NULL, 0, 0);
    sb_options_add(o, "db-driver", SB_OPT_STRING, SB_SRC_CORE, NULL, "driver", NULL, 0, 0);
    const char **words;
    int nwords;
    char err[512];
    if (sb_options_parse_argv(o, argc, argv, &words, &nwords, err, sizeof err) == 0) {
        for (int i = 0; i < nwords; i++)
            if (words[i] == NULL)
                abort();
        if (sb_options_resolve(o, 0, err, sizeof err) == 0) {
            sb_options_add(o, "pgsql-password", SB_OPT_SECRET, SB_SRC_DRIVER, NULL, "pw", NULL, 0, 0);
            sb_options_add(o, "pgsql-port", SB_OPT_INT, SB_SRC_DRIVER, "5432", "port", NULL, 1, 65535);
            sb_options_add(o, "table_size", SB_OPT_INT, SB_SRC_WORKLOAD, "10000", "rows", NULL,
                           0, 1LL << 40);
            sb_options_add(o, "threads", SB_OPT_STRING, SB_SRC_WORKLOAD, "x", "dup", NULL, 0, 0);
            sb_options_add(o, "rand-spec-pct", SB_OPT_NUMBER, SB_SRC_WORKLOAD, "1", "pct", NULL, 0, 0);
            if (sb_options_resolve(o, 1, err, sizeof err) == 0) {
                (void)sb_opt_int(o, "threads");
                (void)sb_opt_num(o, "time");
                (void)sb_opt_bool(o, "histogram");
                (void)sb_opt_int(o, "table-size");
                (void)sb_opt_str(o, "pgsql_password");
                (void)sb_opt_is_set(o, "report-format");
                (void)sb_opt_find(o, "no-such");
            }
            char echo[4096];
            sb_options_echo(o, echo, sizeof echo);
            if (strlen(echo) >= sizeof echo)
                abort();
            /* a secret is echoed masked: "--pgsql-password=VALUE" never
             * appears (unless another option's value holds that text) */
            const struct sb_opt *pw = sb_opt_find(o, "pgsql-password");
            if (pw && pw->value && pw->value[0] != 0 && pw->value[0] != '*') {
                char leak[MAX_LEAK];
                snprintf(leak, sizeof leak, "--pgsql-password=%s", pw->value);
                int other = 0; /* another option's value may hold that text */
                for (int i = 1; i < argc; i++) {
                    const char *eq = strchr(argv[i], '=');
                    size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
                    if (strstr(argv[i], leak) && !memmem(argv[i], nl, "password", 8))
                        other = 1;
                }
                if (!other && strlen(leak) < sizeof leak - 1 && strstr(echo, leak))
                    abort();
            }
            if (devnull)
                for (int s = 0; s < 3; s++)
                    sb_options_print_help(o, s, devnull);
        }
    }
    sb_options_destroy(o);
    free(argv);
    free(buf);
    return 0;
}
