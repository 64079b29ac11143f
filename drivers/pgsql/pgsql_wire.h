/*
 * pgsql driver: the wire-protocol fast path's message layer, with no libpq
 * and no I/O (pgsql_wire_proto.c), so that a unit test can drive it with
 * hand-built bytes.  It encodes the request PQsendQueryPrepared sends for a
 * prepared statement (Bind, Describe portal, Execute, Sync) and decodes the
 * answer up to ReadyForQuery into offsets in its receive buffer.  The
 * socket side and the driver glue are in pgsql_wire.c.
 */
#ifndef SBENCH_PGSQL_WIRE_H
#define SBENCH_PGSQL_WIRE_H

#include <sbench/driver.h>

#include <stddef.h>
#include <stdint.h>

/* What pgd_wire_parse found. */
enum pgd_wire_step {
    PGD_WIRE_MORE = 0,    /* need more bytes: at least w->need in w->in */
    PGD_WIRE_DONE = 1,    /* ReadyForQuery seen, every byte parsed */
    PGD_WIRE_BAD = 2,     /* protocol violation; w->bad says what */
    PGD_WIRE_COPY_IN = 3  /* the server waits for COPY data: send
                             pgd_wire_build_copy_fail's bytes, parse on */
};

/* One connection's buffers and the decoded answer.  Zero-initialised is a
 * valid empty state; buffers only grow and are freed by pgd_wire_free. */
struct pgd_wire {
    /* request (pgd_wire_build) */
    char *out;
    size_t out_len, out_cap;

    /* answer: bytes received so far, parsed up to pos */
    char *in;
    size_t in_len, in_cap;
    size_t pos;             /* start of the first unparsed message */
    size_t need;            /* PGD_WIRE_MORE: total bytes needed in `in` */

    /* decoded answer (offsets into `in`, stable when it grows) */
    int ready;              /* ReadyForQuery seen */
    int has_desc;           /* RowDescription seen: a result set */
    size_t desc;            /* its body's offset in `in` (the column names) */
    int nfields;
    unsigned char *kinds;   /* per column: enum sbd_type (pgd_type_kind) */
    int kinds_cap;
    size_t *rows;           /* per DataRow: offset of its first field */
    int nrows, rows_cap;
    size_t tag;             /* CommandComplete's tag, 0 if none */
    int empty;              /* EmptyQueryResponse seen */
    int stmt_done;          /* CommandComplete or EmptyQueryResponse seen */
    int copy;               /* CopyIn/Out/BothResponse seen */
    int notified;           /* NotificationResponse seen (LISTEN) */
    int closing;            /* ErrorResponse after ReadyForQuery: the
                               server is closing the connection */
    size_t err_state, err_msg, err_sev; /* ErrorResponse fields, 0 if none */
    int has_error;
    char bad[120];          /* PGD_WIRE_BAD: what was wrong */

    /* how to parse (set by the caller, kept by pgd_wire_begin/next):
     * simple: the answer to a simple Query, which may hold several
     * statements' results: the last one is kept, as PQexec does;
     * pipelined: more answers may follow this one in `in`: DONE right
     * after its ReadyForQuery, the rest stays for pgd_wire_next */
    int simple;
    int pipelined;
    /* pgd_wire_build asks for results in binary format (one format code,
     * 1, for every column): only for a statement whose every result
     * column is bytea (pgsql_stmt.c's result_binary), whose raw bytes
     * then travel instead of their hex text, half the bytes */
    int result_binary;

    /* NoticeResponse: called with the severity and message (NUL-terminated,
     * valid during the call); NULL to ignore notices. */
    void (*notice)(void *arg, const char *severity, const char *message);
    void *notice_arg;
};

/* Writes Bind (unnamed portal, statement stmt, all parameters in text,
 * NULL as length -1, text results or with w->result_binary binary ones),
 * Describe portal, Execute (no row
 * limit) and Sync into w->out, exactly as libpq's PQsendQueryPrepared with
 * text parameters does (a text parameter ends at its first NUL byte, as
 * libpq's strlen has it).  0, or -1 when out of memory or the message
 * would exceed the protocol's 1 GB. */
int pgd_wire_build(struct pgd_wire *w, const char *stmt,
                   const struct sbd_value *params, int nparams);

/* In kinds[]: the column came in binary format (a bytea's raw bytes), to
 * be taken as they are, not decoded from hex text. */
#define PGD_KIND_RAW 0x80

/* Whether the plain query sql may take the fast path: not SET or RESET
 * (ParameterStatus messages, which libpq would record and the fast path
 * reads and drops, mostly follow those). */
int pgd_wire_query_ok(const char *sql, size_t len);

/* Writes Query(sql) into w->out: the simple-protocol message PQexec
 * sends (the text ends at its first NUL byte, as libpq's strlen has it).
 * 0, or -1 when out of memory or over the protocol's 1 GB. */
int pgd_wire_build_query(struct pgd_wire *w, const char *sql, size_t len);

/* Writes CopyFail(reason), and Sync when `sync`, into w->out, replacing
 * its contents: how libpq's PQputCopyEnd leaves COPY IN, with the Sync
 * after an extended-protocol statement and without it after a simple
 * Query (where a Sync would earn a second ReadyForQuery).  0, or -1 when
 * out of memory. */
int pgd_wire_build_copy_fail(struct pgd_wire *w, const char *reason, int sync);

/* Forgets the previous answer before a new request (keeps the buffers). */
void pgd_wire_begin(struct pgd_wire *w);

/* Pipelined: forgets the answer just parsed and moves the bytes after it
 * (the next answers' beginning) to the front of w->in. */
void pgd_wire_next(struct pgd_wire *w);

/* Makes room for `need` bytes in w->in.  0, or -1 when out of memory. */
int pgd_wire_reserve(struct pgd_wire *w, size_t need);

/* Parses the complete messages in w->in[pos..in_len).  After ReadyForQuery,
 * what the server may send an idle session (NoticeResponse,
 * ParameterStatus, NotificationResponse, a FATAL ErrorResponse before it
 * closes the connection) is still accepted, so DONE means "the answer is
 * complete and w->in ends at a message boundary". */
int pgd_wire_parse(struct pgd_wire *w);

/* PQcmdTuples' count from a CommandComplete tag ("INSERT 0 5" -> 5,
 * "UPDATE 3" -> 3, "CREATE TABLE" -> 0). */
int64_t pgd_wire_tag_rows(const char *tag);

/* The name of column i of the answer's RowDescription (NUL-terminated,
 * in `in`), or NULL when there is none or i is out of range. */
const char *pgd_wire_field_name(const struct pgd_wire *w, int i);

/* Fills row[0..nfields) from DataRow `r` of the answer: type (the
 * column's kind), is_null, s and len; i and d are 0 (numbers are the
 * caller's: pgd_convert_value).  Strings point into w->in and are
 * NUL-terminated there, as libpq's values are (each terminator overwrites
 * a length or message-type byte already decoded), valid until
 * pgd_wire_begin. */
void pgd_wire_row(struct pgd_wire *w, int r, struct sbd_value *row);

/* Frees the buffers; the struct is then zero again. */
void pgd_wire_free(struct pgd_wire *w);

#endif /* SBENCH_PGSQL_WIRE_H */
