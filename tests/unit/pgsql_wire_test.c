/*
 * Unit test of the pgsql driver's wire-protocol message layer (drivers/
 * pgsql/pgsql_wire_proto.c): the request bytes against a hand-built Bind /
 * Describe / Execute / Sync, and answers built by hand (BindComplete,
 * RowDescription, DataRow, CommandComplete, EmptyQueryResponse,
 * ErrorResponse, NoticeResponse, ParameterStatus, NotificationResponse,
 * COPY, ReadyForQuery) parsed whole, split in two at every byte and fed one
 * byte at a time, plus protocol violations.  No server needed.
 */
#include "pgsql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pgd_settings pgd_cfg; /* pgsql.c's: its c_locale, for pgd_convert_value */

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

/* ---- building messages by hand ---------------------------------------- */

struct buf {
    unsigned char b[1 << 17];
    size_t n, msg; /* msg: start of the message being built */
};

static void byte(struct buf *b, int c) { b->b[b->n++] = (unsigned char)c; }
static void i16(struct buf *b, unsigned v) { byte(b, (int)(v >> 8)); byte(b, (int)v); }
static void i32(struct buf *b, uint32_t v)
{
    byte(b, (int)(v >> 24)); byte(b, (int)(v >> 16)); byte(b, (int)(v >> 8)); byte(b, (int)v);
}
static void bytes(struct buf *b, const void *p, size_t n) { memcpy(b->b + b->n, p, n); b->n += n; }
static void cstr(struct buf *b, const char *s) { bytes(b, s, strlen(s) + 1); }
static void start(struct buf *b, int type) { b->msg = b->n; byte(b, type); i32(b, 0); }
static void end(struct buf *b)
{
    uint32_t len = (uint32_t)(b->n - b->msg - 1);
    unsigned char *p = b->b + b->msg + 1;
    p[0] = (unsigned char)(len >> 24); p[1] = (unsigned char)(len >> 16);
    p[2] = (unsigned char)(len >> 8); p[3] = (unsigned char)len;
}

static void bind_complete(struct buf *b) { start(b, '2'); end(b); }
static void ready(struct buf *b) { start(b, 'Z'); byte(b, 'I'); end(b); }
static void command_complete(struct buf *b, const char *tag) { start(b, 'C'); cstr(b, tag); end(b); }

/* RowDescription of n columns named c0.. with the given type OIDs. */
static void row_description(struct buf *b, int n, const uint32_t *oids)
{
    start(b, 'T');
    i16(b, (unsigned)n);
    for (int i = 0; i < n; i++) {
        char name[8];
        snprintf(name, sizeof name, "c%d", i);
        cstr(b, name);
        i32(b, 16384); i16(b, (unsigned)i + 1); i32(b, oids[i]);
        i16(b, 0xffff); i32(b, 0xffffffffu); i16(b, 0);
    }
    end(b);
}

/* DataRow; a NULL pointer is SQL NULL. */
static void data_row(struct buf *b, int n, const char *const *vals)
{
    start(b, 'D');
    i16(b, (unsigned)n);
    for (int i = 0; i < n; i++) {
        if (vals[i] == NULL) {
            i32(b, 0xffffffffu);
        } else {
            i32(b, (uint32_t)strlen(vals[i]));
            bytes(b, vals[i], strlen(vals[i]));
        }
    }
    end(b);
}

/* ErrorResponse or NoticeResponse (type). */
static void error_like(struct buf *b, int type, const char *sev, const char *state,
                       const char *msg)
{
    start(b, type);
    byte(b, 'S'); cstr(b, sev);
    byte(b, 'V'); cstr(b, sev);
    byte(b, 'C'); cstr(b, state);
    byte(b, 'M'); cstr(b, msg);
    byte(b, 'D'); cstr(b, "some detail");
    byte(b, 'F'); cstr(b, "postgres.c");
    byte(b, 0);
    end(b);
}

/* ---- feeding ----------------------------------------------------------- */

static int notices;
static char last_notice[200];

static void on_notice(void *arg, const char *sev, const char *msg)
{
    (void)arg;
    notices++;
    snprintf(last_notice, sizeof last_notice, "%s: %s", sev, msg);
}

/* Parses b->b[0..n) into w after pgd_wire_begin, delivered in pieces: the
 * whole answer when step == 0, else `step` bytes at a time, else (step < 0)
 * split in two after -step bytes.  Before the last piece every parse must
 * ask for more (or COPY_IN, answered as the driver would) with a `need`
 * past the bytes it has.  Returns the last parse's result. */
