/* fuzz_mysql_wire.c: libFuzzer target for the mysql driver's wire parser
 * (drivers/mysql/mysql_wire_proto.c: packets and their continuation
 * pieces, sequence ids, OK/ERR/EOF, column counts and definitions,
 * length-encoded integers; mysql_wire_row.c: binary row values).  Every
 * byte of an answer is the server's: any input must end in DONE, MORE or
 * BAD, never a read past the bytes received, a crash or UB.  Oracles:
 *  - the answer fed whole and fed in pieces (sizes from the input) ends in
 *    the same step with the same decoded shape;
 *  - MORE asks for more bytes than it has;
 *  - DONE's rows and error message lie inside the bytes; every binary row
 *    of a result is decoded (myd_wire_row) into bindings chosen by the
 *    input, as the driver does after myd_wire_convertible, and every string
 *    value lies inside the bytes, NUL-terminated.
 * The receive buffer is exactly one byte larger than the bytes it holds
 * (the byte myd_wire_reserve keeps for the last terminator), so ASan sees a
 * read past it.
 * Input: byte 0 = flags (bit 0: binary (an execute), bit 1: DEPRECATE_EOF,
 * bits 2-7: piece size, 0 = one byte at a time); byte 1: the sequence id
 * the answer starts with; byte 2: columns known from prepare (low 4 bits)
 * and the binding choice (high 4 bits); then 2 bytes (type, flags) per
 * known column; then the answer.  Build and run: tests/fuzz/fuzz.sh. */
#include "mysql_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape {
    int step, kind, ncols, nrows, meta_sent;
    uint64_t affected_rows, insert_id;
    unsigned status, warnings, err_code;
    size_t err_msg, err_msg_len;
};

static void take(struct shape *s, const struct myd_wire *w, int step)
{
    memset(s, 0, sizeof *s);
    s->step = step;
    s->kind = w->kind;
    s->ncols = w->ncols;
    s->nrows = w->nrows;
    s->meta_sent = w->meta_sent;
    s->affected_rows = w->affected_rows;
    s->insert_id = w->insert_id;
    s->status = w->status;
    s->warnings = w->warnings;
    s->err_code = w->err_code;
    s->err_msg = w->err_msg;
    s->err_msg_len = w->err_msg_len;
}

/* w->in = the answer's first n bytes (in the pieces' case, after the
 * parser cut continuation headers out of the first `have` of them: the
 * new bytes go after its in_len), in a buffer of exactly in_len + 1. */
static void append(struct myd_wire *w, const uint8_t *p, size_t k)
{
    unsigned char *b = realloc(w->in, w->in_len + k + 1);
    if (b == NULL)
        abort();
    memcpy(b + w->in_len, p, k);
    w->in = b;
    w->in_len += k;
    w->in_cap = w->in_len + 1;
}

/* Binding types the driver makes of prepared columns: integers, doubles,
 * strings, with and without UNSIGNED. */
static const unsigned char bind_types[] = {
    MYD_T_LONGLONG, MYD_T_LONG, MYD_T_DOUBLE, MYD_T_NEWDECIMAL, MYD_T_VAR_STRING,
    MYD_T_STRING, MYD_T_NULL, MYD_T_TINY
};

