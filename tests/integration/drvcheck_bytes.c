/*
 * drvcheck: the ABI 1.3 additions against a real database.  SBD_TYPE_BYTES:
 * a value holding every byte value (NUL, quotes, backslash, bytes >= 0x80)
 * written through a prepared BYTES parameter, compared on the server with
 * the same bytes sent as a hex literal, and read back byte for byte through
 * a prepared statement and a plain query.  query_stream (SBD_CAP_STREAM):
 * drvcheck_t's rows read as they arrive, counted, then the connection used
 * again, and a stream freed half way.
 */
#include "drvcheck.h"

#include <stdio.h>
#include <string.h>

enum { NBYTES = 3 * 256 + 77 };

/* The binary column type and the hex literal's form of each dialect. */
static const char *blob_type(const char *dialect)
{
    if (strcmp(dialect, "postgresql") == 0)
        return "BYTEA";
    if (strcmp(dialect, "mysql") == 0)
        return "LONGBLOB";
    if (strcmp(dialect, "db2") == 0)
        return "BLOB(1M)";
    return "BLOB";
}

/* "SELECT COUNT(*) FROM drvcheck_b WHERE id = 1 AND b = <bytes as hex>". */
static void same_bytes_sql(const char *dialect, const unsigned char *b, size_t n, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    int pg = strcmp(dialect, "postgresql") == 0;
    char *p = out + sprintf(out, "SELECT COUNT(*) FROM drvcheck_b WHERE id = 1 AND b = %s",
                            pg ? "'\\x" : "X'");
    for (size_t i = 0; i < n; i++) {
        *p++ = hex[b[i] >> 4];
        *p++ = hex[b[i] & 15];
    }
    strcpy(p, pg ? "'::bytea" : "'");
}

static void expect_bytes(sbd_conn *c, const unsigned char *want, const char *what)
{
    struct sbd_value row[1];
    CHECK(drv->fetch_row(c, row) == SBD_OK, c, what);
    CHECK(!row[0].is_null && row[0].len == NBYTES && memcmp(row[0].s, want, NBYTES) == 0, c,
          what);
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, what);
    drv->free_result(c);
}

static void check_bytes(sbd_conn *c)
{
    struct sbd_result_info info;
    const char *dialect = drv->dialect(c);
    char sql[2 * NBYTES + 200];
    unsigned char data[NBYTES];
    for (int i = 0; i < NBYTES; i++)
        data[i] = (unsigned char)(i < 256 ? i : (i * 131 + 7) % 256);
    drv->query(c, "DROP TABLE drvcheck_b", 21, &info);
    snprintf(sql, sizeof sql, "CREATE TABLE drvcheck_b (id INTEGER NOT NULL PRIMARY KEY, b %s)",
             blob_type(dialect));
    run(c, sql, &info);

    const char *ins = "INSERT INTO drvcheck_b (id, b) VALUES (?, ?)";
    int types[] = {SBD_TYPE_INT, SBD_TYPE_BYTES};
    sbd_stmt *st = NULL;
    int rc = drv->prepare(c, ins, strlen(ins), 2, types, &st);
    if (rc == SBD_UNSUPPORTED) {
        printf("drvcheck: prepare unsupported: BYTES parameters not checked\n");
        run(c, "DROP TABLE drvcheck_b", &info);
        return;
    }
    CHECK(rc == SBD_OK, c, "prepare with a BYTES parameter");
    struct sbd_value v[2] = {{.type = SBD_TYPE_INT, .i = 1},
                             {.type = SBD_TYPE_BYTES, .s = (const char *)data, .len = NBYTES}};
    CHECK(drv->execute(c, st, v, 2, &info) == SBD_OK && info.affected_rows == 1, c,
          "insert a BYTES parameter");
    drv->close_stmt(c, st);

    same_bytes_sql(dialect, data, NBYTES, sql);
    CHECK(query_int(c, sql) == 1, c, "the server stores the BYTES as sent (= its hex literal)");

    const char *sel = "SELECT b FROM drvcheck_b WHERE id = ?";
    int stypes[] = {SBD_TYPE_INT};
    CHECK(drv->prepare(c, sel, strlen(sel), 1, stypes, &st) == SBD_OK, c, "prepare select b");
    CHECK(drv->execute(c, st, v, 1, &info) == SBD_OK, c, "select b");
    expect_bytes(c, data, "binary column read back by a prepared statement");
    drv->close_stmt(c, st);
    run(c, "SELECT b FROM drvcheck_b WHERE id = 1", &info);
    expect_bytes(c, data, "binary column read back by a query");
    run(c, "DROP TABLE drvcheck_b", &info);
    printf("drvcheck: BYTES: %d bytes of every byte value stored and read back\n", NBYTES);
}

static void check_stream(sbd_conn *c, int64_t nrows)
{
    struct sbd_result_info info;
    struct sbd_value row[2];
    const char *sql = "SELECT id, c FROM drvcheck_t ORDER BY id";
    CHECK(drv->query_stream(c, sql, strlen(sql), &info) == SBD_OK, c, "query_stream");
    CHECK(info.nfields == 2 && info.nrows == -1, c, "query_stream: 2 columns, rows not known");
    int64_t n = 0, last = 0, ordered = 1;
    int rc;
    while ((rc = drv->fetch_row(c, row)) == SBD_OK) {
        int64_t id = value_int(&row[0]);
        ordered &= id > last;
        last = id;
        n++;
    }
    CHECK(rc == SBD_DONE && n == nrows && ordered, c, "query_stream: every row, in order");
    drv->free_result(c);
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == nrows, c,
          "connection usable after a stream");
    CHECK(drv->query_stream(c, sql, strlen(sql), &info) == SBD_OK, c, "query_stream again");
    CHECK(drv->fetch_row(c, row) == SBD_OK, c, "query_stream: a first row");
    drv->free_result(c); /* the rest read and dropped */
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == nrows, c,
          "connection usable after a stream freed half way");
    printf("drvcheck: query_stream: %lld rows\n", (long long)n);
}

void check_abi_1_3(sbd_conn *c)
{
    if (drv->abi_minor < 3)
        return;
    check_bytes(c);
    if ((drv->caps & SBD_CAP_STREAM) && drv->query_stream != NULL)
        check_stream(c, query_int(c, "SELECT COUNT(*) FROM drvcheck_t"));
}
