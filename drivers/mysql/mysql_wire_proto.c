/*
 * mysql driver: the fast path's message layer (see mysql_wire.h).  Pure
 * byte work on the connection's buffers: no I/O, no Connector/C, and no
 * allocation once the buffers have grown to the largest request and
 * answer seen.  Written from the MySQL/MariaDB client/server protocol
 * description (packets, OK/ERR/EOF, COM_QUERY, COM_STMT_EXECUTE, column
 * definitions, binary and text rows).  The values of binary rows are
 * decoded in mysql_wire_row.c.
 */
#include "mysql_wire.h"
#include "../common/buf.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PACKET 0xffffffu            /* payload of one physical packet */
#define MAX_MESSAGE ((size_t)1 << 30)   /* largest logical packet accepted */

/* parser states */
enum { ST_FIRST = 0, ST_COLDEF, ST_COLEOF, ST_ROWS, ST_DONE };

/* ---- small helpers ------------------------------------------------------ */

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    unsigned char *p = sbc_grow(*buf, cap, need, 1, 1024);
    if (p == NULL)
        return -1;
    *buf = p;
    return 0;
}

size_t myd_wire_lenenc(const unsigned char *p, size_t n, uint64_t *v)
{
    if (n < 1)
        return 0;
    if (p[0] < 0xfb) {
        *v = p[0];
        return 1;
    }
    if (p[0] == 0xfc && n >= 3) {
        *v = myd_u16le(p + 1);
        return 3;
    }
    if (p[0] == 0xfd && n >= 4) {
        *v = myd_u24le(p + 1);
        return 4;
    }
    if (p[0] == 0xfe && n >= 9) {
        *v = myd_u64le(p + 1);
        return 9;
    }
    return 0;
}

size_t myd_wire_skip_lenstr(const unsigned char *p, size_t n)
{
    uint64_t len;
    size_t k = myd_wire_lenenc(p, n, &len);
    if (k == 0 || len > n - k)
        return 0;
    return k + (size_t)len;
}

static int bad(struct myd_wire *w, const char *what)
{
    snprintf(w->bad, sizeof w->bad, "protocol violation: %s", what);
    return MYD_WIRE_BAD;
}

/* ---- requests ------------------------------------------------------------ */

/* Frames payload out[4..4+len) into packets: the first header is already
 * reserved; longer payloads get a header every 0xffffff bytes, and one
 * empty packet after a payload that is an exact multiple.  0 or -1. */
static int frame(struct myd_wire *w, size_t len)
{
    size_t npk = len / MAX_PACKET + 1;
    size_t total = len + 4 * npk;
    if (grow(&w->out, &w->out_cap, total) != 0)
        return -1;
    /* move the pieces from the last one down, each to its final place */
    for (size_t i = npk; i-- > 1;) {
        size_t src = 4 + i * MAX_PACKET;
        size_t dst = i * (MAX_PACKET + 4) + 4;
        size_t n = i == npk - 1 ? len - i * MAX_PACKET : MAX_PACKET;
        memmove(w->out + dst, w->out + src, n);
    }
    for (size_t i = 0; i < npk; i++) {
        size_t h = i * (MAX_PACKET + 4);
        size_t n = i == npk - 1 ? len - i * MAX_PACKET : MAX_PACKET;
        w->out[h] = (unsigned char)n;
        w->out[h + 1] = (unsigned char)(n >> 8);
        w->out[h + 2] = (unsigned char)(n >> 16);
        w->out[h + 3] = (unsigned char)i;
    }
    w->out_len = total;
    w->next_seq = (unsigned char)npk;
    return 0;
}

static unsigned char *put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static unsigned char *put_lenenc(unsigned char *p, uint64_t v)
{
    if (v < 0xfb) {
        *p++ = (unsigned char)v;
    } else if (v <= 0xffff) {
        *p++ = 0xfc;
        p = put_le(p, v, 2);
    } else if (v <= 0xffffff) {
        *p++ = 0xfd;
        p = put_le(p, v, 3);
    } else {
        *p++ = 0xfe;
        p = put_le(p, v, 8);
    }
    return p;
}

static int param_null(const struct sbd_value *v)
{
    return v->is_null || v->type == SBD_TYPE_NULL;
}

