/*
 * options_test.c: unit tests for lib/options.c, the option registry and
 * command-line validation: --name=value and --name_value spellings, a bare
 * --flag meaning on, '--' ending the options, positional words, integer
 * validation (whole numbers, min/max, overflow, 1e99, empty), numbers
 * (nan/inf rejected, range), booleans, choices, unknown options with a
 * "did you mean", options registered after a first resolve (driver,
 * workload), the first registration winning, the echo masking secrets and
 * any option named *password*, over-long names and values, no secret
 * in any error message, sizes (sysbench's SIZE: 10K, 1M), arguments taken
 * as undeclared string options ("" for a bare --flag, as sysbench gives
 * them), replaced defaults, and the help's layout (sysbench's forms, the
 * text aligned after the longest name).  Runs every check; prints "N passed, M failed" and
 * exits 1 if anything failed.
 */
#include "../../lib/options.h"
#include "../../lib/secret_mask.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

static void check(int cond, const char *what, const char *fmt, ...)
{
    if (cond) {
        passed++;
        printf("ok %s\n", what);
        return;
    }
    failed++;
    printf("FAIL %s: ", what);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define SECRET "TopSecret123"

/* A registry like sbench's core plus a driver's password options. */
static struct sb_options *mk(void)
{
    struct sb_options *o = sb_options_create();
    sb_options_add(o, "threads", SB_OPT_INT, SB_SRC_CORE, "1", "threads", NULL, 1, 1000000);
    sb_options_add(o, "table-size", SB_OPT_INT, SB_SRC_CORE, "10000", "rows", NULL, 0, LLONG_MAX);
    sb_options_add(o, "offset", SB_OPT_INT, SB_SRC_CORE, "0", "signed", NULL, LLONG_MIN, LLONG_MAX);
    sb_options_add(o, "rate", SB_OPT_NUMBER, SB_SRC_CORE, "0", "rate", NULL, 0, 100000000);
    sb_options_add(o, "percentile", SB_OPT_NUMBER, SB_SRC_CORE, "95", "pct", NULL, 0, 100);
    sb_options_add(o, "histogram", SB_OPT_BOOL, SB_SRC_CORE, "off", "histogram", NULL, 0, 0);
    sb_options_add(o, "report-format", SB_OPT_STRING, SB_SRC_CORE, "text", "format",
                   "text|json|csv", 0, 0);
    sb_options_add(o, "percentiles", SB_OPT_LIST, SB_SRC_CORE, "50,95", "list", NULL, 0, 0);
    sb_options_add(o, "db-driver", SB_OPT_STRING, SB_SRC_CORE, NULL, "driver", NULL, 0, 0);
    sb_options_add(o, "pgsql-password", SB_OPT_SECRET, SB_SRC_DRIVER, NULL, "pw", NULL, 0, 0);
    /* a plain string that is secret by its name only */
    sb_options_add(o, "mysql-password", SB_OPT_STRING, SB_SRC_DRIVER, NULL, "pw", NULL, 0, 0);
    sb_options_add(o, "odbc-password-file", SB_OPT_STRING, SB_SRC_DRIVER, NULL, "pw", NULL, 0, 0);
    return o;
}

/* Parses "sbench ARGS..." (NULL-terminated) and resolves (final).  Returns
 * -1 if parsing failed, -2 if resolving failed, else 0; err gets the line. */
static int run(struct sb_options *o, char *err, size_t errlen, const char ***words, int *nwords,
               ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "sbench";
    va_list ap;
    va_start(ap, nwords);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 63;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    const char **w;
    int nw;
    err[0] = 0;
    if (sb_options_parse_argv(o, argc, argv, &w, &nw, err, errlen) != 0)
        return -1;
    if (words) {
        *words = w;
        *nwords = nw;
    }
    return sb_options_resolve(o, 1, err, errlen) != 0 ? -2 : 0;
}

/* One option value through a fresh registry: 0 accepted, else rejected. */
static int try1(const char *arg, char *err, size_t errlen)
{
    struct sb_options *o = mk();
    int rc = run(o, err, errlen, NULL, NULL, (char *)arg, (char *)NULL);
    sb_options_destroy(o);
    return rc;
}

static void accept(const char *arg, const char *name, const char *want)
{
    char err[512], what[256];
    struct sb_options *o = mk();
    int rc = run(o, err, sizeof err, NULL, NULL, (char *)arg, (char *)NULL);
    const char *v = sb_opt_str(o, name);
    snprintf(what, sizeof what, "accepts '%.100s' (%s = %s)", arg, name, want);
    check(rc == 0 && v && strcmp(v, want) == 0, what, "rc %d, err '%s', value '%s'", rc, err,
          v ? v : "(null)");
    sb_options_destroy(o);
}

static void reject(const char *arg, const char *frag)
{
    char err[512], what[256];
    int rc = try1(arg, err, sizeof err);
    snprintf(what, sizeof what, "rejects '%.100s' (%s)", arg, frag);
    check(rc != 0 && strstr(err, frag) != NULL && strchr(err, '\n') == NULL, what,
          "rc %d, err '%s'", rc, err);
}

static void test_spellings(void)
{
    char err[512];
    struct sb_options *o = mk();
    int rc = run(o, err, sizeof err, NULL, NULL, "--threads=4", "--table_size=77",
                 "--report_format=json", (char *)NULL);
    check(rc == 0 && sb_opt_int(o, "threads") == 4, "--threads=4", "rc %d err %s", rc, err);
    check(sb_opt_int(o, "table-size") == 77 && sb_opt_int(o, "table_size") == 77,
          "--table_size=77 is --table-size, looked up either way", "%lld",
          sb_opt_int(o, "table-size"));
    check(strcmp(sb_opt_str(o, "report-format"), "json") == 0, "--report_format=json", "%s",
          sb_opt_str(o, "report-format"));
    check(sb_opt_is_set(o, "threads") && !sb_opt_is_set(o, "rate"), "is_set: given vs defaulted",
          "");
    check(sb_opt_num(o, "rate") == 0.0 && strcmp(sb_opt_str(o, "percentiles"), "50,95") == 0,
          "defaults when not given", "");
    check(sb_opt_str(o, "no-such") == NULL && sb_opt_find(o, "no-such") == NULL,
          "unknown name reads as NULL", "");
    sb_options_destroy(o);

    accept("--threads=2", "threads", "2");
    accept("--db-driver=", "db-driver", "");               /* empty string value */
    accept("--db-driver=a=b", "db-driver", "a=b");          /* only the first '=' splits */
    accept("--percentiles=50,99,99.9", "percentiles", "50,99,99.9");

    /* the last of repeated options wins, as in sysbench */
    o = mk();
    rc = run(o, err, sizeof err, NULL, NULL, "--threads=2", "--threads=3", (char *)NULL);
    check(rc == 0 && sb_opt_int(o, "threads") == 3, "repeated option: the last wins", "%lld",
          sb_opt_int(o, "threads"));
    sb_options_destroy(o);
}

static void test_flags_and_words(void)
{
    char err[512];
    const char **w;
    int nw;
    struct sb_options *o = mk();
    int rc = run(o, err, sizeof err, &w, &nw, "oltp_read_only", "--histogram", "run",
                 (char *)NULL);
    check(rc == 0 && sb_opt_bool(o, "histogram") == 1 &&
              strcmp(sb_opt_str(o, "histogram"), "on") == 0,
          "bare --histogram means on", "rc %d err %s", rc, err);
    check(nw == 2 && strcmp(w[0], "oltp_read_only") == 0 && strcmp(w[1], "run") == 0,
          "positional words around options, in order", "nw %d", nw);
    sb_options_destroy(o);

    reject("--threads", "expected a whole number"); /* a bare flag is "on" */

    o = mk();
    rc = run(o, err, sizeof err, &w, &nw, "--threads=2", "--", "--histogram", "-x", "run",
             (char *)NULL);
    check(rc == 0 && nw == 3 && strcmp(w[0], "--histogram") == 0 && strcmp(w[1], "-x") == 0 &&
              strcmp(w[2], "run") == 0,
          "'--' ends the options: what follows are words", "rc %d nw %d err %s", rc, nw, err);
    check(!sb_opt_is_set(o, "histogram") && sb_opt_int(o, "threads") == 2,
          "'--': options before it count, after it not", "");
    sb_options_destroy(o);

    o = mk();
    rc = run(o, err, sizeof err, &w, &nw, "-", "run", (char *)NULL);
    check(rc == 0 && nw == 2 && strcmp(w[0], "-") == 0, "a lone '-' is a word", "rc %d", rc);
    sb_options_destroy(o);

    o = mk();
    sb_options_add(o, "help", SB_OPT_BOOL, SB_SRC_CORE, "off", "help", NULL, 0, 0);
    rc = run(o, err, sizeof err, &w, &nw, "-h", (char *)NULL);
    check(rc == 0 && sb_opt_bool(o, "help") == 1, "-h is --help", "rc %d err %s", rc, err);
    sb_options_destroy(o);

    reject("-threads=2", "options look like --name=value");
    reject("-x", "options look like --name=value");
    reject("--=5", "invalid option");
}

static void test_integers(void)
{
    accept("--threads=1", "threads", "1");
    accept("--threads=1000000", "threads", "1000000");
    accept("--table-size=0", "table-size", "0");
    accept("--table-size=9223372036854775807", "table-size", "9223372036854775807");
    accept("--offset=-9223372036854775808", "offset", "-9223372036854775808");
    accept("--offset=-5", "offset", "-5");
    reject("--threads=0", "must be between 1 and 1000000");
    reject("--threads=-5", "must be between 1 and 1000000");
    reject("--threads=1000001", "must be between 1 and 1000000");
    reject("--table-size=-1", "must be between 0 and");
    reject("--threads=", "expected a whole number");
    reject("--threads=4.5", "expected a whole number");
    reject("--threads=4.0", "expected a whole number");
    reject("--threads=1e3", "expected a whole number");
    reject("--table-size=1e99", "expected a whole number");
    reject("--threads=abc", "expected a whole number");
    reject("--threads=4x", "expected a whole number");
    reject("--threads=4 ", "expected a whole number");
    reject("--threads= 4", "expected a whole number");  /* as "4 " is */
    reject("--threads=0x10", "expected a whole number");
    reject("--table-size=9223372036854775808", "expected a whole number");  /* overflow */
    reject("--table-size=99999999999999999999999", "expected a whole number");
    reject("--offset=-9223372036854775809", "expected a whole number");
    struct sb_options *o = mk();
    char err[512];
    run(o, err, sizeof err, NULL, NULL, "--table-size=9223372036854775807", (char *)NULL);
    check(sb_opt_int(o, "table-size") == LLONG_MAX, "LLONG_MAX reads back exactly", "%lld",
          sb_opt_int(o, "table-size"));
    sb_options_destroy(o);
}

static void test_numbers(void)
{
    accept("--rate=0", "rate", "0");
    accept("--rate=1.5", "rate", "1.5");
    accept("--rate=1e3", "rate", "1e3");
    accept("--percentile=99.99", "percentile", "99.99");
    accept("--percentile=100", "percentile", "100");
    struct sb_options *o = mk();
    char err[512];
    run(o, err, sizeof err, NULL, NULL, "--rate=2.25", (char *)NULL);
    check(sb_opt_num(o, "rate") == 2.25, "--rate=2.25 reads back as 2.25", "%g",
          sb_opt_num(o, "rate"));
    sb_options_destroy(o);
    const char *bad[] = {"nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "", "abc",
                         "1.5x", "1,5", " 1", "1 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char arg[64];
        snprintf(arg, sizeof arg, "--rate=%s", bad[i]);
        reject(arg, "expected a number");
    }
    reject("--rate=-1", "must be between 0 and 100000000");
    reject("--percentile=100.5", "must be between 0 and 100");
    reject("--rate=1e9", "must be between");
}

static void test_booleans(void)
{
    const char *yes[] = {"on", "true", "yes", "1", "ON", "True", "YES"};
    const char *no[] = {"off", "false", "no", "0", "OFF", "False"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        check(sb_parse_bool(yes[i]) == 1, yes[i], "sb_parse_bool -> %d", sb_parse_bool(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        check(sb_parse_bool(no[i]) == 0, no[i], "sb_parse_bool -> %d", sb_parse_bool(no[i]));
    const char *bad[] = {"", "2", "maybe", "onn", "y", "enable"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check(sb_parse_bool(bad[i]) == -1, bad[i], "sb_parse_bool -> %d", sb_parse_bool(bad[i]));

    struct sb_options *o = mk();
    char err[512];
    int rc = run(o, err, sizeof err, NULL, NULL, "--histogram=off", (char *)NULL);
    check(rc == 0 && sb_opt_bool(o, "histogram") == 0, "--histogram=off", "rc %d", rc);
    sb_options_destroy(o);
    o = mk();
    rc = run(o, err, sizeof err, NULL, NULL, "--histogram=Yes", (char *)NULL);
    check(rc == 0 && sb_opt_bool(o, "histogram") == 1, "--histogram=Yes", "rc %d", rc);
    sb_options_destroy(o);
    reject("--histogram=maybe", "expected on or off");
    reject("--histogram=", "expected on or off");
}

static void test_choices(void)
{
    accept("--report-format=json", "report-format", "json");
    accept("--report-format=csv", "report-format", "csv");
    accept("--report-format=JSON", "report-format", "JSON"); /* case-insensitive */
    reject("--report-format=xml", "expected one of text|json|csv");
    reject("--report-format=", "expected one of");
    reject("--report-format=jso", "expected one of");
    reject("--report-format=jsonx", "expected one of");
    reject("--report-format=text|json", "expected one of");

    /* a secret with choices: the message shows *** and not the value */
    char err[512];
    struct sb_options *o = sb_options_create();
    sb_options_add(o, "tls-key", SB_OPT_SECRET, SB_SRC_DRIVER, NULL, "k", "a|b", 0, 0);
    int rc = run(o, err, sizeof err, NULL, NULL, "--tls-key=" SECRET, (char *)NULL);
    check(rc != 0 && strstr(err, "***") && !strstr(err, SECRET),
          "a secret outside its choices is rejected without showing it", "err '%s'", err);
    sb_options_destroy(o);
}

static void test_unknown(void)
{
    char err[512];
    reject("--thraeds=4", "unknown option --thraeds; did you mean --threads?");
    reject("--table-sise=4", "did you mean --table-size?");
    reject("--Threads=4", "did you mean --threads?");
    reject("--zzzzzzzzzzzzzzzzzzzz=1", "unknown option --zzzzzzzzzzzzzzzzzzzz; see 'sbench --help'");

    /* the value of an unknown option, maybe a mistyped password, is never shown */
    int rc = try1("--pgsql-pasword=" SECRET, err, sizeof err);
    check(rc != 0 && strstr(err, "did you mean --pgsql-password?") && !strstr(err, SECRET),
          "mistyped password option: suggestion, no value", "err '%s'", err);

    /* not final: unknown arguments wait for the driver's and workload's options */
    struct sb_options *o = mk();
    char *argv[] = {"sbench", "--pgsql-port=abc", "--oltp-x=5", NULL};
    const char **w;
    int nw;
    sb_options_parse_argv(o, 3, argv, &w, &nw, err, sizeof err);
    rc = sb_options_resolve(o, 0, err, sizeof err);
    check(rc == 0, "not final: unknown options are left for later", "rc %d err %s", rc, err);
    sb_options_add(o, "pgsql-port", SB_OPT_INT, SB_SRC_DRIVER, "5432", "port", NULL, 1, 65535);
    rc = sb_options_resolve(o, 0, err, sizeof err);
    check(rc != 0 && strstr(err, "--pgsql-port") && strstr(err, "whole number"),
          "an option registered later is validated then", "rc %d err '%s'", rc, err);
    sb_options_destroy(o);

    o = mk();
    char *argv2[] = {"sbench", "--pgsql-port=6543", "--oltp-x=5", NULL};
    sb_options_parse_argv(o, 3, argv2, &w, &nw, err, sizeof err);
    rc = sb_options_resolve(o, 0, err, sizeof err);
    sb_options_add(o, "pgsql-port", SB_OPT_INT, SB_SRC_DRIVER, "5432", "port", NULL, 1, 65535);
    rc |= sb_options_resolve(o, 0, err, sizeof err);
    sb_options_add(o, "oltp-x", SB_OPT_INT, SB_SRC_WORKLOAD, "1", "x", NULL, 0, 10);
    rc |= sb_options_resolve(o, 1, err, sizeof err);
    check(rc == 0 && sb_opt_int(o, "pgsql-port") == 6543 && sb_opt_int(o, "oltp-x") == 5,
          "core, driver and workload options resolved in turn", "rc %d err %s", rc, err);
    sb_options_destroy(o);
}

static void test_first_wins(void)
{
    struct sb_options *o = mk();
    int n0 = sb_options_count(o);
    sb_options_add(o, "threads", SB_OPT_STRING, SB_SRC_WORKLOAD, "99", "dup", NULL, 0, 0);
    sb_options_add(o, "table_size", SB_OPT_STRING, SB_SRC_DRIVER, "5", "dup", NULL, 0, 0);
    const struct sb_opt *p = sb_opt_find(o, "threads");
    check(sb_options_count(o) == n0 && p && p->kind == SB_OPT_INT && p->source == SB_SRC_CORE &&
              strcmp(p->def, "1") == 0 && strcmp(p->help, "threads") == 0,
          "the first registration wins (same name, or '_' spelling)", "count %d/%d",
          sb_options_count(o), n0);
    p = sb_opt_find(o, "table-size");
    check(p && p->kind == SB_OPT_INT && strcmp(p->def, "10000") == 0,
          "table_size re-registered keeps the first", "");
    char err[512];
    int rc = run(o, err, sizeof err, NULL, NULL, "--threads=abc", (char *)NULL);
    check(rc != 0 && strstr(err, "whole number"), "the first registration's validation applies",
          "rc %d", rc);
    check(strcmp(sb_options_at(o, 0)->name, "threads") == 0 && sb_options_at(o, n0) == NULL &&
              sb_options_at(o, -1) == NULL,
          "iteration in registration order, bounds checked", "");
    sb_options_destroy(o);
}

static void test_echo_and_secrets(void)
{
    char err[512], buf[1024];
    struct sb_options *o = mk();
    sb_options_add(o, "some-password-thing", SB_OPT_STRING, SB_SRC_WORKLOAD, NULL, "x", NULL, 0, 0);
    int rc = run(o, err, sizeof err, NULL, NULL, "--threads=2", "--pgsql_password=" SECRET "a",
                 "--mysql-password=" SECRET "b", "--odbc-password-file=" SECRET "c",
                 "--some-password-thing=" SECRET "d", "--db-driver=pgsql", (char *)NULL);
    sb_options_echo(o, buf, sizeof buf);
    check(rc == 0 && strstr(buf, "--threads=2") && strstr(buf, "--db-driver=pgsql"),
          "echo shows ordinary options", "rc %d buf '%s'", rc, buf);
    check(strstr(buf, "--pgsql-password=***") && strstr(buf, "--mysql-password=***") &&
              strstr(buf, "--odbc-password-file=***") && strstr(buf, "--some-password-thing=***"),
          "echo masks the secret and every *password* option", "buf '%s'", buf);
    check(strstr(buf, SECRET) == NULL && strstr(buf, "Secret") == NULL,
          "no secret in the echo", "buf '%s'", buf);
    check(strcmp(sb_opt_str(o, "pgsql-password"), SECRET "a") == 0,
          "the secret itself is still there for the driver", "");
    /* a tiny buffer: truncated, terminated, no secret, no overflow */
    char small[24];
    memset(small, 'X', sizeof small);
    sb_options_echo(o, small, 20);
    check(memchr(small, 0, 20) != NULL && small[20] == 'X' && !strstr(small, "Secret"),
          "echo into a small buffer is truncated and terminated", "'%.20s'", small);
    /* help never shows a secret's default */
    sb_options_destroy(o);

    o = sb_options_create();
    sb_options_add(o, "api-key", SB_OPT_SECRET, SB_SRC_DRIVER, SECRET, "key", NULL, 0, 0);
    FILE *f = tmpfile();
    sb_options_print_help(o, SB_SRC_DRIVER, f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    check(strstr(buf, "--api-key") && !strstr(buf, SECRET), "help hides a secret's default",
          "'%s'", buf);
    sb_options_destroy(o);

    /* error messages never carry a password value */
    const char *leaky[] = {"-pgsql-password=" SECRET, "-mysql_password=" SECRET,
                           "--=" SECRET};
    for (size_t i = 0; i < sizeof leaky / sizeof leaky[0]; i++) {
        rc = try1(leaky[i], err, sizeof err);
        char what[128];
        snprintf(what, sizeof what, "no secret in the message for '%.20s...'", leaky[i]);
        check(strstr(err, SECRET) == NULL, what, "rc %d err '%s'", rc, err);
    }
}

static void test_lengths(void)
{
    char err[512];
    static char arg[8192], name[300];
    /* 4096 characters of value are fine, 4097 are not */
    snprintf(arg, sizeof arg, "--db-driver=%0*d", 4096, 0);
    struct sb_options *o = mk();
    int rc = run(o, err, sizeof err, NULL, NULL, arg, (char *)NULL);
    check(rc == 0 && strlen(sb_opt_str(o, "db-driver")) == 4096, "a 4096-character value",
          "rc %d err %s", rc, err);
    sb_options_destroy(o);
    snprintf(arg, sizeof arg, "--db-driver=%0*d", 4097, 0);
    rc = try1(arg, err, sizeof err);
    check(rc == -1 && strstr(err, "value of --db-driver is too long"), "a 4097-character value",
          "rc %d err %s", rc, err);
    snprintf(arg, sizeof arg, "--pgsql-password=%0*d", 8000, 0);
    rc = try1(arg, err, sizeof err);
    check(rc == -1 && strstr(err, "too long") && strlen(err) < 200,
          "an 8000-character password: short message", "rc %d err %.80s", rc, err);
    /* names: 128 characters are looked up (unknown), 129 are invalid */
    memset(name, 'a', 128);
    name[128] = 0;
    snprintf(arg, sizeof arg, "--%s=1", name);
    rc = try1(arg, err, sizeof err);
    check(rc == -2 && strstr(err, "unknown option") && strlen(err) < 200,
          "a 128-character name is an unknown option", "rc %d err %.100s", rc, err);
    memset(name, 'a', 129);
    name[129] = 0;
    snprintf(arg, sizeof arg, "--%s=1", name);
    rc = try1(arg, err, sizeof err);
    check(rc == -1 && strstr(err, "invalid option"), "a 129-character name is invalid",
          "rc %d err %.100s", rc, err);
    /* an error message always fits the caller's buffer */
    char tiny[16];
    memset(tiny, 'X', sizeof tiny);
    o = mk();
    char *argv[] = {"sbench", "--thraeds=2", NULL};
    const char **w;
    int nw;
    sb_options_parse_argv(o, 2, argv, &w, &nw, tiny, 10);
    rc = sb_options_resolve(o, 1, tiny, 10);
    check(rc != 0 && memchr(tiny, 0, 10) && tiny[10] == 'X', "error truncated to errlen", "");
    sb_options_destroy(o);
}

/* Help text of one source into buf. */
static void help_of(struct sb_options *o, int source, char *buf, size_t len)
{
    FILE *f = tmpfile();
    sb_options_print_help(o, source, f);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

static void test_sizes(void)
{
    static const struct { const char *in; long long want; } good[] = {
        {"0", 0}, {"512", 512}, {"512b", 512}, {"10K", 10240}, {"10k", 10240},
        {"1M", 1048576}, {"2G", 2147483648LL}, {"1T", 1099511627776LL}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        long long v = -1;
        char what[64];
        snprintf(what, sizeof what, "size '%s' is %lld bytes", good[i].in, good[i].want);
        check(sb_parse_size(good[i].in, &v) == 0 && v == good[i].want, what, "got %lld", v);
    }
    static const char *const bad[] = {"", "K", "-1", "1.5K", "10KB", "10X", " 1", "99999999999T"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long v;
        char what[64];
        snprintf(what, sizeof what, "'%s' is no size", bad[i]);
        check(sb_parse_size(bad[i], &v) != 0, what, "accepted as %lld", v);
    }
    char err[512];
    struct sb_options *o = sb_options_create();
    sb_options_add(o, "buf", SB_OPT_SIZE, SB_SRC_WORKLOAD, NULL, "bytes", NULL, 0, 0);
    int rc = run(o, err, sizeof err, NULL, NULL, "--buf=64K", (char *)NULL);
    check(rc == 0 && strcmp(sb_opt_str(o, "buf"), "64K") == 0, "--buf=64K is accepted as given",
          "rc %d err %s", rc, err);
    sb_options_destroy(o);
    o = sb_options_create();
    sb_options_add(o, "buf", SB_OPT_SIZE, SB_SRC_WORKLOAD, NULL, "bytes", NULL, 0, 0);
    rc = run(o, err, sizeof err, NULL, NULL, "--buf=64Q", (char *)NULL);
    check(rc != 0 && strstr(err, "invalid value '64Q' for --buf: expected a size"),
          "--buf=64Q is refused", "rc %d err %s", rc, err);
    sb_options_destroy(o);
}

static void test_take_unknown(void)
{
    char err[512];
    struct sb_options *o = mk();
    char *argv[] = {"sbench", "--threads=2", "--tables=3", "--foo_bar=x", "--flag", "w", NULL};
    const char **w;
    int nw;
    int rc = sb_options_parse_argv(o, 6, argv, &w, &nw, err, sizeof err);
    rc |= sb_options_resolve(o, 0, err, sizeof err);
    const struct sb_arg *g = sb_options_arg_at(o, 3);
    check(rc == 0 && g && strcmp(g->name, "flag") == 0 && g->bare && !sb_options_arg_at(o, 4),
          "the arguments in order, a bare one marked", "rc %d", rc);
    int n = sb_options_take_unknown(o, SB_SRC_UNDECLARED);
    check(n == 3, "three unknown arguments taken", "took %d", n);
    rc = sb_options_resolve(o, 1, err, sizeof err);
    check(rc == 0, "nothing is unknown after that", "err %s", err);
    check(strcmp(sb_opt_str(o, "tables"), "3") == 0 && strcmp(sb_opt_str(o, "foo-bar"), "x") == 0 &&
              strcmp(sb_opt_str(o, "flag"), "") == 0 && sb_opt_int(o, "threads") == 2,
          "their values as strings, '' for the bare --flag, --threads untouched", "");
    const struct sb_opt *p = sb_opt_find(o, "foo_bar");
    check(p && p->source == SB_SRC_UNDECLARED && p->kind == SB_OPT_STRING,
          "taken as undeclared strings", "");
    check(sb_options_take_unknown(o, SB_SRC_UNDECLARED) == 0, "a second call takes nothing", "");
    check(sb_opt_set_default(o, "rate", "7") == 0 && sb_opt_num(o, "rate") == 7 &&
              sb_opt_set_default(o, "nosuch", "1") == -1,
          "a default replaced; an unknown name refused", "");
    sb_options_destroy(o);
}

/* sysbench's deprecated aliases and --config-file (lib/options_file.c) */
static void test_aliases_and_config_file(void)
{
    char err[512];
    struct sb_options *o = mk();
    char *argv[] = {"sbench", "--num-threads=3", "--tx_rate=5", "w", NULL};
    const char **w;
    int nw;
    int rc = sb_options_parse_argv(o, 4, argv, &w, &nw, err, sizeof err);
    rc |= sb_options_resolve(o, 1, err, sizeof err);
    check(rc == 0 && sb_opt_int(o, "threads") == 3 && sb_opt_num(o, "rate") == 5,
          "--num-threads and --tx_rate are --threads and --rate", "rc %d err %s", rc, err);
    sb_options_destroy(o);

    char path[] = "/tmp/sbench-options-test.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    check(f != NULL, "a temporary file", "");
    if (f == NULL)
        return;
    fputs("# a comment\n\n  threads=4  \n--rate=2\nflagged\nurl=a=b\n", f);
    fclose(f);
    char arg[64];
    snprintf(arg, sizeof arg, "--config-file=%s", path);
    char *argv2[] = {"sbench", arg, "--rate=9", NULL};
    int ac;
    char **av;
    rc = sb_options_config_file(3, argv2, &ac, &av, err, sizeof err);
    check(rc == 0 && ac == 7 && strcmp(av[1], "--threads=4") == 0 && strcmp(av[2], "--rate=2") == 0 &&
              strcmp(av[3], "--flagged") == 0 && strcmp(av[4], "--url=a=b") == 0 &&
              av[5] == argv2[1] && av[6] == argv2[2],
          "config lines as arguments, before the command line's", "rc %d ac %d err %s", rc, ac, err);
    f = fopen(path, "w");
    fputs("threads=2\nnot an option\n", f);
    fclose(f);
    rc = sb_options_config_file(3, argv2, &ac, &av, err, sizeof err);
    check(rc == -1 && strstr(err, "line 2: expected option=value") != NULL,
          "a line that is no option: an error naming the line", "rc %d err %s", rc, err);
    unlink(path);
    rc = sb_options_config_file(3, argv2, &ac, &av, err, sizeof err);
    check(rc == -1 && strstr(err, "cannot read --config-file") != NULL, "a missing file: an error",
          "rc %d err %s", rc, err);
    char *argv3[] = {"sbench", "--threads=2", NULL};
    rc = sb_options_config_file(2, argv3, &ac, &av, err, sizeof err);
    check(rc == 0 && ac == 2 && av == argv3, "without --config-file: argv as it is", "");
}

static void test_help_layout(void)
{
    char buf[2048];
    struct sb_options *o = sb_options_create();
    sb_options_add(o, "n", SB_OPT_INT, SB_SRC_WORKLOAD, "5", "count", NULL, 0, 10);
    sb_options_add(o, "flag", SB_OPT_BOOL, SB_SRC_WORKLOAD, "on", "a flag", NULL, 0, 0);
    sb_options_add(o, "names", SB_OPT_LIST, SB_SRC_WORKLOAD, "a,b", "a list", NULL, 0, 0);
    sb_options_add(o, "buf", SB_OPT_SIZE, SB_SRC_WORKLOAD, NULL, "bytes", NULL, 0, 0);
    sb_options_add(o, "log", SB_OPT_FILE, SB_SRC_WORKLOAD, NULL, "a file", NULL, 0, 0);
    sb_options_add(o, "s", SB_OPT_STRING, SB_SRC_WORKLOAD, "", "empty default", NULL, 0, 0);
    sb_options_add(o, "core-thing", SB_OPT_INT, SB_SRC_CORE, "1", "not this source", NULL, 0, 1);
    help_of(o, SB_SRC_WORKLOAD, buf, sizeof buf);
    /* the column is as wide as the longest left part: --names=[LIST,...] */
    char aligned[1024];
    snprintf(aligned, sizeof aligned, "  %-18s count [5]\n  %-18s a flag [on]\n  %-18s a list [a,b]\n"
             "  %-18s bytes\n  %-18s a file\n  %-18s empty default []\n", "--n=N", "--flag[=on|off]",
             "--names=[LIST,...]", "--buf=SIZE", "--log=FILENAME", "--s=STRING");
    check(strcmp(buf, aligned) == 0, "help: sysbench's forms, aligned after the longest name",
          "got\n%s", buf);
    sb_options_destroy(o);
}

/* passwords inside connection strings, URIs and command lines (the
 * --odbc-connstr PWD= of a report's options was shown whole before) */
static void test_secret_mask(void)
{
    static const char *const cases[][2] = {
        {"host=a password=" SECRET " user=b", "host=a password=*** user=b"},
        {"host=a password = '" SECRET " x\\' y' port=5", "host=a password =*** port=5"},
        {"DRIVER=x;PWD=" SECRET ";UID=u", "DRIVER=x;PWD=***;UID=u"},
        {"DRIVER=x;pwd={" SECRET ";}}b};UID=u", "DRIVER=x;pwd=***;UID=u"},
        {"postgresql://u:" SECRET "@h:5/db?sslmode=require&password=" SECRET "&a=b",
         "postgresql://u:***@h:5/db?sslmode=require&password=***&a=b"},
        {"mysql://u@h/db", "mysql://u@h/db"},
        {"--pgsql-password=" SECRET " with spaces", "--pgsql-password=***"},
        {"--target='n:--pgsql-password=" SECRET " --x=1'", "--target='n:--pgsql-password=*** --x=1'"},
        {"sslpassword=" SECRET, "sslpassword=***"},
        {"--pgsql-conninfo=host=h password=\"" SECRET " q\" port=5", "--pgsql-conninfo=host=h password=*** port=5"},
        {"host=h dbname=passwords", "host=h dbname=passwords"},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(strcmp(sb_secret_mask(cases[i][0], buf, sizeof buf), cases[i][1]) == 0,
              "a password inside a value is masked", "case %zu: '%s'", i, buf);
    /* cut by the buffer: terminated, nothing of the secret */
    for (size_t cap = 1; cap < 40; cap++) {
        char small[48];
        memset(small, 'X', sizeof small);
        sb_secret_mask("a=b password=" SECRET, small, cap);
        check(memchr(small, 0, cap) != NULL && small[cap] == 'X' && strstr(small, "Secret") == NULL,
              "a masked value cut by its buffer", "cap %zu: '%.*s'", cap, (int)cap, small);
    }
    char shown[128];
    check(strcmp(sb_opt_shown(NULL, "odbc-connstr", "DSN=x;PWD=" SECRET, shown, sizeof shown),
                 "DSN=x;PWD=***") == 0 &&
              strcmp(sb_opt_shown(NULL, "x-password", "v", shown, sizeof shown), "***") == 0,
          "an option's shown value", "'%s'", shown);
}

int main(void)
{
    test_secret_mask();
    test_spellings();
    test_flags_and_words();
    test_integers();
    test_numbers();
    test_booleans();
    test_choices();
    test_unknown();
    test_first_wins();
    test_echo_and_secrets();
    test_lengths();
    test_sizes();
    test_take_unknown();
    test_aliases_and_config_file();
    test_help_layout();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
