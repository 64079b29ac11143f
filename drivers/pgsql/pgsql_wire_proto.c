/*
 * pgsql driver, wire-protocol fast path: the bytes.  Encodes the request
 * libpq's PQsendQueryPrepared sends for a prepared statement with text
 * parameters and decodes the server's answer (protocol 3.0, PostgreSQL's
 * "Message Formats") into offsets in one receive buffer.  No I/O and no
 * libpq calls: pgsql_wire.c does the socket, tests/unit/pgsql_wire_test.c
 * feeds hand-built messages.  Nothing here allocates except to grow a
 * buffer past the largest size seen so far.
 */
#include "pgsql_int.h"
#include "../common/buf.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The protocol's message size limit (PqRecvLength's 1 GB for requests;
 * answers may be a little larger: a 1 GB value plus its framing). */
#define MSG_MAX 0x40000000u

/* ---- buffers ----------------------------------------------------------- */

/* Grows *buf to at least need bytes (doubling).  0, or -1. */
static int grow(char **buf, size_t *cap, size_t need)
{
    char *p = sbc_grow(*buf, cap, need, 1, 8192);
    if (p == NULL)
        return -1;
    *buf = p;
    return 0;
}

int pgd_wire_reserve(struct pgd_wire *w, size_t need)
{
    return grow(&w->in, &w->in_cap, need);
}

/* Forgets the decoded answer (not the bytes). */
static void forget(struct pgd_wire *w)
{
    w->need = 0;
    w->ready = w->has_desc = w->nfields = 0;
    w->nrows = 0;
    w->tag = 0;
    w->empty = w->stmt_done = w->copy = w->notified = w->closing = w->has_error = 0;
    w->err_state = w->err_msg = w->err_sev = 0;
    w->bad[0] = 0;
}

void pgd_wire_begin(struct pgd_wire *w)
{
    w->in_len = w->pos = 0;
    forget(w);
}

void pgd_wire_next(struct pgd_wire *w)
{
    if (w->pos > 0 && w->pos < w->in_len)
        memmove(w->in, w->in + w->pos, w->in_len - w->pos);
    w->in_len -= w->pos;
    w->pos = 0;
    forget(w);
}

void pgd_wire_free(struct pgd_wire *w)
{
    free(w->out);
    free(w->in);
    free(w->kinds);
    free(w->rows);
    memset(w, 0, sizeof *w);
}

/* ---- request ----------------------------------------------------------- */

static char *put16(char *p, unsigned v)
{
    p[0] = (char)(v >> 8);
    p[1] = (char)v;
    return p + 2;
}

static char *put32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
    return p + 4;
}

/* Describe portal "", Execute portal "" with no row limit, Sync. */
static const char request_tail[22] = {
    'D', 0, 0, 0, 6, 'P', 0,
    'E', 0, 0, 0, 9, 0, 0, 0, 0, 0,
    'S', 0, 0, 0, 4
};

static int is_null(const struct sbd_value *v)
{
    return v->is_null || v->type == SBD_TYPE_NULL;
}

/* Bytes of a text parameter: up to its first NUL, as libpq's strlen. */
static size_t text_len(const struct sbd_value *v)
{
    if (v->len == 0 || v->s == NULL)
        return 0;
    const char *z = memchr(v->s, 0, v->len);
    return z ? (size_t)(z - v->s) : v->len;
}

int pgd_wire_build(struct pgd_wire *w, const char *stmt,
                   const struct sbd_value *params, int nparams)
{
    if (nparams < 0 || nparams > 65535)
        return -1;
    size_t namelen = strlen(stmt);
    /* 'B' len, portal "", statement, 0 format codes (all text) or one per
     * parameter when one is BYTES (binary), nparams, 1 result format
     * (text, or binary: w->result_binary), then the fixed tail */
    int binary = 0;
    for (int i = 0; i < nparams; i++)
        binary |= params[i].type == SBD_TYPE_BYTES;
    size_t need = 5 + 1 + namelen + 1 + 2 + 2 + 4 + sizeof request_tail;
    if (binary)
        need += 2 * (size_t)nparams;
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        need += 4;
        if (is_null(v))
            continue;
        need += (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
                ? PGD_NUM_MAX : v->len;
    }
    if (need > MSG_MAX || grow(&w->out, &w->out_cap, need) != 0)
        return -1;
    char *p = w->out;
    *p++ = 'B';
    p += 4; /* length, below */
    *p++ = 0;
    memcpy(p, stmt, namelen + 1);
    p += namelen + 1;
    p = put16(p, binary ? (unsigned)nparams : 0);
    for (int i = 0; binary && i < nparams; i++)
        p = put16(p, params[i].type == SBD_TYPE_BYTES);
    p = put16(p, (unsigned)nparams);
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        if (is_null(v)) {
            p = put32(p, 0xffffffffu);
            continue;
        }
        char *lenp = p;
        p += 4;
        size_t n;
        if (v->type == SBD_TYPE_INT) {
            n = sbc_i64_to_text(v->i, p);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            n = pgd_fmt_double(p, v->d);
        } else if (v->type == SBD_TYPE_BYTES) {
            n = v->s != NULL ? v->len : 0; /* binary: NUL bytes too */
            if (n > 0)
                memcpy(p, v->s, n);
        } else {
            n = text_len(v);
            if (n > 0)
                memcpy(p, v->s, n);
        }
        put32(lenp, (uint32_t)n);
        p += n;
    }
    p = put16(p, 1);
    p = put16(p, w->result_binary ? 1 : 0);
    put32(w->out + 1, (uint32_t)(p - w->out - 1));
    memcpy(p, request_tail, sizeof request_tail);
    p += sizeof request_tail;
    w->out_len = (size_t)(p - w->out);
    return 0;
}