static void check_rows(struct myd_wire *w, int choice, const struct myd_col *known, int nknown)
{
    if (w->kind == MYD_WIRE_RES_ERR &&
        (w->err_msg > w->in_len || w->err_msg_len > w->in_len - w->err_msg))
        abort();
    if (w->kind != MYD_WIRE_RES_ROWS || !w->binary || w->ncols == 0)
        return;
    struct myd_col *bind = calloc((size_t)w->ncols, sizeof *bind);
    struct sbd_value *row = calloc((size_t)w->ncols, sizeof *row);
    if (bind == NULL || row == NULL)
        abort();
    for (int i = 0; i < w->ncols; i++) {
        if (choice == 0 && nknown == w->ncols)
            bind[i] = known[i];
        else if (choice == 1)
            bind[i] = w->cols[i];
        else {
            bind[i].type = bind_types[(choice + i) % sizeof bind_types];
            bind[i].flags = (choice & 8) ? MYD_WIRE_UNSIGNED_FLAG : 0;
        }
    }
    /* the driver refuses a result it cannot convert before any fetch */
    for (int i = 0; i < w->ncols; i++)
        if (!myd_wire_convertible(w->cols[i].type, &bind[i]))
            goto out;
    if (myd_wire_conv_reserve(w) != 0)
        abort();
    for (int r = 0; r < w->nrows; r++) {
        size_t off = w->rows[2 * r], n = w->rows[2 * r + 1];
        if (off > w->in_len || n > w->in_len - off)
            abort();
        if (myd_wire_row(w, r, bind, row) != 0)
            continue;
        for (int i = 0; i < w->ncols; i++) {
            const char *s = row[i].s;
            if (s == NULL || row[i].is_null)
                continue;
            int in_answer = s >= (const char *)w->in && s < (const char *)w->in + w->in_len + 1;
            int in_conv = s >= w->conv && s < w->conv + w->conv_cap;
            if ((!in_answer && !in_conv) || s[row[i].len] != 0 ||
                (in_answer && s + row[i].len > (const char *)w->in + w->in_len)) {
                fprintf(stderr, "row %d value %d outside the answer or unterminated\n", r, i);
                abort();
            }
        }
    }
out:
    free(bind);
    free(row);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    int flags = data[0];
    unsigned char seq = data[1];
    int nknown = data[2] & 15, choice = data[2] >> 4;
    size_t at = 3;
    struct myd_col known[15];
    memset(known, 0, sizeof known);
    for (int i = 0; i < nknown; i++) {
        if (at + 2 > size)
            return 0;
        known[i].type = data[at];
        known[i].flags = data[at + 1] & MYD_WIRE_UNSIGNED_FLAG;
        at += 2;
    }
    const uint8_t *ans = data + at;
    size_t n = size - at;
    size_t piece = (size_t)(flags >> 2);
    if (piece == 0)
        piece = 1;
    if (piece < n / 64) /* at most 64 pieces: each copies the whole answer */
        piece = n / 64;

    struct myd_wire w = {0};
    w.deprecate_eof = (flags >> 1) & 1;
    w.next_seq = seq;
    myd_wire_begin(&w, flags & 1, known, nknown);
    append(&w, ans, n);
    int r = myd_wire_parse(&w);
    if (r == MYD_WIRE_MORE && w.need <= w.in_len)
        abort();
    struct shape whole;
    take(&whole, &w, r);

    struct myd_wire v = {0};
    v.deprecate_eof = w.deprecate_eof;
    v.next_seq = seq;
    myd_wire_begin(&v, flags & 1, known, nknown);
    int rv = MYD_WIRE_MORE;
    size_t fed = 0;
    do {
        size_t k = n - fed < piece ? n - fed : piece;
        append(&v, ans + fed, k);
        fed += k;
        rv = myd_wire_parse(&v);
        if (rv == MYD_WIRE_MORE && v.need <= v.in_len)
            abort();
    } while (fed < n && rv != MYD_WIRE_BAD);
    struct shape split;
    take(&split, &v, rv);
    /* DONE with bytes still to come is BAD once they come: compare the
     * ends, which the driver sees (it reads until DONE or BAD) */
    if (memcmp(&whole, &split, sizeof whole) != 0) {
        fprintf(stderr, "whole: step %d kind %d rows %d cols %d; pieces of %zu: step %d "
                "kind %d rows %d cols %d\n", whole.step, whole.kind, whole.nrows,
                whole.ncols, piece, split.step, split.kind, split.nrows, split.ncols);
        abort();
    }
    if (r == MYD_WIRE_DONE)
        check_rows(&w, choice, known, nknown);
    myd_wire_free(&w);
    myd_wire_free(&v);
    return 0;
}