static int feed(struct pgd_wire *w, const struct buf *b, long step)
{
    pgd_wire_begin(w);
    size_t total = b->n, at = 0;
    int r = PGD_WIRE_MORE;
    while (at < total) {
        size_t next = step == 0 ? total
                    : step > 0 ? (at + (size_t)step < total ? at + (size_t)step : total)
                    : (at == 0 ? (size_t)-step : total);
        if (pgd_wire_reserve(w, next) != 0)
            abort();
        memcpy(w->in + at, b->b + at, next - at);
        w->in_len = at = next;
        r = pgd_wire_parse(w);
        while (r == PGD_WIRE_COPY_IN)
            r = pgd_wire_parse(w);
        if (at < total && r == PGD_WIRE_MORE && (w->need <= at || w->need > total)) {
            fprintf(stderr, "FAIL: need %zu with %zu of %zu bytes\n", w->need, at, total);
            failures++;
        }
        if (r == PGD_WIRE_BAD || r == PGD_WIRE_DONE)
            break;
    }
    return r;
}

/* Every way of delivering b: whole, split in two anywhere, bytewise. */
#define FOR_EACH_SPLIT(b, w, r, body) do { \
        for (long mode_ = -1; mode_ <= (long)(b)->n; mode_++) { \
            long step_ = mode_ == -1 ? 0 : mode_ == 0 ? 1 : -mode_; \
            if (step_ < 0 && (size_t)-step_ >= (b)->n) continue; \
            int r = feed((w), (b), step_); \
            body \
        } \
    } while (0)

/* ---- the checks -------------------------------------------------------- */

/* One column of type oid in the given format (0 text, 1 binary). */
static void row_description_format(struct buf *b, uint32_t oid, unsigned format)
{
    start(b, 'T');
    i16(b, 1);
    cstr(b, "b");
    i32(b, 16384); i16(b, 1); i32(b, oid);
    i16(b, 0xffff); i32(b, 0xffffffffu); i16(b, format);
    end(b);
}

/* bytea in binary format: the Bind asks for it (result format 1), the
 * answer's raw bytes are kept as they are (PGD_KIND_RAW: never taken for
 * hex text, even when they look like it), and a binary column of any
 * other type is refused */
static void check_binary_bytea(void)
{
    struct pgd_wire w = {0};
    w.result_binary = 1;
    EXPECT(pgd_wire_build(&w, "s", NULL, 0) == 0, "build, binary results");
    struct buf want = {.n = 0};
    start(&want, 'B'); cstr(&want, ""); cstr(&want, "s"); i16(&want, 0); i16(&want, 0);
    i16(&want, 1); i16(&want, 1); end(&want);
    EXPECT(w.out_len == want.n + 22 && memcmp(w.out, want.b, want.n) == 0, "Bind asks for binary results");

    struct buf b = {.n = 0};
    bind_complete(&b);
    row_description_format(&b, 17, 1);
    data_row(&b, 1, (const char *const[]){"\\x41"}); /* 4 raw bytes: \ x 4 1 */
    command_complete(&b, "SELECT 1");
    ready(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.nrows == 1 && (w.kinds[0] & PGD_KIND_RAW), "binary bytea");
        if (r == PGD_WIRE_DONE) {
            struct sbd_value v;
            pgd_wire_row(&w, 0, &v);
            EXPECT(v.type == SBD_TYPE_BYTES && v.len == 4 && memcmp(v.s, "\\x41", 4) == 0,
                   "binary bytea: the raw bytes");
        }
    });
    b.n = 0;
    bind_complete(&b);
    row_description_format(&b, 23, 1);
    data_row(&b, 1, (const char *const[]){"\1\2\3\4"});
    command_complete(&b, "SELECT 1");
    ready(&b);
    EXPECT(feed(&w, &b, 0) == PGD_WIRE_BAD, "a binary int4 column is refused");
    pgd_wire_free(&w);
}

