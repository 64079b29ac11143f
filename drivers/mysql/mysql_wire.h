/*
 * mysql driver: the client/server protocol fast path's message layer, with
 * no Connector/C and no I/O (mysql_wire_proto.c: requests and answers;
 * mysql_wire_row.c: column types and row values), so that a unit test can
 * drive it with hand-built bytes.  It encodes COM_STMT_EXECUTE for a
 * prepared statement id with the caller's parameter values and COM_QUERY,
 * and decodes the answer (OK, ERR, or a result set in the binary or text
 * protocol up to its final EOF/OK) into offsets in its receive buffer.  The
 * socket side and the driver glue are in mysql_wire.c.
 *
 * Framing: every packet is a 3-byte little-endian payload length and a
 * sequence id; a payload of 0xffffff bytes continues in the next packet.
 * The parser joins such pieces in place (the continuation headers are cut
 * out of the buffer) so that every logical packet is contiguous.
 */
#ifndef SBENCH_MYSQL_WIRE_H
#define SBENCH_MYSQL_WIRE_H

#include <sbench/driver.h>

#include <stddef.h>
#include <stdint.h>

/* Column types of the protocol (enum_field_types), as sent on the wire. */
enum {
    MYD_T_DECIMAL = 0, MYD_T_TINY = 1, MYD_T_SHORT = 2, MYD_T_LONG = 3,
    MYD_T_FLOAT = 4, MYD_T_DOUBLE = 5, MYD_T_NULL = 6, MYD_T_TIMESTAMP = 7,
    MYD_T_LONGLONG = 8, MYD_T_INT24 = 9, MYD_T_DATE = 10, MYD_T_TIME = 11,
    MYD_T_DATETIME = 12, MYD_T_YEAR = 13, MYD_T_NEWDATE = 14, MYD_T_VARCHAR = 15,
    MYD_T_BIT = 16, MYD_T_JSON = 245, MYD_T_NEWDECIMAL = 246, MYD_T_ENUM = 247,
    MYD_T_SET = 248, MYD_T_TINY_BLOB = 249, MYD_T_MEDIUM_BLOB = 250,
    MYD_T_LONG_BLOB = 251, MYD_T_BLOB = 252, MYD_T_VAR_STRING = 253,
    MYD_T_STRING = 254, MYD_T_GEOMETRY = 255
};

#define MYD_WIRE_UNSIGNED_FLAG 0x20           /* column flag */
#define MYD_WIRE_STATUS_MORE_RESULTS 0x0008   /* server status flag */

/* What myd_wire_parse found. */
enum myd_wire_step {
    MYD_WIRE_MORE = 0,    /* need more bytes: at least w->need in w->in */
    MYD_WIRE_DONE = 1,    /* the answer is complete, every byte of it parsed */
    MYD_WIRE_BAD = 2      /* protocol violation; w->bad says what */
};

/* Kind of the (first) result of an answer. */
enum { MYD_WIRE_RES_NONE = 0, MYD_WIRE_RES_OK, MYD_WIRE_RES_ERR, MYD_WIRE_RES_ROWS };

/* One result column: what decoding a value needs. */
struct myd_col {
    unsigned char type;     /* MYD_T_* */
    unsigned short flags;   /* column flags (MYD_WIRE_UNSIGNED_FLAG) */
    unsigned char decimals; /* the definition's other fixed fields, which */
    unsigned short charset; /* the caller may copy into Connector/C's view */
    uint32_t length;
};

/* One connection's buffers and the decoded answer.  Zero-initialised is a
 * valid empty state; buffers only grow and are freed by myd_wire_free. */
struct myd_wire {
    /* negotiated capabilities, set by the caller once per connection */
    int deprecate_eof;      /* CLIENT_DEPRECATE_EOF: OK (0xfe) ends rows,
                               no EOF after the column definitions */

    /* request (myd_wire_build_execute / myd_wire_build_query), framed */
    unsigned char *out;
    size_t out_len, out_cap;
    unsigned char next_seq; /* sequence id the answer starts with */

    /* answer: bytes received so far, parsed up to pos */
    unsigned char *in;
    size_t in_len, in_cap;
    size_t pos;             /* start of the first unparsed packet */
    size_t need;            /* MYD_WIRE_MORE: total bytes needed in `in` */
    unsigned char seq;      /* sequence id of the next packet */
    int state;              /* parser state (mysql_wire_proto.c) */
    int binary;             /* rows in the binary protocol (execute) */
    int skip;               /* in a further result (MORE_RESULTS): parsed,
                               not recorded */
    int col;                /* column definitions read so far */

    /* caller's columns for an answer that leaves the metadata out
     * (MARIADB_CLIENT_CACHE_METADATA): set by myd_wire_begin */
    const struct myd_col *known;
    int nknown;

    /* decoded answer: the first result (offsets into `in`, stable when it
     * grows or continuation headers are cut out of later bytes) */
    int kind;               /* MYD_WIRE_RES_* */
    uint64_t affected_rows, insert_id;
    unsigned status;        /* server status of the last OK/EOF */
    unsigned warnings;
    int meta_sent;          /* MYD_WIRE_RES_ROWS: column definitions were sent */
    int ncols;
    struct myd_col *cols;    /* ncols each */
    int cols_cap;
    size_t *rows;           /* per row: offset and length of its payload */
    int nrows, rows_cap;
    unsigned err_code;      /* MYD_WIRE_RES_ERR */
    char err_state[6];
    size_t err_msg, err_msg_len;
    char bad[120];          /* MYD_WIRE_BAD: what was wrong */

