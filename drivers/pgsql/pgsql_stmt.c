/*
 * pgsql driver: statements through libpq.  Plain queries and result
 * fetching, server-side prepared statements, and the server's own
 * transaction counters.  Nonblocking statements and pipelines are in
 * pgsql_async.c, the wire-protocol fast path in pgsql_wire.c.
 *
 * Hot path (query, execute, fetch_row): no allocation by this file and no
 * printf-style formatting; buffers live on the connection or statement and
 * only grow.  libpq itself allocates each PGresult.
 */
#include "pgsql_int.h"
#include "../common/buf.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* int8's type OID, from PostgreSQL's pg_type.dat. */
enum { OID_BYTEA = 17, OID_INT8 = 20 };

/* ---- results ----------------------------------------------------------- */

void pgd_clear_result(sbd_conn *c)
{
    if (c->res != NULL) {
        PQclear(c->res);
        c->res = NULL;
    }
    c->wire_res = 0;
    c->nrows = c->nfields = c->row = 0;
}

void pgd_copy_abort(sbd_conn *c, const char *reason)
{
    /* While in COPY state, PQgetResult reports that state again. */
    PGresult *r = PQgetResult(c->pg);
    ExecStatusType st = PQresultStatus(r);
    PQclear(r);
    if (st == PGRES_COPY_OUT) {
        char *buf;
        while (PQgetCopyData(c->pg, &buf, 0) > 0)
            PQfreemem(buf);
    } else if (st == PGRES_COPY_IN || st == PGRES_COPY_BOTH) {
        PQputCopyEnd(c->pg, reason);
    }
    while ((r = PQgetResult(c->pg)) != NULL)
        PQclear(r);
    c->in_copy = 0;
}

static int64_t cmd_tuples(PGresult *res)
{
    const char *t = PQcmdTuples(res);
    return pgd_parse_int(t, strlen(t));
}

/* Takes ownership of res (from PQexec/PQexecPrepared) and fills info. */
int pgd_take_result(sbd_conn *c, PGresult *res, struct sbd_result_info *info)
{
    struct sbd_result_info dummy;
    info = pgd_info_none(info, &dummy);
    switch (PQresultStatus(res)) {
    case PGRES_TUPLES_OK: {
        int nf = PQnfields(res);
        if (nf > c->kinds_cap) {
            unsigned char *k = realloc(c->kinds, (size_t)nf);
            if (k == NULL) {
                PQclear(res);
                return pgd_fail(c, "out of memory for result columns");
            }
            c->kinds = k;
            c->kinds_cap = nf;
        }
        for (int i = 0; i < nf; i++) /* binary: only a bytea's raw bytes (result_binary) */
            c->kinds[i] = (unsigned char)(PQfformat(res, i) == 1 ? SBD_TYPE_BYTES | PGD_KIND_RAW
                                                                   : pgd_type_kind(PQftype(res, i)));
        c->res = res;
        c->nrows = PQntuples(res);
        c->nfields = nf;
        c->row = 0;
        /* A statement that returns rows changes (RETURNING) as many as it
         * returns: its command tag's count (SELECT n, INSERT 0 n, FETCH n,
         * ...) is the number of rows.  Taken from there, not parsed out of
         * PQcmdTuples (a third of this function's cost per statement). */
        info->affected_rows = c->nrows;
        info->nrows = c->nrows;
        info->nfields = nf;
        return SBD_OK;
    }
    case PGRES_COMMAND_OK:
        info->affected_rows = cmd_tuples(res);
        PQclear(res);
        return SBD_OK;
    case PGRES_EMPTY_QUERY:
        PQclear(res);
        return SBD_OK;
    case PGRES_COPY_IN:
    case PGRES_COPY_OUT:
    case PGRES_COPY_BOTH:
        PQclear(res);
        pgd_copy_abort(c, PGD_COPY_REASON);
        return pgd_fail(c, PGD_COPY_MSG);
    default: {
        int st = pgd_error(c, res);
        PQclear(res);
        return st;
    }
    }
}

/* Copies the len bytes of sql, NUL-terminated, into c->sql (libpq wants
 * C strings); the buffer only grows.  0, or -1 when out of memory. */
