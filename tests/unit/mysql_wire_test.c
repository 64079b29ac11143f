/*
 * Unit test of the mysql driver's wire-protocol message layer (drivers/
 * mysql/mysql_wire_proto.c): request bytes of COM_STMT_EXECUTE and
 * COM_QUERY against hand-built ones, and answers built by hand (OK, ERR,
 * progress reports, binary result sets with metadata, with cached metadata
 * and with DEPRECATE_EOF, NULLs, integers of every width and sign, DOUBLE,
 * DECIMAL, strings, a row over 16 MB in continuation packets, further
 * results after MORE_RESULTS, text result sets) parsed whole, split in two
 * at every byte and fed one byte at a time, plus protocol violations,
 * which must give MYD_WIRE_BAD with a message and never a crash; and values
 * whose wire type differs from the prepared one, converted as Connector/C
 * does.  No server.
 */
#include "mysql_wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A column as the tests describe it: type and flags. */
#define COL(t, f) {.type = (t), .flags = (f)}

/* ---- building packets by hand ------------------------------------------- */

struct buf {
    unsigned char *b;
    size_t n, cap;
    size_t pk;          /* start of the packet being built */
    unsigned char seq;  /* its sequence id */
};

static void need(struct buf *b, size_t k)
{
    if (b->n + k <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + k)
        cap *= 2;
    b->b = realloc(b->b, cap);
    if (b->b == NULL) {
        perror("realloc");
        exit(2);
    }
    b->cap = cap;
}