static void check_request(void)
{
    struct pgd_wire w = {0};
    struct sbd_value p[5] = {
        {.type = SBD_TYPE_INT, .i = -42},
        {.type = SBD_TYPE_INT, .is_null = 1},
        {.type = SBD_TYPE_STRING, .s = "ab\0cd", .len = 5},
        {.type = SBD_TYPE_DOUBLE, .d = 1.5},
        {.type = SBD_TYPE_STRING, .s = NULL, .len = 0},
    };
    EXPECT(pgd_wire_build(&w, "sbs12", p, 5) == 0, "build");
    struct buf want = {.n = 0};
    start(&want, 'B');
    cstr(&want, "");
    cstr(&want, "sbs12");
    i16(&want, 0);           /* no format codes: all text */
    i16(&want, 5);
    i32(&want, 3); bytes(&want, "-42", 3);
    i32(&want, 0xffffffffu);
    i32(&want, 2); bytes(&want, "ab", 2); /* text ends at NUL, as strlen */
    i32(&want, 3); bytes(&want, "1.5", 3);
    i32(&want, 0);
    i16(&want, 1); i16(&want, 0); /* text results */
    end(&want);
    start(&want, 'D'); byte(&want, 'P'); cstr(&want, ""); end(&want);
    start(&want, 'E'); cstr(&want, ""); i32(&want, 0); end(&want);
    start(&want, 'S'); end(&want);
    EXPECT(w.out_len == want.n && memcmp(w.out, want.b, want.n) == 0,
           "request bytes differ (%zu vs %zu)", w.out_len, want.n);

    /* a BYTES parameter (ABI 1.3): one format code per parameter, binary
     * (1) for the bytes, which go whole, NUL and all */
    struct sbd_value pb[2] = {
        {.type = SBD_TYPE_INT, .i = 7},
        {.type = SBD_TYPE_BYTES, .s = "a\0\xff'", .len = 4},
    };
    EXPECT(pgd_wire_build(&w, "sb", pb, 2) == 0, "build with BYTES");
    struct buf wantb = {.n = 0};
    start(&wantb, 'B'); cstr(&wantb, ""); cstr(&wantb, "sb");
    i16(&wantb, 2); i16(&wantb, 0); i16(&wantb, 1); /* text, binary */
    i16(&wantb, 2);
    i32(&wantb, 1); bytes(&wantb, "7", 1);
    i32(&wantb, 4); bytes(&wantb, "a\0\xff'", 4);
    i16(&wantb, 1); i16(&wantb, 0);
    end(&wantb);
    EXPECT(w.out_len == wantb.n + 22 && memcmp(w.out, wantb.b, wantb.n) == 0,
           "request with BYTES differs (%zu vs %zu)", w.out_len, wantb.n + 22);

    /* no parameters */
    EXPECT(pgd_wire_build(&w, "s", NULL, 0) == 0, "build without parameters");
    struct buf want0 = {.n = 0};
    start(&want0, 'B'); cstr(&want0, ""); cstr(&want0, "s"); i16(&want0, 0); i16(&want0, 0);
    i16(&want0, 1); i16(&want0, 0); end(&want0);
    EXPECT(w.out_len == want0.n + 22 && memcmp(w.out, want0.b, want0.n) == 0,
           "request without parameters");

    EXPECT(pgd_wire_build_copy_fail(&w, "no", 1) == 0, "copy fail");
    struct buf cf = {.n = 0};
    start(&cf, 'f'); cstr(&cf, "no"); end(&cf);
    start(&cf, 'S'); end(&cf);
    EXPECT(w.out_len == cf.n && memcmp(w.out, cf.b, cf.n) == 0, "CopyFail + Sync bytes");
    EXPECT(pgd_wire_build_copy_fail(&w, "no", 0) == 0, "copy fail without Sync");
    EXPECT(w.out_len == cf.n - 5 && memcmp(w.out, cf.b, cf.n - 5) == 0, "CopyFail bytes");

    /* simple Query, as PQexec sends it: the text up to its first NUL */
    EXPECT(pgd_wire_build_query(&w, "COMMIT", 6) == 0, "build query");
    struct buf q = {.n = 0};
    start(&q, 'Q'); cstr(&q, "COMMIT"); end(&q);
    EXPECT(w.out_len == q.n && memcmp(w.out, q.b, q.n) == 0, "Query bytes");
    EXPECT(pgd_wire_build_query(&w, "COMMIT\0junk", 11) == 0, "build query with a NUL");
    EXPECT(w.out_len == q.n && memcmp(w.out, q.b, q.n) == 0, "Query bytes stop at the NUL");
    EXPECT(pgd_wire_query_ok("COMMIT", 6), "COMMIT takes the fast path");
    EXPECT(pgd_wire_query_ok(" begin ;\n", 9), "trailing ';'");
    EXPECT(pgd_wire_query_ok("SELECT settings FROM t", 22), "SET only as the first word");
    EXPECT(pgd_wire_query_ok("BEGIN; SELECT 1", 15), "two statements");
    EXPECT(!pgd_wire_query_ok("  Set search_path = x", 21), "SET stays on libpq");
    EXPECT(!pgd_wire_query_ok("RESET ALL", 9), "RESET stays on libpq");
    EXPECT(pgd_wire_build_query(&w, "", 0) == 0, "build empty query");
    EXPECT(w.out_len == 6 && w.out[0] == 'Q' && w.out[4] == 5 && w.out[5] == 0, "empty Query bytes");
    pgd_wire_free(&w);
}