int pgd_copy_sql(sbd_conn *c, const char *sql, size_t len)
{
    char *p = sbc_grow(c->sql, &c->sql_cap, len + 1, 1, 256);
    if (p == NULL)
        return -1;
    c->sql = p;
    memcpy(c->sql, sql, len);
    c->sql[len] = 0;
    return 0;
}

/* What query and execute check on every transport; SBD_OK or the
 * failure's status. */
static int stmt_start(sbd_conn *c)
{
    pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    if (c->in_flight)
        return pgd_fail(c, "a statement is already in flight on this connection");
    return SBD_OK;
}

int pgd_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    int rc = stmt_start(c);
    return rc != SBD_OK ? rc : c->tp->query(c, sql, len, info);
}

int pgd_pq_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    pgd_sock_blocking(c, 0);
    if (pgd_copy_sql(c, sql, len) != 0)
        return pgd_fail(c, "out of memory for query text");
    return pgd_take_result(c, pgd_pq_exec(c, c->sql), info);
}

/* fetch_row for a fast-path result (pgsql_wire.c keeps its rows). */
static int wire_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->row >= c->nrows)
        return SBD_DONE;
    pgd_wire_row(&c->wire, c->row++, row);
    for (int i = 0; i < c->nfields; i++)
        if (!row[i].is_null && !(c->wire.kinds[i] & PGD_KIND_RAW))
            pgd_convert_value(&row[i]);
    return SBD_OK;
}

int pgd_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->wire_res)
        return wire_fetch_row(c, row);
    if (c->res == NULL || c->row >= c->nrows)
        return SBD_DONE;
    int r = c->row++;
    for (int i = 0; i < c->nfields; i++) {
        struct sbd_value *v = &row[i];
        const char *t = PQgetisnull(c->res, r, i) ? NULL : PQgetvalue(c->res, r, i);
        sbc_value_text(v, c->kinds[i] & ~PGD_KIND_RAW, t, (size_t)PQgetlength(c->res, r, i));
        if (!v->is_null && !(c->kinds[i] & PGD_KIND_RAW))
            pgd_convert_value(v);
    }
    return SBD_OK;
}

void pgd_free_result(sbd_conn *c) { pgd_clear_result(c); }

const char *pgd_field_name(sbd_conn *c, int i)
{
    if (i < 0 || i >= c->nfields)
        return NULL;
    if (c->wire_res)
        return pgd_wire_field_name(&c->wire, i);
    return c->res ? PQfname(c->res, i) : NULL;
}

/* ---- prepared statements ----------------------------------------------- */

void pgd_free_stmt(struct sbd_stmt *s)
{
    if (s == NULL)
        return;
    free(s->types);
    free(s->values);
    free(s->buf);
    free(s->lengths);
    free(s->formats);
    free(s);
}

/* Copies sql to dst (when not NULL) with every '?' outside string
 * literals, quoted identifiers, dollar quotes and comments replaced by $1,
 * $2, ...  Returns the number of placeholders; *outlen gets the length. */