    /* text of integers fetched into string bindings (myd_wire_row) */
    char *conv;
    size_t conv_cap;
};

/* Little-endian integers of the protocol at p. */
static inline uint32_t myd_u16le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static inline uint32_t myd_u24le(const unsigned char *p)
{
    return myd_u16le(p) | (uint32_t)p[2] << 16;
}
static inline uint32_t myd_u32le(const unsigned char *p)
{
    return myd_u24le(p) | (uint32_t)p[3] << 24;
}
static inline uint64_t myd_u64le(const unsigned char *p)
{
    return (uint64_t)myd_u32le(p) | (uint64_t)myd_u32le(p + 4) << 32;
}

/* Reads a length-encoded integer at p[0..n): its byte count (1, 3, 4 or
 * 9), or 0 when it does not fit or starts with a byte that is no integer
 * (0xfb NULL, 0xff). */
size_t myd_wire_lenenc(const unsigned char *p, size_t n, uint64_t *v);

/* Skips a length-encoded string at p[0..n): bytes it takes, or 0 when it
 * does not fit. */
size_t myd_wire_skip_lenstr(const unsigned char *p, size_t n);

/* enum sbd_type the driver gives a column of MYD_T_* type t (int, double,
 * date/time, null or string), as myd_column_type does. */
int myd_wire_type_kind(int t);

/* Whether the fast path serves statements with a result column of type t
 * as prepared (the driver then binds it as an integer, a double or a
 * string): integers, DOUBLE, DECIMAL, NULL and string types (not FLOAT,
 * dates and times, BIT, GEOMETRY, whose conversions it does not repeat). */
int myd_wire_type_handled(int t);

/* Writes COM_STMT_EXECUTE for statement `stmt_id` with params[0..n):
 * no cursor, one iteration, new-params-bound with each value's type
 * (INT as LONGLONG, DOUBLE, NULL, everything else as STRING, a NULL
 * string pointer sending ""), NULL bitmap from is_null or type NULL.
 * 0, or -1 when out of memory or over 1 GB. */
int myd_wire_build_execute(struct myd_wire *w, uint32_t stmt_id,
                     const struct sbd_value *params, int n);

/* Writes COM_QUERY with sql[0..len).  0, or -1 as above. */
int myd_wire_build_query(struct myd_wire *w, const char *sql, size_t len);

/* Forgets the previous answer before a new request (keeps the buffers);
 * `binary` for an execute, whose answer may leave out the metadata of
 * `known[0..nknown)` (the statement's columns, caller's storage, read
 * until the next myd_wire_begin). */
void myd_wire_begin(struct myd_wire *w, int binary, const struct myd_col *known,
              int nknown);

/* Makes room for `need` bytes in w->in (one more byte is always kept for
 * the string terminators of myd_wire_row).  0, or -1 when out of memory. */
int myd_wire_reserve(struct myd_wire *w, size_t need);

/* Parses the complete packets in w->in[pos..in_len).  DONE means the
 * answer, with any further results a MORE_RESULTS status announced, is
 * complete and w->in holds nothing after it (a byte after it is BAD: the
 * server sends nothing unasked that could follow an answer). */
int myd_wire_parse(struct myd_wire *w);

/* Whether a binary value of wire type t can be fetched into the binding
 * of prepared column `bind` exactly as Connector/C converts it (the wire
 * type may differ from the prepared one: an expression's type can depend
 * on the parameters): integers, DOUBLE, DECIMAL and strings into an
 * integer, a double or a string binding, except DOUBLE into a string. */
int myd_wire_convertible(int t, const struct myd_col *bind);

/* Makes room in w->conv for the text of integer values fetched into
 * string bindings (24 bytes a column).  0, or -1 when out of memory. */
int myd_wire_conv_reserve(struct myd_wire *w);

/* Fills row[0..ncols) from binary row `r` of the answer as the driver's
 * Connector/C path reports it: bind[i] is column i as prepared (its kind
 * and UNSIGNED flag are the driver's binding).  Integers are sign- or
 * zero-extended as the wire column's flag says, a BIGINT UNSIGNED above
 * INT64_MAX in an integer binding becomes a DOUBLE, DECIMAL and strings
 * become numbers through strtod/strtoll of their first 254 bytes, integers
 * become decimal text in w->conv.  Strings point into w->in and are
 * NUL-terminated there (each terminator overwrites a byte already decoded,
 * so a row is decoded once), valid until myd_wire_begin.  The values are
 * checked here, not when the answer is parsed (rows nobody fetches cost
 * only their framing).  0; MYD_WIRE_ROW_TYPE when a value is not
 * myd_wire_convertible; MYD_WIRE_ROW_BAD when the row does not hold exactly its
 * values (a protocol violation).  The caller reports either as an error. */
enum { MYD_WIRE_ROW_TYPE = -1, MYD_WIRE_ROW_BAD = -2 };
int myd_wire_row(struct myd_wire *w, int r, const struct myd_col *bind, struct sbd_value *row);

/* Frees the buffers; the struct is then zero again. */
void myd_wire_free(struct myd_wire *w);

#endif /* SBENCH_MYSQL_WIRE_H */