static void check_select(void)
{
    struct pgd_wire w = {0};
    w.notice = on_notice;
    struct buf b = {.n = 0};
    const uint32_t oids[5] = {23, 25, 1700, 20, 1043};
    const char *r0[5] = {"7", "hello", "2.5", "-9000000000", ""};
    const char *r1[5] = {NULL, "", "-1e3", "0", NULL};
    bind_complete(&b);
    row_description(&b, 5, oids);
    error_like(&b, 'N', "WARNING", "01000", "careful");
    data_row(&b, 5, r0);
    start(&b, 'S'); cstr(&b, "application_name"); cstr(&b, "x"); end(&b);
    data_row(&b, 5, r1);
    command_complete(&b, "SELECT 2");
    ready(&b);
    notices = 0;
    int runs = 0;
    FOR_EACH_SPLIT(&b, &w, r, {
        runs++;
        EXPECT(r == PGD_WIRE_DONE, "select: step %ld: parse %d (%s)", step_, r, w.bad);
        if (r != PGD_WIRE_DONE)
            continue;
        EXPECT(w.has_desc && w.nfields == 5 && w.nrows == 2 && !w.has_error,
               "select: shape");
        EXPECT(w.tag && strcmp(w.in + w.tag, "SELECT 2") == 0, "select: tag");
        struct sbd_value v[5];
        pgd_wire_row(&w, 0, v);
        for (int i = 0; i < 5; i++)
            if (!v[i].is_null)
                pgd_convert_value(&v[i]);
        EXPECT(v[0].type == SBD_TYPE_INT && v[0].i == 7 && v[0].d == 7.0, "row 0 int");
        EXPECT(v[1].type == SBD_TYPE_STRING && v[1].len == 5 &&
               strcmp(v[1].s, "hello") == 0, "row 0 text, NUL-terminated");
        EXPECT(v[2].type == SBD_TYPE_DOUBLE && v[2].d == 2.5 && strcmp(v[2].s, "2.5") == 0,
               "row 0 numeric");
        EXPECT(v[3].type == SBD_TYPE_INT && v[3].i == -9000000000LL, "row 0 int8");
        EXPECT(v[4].type == SBD_TYPE_STRING && !v[4].is_null && v[4].len == 0 &&
               v[4].s[0] == 0, "row 0 empty string");
        /* row 0's terminators overwrote bytes before row 1: still intact */
        pgd_wire_row(&w, 1, v);
        for (int i = 0; i < 5; i++)
            if (!v[i].is_null)
                pgd_convert_value(&v[i]);
        EXPECT(v[0].is_null && v[0].s == NULL && v[0].type == SBD_TYPE_INT, "row 1 NULL int");
        EXPECT(!v[1].is_null && v[1].len == 0, "row 1 empty text");
        EXPECT(v[2].d == -1000.0, "row 1 numeric");
        EXPECT(v[3].i == 0 && !v[3].is_null, "row 1 zero");
        EXPECT(v[4].is_null, "row 1 NULL varchar");
    });
    EXPECT(notices == runs, "one notice per parse: %d of %d", notices, runs);
    EXPECT(strcmp(last_notice, "WARNING: careful") == 0, "notice text '%s'", last_notice);
    pgd_wire_free(&w);
}

static void check_command(const char *tag, int64_t rows)
{
    struct pgd_wire w = {0};
    struct buf b = {.n = 0};
    bind_complete(&b);
    start(&b, 'n'); end(&b);
    command_complete(&b, tag);
    ready(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && !w.has_desc && w.tag &&
               pgd_wire_tag_rows(w.in + w.tag) == rows, "command '%s' (step %ld)", tag, step_);
    });
    pgd_wire_free(&w);
}

