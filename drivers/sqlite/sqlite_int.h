/*
 * sqlite driver internals shared by its files (sqlite.c lists them): the
 * settings, the connection and statement structs, and each file's
 * functions the others call.  Not part of the ABI; only the driver's files
 * include it.
 */
#ifndef SBENCH_SQLITE_INT_H
#define SBENCH_SQLITE_INT_H

#include <sbench/driver.h>

#include "../common/link.h"

#include <sqlite3.h>

#include <stddef.h>
#include <stdint.h>

/* Entries of a connection's cache of statements run as text. */
#define SQLITE_DRV_CACHE_SIZE 64

/* Settings read once by sqlite_init (sqlite.c); read-only while threads
 * run. */
struct sqlite_settings {
    const struct sbd_host *host;
    const char *db_path;
    const char *journal_mode;
    const char *synchronous;
    int busy_timeout_ms;
    const char *begin_sql;
    int begin_auto;         /* --sqlite-begin=auto */
    char version[64];
};
extern struct sqlite_settings sqlite_cfg;

struct sbd_stmt {
    struct sbc_link link;  /* first: in the connection's open statements */
    sqlite3_stmt *st;
    int nparams;
    int is_begin;          /* a bare BEGIN: runs what begin_stmt chooses */
    char *strbuf;          /* copies of string parameters, bound STATIC */
    size_t strcap;
};
/* the connection's list holds links: a link is its statement */
_Static_assert(offsetof(struct sbd_stmt, link) == 0, "link must come first");

struct sqlite_cache_entry {
    uint64_t hash;
    uint64_t last_used;    /* 0: slot empty */
    char *sql;             /* key bytes, buffer reused across evictions */
    size_t len, cap;
    sqlite3_stmt *st;
};

enum { CUR_NONE, CUR_ROW_PENDING, CUR_ROW_READ };

struct sbd_conn {
    sqlite3 *db;
    struct sbd_error err;

    /* current result */
    sqlite3_stmt *cur;
    int cur_state;
    int cur_owned;         /* finalize (not just reset) when finished */
    int cur_ncols;

    struct sqlite_cache_entry cache[SQLITE_DRV_CACHE_SIZE];
    uint64_t tick;

    sqlite3_stmt *st_begin, *st_commit, *st_rollback;
    sqlite3_stmt *st_begin_immediate;   /* --sqlite-begin=auto, once it wrote */
    sqlite3_int64 changes_at_begin;     /* sqlite3_total_changes64 at the last BEGIN */
    int lock_lost;                      /* a statement since then was refused a lock */
    struct sbc_link *stmts;   /* prepared by the host (sbd_stmt's link), freed at
                                 disconnect */

    /* bulk load */
    sqlite3_stmt *bulk;
    int bulk_ncols;
    int bulk_own_txn;
    int bulk_failed;
    long bulk_rows;
};

/* --- sqlite_errors.c --- */

/* The sbd status of SQLite result code rc: SBD_RETRY for BUSY and LOCKED,
 * else SBD_ERROR. */
int sqlite_status_of(int rc);
/* Records error rc of the last SQLite call on c; returns the sbd status. */
int sqlite_error(sbd_conn *c, int rc);
/* Records an error found by the driver itself (not by SQLite); returns
 * SBD_ERROR. */
int sqlite_driver_error(sbd_conn *c, const char *msg);

/* --- sqlite_conn.c --- */

/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int sqlite_connect(int thread_id, sbd_conn **out, struct sbd_error *err);
void sqlite_disconnect(sbd_conn *c);
const struct sbd_error *sqlite_last_error(sbd_conn *c);
const char *sqlite_dialect(sbd_conn *c);
const char *sqlite_server_version(sbd_conn *c);

/* --- sqlite_cache.c --- */

/* FNV-1a of the len bytes at s: the cache's key. */
uint64_t sqlite_hash_bytes(const char *s, size_t len);
/* The cached statement for sql (len bytes, hash h), owned by the cache;
 * NULL when not cached. */
sqlite3_stmt *sqlite_cache_lookup(sbd_conn *c, const char *sql, size_t len,
                                  uint64_t h);
/* Puts st in the cache, evicting the least recently used entry: 1 and
 * the cache owns st, or 0 on memory shortage and the caller owns st. */
int sqlite_cache_insert(sbd_conn *c, const char *sql, size_t len, uint64_t h,
                        sqlite3_stmt *st);

/* --- sqlite_types.c --- */

/* Fills row[0..ncols) from st's current row; strings point into SQLite's
 * row memory, valid until st is stepped or reset. */
void sqlite_fill_row(sqlite3_stmt *st, int ncols, struct sbd_value *row);
/* The name of column i of the current result (sqlite3_column_name), or NULL. */
const char *sqlite_field_name(sbd_conn *c, int i);
/* Whether values of sbench type `type` are bound from .s/.len (as text;
 * BYTES as a blob). */
int sqlite_is_text_type(int type);
/* Binds values[0..n-1] to st; see sqlite_types.c for strings and buf. */
int sqlite_bind_values(sbd_conn *c, sqlite3_stmt *st, const struct sbd_value *v,
                       int n, char *buf);

/* --- sqlite_stmt.c --- */

/* Ends the current result, if any. */
void sqlite_finish_current(sbd_conn *c);
/* Finalizes and frees s; s must be off the connection's list. */
void sqlite_stmt_free(sbd_stmt *s);
/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int sqlite_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int sqlite_fetch_row(sbd_conn *c, struct sbd_value *row);
void sqlite_free_result(sbd_conn *c);
int sqlite_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                   const int *param_types, sbd_stmt **out);
int sqlite_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                   int nparams, struct sbd_result_info *info);
void sqlite_close_stmt(sbd_conn *c, sbd_stmt *s);
int sqlite_begin(sbd_conn *c);
int sqlite_commit(sbd_conn *c);
int sqlite_rollback(sbd_conn *c);

/* --- sqlite_bulk.c --- */

/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int sqlite_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                      const int *types, int ncolumns);
int sqlite_bulk_row(sbd_conn *c, const struct sbd_value *values);
int sqlite_bulk_end(sbd_conn *c);

#endif /* SBENCH_SQLITE_INT_H */