static void byte(struct buf *b, int c) { need(b, 1); b->b[b->n++] = (unsigned char)c; }
static void le(struct buf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        byte(b, (int)(v >> (8 * i)) & 0xff);
}
static void bytes(struct buf *b, const void *p, size_t n)
{
    need(b, n);
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void lenenc(struct buf *b, uint64_t v)
{
    if (v < 0xfb) { byte(b, (int)v); }
    else if (v <= 0xffff) { byte(b, 0xfc); le(b, v, 2); }
    else if (v <= 0xffffff) { byte(b, 0xfd); le(b, v, 3); }
    else { byte(b, 0xfe); le(b, v, 8); }
}
static void lstr(struct buf *b, const char *s) { lenenc(b, strlen(s)); bytes(b, s, strlen(s)); }

/* A packet: start() reserves the header, end() fills it in.  Payloads of
 * 0xffffff bytes or more are split into continuation packets by end(). */
static void start(struct buf *b) { b->pk = b->n; le(b, 0, 4); }
static void end(struct buf *b)
{
    size_t len = b->n - b->pk - 4;
    if (len < 0xffffff) {
        b->b[b->pk] = (unsigned char)len;
        b->b[b->pk + 1] = (unsigned char)(len >> 8);
        b->b[b->pk + 2] = (unsigned char)(len >> 16);
        b->b[b->pk + 3] = b->seq++;
        return;
    }
    /* rebuild: copy the payload out, then frame it */
    unsigned char *pl = malloc(len);
    memcpy(pl, b->b + b->pk + 4, len);
    b->n = b->pk;
    size_t at = 0;
    for (;;) {
        size_t k = len - at < 0xffffff ? len - at : 0xffffff;
        le(b, k, 3);
        byte(b, b->seq++);
        bytes(b, pl + at, k);
        at += k;
        if (k < 0xffffff)
            break;
    }
    free(pl);
}

static void ok_packet(struct buf *b, int header, uint64_t aff, uint64_t id,
                      unsigned status, unsigned warnings)
{
    start(b);
    byte(b, header);
    lenenc(b, aff);
    lenenc(b, id);
    le(b, status, 2);
    le(b, warnings, 2);
    end(b);
}

static void eof_packet(struct buf *b, unsigned status)
{
    start(b);
    byte(b, 0xfe);
    le(b, 0, 2);       /* warnings */
    le(b, status, 2);
    end(b);
}

static void err_packet(struct buf *b, unsigned code, const char *state, const char *msg)
{
    start(b);
    byte(b, 0xff);
    le(b, code, 2);
    if (state != NULL) {
        byte(b, '#');
        bytes(b, state, 5);
    }
    bytes(b, msg, strlen(msg));
    end(b);
}

static void coldef(struct buf *b, const char *name, int type, unsigned flags, int ext)
{
    start(b);
    lstr(b, "def"); lstr(b, "sbtest"); lstr(b, "t"); lstr(b, "t");
    lstr(b, name); lstr(b, name);
    if (ext)
        lstr(b, "");   /* MariaDB extended metadata, empty */
    byte(b, 0x0c);
    le(b, 63, 2);      /* charset */
    le(b, 11, 4);      /* column length */
    byte(b, type);
    le(b, flags, 2);
    byte(b, 0);        /* decimals */
    le(b, 0, 2);
    end(b);
}

/* The test's result set: five columns, two rows. */
static const struct myd_col cols5[5] = {
    COL(MYD_T_LONG, 0), COL(MYD_T_VAR_STRING, 0), COL(MYD_T_NEWDECIMAL, 0),
    COL(MYD_T_LONGLONG, MYD_WIRE_UNSIGNED_FLAG), COL(MYD_T_TINY, 0),
};
#define kinds5 cols5   /* bound as prepared */

static void binary_rows5(struct buf *b)
{
    /* row 1: -5, "abc", "1.50", 2^64-1, -1 */
    start(b);
    byte(b, 0);
    byte(b, 0);                            /* bitmap: (5 + 9) / 8 = 1 byte */
    le(b, (uint32_t)-5, 4);
    lstr(b, "abc");
    lstr(b, "1.50");
    le(b, UINT64_MAX, 8);
    byte(b, 0xff);
    end(b);
    /* row 2: NULL, "", NULL, 7, NULL: bits 2, 4, 6 */
    start(b);
    byte(b, 0);
    byte(b, (1 << 2) | (1 << 4) | (1 << 6));
    lstr(b, "");
    le(b, 7, 8);
    end(b);
}

static void check_rows5(struct myd_wire *w, const char *what)
{
    struct sbd_value row[5];
    EXPECT(w->kind == MYD_WIRE_RES_ROWS, "%s: kind %d", what, w->kind);
    EXPECT(w->ncols == 5 && w->nrows == 2, "%s: %d cols %d rows", what, w->ncols, w->nrows);
    if (w->ncols != 5 || w->nrows != 2)
        return;
    EXPECT(myd_wire_row(w, 0, kinds5, row) == 0, "%s: row 0", what);
    EXPECT(row[0].type == SBD_TYPE_INT && !row[0].is_null && row[0].i == -5,
           "%s: r0c0 %lld", what, (long long)row[0].i);
    EXPECT(row[1].type == SBD_TYPE_STRING && row[1].len == 3 && row[1].s != NULL &&
           strcmp(row[1].s, "abc") == 0, "%s: r0c1", what);
    EXPECT(row[2].type == SBD_TYPE_DOUBLE && row[2].d == 1.5, "%s: r0c2 %g", what, row[2].d);
    EXPECT(row[3].type == SBD_TYPE_DOUBLE && row[3].d == 18446744073709551615.0,
           "%s: r0c3 unsigned above INT64_MAX: type %d", what, row[3].type);
    EXPECT(row[4].type == SBD_TYPE_INT && row[4].i == -1, "%s: r0c4 %lld", what,
           (long long)row[4].i);
    EXPECT(myd_wire_row(w, 1, kinds5, row) == 0, "%s: row 1", what);
    EXPECT(row[0].is_null && row[0].type == SBD_TYPE_INT, "%s: r1c0 NULL", what);
    EXPECT(!row[1].is_null && row[1].len == 0 && row[1].s != NULL && row[1].s[0] == 0,
           "%s: r1c1 empty string", what);
    EXPECT(row[2].is_null, "%s: r1c2 NULL", what);
    EXPECT(!row[3].is_null && row[3].type == SBD_TYPE_INT && row[3].i == 7, "%s: r1c3", what);
    EXPECT(row[4].is_null, "%s: r1c4 NULL", what);
}

/* ---- feeding answers ------------------------------------------------------- */

typedef void (*checker)(struct myd_wire *w, const char *what);

struct setup {
    int binary, deprecate_eof;
    const struct myd_col *known;
    int nknown;
};

static void begin(struct myd_wire *w, const struct setup *s)
{
    w->deprecate_eof = s->deprecate_eof;
    w->next_seq = 1;
    myd_wire_begin(w, s->binary, s->known, s->nknown);
}

static void append(struct myd_wire *w, const unsigned char *p, size_t n)
{
    if (myd_wire_reserve(w, w->in_len + n) != 0) {
        perror("myd_wire_reserve");
        exit(2);
    }
    memcpy(w->in + w->in_len, p, n);
    w->in_len += n;
}

/* Feeds `a` whole, split in two at every byte (or only at the given
 * splits when `every` is 0), and one byte at a time when small; the
 * answer is complete only at its end, and then `check` sees it. */
static void feed(const char *what, const struct buf *a, const struct setup *s,
                 checker check, int every)
{
    static struct myd_wire w;
    char label[160];
    size_t step = every ? 1 : (a->n / 7 + 1);
    for (size_t split = 0; split <= a->n; split += step) {
        begin(&w, s);
        append(&w, a->b, split);
        int rc = myd_wire_parse(&w);
        if (split < a->n) {
            EXPECT(rc == MYD_WIRE_MORE, "%s: split %zu: %d (%s)", what, split, rc, w.bad);
            EXPECT(w.need > w.in_len, "%s: split %zu: need %zu of %zu", what, split,
                   w.need, w.in_len);
            append(&w, a->b + split, a->n - split);
            rc = myd_wire_parse(&w);
        }
        snprintf(label, sizeof label, "%s (split %zu)", what, split);
        EXPECT(rc == MYD_WIRE_DONE, "%s: %d (%s)", label, rc, w.bad);
        if (rc == MYD_WIRE_DONE)
            check(&w, label);
        if (!every && split + step > a->n && split != a->n)
            split = a->n - step; /* last round: the whole answer */
    }
    if (a->n < 4096) {
        begin(&w, s);
        int rc = MYD_WIRE_MORE;
        for (size_t i = 0; i < a->n; i++) {
            append(&w, a->b + i, 1);
            rc = myd_wire_parse(&w);
            if (i + 1 < a->n)
                EXPECT(rc == MYD_WIRE_MORE, "%s: byte by byte at %zu: %d (%s)", what, i, rc, w.bad);
        }
        snprintf(label, sizeof label, "%s (byte by byte)", what);
        EXPECT(rc == MYD_WIRE_DONE, "%s: %d (%s)", label, rc, w.bad);
        if (rc == MYD_WIRE_DONE)
            check(&w, label);
    }
}

/* Feeds a broken answer whole: MYD_WIRE_BAD with a message; and (unless the
 * break is a byte after a complete answer) every prefix of it. */
static void feed_bad2(const char *what, const struct buf *a, const struct setup *s,
                      const char *msg_part, int prefixes)
{
    struct myd_wire w = {0};
    begin(&w, s);
    append(&w, a->b, a->n);
    int rc = myd_wire_parse(&w);
    EXPECT(rc == MYD_WIRE_BAD, "%s: %d, expected MYD_WIRE_BAD", what, rc);
    EXPECT(strstr(w.bad, msg_part) != NULL, "%s: message '%s' lacks '%s'", what, w.bad,
           msg_part);
    /* also every prefix: MORE or BAD, never DONE, never a crash */
    for (size_t n = 0; prefixes && n < a->n; n++) {
        begin(&w, s);
        append(&w, a->b, n);
        rc = myd_wire_parse(&w);
        EXPECT(rc != MYD_WIRE_DONE, "%s: prefix %zu parsed as complete", what, n);
    }
    myd_wire_free(&w);
}

static void feed_bad(const char *what, const struct buf *a, const struct setup *s,
                     const char *msg_part)
{
    feed_bad2(what, a, s, msg_part, 1);
}

/* ---- checks ----------------------------------------------------------------- */

static void check_ok(struct myd_wire *w, const char *what)
{
    EXPECT(w->kind == MYD_WIRE_RES_OK, "%s: kind %d", what, w->kind);
    EXPECT(w->affected_rows == 300 && w->insert_id == 70000, "%s: %llu %llu", what,
           (unsigned long long)w->affected_rows, (unsigned long long)w->insert_id);
    EXPECT(w->status == 3 && w->warnings == 1, "%s: status %u warnings %u", what,
           w->status, w->warnings);
}

static void check_err(struct myd_wire *w, const char *what)
{
    EXPECT(w->kind == MYD_WIRE_RES_ERR, "%s: kind %d", what, w->kind);
    EXPECT(w->err_code == 1213 && strcmp(w->err_state, "40001") == 0, "%s: %u %s", what,
           w->err_code, w->err_state);
    EXPECT(w->err_msg_len == 14 && memcmp(w->in + w->err_msg, "Deadlock found", 14) == 0,
           "%s: message", what);
}

static void check_err_nostate(struct myd_wire *w, const char *what)
{
    EXPECT(w->kind == MYD_WIRE_RES_ERR && w->err_code == 1062 &&
           strcmp(w->err_state, "HY000") == 0, "%s: %u %s", what, w->err_code, w->err_state);
}

static void check_rows_status(struct myd_wire *w, const char *what)
{
    check_rows5(w, what);
    EXPECT(w->status == 0x22, "%s: final status %#x", what, w->status);
}

static void check_more(struct myd_wire *w, const char *what)
{
    /* the first result is kept; the last status is the final one */
    check_rows5(w, what);
    EXPECT(w->status == 0x02, "%s: final status %#x", what, w->status);
}

static void check_text(struct myd_wire *w, const char *what)
{
    EXPECT(w->kind == MYD_WIRE_RES_ROWS && w->ncols == 2 && w->nrows == 2, "%s: %d %d %d", what,
           w->kind, w->ncols, w->nrows);
}

#define BIG (0xffffff + 10)

static void check_big(struct myd_wire *w, const char *what)
{
    static const struct myd_col kinds[2] = {COL(MYD_T_LONG, 0), COL(MYD_T_BLOB, 0)};
    struct sbd_value row[2];
    EXPECT(w->kind == MYD_WIRE_RES_ROWS && w->ncols == 2 && w->nrows == 2, "%s: %d %d %d", what,
           w->kind, w->ncols, w->nrows);
    if (w->nrows != 2)
        return;
    EXPECT(myd_wire_row(w, 0, kinds, row) == 0, "%s: row 0", what);
    int good = row[1].len == BIG;
    for (size_t i = 0; good && i < BIG; i++)
        good = (unsigned char)row[1].s[i] == (unsigned char)('a' + i % 26);
    EXPECT(row[0].i == 1 && good && row[1].s[BIG] == 0, "%s: big value", what);
    EXPECT(myd_wire_row(w, 1, kinds, row) == 0 && row[0].i == 2 && row[1].len == 1 &&
           row[1].s[0] == 'z', "%s: row after the big one", what);
}

/* ---- tests ------------------------------------------------------------------- */

static void test_requests(void)
{
    struct myd_wire w = {0};
    struct sbd_value p[4] = {
        {.type = SBD_TYPE_INT, .i = -2},
        {.type = SBD_TYPE_DOUBLE, .d = 1.5},
        {.type = SBD_TYPE_STRING, .s = "ab", .len = 2},
        {.type = SBD_TYPE_INT, .is_null = 1},
    };
    EXPECT(myd_wire_build_execute(&w, 0x01020304, p, 4) == 0, "build execute");
    static const unsigned char want[] = {
        39, 0, 0, 0,                           /* header: 39 bytes, seq 0 */
        0x17, 4, 3, 2, 1, 0, 1, 0, 0, 0,       /* command, id, flags, iterations */
        0x08,                                  /* NULL bitmap: parameter 3 */
        1,                                     /* new params bound */
        8, 0, 5, 0, 254, 0, 8, 0,              /* types */
        0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -2 */
        0, 0, 0, 0, 0, 0, 0xf8, 0x3f,          /* 1.5 */
        2, 'a', 'b',
    };
    EXPECT(w.out_len == sizeof want && memcmp(w.out, want, sizeof want) == 0,
           "execute bytes (%zu)", w.out_len);
    EXPECT(w.next_seq == 1, "execute: answer seq %u", w.next_seq);

    EXPECT(myd_wire_build_execute(&w, 7, NULL, 0) == 0 && w.out_len == 14 && w.out[0] == 10,
           "execute without parameters");

    /* a BYTES parameter (ABI 1.3): type MYSQL_TYPE_BLOB (252), the bytes
     * whole, NUL and all */
    struct sbd_value bp = {.type = SBD_TYPE_BYTES, .s = "a\0\xff", .len = 3};
    EXPECT(myd_wire_build_execute(&w, 9, &bp, 1) == 0, "build execute with BYTES");
    static const unsigned char wantb[] = {
        18, 0, 0, 0, 0x17, 9, 0, 0, 0, 0, 1, 0, 0, 0,
        0, 1, 252, 0, 3, 'a', 0, 0xff,
    };
    EXPECT(w.out_len == sizeof wantb && memcmp(w.out, wantb, sizeof wantb) == 0,
           "execute with BYTES bytes (%zu)", w.out_len);

    EXPECT(myd_wire_build_query(&w, "BEGIN", 5) == 0, "build query");
    EXPECT(w.out_len == 10 && memcmp(w.out, "\x06\x00\x00\x00\x03" "BEGIN", 10) == 0,
           "query bytes");

    /* a long string parameter: split into 0xffffff-byte packets */
    size_t big = 0xffffff + 5;
    char *s = malloc(big);
    memset(s, 'x', big);
    struct sbd_value q = {.type = SBD_TYPE_STRING, .s = s, .len = big};
    EXPECT(myd_wire_build_execute(&w, 1, &q, 1) == 0, "build big execute");
    size_t payload = 10 + 1 + 1 + 2 + 9 + big;
    EXPECT(w.out_len == payload + 8, "big execute: %zu bytes", w.out_len);
    EXPECT(w.out[0] == 0xff && w.out[1] == 0xff && w.out[2] == 0xff && w.out[3] == 0,
           "big execute: first header");
    size_t h = 4 + 0xffffff;
    EXPECT(w.out[h] == (payload - 0xffffff) && w.out[h + 1] == 0 && w.out[h + 3] == 1,
           "big execute: second header");
    EXPECT(w.out[4 + 22] == 0 && w.out[4 + 23] == 'x' && w.out[h - 1] == 'x' && w.out[h + 4] == 'x' &&
           w.out[w.out_len - 1] == 'x', "big execute: payload");
    EXPECT(w.next_seq == 2, "big execute: answer seq %u", w.next_seq);
    free(s);
    myd_wire_free(&w);
}

static void test_answers(void)
{
    struct setup bin = {1, 0, NULL, 0}, bin_eof = {1, 1, NULL, 0};
    struct setup cached = {1, 0, cols5, 5}, cached_eof = {1, 1, cols5, 5};
    struct setup text = {0, 0, NULL, 0};
    struct buf a = {0};

    /* OK */
    a.seq = 1;
    ok_packet(&a, 0, 300, 70000, 3, 1);
    feed("OK", &a, &bin, check_ok, 1);
    feed("OK to a query", &a, &text, check_ok, 1);

    /* ERR, with and without SQLSTATE; a progress report before one */
    a.n = 0; a.seq = 1;
    err_packet(&a, 1213, "40001", "Deadlock found");
    feed("ERR", &a, &bin, check_err, 1);
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 0xff); le(&a, 0xffff, 2); byte(&a, 1); byte(&a, 1); end(&a);
    err_packet(&a, 1213, "40001", "Deadlock found");
    feed("progress report, ERR", &a, &bin, check_err, 1);
    a.n = 0; a.seq = 1;
    err_packet(&a, 1062, NULL, "Duplicate entry");
    feed("ERR without SQLSTATE", &a, &bin, check_err_nostate, 1);

    /* binary result set with metadata and EOF packets */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); end(&a);
    for (int i = 0; i < 5; i++)
        coldef(&a, "c", cols5[i].type, cols5[i].flags, i % 2);
    eof_packet(&a, 0x22);
    binary_rows5(&a);
    eof_packet(&a, 0x22);
    feed("binary rows, EOF", &a, &bin, check_rows_status, 1);

    /* the same with the MariaDB metadata flag (1: metadata follows) */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 1); end(&a);
    for (int i = 0; i < 5; i++)
        coldef(&a, "c", cols5[i].type, cols5[i].flags, 1);
    eof_packet(&a, 0x22);
    binary_rows5(&a);
    eof_packet(&a, 0x22);
    feed("binary rows, metadata flag 1", &a, &cached, check_rows_status, 1);

    /* cached metadata: flag 0, EOF, rows */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    eof_packet(&a, 0x22);
    binary_rows5(&a);
    eof_packet(&a, 0x22);
    feed("binary rows, cached metadata", &a, &cached, check_rows_status, 1);

    /* DEPRECATE_EOF: no EOF after the metadata, an OK (0xfe) at the end */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); end(&a);
    for (int i = 0; i < 5; i++)
        coldef(&a, "c", cols5[i].type, cols5[i].flags, 0);
    binary_rows5(&a);
    ok_packet(&a, 0xfe, 0, 0, 0x22, 0);
    feed("binary rows, DEPRECATE_EOF", &a, &bin_eof, check_rows_status, 1);
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    binary_rows5(&a);
    ok_packet(&a, 0xfe, 0, 0, 0x22, 0);
    feed("binary rows, cached, DEPRECATE_EOF", &a, &cached_eof, check_rows_status, 1);

    /* ERR after some rows */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    eof_packet(&a, 0x22);
    binary_rows5(&a);
    err_packet(&a, 1213, "40001", "Deadlock found");
    feed("ERR after rows", &a, &cached, check_err, 1);

    /* MORE_RESULTS: a result set, then a further OK and result set */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); end(&a);
    for (int i = 0; i < 5; i++)
        coldef(&a, "c", cols5[i].type, cols5[i].flags, 0);
    eof_packet(&a, 0x22);
    binary_rows5(&a);
    eof_packet(&a, 0x0a);
    ok_packet(&a, 0, 1, 0, 0x0a, 0);
    start(&a); byte(&a, 1); end(&a);
    coldef(&a, "x", MYD_T_LONG, 0, 0);
    eof_packet(&a, 0x0a);
    start(&a); byte(&a, 0); byte(&a, 0); le(&a, 9, 4); end(&a);
    eof_packet(&a, 0x02);
    feed("further results", &a, &bin, check_more, 1);

    /* text result set: NULL (0xfb) and strings */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 2); end(&a);
    coldef(&a, "a", MYD_T_LONGLONG, 0, 0);
    coldef(&a, "b", MYD_T_VAR_STRING, 0, 0);
    eof_packet(&a, 2);
    start(&a); lstr(&a, "12"); byte(&a, 0xfb); end(&a);
    start(&a); byte(&a, 0xfb); lstr(&a, "x"); end(&a);
    eof_packet(&a, 2);
    feed("text rows", &a, &text, check_text, 1);

    /* a row over 16 MB: continuation packets; split at chosen bytes */
    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 2); end(&a);
    coldef(&a, "id", MYD_T_LONG, 0, 0);
    coldef(&a, "v", MYD_T_BLOB, 0, 0);
    eof_packet(&a, 2);
    start(&a);
    byte(&a, 0); byte(&a, 0); le(&a, 1, 4);
    lenenc(&a, BIG);
    need(&a, BIG);
    for (size_t i = 0; i < BIG; i++)
        a.b[a.n++] = (unsigned char)('a' + i % 26);
    end(&a);
    start(&a); byte(&a, 0); byte(&a, 0); le(&a, 2, 4); lstr(&a, "z"); end(&a);
    eof_packet(&a, 2);
    feed("row over 16 MB", &a, &bin, check_big, 0);
    free(a.b);
}