static void check_error(void)
{
    struct pgd_wire w = {0};
    struct buf b = {.n = 0};
    bind_complete(&b);
    row_description(&b, 1, (const uint32_t[]){23});
    data_row(&b, 1, (const char *const[]){"1"});
    error_like(&b, 'E', "ERROR", "40P01", "deadlock detected");
    ready(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.has_error && w.err_state && w.err_msg,
               "error (step %ld)", step_);
        if (r == PGD_WIRE_DONE && w.has_error) {
            EXPECT(strcmp(w.in + w.err_state, "40P01") == 0, "sqlstate");
            EXPECT(strcmp(w.in + w.err_msg, "deadlock detected") == 0, "message");
            EXPECT(strcmp(w.in + w.err_sev, "ERROR") == 0, "severity");
        }
    });
    pgd_wire_free(&w);
}

static void check_misc(void)
{
    struct pgd_wire w = {0};
    /* empty statement */
    struct buf b = {.n = 0};
    bind_complete(&b);
    start(&b, 'n'); end(&b);
    start(&b, 'I'); end(&b);
    ready(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.empty && !w.tag && !w.has_desc, "empty query");
    });

    /* a notification after ReadyForQuery is read to its end */
    b.n = 0;
    bind_complete(&b);
    command_complete(&b, "UPDATE 1");
    ready(&b);
    long z_end = (long)b.n;
    start(&b, 'A'); i32(&b, 1234); cstr(&b, "chan"); cstr(&b, "payload"); end(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        /* delivered after ReadyForQuery in a later read, it is the next
         * answer's first message (and marks that one) */
        if (step_ == -z_end || step_ == 1)
            EXPECT(r == PGD_WIRE_DONE && !w.notified && w.pos == (size_t)z_end,
                   "answer ends at Z");
        else
            EXPECT(r == PGD_WIRE_DONE && w.notified && w.pos == b.n, "notification after Z");
    });
    /* ... as here: a notification before BindComplete */
    struct buf b2 = {.n = 0};
    start(&b2, 'A'); i32(&b2, 1234); cstr(&b2, "chan"); cstr(&b2, ""); end(&b2);
    bind_complete(&b2);
    command_complete(&b2, "UPDATE 1");
    ready(&b2);
    FOR_EACH_SPLIT(&b2, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.notified && w.tag, "notification first");
    });

    /* a FATAL error after ReadyForQuery (a terminated idle session): the
     * statement succeeded, the error is logged as a notice, and the
     * connection is marked as closing */
    b.n = 0;
    bind_complete(&b);
    command_complete(&b, "UPDATE 2");
    ready(&b);
    long z2 = (long)b.n;
    error_like(&b, 'E', "FATAL", "57P01", "terminating connection due to administrator command");
    w.notice = on_notice;
    FOR_EACH_SPLIT(&b, &w, r, {
        int at_z = step_ == -z2 || step_ == 1;
        EXPECT(r == PGD_WIRE_DONE && !w.has_error && w.closing == !at_z &&
               pgd_wire_tag_rows(w.in + w.tag) == 2, "FATAL after Z (step %ld)", step_);
    });
    EXPECT(strcmp(last_notice, "FATAL: terminating connection due to administrator command") == 0,
           "FATAL after Z logged: '%s'", last_notice);
    w.notice = NULL;

    /* COPY IN: the parser stops to let the caller send CopyFail */
    b.n = 0;
    bind_complete(&b);
    start(&b, 'G'); byte(&b, 0); i16(&b, 1); i16(&b, 0); end(&b);
    size_t copy_end = b.n;
    error_like(&b, 'E', "ERROR", "57014", "COPY from stdin failed");
    ready(&b);
    pgd_wire_begin(&w);
    pgd_wire_reserve(&w, b.n);
    memcpy(w.in, b.b, b.n);
    w.in_len = b.n;
    EXPECT(pgd_wire_parse(&w) == PGD_WIRE_COPY_IN && w.pos == copy_end, "copy in stops");
    EXPECT(pgd_wire_parse(&w) == PGD_WIRE_DONE && w.copy && w.has_error, "copy in ends");

    /* COPY OUT: data skipped */
    b.n = 0;
    bind_complete(&b);
    start(&b, 'H'); byte(&b, 0); i16(&b, 1); i16(&b, 0); end(&b);
    start(&b, 'd'); bytes(&b, "1\n", 2); end(&b);
    start(&b, 'c'); end(&b);
    command_complete(&b, "COPY 1");
    ready(&b);
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.copy && !w.has_error, "copy out");
    });

    /* a value larger than the first buffer */
    b.n = 0;
    static char big[100000];
    memset(big, 'x', sizeof big - 1);
    bind_complete(&b);
    row_description(&b, 1, (const uint32_t[]){25});
    data_row(&b, 1, (const char *const[]){big});
    command_complete(&b, "SELECT 1");
    ready(&b);
    for (long step = 0; step < 3; step++) {
        int r = feed(&w, &b, step == 0 ? 0 : step == 1 ? 4093 : -50000);
        struct sbd_value v;
        EXPECT(r == PGD_WIRE_DONE && w.nrows == 1, "big row");
        if (r == PGD_WIRE_DONE) {
            pgd_wire_row(&w, 0, &v);
            EXPECT(v.len == sizeof big - 1 && memcmp(v.s, big, v.len) == 0, "big value");
        }
    }
    pgd_wire_free(&w);
}