static int translate(const char *sql, size_t len, char *dst, size_t *outlen)
{
    size_t i = 0, o = 0;
    int nph = 0;
#define PUT(x) do { char put_ = (x); if (dst) dst[o] = put_; o++; } while (0)
    while (i < len) {
        char ch = sql[i];
        int ident_before = i > 0 && (isalnum((unsigned char)sql[i - 1]) ||
                                     sql[i - 1] == '_' || sql[i - 1] == '$');
        if (ch == '\'') {
            /* E'..' strings take backslash escapes */
            int esc = i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
                      !(i > 1 && (isalnum((unsigned char)sql[i - 2]) || sql[i - 2] == '_'));
            PUT(sql[i++]);
            while (i < len && sql[i] != '\'') {
                if (esc && sql[i] == '\\' && i + 1 < len)
                    PUT(sql[i++]);
                PUT(sql[i++]);
            }
            if (i < len)
                PUT(sql[i++]);
        } else if (ch == '"') {
            PUT(sql[i++]);
            while (i < len && sql[i] != '"')
                PUT(sql[i++]);
            if (i < len)
                PUT(sql[i++]);
        } else if (ch == '-' && i + 1 < len && sql[i + 1] == '-') {
            while (i < len && sql[i] != '\n')
                PUT(sql[i++]);
        } else if (ch == '/' && i + 1 < len && sql[i + 1] == '*') {
            int depth = 0;
            do {
                if (sql[i] == '/' && i + 1 < len && sql[i + 1] == '*') {
                    depth++;
                    PUT(sql[i++]);
                } else if (sql[i] == '*' && i + 1 < len && sql[i + 1] == '/') {
                    depth--;
                    PUT(sql[i++]);
                }
                PUT(sql[i++]);
            } while (i < len && depth > 0);
        } else if (ch == '$' && !ident_before) {
            /* $tag$ ... $tag$ (tag may be empty); $1 is left alone */
            size_t t = i + 1;
            while (t < len && (isalnum((unsigned char)sql[t]) || sql[t] == '_') &&
                   !(t == i + 1 && isdigit((unsigned char)sql[t])))
                t++;
            if (t < len && sql[t] == '$') {
                size_t taglen = t + 1 - i, end = t + 1;
                while (end + taglen <= len && memcmp(sql + end, sql + i, taglen) != 0)
                    end++;
                end = end + taglen <= len ? end + taglen : len;
                while (i < end)
                    PUT(sql[i++]);
            } else {
                PUT(sql[i++]);
            }
        } else if (ch == '?') {
            char num[12];
            size_t nn = sbc_i64_to_text(++nph, num);
            PUT('$');
            for (size_t k = 0; k < nn; k++)
                PUT(num[k]);
            i++;
        } else {
            PUT(sql[i++]);
        }
    }
#undef PUT
    *outlen = o;
    return nph;
}

/* Parameter type OIDs for PQprepare.  INT is declared int8 so that `? + 1`
 * and `SELECT ?` have a type, and `int4col = $1::int8` still uses the
 * index (int4/int8 share a btree operator family).  Everything else is
 * left to the server to infer from context (0): declaring text or float8
 * would turn `charcol = $1` or `numericcol = $1` into a cast of the column
 * and lose its index. */
static Oid param_oid(int type)
{
    return type == SBD_TYPE_INT ? OID_INT8 : type == SBD_TYPE_BYTES ? OID_BYTEA : 0;
}

/* Lengths and formats for a statement with a BYTES parameter (binary
 * format; the others stay text); 0, or -1 out of memory. */
static int binary_formats(struct sbd_stmt *s)
{
    int any = 0;
    for (int i = 0; i < s->nparams; i++)
        any |= s->types[i] == SBD_TYPE_BYTES;
    if (!any)
        return 0;
    s->lengths = calloc((size_t)s->nparams, sizeof *s->lengths);
    s->formats = calloc((size_t)s->nparams, sizeof *s->formats);
    if (s->lengths == NULL || s->formats == NULL)
        return -1;
    for (int i = 0; i < s->nparams; i++)
        s->formats[i] = s->types[i] == SBD_TYPE_BYTES;
    return 0;
}