static void test_violations(void)
{
    struct setup bin = {1, 0, NULL, 0}, cached = {1, 0, cols5, 5};
    struct buf a = {0};

    a.n = 0; a.seq = 2; /* answer should start at 1 */
    ok_packet(&a, 0, 1, 0, 2, 0);
    feed_bad("wrong sequence id", &a, &bin, "sequence id");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 0); byte(&a, 1); end(&a);
    feed_bad("short OK", &a, &bin, "OK packet too short");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 0xff); end(&a);
    feed_bad("short ERR", &a, &bin, "ERR packet too short");

    a.n = 0; a.seq = 1;
    start(&a); end(&a);
    feed_bad("empty first packet", &a, &bin, "empty packet");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 0xfb); lstr(&a, "/etc/passwd"); end(&a);
    feed_bad("LOCAL INFILE request", &a, &bin, "LOAD DATA LOCAL");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 2); end(&a);
    start(&a); lstr(&a, "def"); lstr(&a, "x"); end(&a);
    feed_bad("short column definition", &a, &bin, "column definition");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 3); byte(&a, 0); end(&a);
    feed_bad("cached metadata, other column count", &a, &cached, "column count");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    start(&a); byte(&a, 1); end(&a);
    feed_bad("no EOF after metadata", &a, &cached, "no EOF");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    eof_packet(&a, 2);
    start(&a); byte(&a, 0); end(&a);
    feed_bad("binary row without its bitmap", &a, &cached, "shorter than its NULL bitmap");

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 5); byte(&a, 0); end(&a);
    eof_packet(&a, 2);
    start(&a); byte(&a, 1); byte(&a, 0xfc); end(&a);
    feed_bad("binary row header", &a, &cached, "0x00 header");


    a.n = 0; a.seq = 1;
    ok_packet(&a, 0, 1, 0, 2, 0);
    byte(&a, 1); /* a stray byte after the answer */
    feed_bad2("bytes after the answer", &a, &bin, "after the end", 0);

    a.n = 0; a.seq = 1;
    start(&a); byte(&a, 0); end(&a);  /* column count 0 */
    /* (a first byte 0 is an OK header: too short) */
    feed_bad("column count 0 is an OK too short", &a, &bin, "OK packet too short");

    free(a.b);

    /* rows whose values do not fill them exactly: framed correctly, so
     * the answer parses; myd_wire_row finds it */
    static const struct {
        const char *what;
        unsigned char row[12];
        size_t n;
    } rows[] = {
        {"ends inside a value", {0, 0, 1, 0, 0, 0}, 6},
        {"ends inside a string", {0, 0x1e, 0x05, 'a', 'b'}, 5},
        {"bytes after the values", {0, 0xfc, 0, 0}, 4},
        {"bytes after the last value", {0, 0x3c, 1, 0, 0, 0, 0xff, 9}, 8},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct myd_wire rw = {0};
        struct buf rb = {0};
        rb.seq = 1;
        start(&rb); byte(&rb, 5); byte(&rb, 0); end(&rb);
        eof_packet(&rb, 2);
        start(&rb); bytes(&rb, rows[k].row, rows[k].n); end(&rb);
        eof_packet(&rb, 2);
        rw.next_seq = 1;
        myd_wire_begin(&rw, 1, cols5, 5);
        append(&rw, rb.b, rb.n);
        struct sbd_value rv[5];
        EXPECT(myd_wire_parse(&rw) == MYD_WIRE_DONE && rw.nrows == 1 && myd_wire_conv_reserve(&rw) == 0,
               "row %s: parses (%s)", rows[k].what, rw.bad);
        EXPECT(rw.nrows == 1 && myd_wire_row(&rw, 0, cols5, rv) == MYD_WIRE_ROW_BAD,
               "row %s: myd_wire_row says MYD_WIRE_ROW_BAD", rows[k].what);
        myd_wire_free(&rw);
        free(rb.b);
    }
    {
        /* a value in a NULL-typed column */
        static const struct myd_col nullcol[1] = {COL(MYD_T_NULL, 0)};
        struct myd_wire rw = {0};
        struct buf rb = {0};
        rb.seq = 1;
        start(&rb); byte(&rb, 1); end(&rb);
        coldef(&rb, "n", MYD_T_NULL, 0, 0);
        eof_packet(&rb, 2);
        start(&rb); byte(&rb, 0); byte(&rb, 0); byte(&rb, 1); byte(&rb, 'x'); end(&rb);
        eof_packet(&rb, 2);
        rw.next_seq = 1;
        myd_wire_begin(&rw, 1, NULL, 0);
        append(&rw, rb.b, rb.n);
        struct sbd_value rv[1];
        EXPECT(myd_wire_parse(&rw) == MYD_WIRE_DONE && rw.nrows == 1 &&
               myd_wire_row(&rw, 0, nullcol, rv) == MYD_WIRE_ROW_BAD, "value in a NULL-typed column");
        myd_wire_free(&rw);
        free(rb.b);
    }

    /* a value whose wire type does not match the prepared kind: myd_wire_row
     * says so instead of decoding it */
    struct myd_wire w = {0};
    struct buf b = {0};
    b.seq = 1;
    start(&b); byte(&b, 1); end(&b);
    coldef(&b, "d", MYD_T_DATETIME, 0, 0);
    eof_packet(&b, 2);
    start(&b); byte(&b, 0); byte(&b, 0); byte(&b, 4); le(&b, 2024, 2); byte(&b, 1); byte(&b, 2); end(&b);
    eof_packet(&b, 2);
    w.next_seq = 1;
    myd_wire_begin(&w, 1, NULL, 0);
    append(&w, b.b, b.n);
    EXPECT(myd_wire_parse(&w) == MYD_WIRE_DONE, "datetime answer parses (%s)", w.bad);
    struct myd_col kinds[1] = {COL(MYD_T_DATETIME, 0)};
    struct sbd_value v[1];
    EXPECT(w.nrows == 1 && myd_wire_row(&w, 0, kinds, v) == MYD_WIRE_ROW_TYPE, "datetime is not decoded");
    EXPECT(!myd_wire_convertible(MYD_T_DATETIME, &kinds[0]), "datetime is not convertible");
    myd_wire_free(&w);
    free(b.b);
}

