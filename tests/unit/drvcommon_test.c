/*
 * Unit test of the drivers' common library (drivers/common): integer text
 * against snprintf and strtoll, comma lists, password files (every edge:
 * line ends, empty, missing, a directory, both options), and the error
 * setter (exact messages, one line, masking, cutting without splitting a
 * UTF-8 character), the list of open statements and a bulk load's INSERT
 * text.  No server, no driver.
 */
#include "../../drivers/common/buf.h"
#include "../../drivers/common/error.h"
#include "../../drivers/common/insert.h"
#include "../../drivers/common/link.h"
#include "../../drivers/common/list.h"
#include "../../drivers/common/password.h"
#include "../../lib/text.h"
#include "../../drivers/common/value.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures, checks;

#define EXPECT(cond, ...) do { \
        checks++; \
        if (!(cond)) { \
            fprintf(stderr, "FAIL line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            failures++; \
        } \
    } while (0)

/* ---- integer text ------------------------------------------------------- */

static void check_i64(int64_t v)
{
    char got[SBC_INT_TEXT_MAX + 8], want[32];
    memset(got, 'x', sizeof got);
    size_t n = sbc_i64_to_text(v, got);
    int wn = snprintf(want, sizeof want, "%" PRId64, v);
    EXPECT(n == (size_t)wn && memcmp(got, want, n + 1) == 0 && got[n + 1] == 'x',
           "i64 %s: got '%.*s' (%zu)", want, (int)n, got, n);
    int64_t back = 0;
    EXPECT(sbc_text_to_i64(want, (size_t)wn, &back) == 0 && back == v,
           "text_to_i64 %s gave %" PRId64, want, back);
}

static void check_u64(uint64_t v)
{
    char got[SBC_INT_TEXT_MAX + 8], want[32];
    size_t n = sbc_u64_to_text(v, got);
    int wn = snprintf(want, sizeof want, "%" PRIu64, v);
    EXPECT(n == (size_t)wn && strcmp(got, want) == 0, "u64 %s: got '%s'", want, got);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_text(void)
{
    static const int64_t fixed[] = {INT64_MIN, INT64_MIN + 1, -1000000000000000000LL, -100,
                                    -10, -9, -1, 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000,
                                    4294967295LL, 4294967296LL, 999999999999999999LL,
                                    1000000000000000000LL, INT64_MAX - 1, INT64_MAX};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_i64(fixed[i]);
    int64_t p = 1;
    for (int k = 0; k < 19; k++, p *= 10) {
        check_i64(p - 1);
        check_i64(p);
        check_i64(-p);
    }
    for (int k = 0; k < 200000; k++) {
        uint64_t r = next_rand();
        check_i64((int64_t)r);
        check_i64((int64_t)(r >> (r % 64))); /* every magnitude */
        check_u64(r);
    }
    check_u64(0);
    check_u64(UINT64_MAX);
    check_u64((uint64_t)INT64_MAX + 1);
    check_u64(10000000000000000000ull);

    /* sbc_text_to_i64 refuses what is not exactly an int64 */
    static const char *const bad[] = {"", "-", "+", "12a", " 1", "1 ", "1.5", "0x10",
                                      "9223372036854775808", "-9223372036854775809",
                                      "18446744073709551616", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t v = 42;
        EXPECT(sbc_text_to_i64(bad[i], strlen(bad[i]), &v) == -1 && v == 42,
               "text_to_i64 accepted '%s'", bad[i]);
    }
    int64_t v = 0;
    EXPECT(sbc_text_to_i64("+17", 3, &v) == 0 && v == 17, "+17 gave %" PRId64, v);
    EXPECT(sbc_text_to_i64("-0", 2, &v) == 0 && v == 0, "-0 gave %" PRId64, v);
    EXPECT(sbc_text_to_i64("12345", 3, &v) == 0 && v == 123, "length 3 of 12345 gave %" PRId64, v);
}

/* ---- buffers and values ------------------------------------------------ */

static void test_buf(void)
{
    size_t cap = 0;
    char *b = sbc_grow(NULL, &cap, 10, 1, 256);
    EXPECT(b != NULL && cap == 256, "first growth: cap %zu", cap);
    memset(b, 'a', 256);
    EXPECT(sbc_grow(b, &cap, 256, 1, 256) == b && cap == 256, "no growth when it fits");
    b = sbc_grow(b, &cap, 257, 1, 256);
    EXPECT(b != NULL && cap == 512 && b[255] == 'a', "doubles, keeps contents: %zu", cap);
    b = sbc_grow(b, &cap, 5000, 1, 256);
    EXPECT(b != NULL && cap == 8192 && b[0] == 'a', "doubles until it fits: %zu", cap);
    char *same = sbc_grow(b, &cap, SIZE_MAX, 1, 256);
    EXPECT(same == NULL && cap == 8192, "an impossible size fails, cap kept: %zu", cap);
    size_t n = 0;
    int64_t *arr = sbc_grow(NULL, &n, 3, sizeof *arr, 4);
    EXPECT(arr != NULL && n == 4, "elements: %zu", n);
    arr[3] = 7;
    same = sbc_grow(arr, &n, SIZE_MAX / 4, sizeof *arr, 4);
    EXPECT(same == NULL && n == 4 && arr[3] == 7, "element size overflow fails");
    free(arr);
    free(b);

    struct sbd_value v;
    memset(&v, 0x55, sizeof v);
    sbc_value_reset(&v, SBD_TYPE_INT, 0);
    EXPECT(v.type == SBD_TYPE_INT && !v.is_null && v.i == 0 && v.d == 0 && v.s == NULL &&
           v.len == 0, "value reset");
    sbc_value_reset(&v, SBD_TYPE_STRING, 1);
    EXPECT(v.type == SBD_TYPE_STRING && v.is_null, "NULL value");
}

/* ---- lists -------------------------------------------------------------- */

static void test_list(void)
{
    struct sbc_list l = {0};
    char err[200];
    EXPECT(sbc_list_pick(&l, 0) == NULL, "empty list picks NULL");
    EXPECT(sbc_list_parse(&l, "db1", "--pgsql-host", "host name", err, sizeof err) == 0 &&
           l.n == 1 && strcmp(l.items[0], "db1") == 0, "one item");
    EXPECT(strcmp(sbc_list_pick(&l, 7), "db1") == 0, "one item picked for any thread");

    EXPECT(sbc_list_parse(&l, " a , b,c\t,  /run/pg dir ", "--pgsql-host", "host name",
                          err, sizeof err) == 0 && l.n == 4, "four items: %d", l.n);
    static const char *const want[] = {"a", "b", "c", "/run/pg dir"};
    for (int i = 0; i < 4 && i < l.n; i++)
        EXPECT(strcmp(l.items[i], want[i]) == 0, "item %d is '%s'", i, l.items[i]);
    static const char *const rr[] = {"a", "b", "c", "/run/pg dir", "a", "b", "c"};
    for (int t = 0; t < 7; t++)
        EXPECT(strcmp(sbc_list_pick(&l, t), rr[t]) == 0, "thread %d got '%s'", t,
               sbc_list_pick(&l, t));
    EXPECT(strcmp(sbc_list_pick(&l, -3), "a") == 0, "a negative thread id counts as 0");

    static const char *const bad[] = {"", " ", "a,,b", ",a", "a,", "a, ,b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char expect[200];
        snprintf(expect, sizeof expect, "--mysql-host: empty host name in '%s'", bad[i]);
        EXPECT(sbc_list_parse(&l, bad[i], "--mysql-host", "host name", err, sizeof err) == -1 &&
               strcmp(err, expect) == 0 && l.n == 0 && l.items == NULL,
               "'%s': %s", bad[i], err);
    }
    EXPECT(sbc_list_parse(&l, "3306,3307", "--mysql-port", "port", err, sizeof err) == 0 &&
           l.n == 2 && strcmp(l.items[1], "3307") == 0, "ports");
    sbc_list_free(&l);
    EXPECT(l.n == 0 && l.items == NULL && l.text == NULL, "freed list is empty");
    sbc_list_free(&l); /* twice is fine */
}

/* ---- passwords ---------------------------------------------------------- */

static char dir[64];

/* Writes `bytes` (len of them) to a file of the test directory; its path. */
static const char *file_with(const char *name, const char *bytes, size_t len)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    return path;
}

static void expect_pw_file(const char *name, const char *bytes, size_t len, const char *want)
{
    char err[300] = "";
    char *pw = (char *)1;
    const char *path = file_with(name, bytes, len);
    int rc = sbc_password_file(path, "--x-password-file", &pw, err, sizeof err);
    if (want != NULL) {
        EXPECT(rc == 0 && pw != NULL && strcmp(pw, want) == 0, "%s: rc %d, '%s' (%s)",
               name, rc, pw ? pw : "(null)", err);
    } else {
        char expect[300];
        snprintf(expect, sizeof expect,
                 "--x-password-file: %s has no password (its first line is empty)", path);
        EXPECT(rc == -1 && pw == NULL && strcmp(err, expect) == 0, "%s: rc %d, '%s'",
               name, rc, err);
    }
    sbc_password_free(pw);
}

/* A host whose options are a fixed table. */
static const char *opt_names[4], *opt_values[4];
static const char *fake_opt_str(const char *name)
{
    for (int i = 0; i < 4 && opt_names[i] != NULL; i++)
        if (strcmp(opt_names[i], name) == 0)
            return opt_values[i];
    return NULL;
}

static void set_opts(const char *pw, const char *file)
{
    memset(opt_names, 0, sizeof opt_names);
    int n = 0;
    if (pw != NULL) {
        opt_names[n] = "pgsql-password";
        opt_values[n++] = pw;
    }
    if (file != NULL) {
        opt_names[n] = "pgsql-password-file";
        opt_values[n++] = file;
    }
}

static void test_password(void)
{
    snprintf(dir, sizeof dir, "/tmp/drvcommon_test.XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    expect_pw_file("lf", "s3cret\n", 7, "s3cret");
    expect_pw_file("crlf", "s3cret\r\n", 8, "s3cret");
    expect_pw_file("no_end", "s3cret", 6, "s3cret");
    expect_pw_file("two_lines", "first line\nsecond\n", 18, "first line");
    expect_pw_file("blanks", " a b \n", 6, " a b ");
    expect_pw_file("cr_inside", "a\rb\n", 4, "a\rb");
    expect_pw_file("empty", "", 0, NULL);
    expect_pw_file("empty_line", "\n", 1, NULL);
    expect_pw_file("empty_crlf", "\r\nx\n", 4, NULL);
    char big[5001];
    memset(big, 'p', 5000);
    big[5000] = 0;
    expect_pw_file("long", big, 5000, big);

    char err[300], expect[300];
    char *pw = (char *)1;
    const char *missing = "/tmp/drvcommon_test.no/such/file";
    snprintf(expect, sizeof expect, "--x-password-file: cannot open %s: %s", missing,
             strerror(ENOENT));
    EXPECT(sbc_password_file(missing, "--x-password-file", &pw, err, sizeof err) == -1 &&
           pw == NULL && strcmp(err, expect) == 0, "missing: %s", err);
    /* a directory opens but cannot be read */
    snprintf(expect, sizeof expect, "--x-password-file: cannot read %s: %s", dir,
             strerror(EISDIR));
    EXPECT(sbc_password_file(dir, "--x-password-file", &pw, err, sizeof err) == -1 &&
           pw == NULL && strcmp(err, expect) == 0, "directory: %s", err);

    struct sbd_host h = {.struct_size = sizeof h, .opt_str = fake_opt_str};
    const char *file = file_with("get", "fromfile\n", 9);
    char path[128];
    snprintf(path, sizeof path, "%s", file);
    set_opts(NULL, NULL);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == 0 && pw == NULL,
           "neither option");
    set_opts("given", NULL);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == 0 && pw != NULL &&
           strcmp(pw, "given") == 0, "password option");
    sbc_password_free(pw);
    set_opts("", NULL);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == 0 && pw != NULL &&
           strcmp(pw, "") == 0, "an empty password is a password");
    sbc_password_free(pw);
    set_opts(NULL, path);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == 0 && pw != NULL &&
           strcmp(pw, "fromfile") == 0, "password file option");
    sbc_password_free(pw);
    set_opts(NULL, "");
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == 0 && pw == NULL,
           "an empty file option is not given");
    set_opts("given", path);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == -1 && pw == NULL &&
           strcmp(err, "give only one of --pgsql-password and --pgsql-password-file") == 0 &&
           strstr(err, "given") == NULL, "both: %s", err);
    set_opts(NULL, missing);
    EXPECT(sbc_password_get(&h, "pgsql", &pw, err, sizeof err) == -1 &&
           strncmp(err, "--pgsql-password-file: cannot open ", 35) == 0, "missing: %s", err);

    static const char *const names[] = {"lf", "crlf", "no_end", "two_lines", "blanks",
                                        "cr_inside", "empty", "empty_line", "empty_crlf",
                                        "long", "get"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- errors ------------------------------------------------------------- */

static void test_error(void)
{
    struct sbd_error e;
    memset(&e, 'z', sizeof e);
    EXPECT(sbc_error(&e, SBD_RETRY, 1213, "40001", NULL, "Deadlock found (%s %d)", "try",
                     2) == SBD_RETRY, "returns the status");
    EXPECT(e.status == SBD_RETRY && e.native_code == 1213 && strcmp(e.sqlstate, "40001") == 0 &&
           strcmp(e.message, "Deadlock found (try 2)") == 0, "fields: %d %ld '%s' '%s'",
           e.status, e.native_code, e.sqlstate, e.message);
    sbc_error(&e, SBD_ERROR, 0, "4000", NULL, "x");
    EXPECT(e.sqlstate[0] == 0 && e.native_code == 0, "a short SQLSTATE is dropped");
    sbc_error(&e, SBD_ERROR, 0, "400011", NULL, "x");
    EXPECT(e.sqlstate[0] == 0, "a long SQLSTATE is dropped");
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "x");
    EXPECT(e.sqlstate[0] == 0, "no SQLSTATE");

    /* one line (what mysql_errors_test checked of the mysql driver's copy) */
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", "line one\nline two\r\n");
    EXPECT(strcmp(e.message, "line one line two") == 0, "newlines: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", "  ERROR:\tbad\n\n  DETAIL:  x  \t");
    EXPECT(strcmp(e.message, "ERROR: bad DETAIL: x") == 0, "blank runs: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", "");
    EXPECT(strcmp(e.message, "") == 0, "empty message");

    /* masking, before the message is made one line or cut */
    sbc_error(&e, SBD_ERROR, 0, NULL, "hunter2", "pw is %s, yes %s", "hunter2", "hunter2");
    EXPECT(strcmp(e.message, "pw is ***, yes ***") == 0, "masked: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, "", "abc");
    EXPECT(strcmp(e.message, "abc") == 0, "empty secret: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, "a  b\nc", "pw 'a  b\nc' end");
    EXPECT(strcmp(e.message, "pw '***' end") == 0, "secret with blanks: '%s'", e.message);
    char longmsg[1200];
    memset(longmsg, 'm', 600);
    longmsg[599] = ' ';
    memcpy(longmsg + 600, "topsecret", 10);
    sbc_error(&e, SBD_ERROR, 0, NULL, "topsecret", "%s", longmsg);
    EXPECT(strstr(e.message, "tops") == NULL && strlen(e.message) == 511,
           "a password past the cut leaves nothing: %zu", strlen(e.message));
    memset(longmsg, 'm', 508);
    longmsg[507] = ' ';
    memcpy(longmsg + 508, "topsecret", 10);
    sbc_error(&e, SBD_ERROR, 0, NULL, "topsecret", "%s", longmsg);
    EXPECT(strstr(e.message, "top") == NULL && strlen(e.message) == 511 &&
           strcmp(e.message + 508, "***") == 0, "a password at the cut: '%s'", e.message + 500);
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "PGPASSWORD is envpw here");
    sbc_error_mask(&e, "envpw");
    EXPECT(strcmp(e.message, "PGPASSWORD is *** here") == 0, "second mask: '%s'", e.message);

    /* only whole words: a password that is also a table or DSN prefix
     * leaves the names it begins alone */
    sbc_error(&e, SBD_ERROR, 0, NULL, "sbtest", "relation \"sbtest1\" does not exist");
    EXPECT(strcmp(e.message, "relation \"sbtest1\" does not exist") == 0,
           "a password inside a longer name: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, "sbtest", "DSN sbtest_pg: login of 'sbtest' failed");
    EXPECT(strcmp(e.message, "DSN sbtest_pg: login of '***' failed") == 0,
           "DSN kept, the word masked: '%s'", e.message);
    sbc_error(&e, SBD_ERROR, 0, NULL, "p@ss!", "PWD=p@ss!;x");
    EXPECT(strcmp(e.message, "PWD=***;x") == 0, "punctuation at the edges: '%s'", e.message);
    const char *names[] = {"sbtest", "sbtestdb", NULL};
    EXPECT(strcmp(sbc_secret("sbtest", names), "") == 0, "a password that is the user is not masked");
    EXPECT(strcmp(sbc_secret("hunter2", names), "hunter2") == 0, "sbc_secret");
    EXPECT(strcmp(sbc_secret(NULL, names), "") == 0, "sbc_secret(NULL)");

    char buf[16] = "ab-ab-ab";
    sbc_mask(buf, sizeof buf, "ab");
    EXPECT(strcmp(buf, "***-***-***") == 0, "sbc_mask: '%s'", buf);
    snprintf(buf, sizeof buf, "x-ab-ab-ab-ab");
    sbc_mask(buf, sizeof buf, "ab");
    EXPECT(strcmp(buf, "x-***-***-***-*") == 0, "sbc_mask cuts at its room: '%s'", buf);
    sbc_mask(buf, sizeof buf, NULL);
    EXPECT(strcmp(buf, "x-***-***-***-*") == 0, "sbc_mask without a secret: '%s'", buf);

    /* cut to 511 bytes, never inside a UTF-8 character */
    memset(longmsg, 'x', 1000);
    longmsg[1000] = 0;
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", longmsg);
    EXPECT(strlen(e.message) == 511, "cut: %zu", strlen(e.message));
    for (int pad = 505; pad <= 511; pad++) {
        /* "é" (2 bytes) and "€" (3 bytes) and "😀" (4 bytes) across the cut */
        static const char *const ch[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
        for (int c = 0; c < 3; c++) {
            size_t cl = strlen(ch[c]);
            memset(longmsg, 'x', (size_t)pad);
            size_t o = (size_t)pad;
            for (int k = 0; k < 4; k++, o += cl)
                memcpy(longmsg + o, ch[c], cl);
            longmsg[o] = 0;
            sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", longmsg);
            size_t n = strlen(e.message);
            size_t whole = (size_t)pad + ((511 - (size_t)pad) / cl) * cl;
            EXPECT(n == whole && memcmp(e.message, longmsg, n) == 0,
                   "pad %d, %zu-byte character: %zu bytes, want %zu", pad, cl, n, whole);
        }
    }
    /* a cut at a blank leaves no trailing space */
    memset(longmsg, 'x', 510);
    memcpy(longmsg + 510, " yy", 4);
    sbc_error(&e, SBD_ERROR, 0, NULL, NULL, "%s", longmsg);
    EXPECT(strlen(e.message) == 510, "no trailing blank at the cut: %zu", strlen(e.message));
}

/* ---- open statements and a bulk load's INSERT ----------------------- */

struct item {
    struct sbc_link link;
    int id;
};

/* The ids from the head on, as text ("3 1"), and checks the back links. */
static const char *ids(struct sbc_link *head)
{
    static char buf[64];
    size_t o = 0;
    buf[0] = 0;
    for (struct sbc_link *l = head, *prev = NULL; l != NULL; prev = l, l = l->next) {
        EXPECT(l->prev == prev, "item %d: back link", ((struct item *)l)->id);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", o ? " " : "",
                              ((struct item *)l)->id);
    }
    return buf;
}

static void test_link(void)
{
    struct item it[4] = {{.id = 0}, {.id = 1}, {.id = 2}, {.id = 3}};
    struct sbc_link *head = NULL;
    EXPECT(sbc_link_pop(&head) == NULL, "pop of an empty list");
    for (int i = 0; i < 4; i++)
        sbc_link_add(&head, &it[i].link);
    EXPECT(strcmp(ids(head), "3 2 1 0") == 0, "added: %s", ids(head));
    sbc_link_remove(&head, &it[2].link);  /* middle */
    EXPECT(strcmp(ids(head), "3 1 0") == 0, "middle removed: %s", ids(head));
    sbc_link_remove(&head, &it[3].link);  /* head */
    EXPECT(strcmp(ids(head), "1 0") == 0, "head removed: %s", ids(head));
    sbc_link_remove(&head, &it[0].link);  /* tail */
    EXPECT(strcmp(ids(head), "1") == 0, "tail removed: %s", ids(head));
    sbc_link_add(&head, &it[2].link);
    EXPECT(sbc_link_pop(&head) == &it[2].link && sbc_link_pop(&head) == &it[1].link &&
           sbc_link_pop(&head) == NULL && head == NULL, "popped in order to empty");
}

static void test_insert(void)
{
    static const char *const cols[] = {"id", "k", "c", "pad"};
    char *sql = sbc_insert_sql("sbtest1", cols, 4);
    EXPECT(sql != NULL && strcmp(sql, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)") == 0,
           "four columns: %s", sql ? sql : "NULL");
    free(sql);
    sql = sbc_insert_sql("t", cols + 1, 1);
    EXPECT(sql != NULL && strcmp(sql, "INSERT INTO t (k) VALUES (?)") == 0,
           "one column: %s", sql ? sql : "NULL");
    free(sql);
    /* long names: the size is computed, not guessed */
    char name[300];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    const char *const many[] = {name, name, name};
    sql = sbc_insert_sql(name, many, 3);
    EXPECT(sql != NULL && strlen(sql) == 26 - 1 + 4 * 299 + 2 * 2 + 1 + 2 * 3,
           "long names: %zu bytes", sql ? strlen(sql) : 0);
    free(sql);
}

int main(void)
{
    test_text();
    test_buf();
    test_list();
    test_password();
    test_error();
    test_link();
    test_insert();
    if (failures != 0) {
        fprintf(stderr, "drvcommon_test: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("drvcommon_test: %d checks passed\n", checks);
    return 0;
}