int pgd_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                         const int *types, sbd_stmt **out)
{
    *out = NULL;
    int rc = stmt_start(c);
    if (rc != SBD_OK)
        return rc;
    pgd_sock_blocking(c, 0);
    if (nparams < 0 || (nparams > 0 && types == NULL))
        return pgd_fail(c, "prepare: bad parameter list");
    size_t tlen;
    int nph = translate(sql, len, NULL, &tlen);
    if (nph != nparams) {
        char msg[120];
        snprintf(msg, sizeof msg, "prepare: the statement has %d '?' placeholders "
                 "but %d parameter types were given", nph, nparams);
        return pgd_fail(c, msg);
    }
    struct sbd_stmt *s = calloc(1, sizeof *s);
    char *text = malloc(tlen + 1);
    Oid *oids = malloc(sizeof *oids * (size_t)(nparams + 1));
    if (s != NULL) {
        s->nparams = nparams;
        s->types = malloc(sizeof *s->types * (size_t)(nparams + 1));
        s->values = calloc((size_t)nparams + 1, sizeof *s->values);
        s->bufcap = (size_t)nparams * (PGD_NUM_MAX + 1) + 256;
        s->buf = malloc(s->bufcap);
    }
    if (s == NULL || text == NULL || oids == NULL || s->types == NULL ||
        s->values == NULL || s->buf == NULL) {
        pgd_free_stmt(s);
        free(text);
        free(oids);
        return pgd_fail(c, "out of memory for a prepared statement");
    }
    translate(sql, len, text, &tlen);
    text[tlen] = 0;
    for (int i = 0; i < nparams; i++) {
        s->types[i] = types[i];
        oids[i] = param_oid(types[i]);
    }
    if (binary_formats(s) != 0) {
        pgd_free_stmt(s);
        free(text);
        free(oids);
        return pgd_fail(c, "out of memory for a prepared statement");
    }
    memcpy(s->name, "sbench_", 7);
    sbc_u64_to_text(++c->next_stmt_id, s->name + 7);

    pgd_pq_deadline(c);
    PGresult *res = pgd_pq_last(c, PQsendPrepare(c->pg, s->name, text, nparams, oids));
    free(text);
    free(oids);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        int st = pgd_error(c, res);
        PQclear(res);
        pgd_free_stmt(s);
        return st;
    }
    PQclear(res);
    s->next = c->stmts;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

/* Writes the text form of params into s->values (NULL for SQL NULL). */
int pgd_fill_params(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                       int nparams)
{
    if (nparams != s->nparams)
        return pgd_fail(c, "execute: parameter count differs from prepare");
    size_t need = 0;
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        if (v->is_null || v->type == SBD_TYPE_NULL || s->types[i] == SBD_TYPE_BYTES)
            continue;
        need += (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
                ? PGD_NUM_MAX + 1 : v->len + 1;
    }
    if (need > s->bufcap) {
        size_t cap = s->bufcap * 2 > need ? s->bufcap * 2 : need;
        char *b = realloc(s->buf, cap);
        if (b == NULL)
            return pgd_fail(c, "out of memory for parameters");
        s->buf = b;
        s->bufcap = cap;
    }
    /* Text-format parameters are NUL-terminated (libpq ignores lengths for
     * them), so every value is copied into the statement's buffer. */
    char *p = s->buf;
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            s->values[i] = NULL;
            continue;
        }
        if (s->types[i] == SBD_TYPE_BYTES) { /* binary format: as it is */
            s->values[i] = v->s != NULL ? v->s : "";
            s->lengths[i] = (int)v->len;
            continue;
        }
        s->values[i] = p;
        if (v->type == SBD_TYPE_INT) {
            p += sbc_i64_to_text(v->i, p);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            p += pgd_fmt_double(p, v->d);
        } else if (v->len > 0) {
            memcpy(p, v->s, v->len);
            p += v->len;
        }
        *p++ = 0;
    }
    return SBD_OK;
}

/* PQexecPrepared less its PQexecStart, which discards results an
 * application left unread (this driver reads every result to the end):
 * sends, then reads the results to the end and returns the last, as
 * PQexecFinish does.  NULL when the send failed.  In pipeline mode, where
 * a send adds no Sync and a blocking read would wait forever, it is
 * PQexecPrepared itself, which refuses with a message. */
static PGresult *exec_prepared(sbd_conn *c, sbd_stmt *s, int nparams)
{
#ifdef LIBPQ_HAS_PIPELINING
    if (PQpipelineStatus(c->pg) != PQ_PIPELINE_OFF)
        return PQexecPrepared(c->pg, s->name, nparams, s->values, s->lengths, s->formats,
                              s->result_binary);
#endif
    pgd_pq_deadline(c);
    return pgd_pq_last(c, PQsendQueryPrepared(c->pg, s->name, nparams, s->values, s->lengths,
                                              s->formats, s->result_binary));
}

