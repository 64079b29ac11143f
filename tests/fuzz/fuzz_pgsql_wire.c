/* fuzz_pgsql_wire.c: libFuzzer target for the pgsql driver's wire parser
 * (drivers/pgsql/pgsql_wire_proto.c): every byte of a backend answer is the
 * server's, so any input must end in DONE, MORE or BAD, never a read past
 * the bytes received, a crash or UB.  Oracles:
 *  - the answer fed whole and fed in pieces (sizes from the input) ends in
 *    the same step with the same decoded shape (rows, columns, tag, error);
 *  - MORE asks for more than it has, and never more than one message of
 *    the protocol's size limit past the start of the unparsed bytes;
 *  - DONE's offsets (tag, error fields, rows) lie inside the bytes and the
 *    strings there end with a NUL inside them; every row is decoded
 *    (pgd_wire_row, pgd_convert_value) and each value lies inside them.
 * The receive buffer is exactly as large as the bytes it holds, so ASan
 * sees a read one byte past them.
 * Input: byte 0 = flags (bit 0: simple Query, bit 1: pipelined, bits 2-7:
 * piece size for the split feed, 0 = one byte at a time), then the answer.
 * Build and run: tests/fuzz/fuzz.sh. */
#include "pgsql_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pgd_settings pgd_cfg; /* pgsql.c's: its c_locale, for pgd_convert_value */

/* The protocol's message size limit, as pgsql_wire_proto.c has it. */
#define MSG_MAX 0x40000000u

static int notices;
static void on_notice(void *arg, const char *sev, const char *msg)
{
    (void)arg;
    /* both strings must be NUL-terminated inside the message */
    notices += (int)(strlen(sev) + strlen(msg)) >= 0;
}

/* What a parse decoded, to compare two ways of feeding the same bytes. */
struct shape {
    int step, has_desc, nfields, nrows, has_error, empty, copy, ready;
    size_t tag, err_state, err_msg;
};

static void take(struct shape *s, const struct pgd_wire *w, int step)
{
    s->step = step;
    s->has_desc = w->has_desc;
    s->nfields = w->nfields;
    s->nrows = w->nrows;
    s->has_error = w->has_error;
    s->empty = w->empty;
    s->copy = w->copy;
    s->ready = w->ready;
    s->tag = w->tag;
    s->err_state = w->err_state;
    s->err_msg = w->err_msg;
}

/* Puts in[0..n) into w->in, in a buffer of exactly n bytes. */
static void set_in(struct pgd_wire *w, const uint8_t *in, size_t n)
{
    char *p = realloc(w->in, n ? n : 1);
    if (p == NULL)
        abort();
    memcpy(p, in, n);
    w->in = p;
    w->in_cap = n;
    w->in_len = n;
}

/* Parses until the step is not COPY_IN (the driver sends CopyFail and
 * parses on). */
static int parse(struct pgd_wire *w)
{
    int r;
    while ((r = pgd_wire_parse(w)) == PGD_WIRE_COPY_IN)
        ;
    return r;
}

static void check_more(const struct pgd_wire *w)
{
    if (w->need <= w->in_len || w->need > w->pos + 1 + (size_t)MSG_MAX + 64) {
        fprintf(stderr, "MORE with need %zu, %zu bytes, pos %zu\n", w->need, w->in_len, w->pos);
        abort();
    }
}

/* An offset of a NUL-terminated string inside w->in. */
static void check_str(const struct pgd_wire *w, size_t off, const char *what)
{
    if (off == 0)
        return;
    if (off >= w->in_len || memchr(w->in + off, 0, w->in_len - off) == NULL) {
        fprintf(stderr, "%s at %zu outside %zu bytes or unterminated\n", what, off, w->in_len);
        abort();
    }
}

static void check_done(struct pgd_wire *w)
{
    check_str(w, w->tag, "tag");
    check_str(w, w->err_state, "SQLSTATE");
    check_str(w, w->err_msg, "message");
    check_str(w, w->err_sev, "severity");
    if (w->tag)
        (void)pgd_wire_tag_rows(w->in + w->tag);
    if (w->has_desc && w->nfields > 0) {
        struct sbd_value *row = calloc((size_t)w->nfields, sizeof *row);
        if (row == NULL)
            abort();
        for (int r = 0; r < w->nrows; r++) {
            if (w->rows[r] >= w->in_len + 1)
                abort();
            pgd_wire_row(w, r, row);
            for (int f = 0; f < w->nfields; f++) {
                if (row[f].is_null)
                    continue;
                const char *s = row[f].s;
                if (s < w->in || s + row[f].len >= w->in + w->in_len) {
                    fprintf(stderr, "value outside the answer\n");
                    abort();
                }
                pgd_convert_value(&row[f]);
            }
        }
        free(row);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (pgd_cfg.c_locale == (locale_t)0)
        pgd_cfg.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (size < 1)
        return 0;
    int flags = data[0];
    const uint8_t *ans = data + 1;
    size_t n = size - 1;
    size_t piece = (size_t)(flags >> 2);
    if (piece == 0)
        piece = 1;
    if (piece < n / 64) /* at most 64 pieces: each copies the whole answer */
        piece = n / 64;

    /* whole */
    struct pgd_wire w = {0};
    w.notice = on_notice;
    w.simple = flags & 1;
    w.pipelined = (flags >> 1) & 1;
    pgd_wire_begin(&w);
    set_in(&w, ans, n);
    int r = parse(&w);
    if (r == PGD_WIRE_MORE)
        check_more(&w);
    struct shape whole;
    take(&whole, &w, r);
    size_t whole_pos = w.pos;

    /* in pieces: the same bytes arriving piece by piece */
    struct pgd_wire v = {0};
    v.notice = on_notice;
    v.simple = w.simple;
    v.pipelined = w.pipelined;
    pgd_wire_begin(&v);
    size_t at = 0;
    int rv = PGD_WIRE_MORE;
    while (at < n) {
        size_t next = at + piece < n ? at + piece : n;
        size_t pos = v.pos;
        set_in(&v, ans, next);
        v.pos = pos;
        at = next;
        rv = parse(&v);
        if (rv == PGD_WIRE_MORE)
            check_more(&v);
        /* after DONE the rest is what the server may send an idle
         * session (parsed on, as the whole feed does), unless pipelined */
        if (rv == PGD_WIRE_BAD || (rv == PGD_WIRE_DONE && v.pipelined))
            break;
    }
    if (n == 0)
        rv = parse(&v);
    struct shape split;
    take(&split, &v, rv);
    if (memcmp(&whole, &split, sizeof whole) != 0 || (r == PGD_WIRE_DONE && v.pos != whole_pos)) {
        fprintf(stderr, "whole: step %d rows %d fields %d; pieces of %zu: step %d rows %d "
                "fields %d\n", whole.step, whole.nrows, whole.nfields, piece, split.step,
                split.nrows, split.nfields);
        abort();
    }
    if (r == PGD_WIRE_DONE)
        check_done(&w);
    if (r == PGD_WIRE_DONE && w.pipelined) {
        /* the next answer in the same buffer */
        pgd_wire_next(&w);
        if (parse(&w) == PGD_WIRE_DONE)
            check_done(&w);
    }
    pgd_wire_free(&w);
    pgd_wire_free(&v);
    return 0;
}