/* Each answer must be refused as a protocol violation. */
static void check_bad(void)
{
    struct pgd_wire w = {0};
    struct buf b;
    const char *what[] = {"unknown type", "short length", "DataRow first",
                          "field count", "message after Z", "truncated field",
                          "ParseComplete", "bad ErrorResponse"};
    for (int k = 0; k < 8; k++) {
        b.n = 0;
        bind_complete(&b);
        switch (k) {
        case 0: start(&b, 'x'); end(&b); break;
        case 1: byte(&b, 'C'); i32(&b, 3); break;
        case 2: data_row(&b, 1, (const char *const[]){"1"}); break;
        case 3:
            row_description(&b, 2, (const uint32_t[]){23, 23});
            data_row(&b, 1, (const char *const[]){"1"});
            break;
        case 4: ready(&b); command_complete(&b, "SELECT 0"); break;
        case 5:
            row_description(&b, 1, (const uint32_t[]){23});
            start(&b, 'D'); i16(&b, 1); i32(&b, 10); bytes(&b, "12", 2); end(&b);
            break;
        case 6: start(&b, '1'); end(&b); break;
        case 7: start(&b, 'E'); byte(&b, 'M'); bytes(&b, "no end", 6); end(&b); break;
        }
        ready(&b);
        FOR_EACH_SPLIT(&b, &w, r, {
            /* bytes after ReadyForQuery in a later read are not this
             * answer's: only whole delivery shows them */
            if (k == 4 && step_ != 0)
                continue;
            EXPECT(r == PGD_WIRE_BAD && strstr(w.bad, "protocol violation") != NULL,
                   "%s: parse %d at step %ld", what[k], r, step_);
        });
    }
    pgd_wire_free(&w);
}

static void check_tags(void)
{
    static const struct { const char *tag; int64_t rows; } t[] = {
        {"INSERT 0 5", 5}, {"INSERT 0 0", 0}, {"INSERT 0", 0}, {"UPDATE 3", 3},
        {"DELETE 12", 12}, {"SELECT 7", 7}, {"MERGE 4", 4}, {"FETCH 9", 9},
        {"MOVE 2", 2}, {"COPY 100000", 100000}, {"CREATE TABLE", 0},
        {"UPDATE 3x", 0}, {"UPDATE ", 0}, {"BEGIN", 0}, {"", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        EXPECT(pgd_wire_tag_rows(t[i].tag) == t[i].rows, "tag '%s'", t[i].tag);
}

/* A simple Query of several statements: the last statement's result is
 * the answer (PQexec's), with w.simple; without it a second result is a
 * protocol violation. */
static void check_simple_multi(void)
{
    struct pgd_wire w = {0};
    struct buf b = {.n = 0};
    row_description(&b, 1, (const uint32_t[]){23});
    data_row(&b, 1, (const char *const[]){"1"});
    command_complete(&b, "SELECT 1");
    command_complete(&b, "UPDATE 3");
    ready(&b);
    w.simple = 1;
    FOR_EACH_SPLIT(&b, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && !w.has_desc && w.nrows == 0 && w.tag &&
               pgd_wire_tag_rows(w.in + w.tag) == 3, "select; update: the update's result "
               "(step %ld, %s)", step_, w.bad);
    });
    struct buf b2 = {.n = 0};
    command_complete(&b2, "BEGIN");
    row_description(&b2, 2, (const uint32_t[]){23, 25});
    data_row(&b2, 2, (const char *const[]){"4", "x"});
    data_row(&b2, 2, (const char *const[]){"5", NULL});
    command_complete(&b2, "SELECT 2");
    ready(&b2);
    FOR_EACH_SPLIT(&b2, &w, r, {
        EXPECT(r == PGD_WIRE_DONE && w.has_desc && w.nfields == 2 && w.nrows == 2,
               "begin; select: the select's rows (step %ld, %s)", step_, w.bad);
        if (r == PGD_WIRE_DONE && w.nrows == 2) {
            struct sbd_value v[2];
            pgd_wire_row(&w, 1, v);
            pgd_convert_value(&v[0]);
            EXPECT(v[0].i == 5 && v[1].is_null, "begin; select: row 1");
        }
    });
    w.simple = 0;
    EXPECT(feed(&w, &b, 0) == PGD_WIRE_BAD, "two results without simple: bad");
    pgd_wire_free(&w);
}