/* Values whose wire type differs from the prepared one (an expression
 * whose type depends on the parameters), converted as Connector/C's fetch
 * into the driver's bindings does. */
static void test_conversions(void)
{
    /* wire: LONGLONG -7, INT UNSIGNED 4294967295, NEWDECIMAL "-12.75",
     * DOUBLE 2.9, VAR_STRING "42abc", LONGLONG 2^64-1 (unsigned) */
    static const struct myd_col wire[6] = {
        COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONG, MYD_WIRE_UNSIGNED_FLAG), COL(MYD_T_NEWDECIMAL, 0),
        COL(MYD_T_DOUBLE, 0), COL(MYD_T_VAR_STRING, 0), COL(MYD_T_LONGLONG, MYD_WIRE_UNSIGNED_FLAG),
    };
    static const struct myd_col as_double[6] = {
        COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0),
        COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0),
    };
    static const struct myd_col as_int[6] = {
        COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, 0),
        COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, MYD_WIRE_UNSIGNED_FLAG),
    };
    static const struct myd_col as_string[6] = {
        COL(MYD_T_VAR_STRING, 0), COL(MYD_T_VAR_STRING, 0), COL(MYD_T_VAR_STRING, 0),
        COL(MYD_T_VAR_STRING, 0), COL(MYD_T_VAR_STRING, 0), COL(MYD_T_NULL, 0),
    };
    struct buf b = {0};
    b.seq = 1;
    start(&b); byte(&b, 6); end(&b);
    for (int i = 0; i < 6; i++)
        coldef(&b, "x", wire[i].type, wire[i].flags, 0);
    eof_packet(&b, 2);
    for (int r = 0; r < 3; r++) {
        start(&b);
        byte(&b, 0); byte(&b, 0);
        le(&b, (uint64_t)-7, 8);
        le(&b, 4294967295u, 4);
        lstr(&b, "-12.75");
        double d = 2.9;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        le(&b, bits, 8);
        lstr(&b, "42abc");
        le(&b, UINT64_MAX, 8);
        end(&b);
    }
    eof_packet(&b, 2);
    struct myd_wire w = {0};
    w.next_seq = 1;
    myd_wire_begin(&w, 1, NULL, 0);
    append(&w, b.b, b.n);
    EXPECT(myd_wire_parse(&w) == MYD_WIRE_DONE && w.nrows == 3, "conversions parse (%s)", w.bad);
    EXPECT(myd_wire_conv_reserve(&w) == 0, "conv reserve");
    struct sbd_value v[6];
    EXPECT(myd_wire_row(&w, 0, as_double, v) == 0, "as double");
    EXPECT(v[0].type == SBD_TYPE_DOUBLE && v[0].d == -7.0 && v[1].d == 4294967295.0 &&
           v[2].d == -12.75 && v[3].d == 2.9 && v[4].d == 42.0 &&
           v[5].d == 18446744073709551615.0, "as double: values");
    EXPECT(myd_wire_row(&w, 1, as_int, v) == 0, "as int");
    EXPECT(v[0].type == SBD_TYPE_INT && v[0].i == -7 && v[1].i == 4294967295 &&
           v[2].i == -12 && v[3].i == 2 && v[4].i == 42, "as int: values %lld %lld %lld %lld %lld",
           (long long)v[0].i, (long long)v[1].i, (long long)v[2].i, (long long)v[3].i,
           (long long)v[4].i);
    EXPECT(v[5].type == SBD_TYPE_DOUBLE && v[5].d == 18446744073709551615.0,
           "as unsigned int above INT64_MAX: a double");
    EXPECT(myd_wire_row(&w, 2, as_string, v) == MYD_WIRE_ROW_TYPE,
           "DOUBLE into a string binding: not converted");
    EXPECT(!myd_wire_convertible(MYD_T_DOUBLE, &as_string[0]) &&
           myd_wire_convertible(MYD_T_LONGLONG, &as_string[0]) &&
           !myd_wire_convertible(MYD_T_FLOAT, &as_double[0]) &&
           !myd_wire_convertible(MYD_T_DATE, &as_string[0]), "convertible");
    /* integers into string bindings: their decimal text */
    static const struct myd_col two[2] = {COL(MYD_T_VAR_STRING, 0), COL(MYD_T_NULL, 0)};
    b.n = 0; b.seq = 1;
    start(&b); byte(&b, 2); end(&b);
    coldef(&b, "a", MYD_T_LONGLONG, 0, 0);
    coldef(&b, "b", MYD_T_LONG, MYD_WIRE_UNSIGNED_FLAG, 0);
    eof_packet(&b, 2);
    start(&b); byte(&b, 0); byte(&b, 0); le(&b, (uint64_t)INT64_MIN, 8); le(&b, 4294967295u, 4); end(&b);
    eof_packet(&b, 2);
    myd_wire_begin(&w, 1, NULL, 0);
    append(&w, b.b, b.n);
    EXPECT(myd_wire_parse(&w) == MYD_WIRE_DONE && myd_wire_conv_reserve(&w) == 0, "int text parse");
    EXPECT(myd_wire_row(&w, 0, two, v) == 0 && v[0].type == SBD_TYPE_STRING &&
           strcmp(v[0].s, "-9223372036854775808") == 0 && v[0].len == 20 &&
           v[1].type == SBD_TYPE_STRING && strcmp(v[1].s, "4294967295") == 0,
           "integers as text");

    /* a DOUBLE that is NaN, infinite or out of range into an integer
     * binding (found by tests/fuzz/fuzz_mysql_wire.c: the cast was
     * undefined): INT64_MIN, what the cast gives on x86-64; in range, the
     * truncated value, signed or unsigned */
    static const double odd[4] = {NAN, INFINITY, -1e300, 1.5e19};
    static const struct myd_col dbl4[4] = {
        COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0), COL(MYD_T_DOUBLE, 0)};
    static const struct myd_col int4[4] = {
        COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, 0), COL(MYD_T_LONGLONG, 0),
        COL(MYD_T_LONGLONG, MYD_WIRE_UNSIGNED_FLAG)};
    b.n = 0; b.seq = 1;
    start(&b); byte(&b, 4); end(&b);
    for (int i = 0; i < 4; i++)
        coldef(&b, "d", dbl4[i].type, 0, 0);
    eof_packet(&b, 2);
    start(&b); byte(&b, 0); byte(&b, 0);
    for (int i = 0; i < 4; i++) {
        uint64_t bits;
        memcpy(&bits, &odd[i], 8);
        le(&b, bits, 8);
    }
    end(&b);
    eof_packet(&b, 2);
    myd_wire_begin(&w, 1, NULL, 0);
    append(&w, b.b, b.n);
    EXPECT(myd_wire_parse(&w) == MYD_WIRE_DONE && myd_wire_conv_reserve(&w) == 0, "odd doubles parse");
    EXPECT(myd_wire_row(&w, 0, int4, v) == 0 && v[0].i == INT64_MIN && v[1].i == INT64_MIN &&
           v[2].i == INT64_MIN && v[3].type == SBD_TYPE_DOUBLE && v[3].d == 1.5e19,
           "odd doubles into integers: %lld %lld %lld %g", (long long)v[0].i, (long long)v[1].i,
           (long long)v[2].i, v[3].d);
    myd_wire_free(&w);
    free(b.b);
}