int pgd_wire_query_ok(const char *sql, size_t len)
{
    size_t i = 0;
    while (i < len && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r'))
        i++;
    if (len - i >= 3 && (sql[i] | 0x20) == 's' && (sql[i + 1] | 0x20) == 'e' &&
        (sql[i + 2] | 0x20) == 't')
        return 0;
    if (len - i >= 5 && (sql[i] | 0x20) == 'r' && (sql[i + 1] | 0x20) == 'e' &&
        (sql[i + 2] | 0x20) == 's' && (sql[i + 3] | 0x20) == 'e' && (sql[i + 4] | 0x20) == 't')
        return 0;
    return 1;
}

int pgd_wire_build_query(struct pgd_wire *w, const char *sql, size_t len)
{
    const char *z = memchr(sql, 0, len);
    size_t n = z ? (size_t)(z - sql) : len;
    if (n + 6 > MSG_MAX || grow(&w->out, &w->out_cap, n + 6) != 0)
        return -1;
    char *p = w->out;
    *p++ = 'Q';
    p = put32(p, (uint32_t)(4 + n + 1));
    memcpy(p, sql, n);
    p += n;
    *p++ = 0;
    w->out_len = (size_t)(p - w->out);
    return 0;
}

int pgd_wire_build_copy_fail(struct pgd_wire *w, const char *reason, int sync)
{
    size_t n = strlen(reason);
    if (grow(&w->out, &w->out_cap, 5 + n + 1 + 5) != 0)
        return -1;
    char *p = w->out;
    *p++ = 'f';
    p = put32(p, (uint32_t)(4 + n + 1));
    memcpy(p, reason, n + 1);
    p += n + 1;
    if (sync) {
        *p++ = 'S';
        p = put32(p, 4);
    }
    w->out_len = (size_t)(p - w->out);
    return 0;
}

/* ---- answer ------------------------------------------------------------ */

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned get16(const unsigned char *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static int bad(struct pgd_wire *w, const char *what, int type)
{
    if (type >= 0x20 && type < 0x7f)
        snprintf(w->bad, sizeof w->bad, "protocol violation: %s (message '%c')",
                 what, type);
    else
        snprintf(w->bad, sizeof w->bad, "protocol violation: %s (message 0x%02x)",
                 what, type & 0xff);
    return PGD_WIRE_BAD;
}

/* Ensures w->rows / w->kinds hold n entries.  0, or -1. */
static int need_rows(struct pgd_wire *w, int n)
{
    if (n <= w->rows_cap)
        return 0;
    int cap = w->rows_cap ? w->rows_cap * 2 : 64;
    while (cap < n)
        cap *= 2;
    size_t *r = realloc(w->rows, (size_t)cap * sizeof *r);
    if (r == NULL)
        return -1;
    w->rows = r;
    w->rows_cap = cap;
    return 0;
}

static int need_kinds(struct pgd_wire *w, int n)
{
    if (n <= w->kinds_cap)
        return 0;
    unsigned char *k = realloc(w->kinds, (size_t)n);
    if (k == NULL)
        return -1;
    w->kinds = k;
    w->kinds_cap = n;
    return 0;
}

/* Error or notice fields: records the offsets (in `in`) of SQLSTATE,
 * message and severity.  0, or -1 when malformed. */
static int fields(const unsigned char *b, size_t n, size_t off,
                  size_t *state, size_t *msg, size_t *sev)
{
    size_t i = 0, sev_v = 0;
    *state = *msg = *sev = 0;
    while (i < n && b[i] != 0) {
        unsigned char code = b[i++];
        const unsigned char *z = memchr(b + i, 0, n - i);
        if (z == NULL)
            return -1;
        if (code == 'C')
            *state = off + i;
        else if (code == 'M')
            *msg = off + i;
        else if (code == 'S')
            *sev = off + i;
        else if (code == 'V')
            sev_v = off + i;
        i = (size_t)(z - b) + 1;
    }
    if (i + 1 != n) /* the terminator ends the message */
        return -1;
    if (*sev == 0)
        *sev = sev_v;
    return 0;
}

/* RowDescription: column count and type OIDs. */
static int row_description(struct pgd_wire *w, const unsigned char *b, size_t n)
{
    if (w->has_desc || n < 2)
        return bad(w, "bad RowDescription", 'T');
    int nf = (int)get16(b);
    if (nf > 1664 || need_kinds(w, nf) != 0) /* MaxTupleAttributeNumber */
        return bad(w, "too many columns in RowDescription", 'T');
    size_t i = 2;
    for (int f = 0; f < nf; f++) {
        const unsigned char *z = i < n ? memchr(b + i, 0, n - i) : NULL;
        if (z == NULL || (size_t)(z - b) + 1 + 18 > n)
            return bad(w, "truncated RowDescription", 'T');
        i = (size_t)(z - b) + 1;
        /* table OID 4, column number 2, type OID 4, size 2, modifier 4,
         * format 2 */
        w->kinds[f] = (unsigned char)pgd_type_kind(get32(b + i + 6));
        unsigned format = get16(b + i + 16);
        /* binary only for bytea (raw bytes: asked for by a Bind with
         * result_binary, maybe an earlier one of a pipeline) */
        if (format == 1 && w->kinds[f] == SBD_TYPE_BYTES)
            w->kinds[f] |= PGD_KIND_RAW;
        else if (format != 0)
            return bad(w, "a binary column in a text result", 'T');
        i += 18;
    }
    if (i != n)
        return bad(w, "trailing bytes in RowDescription", 'T');
    w->has_desc = 1;
    w->nfields = nf;
    return 0;
}

const char *pgd_wire_field_name(const struct pgd_wire *w, int i)
{
    if (!w->has_desc || i < 0 || i >= w->nfields)
        return NULL;
    const char *name = w->in + w->desc + 2; /* row_description checked the framing */
    for (int f = 0; f < i; f++)
        name += strlen(name) + 1 + 18;
    return name;
}

/* DataRow: checks its framing and keeps the offset of its first field. */
static int data_row(struct pgd_wire *w, const unsigned char *b, size_t n, size_t off)
{
    if (!w->has_desc || n < 2 || (int)get16(b) != w->nfields)
        return bad(w, "DataRow without a matching RowDescription", 'D');
    size_t i = 2;
    for (int f = 0; f < w->nfields; f++) {
        if (n - i < 4)
            return bad(w, "truncated DataRow", 'D');
        uint32_t l = get32(b + i);
        i += 4;
        if (l == 0xffffffffu)
            continue;
        if (l > n - i)
            return bad(w, "truncated DataRow", 'D');
        i += l;
    }
    if (i != n)
        return bad(w, "trailing bytes in DataRow", 'D');
    if (w->nrows == 0x7fffffff || need_rows(w, w->nrows + 1) != 0)
        return bad(w, "out of memory for result rows", 'D');
    w->rows[w->nrows++] = off + 2;
    return 0;
}

/* One complete message: type, body b of n bytes at offset off of `in`.
 * 0 to go on, else a pgd_wire_step. */
static int message(struct pgd_wire *w, int type, const unsigned char *b, size_t n,
                   size_t off)
{
    if (w->ready && type != 'N' && type != 'S' && type != 'A' && type != 'E')
        return bad(w, "message after ReadyForQuery", type);
    if (w->simple && w->stmt_done && (type == 'T' || type == 'C' || type == 'I')) {
        /* the next statement of a simple Query: its result replaces the
         * previous one's, as PQexec keeps the last */
        w->has_desc = w->nfields = 0;
        w->nrows = 0;
        w->tag = 0;
        w->empty = w->stmt_done = 0;
    }
    switch (type) {
    case '2': /* BindComplete */
    case 'n': /* NoData */
        return n == 0 ? 0 : bad(w, "bad length", type);
    case 'T':
        w->desc = off;
        return row_description(w, b, n);
    case 'D':
        return data_row(w, b, n, off);
    case 'C': /* CommandComplete */
        if (n == 0 || b[n - 1] != 0 || w->tag != 0)
            return bad(w, "bad CommandComplete", type);
        w->tag = off;
        w->stmt_done = 1;
        return 0;
    case 'I': /* EmptyQueryResponse */
        if (n != 0)
            return bad(w, "bad length", type);
        w->empty = 1;
        w->stmt_done = 1;
        return 0;
    case 'E': {
        size_t st, msg, sev;
        if (fields(b, n, off, &st, &msg, &sev) != 0)
            return bad(w, "malformed ErrorResponse", type);
        if (w->ready) {
            /* the idle session's FATAL error before the server closes it
             * (terminated backend, idle timeout): not this statement's;
             * reported as a notice, as libpq does */
            w->closing = 1;
            if (w->notice != NULL)
                w->notice(w->notice_arg, sev ? w->in + sev : "FATAL",
                          msg ? w->in + msg : "");
            return 0;
        }
        if (!w->has_error) { /* the first error is the statement's */
            w->has_error = 1;
            w->err_state = st;
            w->err_msg = msg;
            w->err_sev = sev;
        }
        return 0;
    }
    case 'N': {
        size_t st, msg, sev;
        if (fields(b, n, off, &st, &msg, &sev) != 0)
            return bad(w, "malformed NoticeResponse", type);
        if (w->notice != NULL)
            w->notice(w->notice_arg, sev ? w->in + sev : "NOTICE",
                      msg ? w->in + msg : "");
        return 0;
    }
    case 'S': /* ParameterStatus: nothing here depends on one */
        return 0;
    case 'A': /* NotificationResponse: the session runs LISTEN */
        w->notified = 1;
        return 0;
    case 'Z': /* ReadyForQuery */
        if (n != 1)
            return bad(w, "bad length", type);
        w->ready = 1;
        /* pipelined: what follows is the next statement's answer */
        return w->pipelined ? PGD_WIRE_DONE : 0;
    case 'G': /* CopyInResponse */
    case 'W': /* CopyBothResponse */
    case 'H': /* CopyOutResponse */
        if (w->copy)
            return bad(w, "second COPY response", type);
        w->copy = 1;
        return type == 'H' ? 0 : PGD_WIRE_COPY_IN;
    case 'd': /* CopyData */
    case 'c': /* CopyDone */
        return w->copy ? 0 : bad(w, "COPY data outside COPY", type);
    default:
        return bad(w, "unexpected message", type);
    }
}

int pgd_wire_parse(struct pgd_wire *w)
{
    for (;;) {
        size_t avail = w->in_len - w->pos;
        if (avail == 0 && w->ready)
            return PGD_WIRE_DONE;
        if (avail < 5) {
            w->need = w->pos + 5;
            return PGD_WIRE_MORE;
        }
        const unsigned char *m = (const unsigned char *)w->in + w->pos;
        uint32_t len = get32(m + 1);
        if (len < 4 || len > MSG_MAX + 64)
            return bad(w, "bad message length", m[0]);
        if (avail - 1 < len) {
            w->need = w->pos + 1 + len;
            return PGD_WIRE_MORE;
        }
        size_t off = w->pos + 5;
        w->pos += 1 + (size_t)len;
        int r = message(w, m[0], m + 5, len - 4, off);
        if (r != 0)
            return r;
    }
}

/* ---- results ----------------------------------------------------------- */

int64_t pgd_wire_tag_rows(const char *tag)
{
    const char *p;
    if (strncmp(tag, "INSERT ", 7) == 0) {
        p = strchr(tag + 7, ' '); /* skip the oid */
        if (p == NULL)
            return 0;
        p++;
    } else if (strncmp(tag, "SELECT ", 7) == 0 || strncmp(tag, "DELETE ", 7) == 0 ||
               strncmp(tag, "UPDATE ", 7) == 0) {
        p = tag + 7;
    } else if (strncmp(tag, "FETCH ", 6) == 0 || strncmp(tag, "MERGE ", 6) == 0) {
        p = tag + 6;
    } else if (strncmp(tag, "MOVE ", 5) == 0 || strncmp(tag, "COPY ", 5) == 0) {
        p = tag + 5;
    } else {
        return 0;
    }
    /* PQcmdTuples: digits only, at least one, else "" (0) */
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9')
        n++;
    if (n == 0 || p[n] != 0)
        return 0;
    return pgd_parse_int(p, n);
}

void pgd_wire_row(struct pgd_wire *w, int r, struct sbd_value *row)
{
    unsigned char *p = (unsigned char *)w->in + w->rows[r];
    int nf = w->nfields;
    /* all lengths first: the terminators overwrite the next ones */
    for (int f = 0; f < nf; f++) {
        struct sbd_value *v = &row[f];
        uint32_t l = get32(p);
        p += 4;
        sbc_value_text(v, w->kinds[f] & ~PGD_KIND_RAW, l == 0xffffffffu ? NULL : (const char *)p, l);
        if (!v->is_null)
            p += l;
    }
    for (int f = 0; f < nf; f++)
        if (!row[f].is_null)
            ((char *)row[f].s)[row[f].len] = 0;
}