/* Pipelined answers back to back, delivered in every split: each parse
 * ends at its ReadyForQuery, pgd_wire_next moves on to the next one. */
static void check_pipelined(void)
{
    struct pgd_wire w = {0};
    struct buf b = {.n = 0};
    bind_complete(&b);
    row_description(&b, 1, (const uint32_t[]){23});
    data_row(&b, 1, (const char *const[]){"42"});
    command_complete(&b, "SELECT 1");
    ready(&b);
    bind_complete(&b);
    error_like(&b, 'E', "ERROR", "23505", "duplicate key");
    ready(&b);
    command_complete(&b, "COMMIT"); /* a simple Query's answer */
    ready(&b);
    w.pipelined = 1;
    for (size_t step = 1; step <= b.n; step++) {
        pgd_wire_begin(&w);
        size_t at = 0;
        int answers = 0;
        while (answers < 3) {
            int r = pgd_wire_parse(&w);
            if (r == PGD_WIRE_MORE) {
                if (at >= b.n) {
                    EXPECT(0, "pipelined: answer %d incomplete at the end (step %zu)", answers, step);
                    break;
                }
                size_t next = at + step < b.n ? at + step : b.n;
                if (pgd_wire_reserve(&w, w.in_len + (next - at)) != 0)
                    abort();
                memcpy(w.in + w.in_len, b.b + at, next - at);
                w.in_len += next - at;
                at = next;
                continue;
            }
            EXPECT(r == PGD_WIRE_DONE, "pipelined: answer %d parse %d (%s)", answers, r, w.bad);
            if (r != PGD_WIRE_DONE)
                break;
            if (answers == 0) {
                struct sbd_value v[1];
                EXPECT(w.has_desc && w.nrows == 1 && !w.has_error, "pipelined: first is a row");
                pgd_wire_row(&w, 0, v);
                pgd_convert_value(&v[0]);
                EXPECT(v[0].i == 42, "pipelined: first row's value");
            } else if (answers == 1) {
                EXPECT(w.has_error && !w.has_desc && strcmp(w.in + w.err_state, "23505") == 0,
                       "pipelined: second is the error");
            } else {
                EXPECT(!w.has_error && w.tag && strcmp(w.in + w.tag, "COMMIT") == 0,
                       "pipelined: third is COMMIT");
            }
            answers++;
            pgd_wire_next(&w);
        }
        EXPECT(answers == 3 && w.in_len == 0 && at == b.n, "pipelined: 3 answers, every byte "
               "used (step %zu)", step);
    }
    pgd_wire_free(&w);
}

int main(void)
{
    pgd_cfg.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    check_request();
    check_select();
    check_command("INSERT 0 5", 5);
    check_command("UPDATE 10", 10);
    check_command("DELETE 0", 0);
    check_command("CREATE TABLE", 0);
    check_error();
    check_misc();
    check_bad();
    check_tags();
    check_simple_multi();
    check_pipelined();
    check_binary_bytea();
    if (failures) {
        fprintf(stderr, "pgsql_wire_test: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("pgsql_wire_test: %d checks passed\n", checks);
    return 0;
}