void pgd_learn_columns(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL || s->described)
        return;
    s->described = 1;
    const unsigned char *k = c->wire_res ? c->wire.kinds : c->kinds;
    int all = (c->wire_res || (c->res != NULL && PQresultStatus(c->res) == PGRES_TUPLES_OK)) &&
              c->nfields > 0;
    for (int i = 0; all && i < c->nfields; i++)
        all = (k[i] & ~PGD_KIND_RAW) == SBD_TYPE_BYTES;
    s->result_binary = all;
}

int pgd_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams,
                struct sbd_result_info *info)
{
    int rc = stmt_start(c);
    if (rc != SBD_OK)
        return rc;
    if (nparams != s->nparams)
        return pgd_fail(c, "execute: parameter count differs from prepare");
    rc = c->tp->execute(c, s, params, nparams, info);
    if (rc == SBD_OK && !s->described)
        pgd_learn_columns(c, s);
    return rc;
}

int pgd_pq_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams,
                   struct sbd_result_info *info)
{
    pgd_sock_blocking(c, 0);
    int rc = pgd_fill_params(c, s, params, nparams);
    if (rc != SBD_OK)
        return rc;
    return pgd_take_result(c, exec_prepared(c, s, nparams), info);
}

void pgd_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    for (struct sbd_stmt **pp = &c->stmts; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    /* Free the server side too.  In a failed transaction DEALLOCATE fails
     * and the statement lingers until disconnect: harmless. */
    if (!c->in_copy && !c->wire_flight && PQstatus(c->pg) == CONNECTION_OK) {
        char sql[48];
        pgd_sock_blocking(c, 0);
        memcpy(sql, "DEALLOCATE ", 11);
        memcpy(sql + 11, s->name, strlen(s->name) + 1);
        PQclear(pgd_pq_exec(c, sql));
    }
    pgd_free_stmt(s);
}

/* ---- server counters --------------------------------------------------- */

/* Transactions committed and rolled back in the current database, from
 * pg_stat_database.  Since PostgreSQL 15 each backend keeps its counts in
 * local memory and flushes them to shared memory when it goes idle, at most
 * once a second (and within ~10 s when it stays idle), so other sessions'
 * latest transactions may be missing for about a second: read the counters
 * after the workers have stopped and a short pause.  This session's own
 * counts are flushed first with pg_stat_force_next_flush() (PG 15+), and
 * pg_stat_clear_snapshot() makes sure a cached snapshot is not reused.
 * The queries run here count as transactions themselves. */
int pgd_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    int rc = stmt_start(c);
    if (rc != SBD_OK)
        return rc;
    pgd_sock_blocking(c, 0);
    PGresult *res;
    int flush = PQserverVersion(c->pg) >= 150000;
    if (flush && c->counter_reads == 0) {
        /* flush this session's start-up transactions before the first
         * read, so that every read sees them */
        res = pgd_pq_exec(c, "SELECT pg_stat_force_next_flush()");
        PQclear(res);
    }
    /* one simple-protocol message: one transaction per read, flushed
     * (forced) as it ends */
    res = pgd_pq_exec(c, flush ? "SELECT pg_stat_force_next_flush(); SELECT pg_stat_clear_snapshot(); "
                                "SELECT xact_commit, xact_rollback FROM pg_stat_database "
                                "WHERE datname = current_database()"
                              : "SELECT pg_stat_clear_snapshot(); "
                                "SELECT xact_commit, xact_rollback FROM pg_stat_database "
                                "WHERE datname = current_database()");
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
        PQnfields(res) != 2) {
        int st = PQresultStatus(res) == PGRES_TUPLES_OK
                 ? pgd_fail(c, "pg_stat_database has no row for this database")
                 : pgd_error(c, res);
        PQclear(res);
        return st;
    }
    /* each earlier read on this connection is one committed transaction
     * that the server counted: leave them out, so the difference of two
     * reads on one connection is exactly the other sessions' work */
    out->commits = pgd_parse_int(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0)) -
                   c->counter_reads;
    out->rollbacks = pgd_parse_int(PQgetvalue(res, 0, 1), (size_t)PQgetlength(res, 0, 1));
    c->counter_reads++;
    out->selects = out->inserts = out->updates = out->deletes = -1;
    out->statements = -1;
    PQclear(res);
    return SBD_OK;
}