static void test_types(void)
{
    EXPECT(myd_wire_type_kind(MYD_T_YEAR) == SBD_TYPE_INT && myd_wire_type_kind(MYD_T_FLOAT) == SBD_TYPE_DOUBLE &&
           myd_wire_type_kind(MYD_T_NEWDECIMAL) == SBD_TYPE_DOUBLE &&
           myd_wire_type_kind(MYD_T_TIMESTAMP) == SBD_TYPE_DATETIME &&
           myd_wire_type_kind(MYD_T_BLOB) == SBD_TYPE_STRING && myd_wire_type_kind(MYD_T_NULL) == SBD_TYPE_NULL,
           "kinds");
    EXPECT(myd_wire_type_handled(MYD_T_LONGLONG) && myd_wire_type_handled(MYD_T_VAR_STRING) &&
           !myd_wire_type_handled(MYD_T_FLOAT) && !myd_wire_type_handled(MYD_T_DATE) &&
           !myd_wire_type_handled(MYD_T_BIT) && !myd_wire_type_handled(MYD_T_GEOMETRY), "handled");
}

int main(void)
{
    test_types();
    test_requests();
    test_answers();
    test_violations();
    test_conversions();
    if (failures > 0) {
        fprintf(stderr, "mysql_wire_test: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("mysql_wire_test: %d checks passed\n", checks);
    return 0;
}