int myd_wire_build_execute(struct myd_wire *w, uint32_t stmt_id,
                     const struct sbd_value *params, int n)
{
    /* size: command 10, bitmap, flag, types, values */
    size_t len = 10;
    if (n > 0) {
        len += (size_t)(n + 7) / 8 + 1 + 2 * (size_t)n;
        for (int i = 0; i < n; i++) {
            const struct sbd_value *v = &params[i];
            if (param_null(v))
                continue;
            if (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
                len += 8;
            else if (v->s != NULL && v->len > MAX_MESSAGE)
                return -1;
            else
                len += 9 + (v->s != NULL ? v->len : 0);
        }
    }
    if (len > MAX_MESSAGE || grow(&w->out, &w->out_cap, len + 4) != 0)
        return -1;
    unsigned char *p = w->out + 4;
    *p++ = 0x17; /* COM_STMT_EXECUTE */
    p = put_le(p, stmt_id, 4);
    *p++ = 0;    /* no cursor */
    p = put_le(p, 1, 4);
    if (n > 0) {
        unsigned char *bitmap = p;
        memset(bitmap, 0, (size_t)(n + 7) / 8);
        p += (n + 7) / 8;
        *p++ = 1; /* new params bound: types follow */
        for (int i = 0; i < n; i++) {
            const struct sbd_value *v = &params[i];
            int t = v->type == SBD_TYPE_INT ? MYD_T_LONGLONG
                  : v->type == SBD_TYPE_DOUBLE ? MYD_T_DOUBLE
                  : v->type == SBD_TYPE_NULL ? MYD_T_NULL
                  : v->type == SBD_TYPE_BYTES ? MYD_T_BLOB : MYD_T_STRING;
            *p++ = (unsigned char)t;
            *p++ = 0; /* signed */
            if (param_null(v))
                bitmap[i / 8] |= (unsigned char)(1u << (i % 8));
        }
        for (int i = 0; i < n; i++) {
            const struct sbd_value *v = &params[i];
            if (param_null(v))
                continue;
            if (v->type == SBD_TYPE_INT) {
                p = put_le(p, (uint64_t)v->i, 8);
            } else if (v->type == SBD_TYPE_DOUBLE) {
                uint64_t bits;
                memcpy(&bits, &v->d, 8);
                p = put_le(p, bits, 8);
            } else {
                size_t sl = v->s != NULL ? v->len : 0;
                p = put_lenenc(p, sl);
                if (sl > 0)
                    memcpy(p, v->s, sl);
                p += sl;
            }
        }
    }
    return frame(w, (size_t)(p - (w->out + 4)));
}

int myd_wire_build_query(struct myd_wire *w, const char *sql, size_t len)
{
    if (len + 1 > MAX_MESSAGE || grow(&w->out, &w->out_cap, len + 5) != 0)
        return -1;
    w->out[4] = 0x03; /* COM_QUERY */
    memcpy(w->out + 5, sql, len);
    return frame(w, len + 1);
}

/* ---- answers ------------------------------------------------------------- */

void myd_wire_begin(struct myd_wire *w, int binary, const struct myd_col *known,
              int nknown)
{
    w->in_len = 0;
    w->pos = 0;
    w->need = 0;
    w->seq = w->next_seq;
    w->state = ST_FIRST;
    w->binary = binary;
    w->skip = 0;
    w->col = 0;
    w->known = known;
    w->nknown = nknown;
    w->kind = MYD_WIRE_RES_NONE;
    w->affected_rows = w->insert_id = 0;
    w->status = 0;
    w->warnings = 0;
    w->meta_sent = 0;
    w->ncols = 0;
    w->nrows = 0;
    w->err_code = 0;
    w->err_state[0] = 0;
    w->err_msg = w->err_msg_len = 0;
    w->bad[0] = 0;
}

int myd_wire_reserve(struct myd_wire *w, size_t need)
{
    return grow(&w->in, &w->in_cap, need + 1);
}

/* Makes the logical packet at w->pos whole.  1 with its payload at
 * in[*off..*off+*len) and pos past it; 0 when more bytes are needed
 * (w->need set); MYD_WIRE_BAD-as-negative (-1) on a sequence or size error. */
static int next_packet(struct myd_wire *w, size_t *off, size_t *len)
{
    size_t p = w->pos;
    if (w->in_len - p < 4) {
        w->need = p + 4;
        return 0;
    }
    size_t n = myd_u24le(w->in + p);
    if (w->in[p + 3] != w->seq) {
        snprintf(w->bad, sizeof w->bad,
                 "protocol violation: packet sequence id %u where %u was expected",
                 w->in[p + 3], w->seq);
        return -1;
    }
    if (w->in_len - p - 4 < n) {
        w->need = p + 4 + n;
        return 0;
    }
    if (n < MAX_PACKET) {
        *off = p + 4;
        *len = n;
        w->pos = p + 4 + n;
        w->seq++;
        return 1;
    }
    /* a payload of 0xffffff bytes continues: find every piece first */
    size_t q = p + 4 + n, total = n;
    unsigned char s = (unsigned char)(w->seq + 1);
    int pieces = 0;
    for (;;) {
        if (w->in_len - q < 4) {
            w->need = q + 4;
            return 0;
        }
        size_t k = myd_u24le(w->in + q);
        if (w->in[q + 3] != s) {
            snprintf(w->bad, sizeof w->bad,
                     "protocol violation: continuation packet sequence id %u where %u "
                     "was expected", w->in[q + 3], s);
            return -1;
        }
        if (w->in_len - q - 4 < k) {
            w->need = q + 4 + k;
            return 0;
        }
        total += k;
        pieces++;
        s++;
        if (total > MAX_MESSAGE) {
            snprintf(w->bad, sizeof w->bad, "protocol violation: a packet over 1 GB");
            return -1;
        }
        q += 4 + k;
        if (k < MAX_PACKET)
            break;
    }
    /* cut the continuation headers out: the pieces, then what follows */
    size_t dst = p + 4 + n, src = p + 4 + n;
    for (int i = 0; i < pieces; i++) {
        size_t k = myd_u24le(w->in + src);
        memmove(w->in + dst, w->in + src + 4, k);
        dst += k;
        src += 4 + k;
    }
    memmove(w->in + dst, w->in + src, w->in_len - src);
    w->in_len -= (size_t)pieces * 4;
    *off = p + 4;
    *len = total;
    w->pos = p + 4 + total;
    w->seq = s;
    return 1;
}

/* OK packet (header 0x00, or 0xfe ending rows under DEPRECATE_EOF). */
static int parse_ok(struct myd_wire *w, const unsigned char *p, size_t n)
{
    uint64_t aff, id;
    size_t k1 = myd_wire_lenenc(p + 1, n - 1, &aff);
    if (k1 == 0)
        return bad(w, "OK packet too short");
    size_t k2 = myd_wire_lenenc(p + 1 + k1, n - 1 - k1, &id);
    if (k2 == 0 || n - 1 - k1 - k2 < 4)
        return bad(w, "OK packet too short");
    const unsigned char *q = p + 1 + k1 + k2;
    w->status = myd_u16le(q);
    if (!w->skip) {
        if (w->kind == MYD_WIRE_RES_NONE) {
            w->kind = MYD_WIRE_RES_OK;
            w->affected_rows = aff;
            w->insert_id = id;
        }
        w->warnings = myd_u16le(q + 2);
    }
    return MYD_WIRE_DONE;
}

/* EOF packet: 0xfe, warnings, status. */
static int parse_eof(struct myd_wire *w, const unsigned char *p, size_t n)
{
    if (n < 5)
        return bad(w, "EOF packet too short");
    if (!w->skip)
        w->warnings = myd_u16le(p + 1);
    w->status = myd_u16le(p + 3);
    return MYD_WIRE_DONE;
}

/* ERR packet: 0xff, code, ['#', SQLSTATE], message.  Ends the answer. */
static int parse_err(struct myd_wire *w, size_t off, size_t n)
{
    const unsigned char *p = w->in + off;
    if (n < 3)
        return bad(w, "ERR packet too short");
    if (w->skip) {
        w->state = ST_DONE;
        return MYD_WIRE_DONE;
    }
    w->kind = MYD_WIRE_RES_ERR;
    w->err_code = myd_u16le(p + 1);
    size_t m = 3;
    if (n >= 9 && p[3] == '#') {
        memcpy(w->err_state, p + 4, 5);
        w->err_state[5] = 0;
        m = 9;
    } else {
        memcpy(w->err_state, "HY000", 6);
    }
    w->err_msg = off + m;
    w->err_msg_len = n - m;
    w->state = ST_DONE;
    return MYD_WIRE_DONE;
}

static int add_col(struct myd_wire *w, const struct myd_col *col)
{
    if (w->ncols >= w->cols_cap) {
        int cap = w->cols_cap < 8 ? 8 : 2 * w->cols_cap;
        struct myd_col *c = realloc(w->cols, (size_t)cap * sizeof *c);
        if (c == NULL)
            return -1;
        w->cols = c;
        w->cols_cap = cap;
    }
    w->cols[w->ncols++] = *col;
    return 0;
}

/* Column definition (protocol 4.1): six length-encoded strings, MariaDB's
 * extended metadata string when negotiated (told apart by the size left),
 * then the fixed fields behind their length 0x0c. */
static int parse_coldef(struct myd_wire *w, const unsigned char *p, size_t n)
{
    size_t at = 0;
    for (int i = 0; i < 6; i++) {
        size_t k = myd_wire_skip_lenstr(p + at, n - at);
        if (k == 0)
            return bad(w, "column definition too short");
        at += k;
    }
    if (n - at != 13) {
        size_t k = myd_wire_skip_lenstr(p + at, n - at);
        if (k == 0 || n - at - k < 13)
            return bad(w, "column definition too short");
        at += k;
    }
    if (n - at < 13 || p[at] != 0x0c)
        return bad(w, "column definition without its fixed fields");
    const unsigned char *f = p + at + 1;
    struct myd_col col = {
        .charset = (unsigned short)myd_u16le(f), .length = myd_u32le(f + 2), .type = f[6],
        .flags = (unsigned short)myd_u16le(f + 7), .decimals = f[9],
    };
    if (!w->skip && add_col(w, &col) != 0)
        return bad(w, "out of memory for the result columns");
    return MYD_WIRE_MORE;
}

/* Records a row: offset and length of its payload. */
static int add_row(struct myd_wire *w, size_t off, size_t n)
{
    if (w->nrows >= w->rows_cap) {
        int cap = w->rows_cap < 16 ? 16 : 2 * w->rows_cap;
        size_t *r = realloc(w->rows, 2 * (size_t)cap * sizeof *r);
        if (r == NULL)
            return -1;
        w->rows = r;
        w->rows_cap = cap;
    }
    w->rows[2 * w->nrows] = off;
    w->rows[2 * w->nrows + 1] = n;
    w->nrows++;
    return 0;
}

/* The first packet of a result: OK, ERR, or a result set's column count. */
static int parse_first(struct myd_wire *w, size_t off, size_t n)
{
    const unsigned char *p = w->in + off;
    if (n == 0)
        return bad(w, "empty packet where a result was expected");
    if (p[0] == 0x00) {
        int rc = parse_ok(w, p, n);
        if (rc != MYD_WIRE_DONE)
            return rc;
        w->state = (w->status & MYD_WIRE_STATUS_MORE_RESULTS) ? ST_FIRST : ST_DONE;
        w->skip = 1;
        return w->state == ST_DONE ? MYD_WIRE_DONE : MYD_WIRE_MORE;
    }
    if (p[0] == 0xff) {
        if (n >= 3 && myd_u16le(p + 1) == 0xffff)
            return MYD_WIRE_MORE; /* a progress report: the answer follows */
        return parse_err(w, off, n);
    }
    if (p[0] == 0xfb)
        return bad(w, "LOAD DATA LOCAL request on the fast path");
    uint64_t count;
    size_t k = myd_wire_lenenc(p, n, &count);
    if (k == 0 || count == 0 || count > 4096)
        return bad(w, "invalid result set column count");
    int meta = 1;
    if (n == k + 1) {
        /* MARIADB_CLIENT_CACHE_METADATA: does metadata follow? */
        if (!w->binary)
            return bad(w, "metadata flag in a text result");
        meta = p[k] != 0;
    } else if (n != k) {
        return bad(w, "result set column count packet too long");
    }
    if (!w->skip) {
        w->kind = MYD_WIRE_RES_ROWS;
        w->meta_sent = meta;
        w->ncols = 0;
    }
    if (!meta) {
        if (w->skip)
            return bad(w, "a further result without its metadata");
        if ((int)count != w->nknown)
            return bad(w, "result set without metadata has another column count "
                          "than the statement");
        for (int i = 0; i < w->nknown; i++)
            if (add_col(w, &w->known[i]) != 0)
                return bad(w, "out of memory for the result columns");
        /* the EOF packet still comes without DEPRECATE_EOF */
        w->state = w->deprecate_eof ? ST_ROWS : ST_COLEOF;
        return MYD_WIRE_MORE;
    }
    w->col = (int)count;    /* definitions still to come */
    w->state = ST_COLDEF;
    return MYD_WIRE_MORE;
}

/* The bulk of a result set: consecutive whole binary rows, each in one
 * packet, recorded in a tight loop.  Stops at the first packet that is
 * anything else or not all there (the general loop of myd_wire_parse takes it
 * from there: end of rows, errors, continuation packets, violations). */
static void binary_rows(struct myd_wire *w)
{
    const unsigned char *in = w->in;
    size_t pos = w->pos, end = w->in_len;
    size_t min = 1 + ((size_t)w->ncols + 9) / 8;
    unsigned char seq = w->seq;
    int nrows = w->nrows;
    while (end - pos >= 4) {
        size_t n = (size_t)in[pos] | (size_t)in[pos + 1] << 8 | (size_t)in[pos + 2] << 16;
        if (in[pos + 3] != seq || n >= MAX_PACKET || n < min || end - pos - 4 < n ||
            in[pos + 4] != 0x00)
            break;
        if (nrows >= w->rows_cap) {
            w->nrows = nrows;
            if (add_row(w, pos + 4, n) != 0)
                break; /* the general loop reports it */
            nrows = w->nrows;
        } else {
            w->rows[2 * nrows] = pos + 4;
            w->rows[2 * nrows + 1] = n;
            nrows++;
        }
        pos += 4 + n;
        seq++;
    }
    w->nrows = nrows;
    w->pos = pos;
    w->seq = seq;
}

int myd_wire_parse(struct myd_wire *w)
{
    if (w->state == ST_DONE)
        return w->pos == w->in_len ? MYD_WIRE_DONE : bad(w, "bytes after the end of the answer");
    for (;;) {
        size_t off, n;
        if (w->state == ST_ROWS && w->binary && !w->skip)
            binary_rows(w);
        int got = next_packet(w, &off, &n);
        if (got < 0)
            return MYD_WIRE_BAD;
        if (got == 0)
            return MYD_WIRE_MORE;
        const unsigned char *p = w->in + off;
        int rc = MYD_WIRE_MORE;
        switch (w->state) {
        case ST_FIRST:
            rc = parse_first(w, off, n);
            break;
        case ST_COLDEF:
            if (n > 0 && p[0] == 0xff && !w->skip)
                return bad(w, "ERR packet among the column definitions");
            rc = parse_coldef(w, p, n);
            if (rc == MYD_WIRE_MORE && --w->col == 0)
                w->state = w->deprecate_eof ? ST_ROWS : ST_COLEOF;
            break;
        case ST_COLEOF:
            if (n == 0 || p[0] != 0xfe || n >= 9)
                return bad(w, "no EOF packet after the column definitions");
            w->state = ST_ROWS;
            break;
        case ST_ROWS:
            if (n > 0 && p[0] == 0xff) {
                rc = parse_err(w, off, n);
                break;
            }
            if (n > 0 && p[0] == 0xfe && n < MAX_PACKET &&
                (w->binary || n < 9 || w->deprecate_eof)) {
                rc = w->deprecate_eof ? parse_ok(w, p, n) : parse_eof(w, p, n);
                if (rc != MYD_WIRE_DONE)
                    return rc;
                if (w->status & MYD_WIRE_STATUS_MORE_RESULTS) {
                    w->skip = 1;
                    w->state = ST_FIRST;
                    rc = MYD_WIRE_MORE;
                } else {
                    w->state = ST_DONE;
                }
                break;
            }
            if (n == 0)
                return bad(w, "empty row packet");
            if (w->skip)
                break;  /* a further result's row: its columns are not kept */
            /* the values are checked when the row is fetched (myd_wire_row):
             * rows nobody reads cost only their framing, as in
             * Connector/C's store */
            if (w->binary && (p[0] != 0x00 || n < 1 + ((size_t)w->ncols + 9) / 8))
                return bad(w, p[0] != 0x00 ? "binary row without its 0x00 header"
                                           : "binary row shorter than its NULL bitmap");
            if (add_row(w, off, n) != 0)
                return bad(w, "out of memory for the result rows");
            break;
        default:
            return bad(w, "parser in an unknown state");
        }
        if (rc == MYD_WIRE_BAD)
            return MYD_WIRE_BAD;
        if (w->state == ST_DONE)
            return w->pos == w->in_len ? MYD_WIRE_DONE
                                       : bad(w, "bytes after the end of the answer");
    }
}

void myd_wire_free(struct myd_wire *w)
{
    free(w->out);
    free(w->in);
    free(w->cols);
    free(w->rows);
    free(w->conv);
    memset(w, 0, sizeof *w);
}
