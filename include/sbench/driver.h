/*
 * sbench driver ABI: the only header a database driver includes.
 *
 * A driver is a shared object (sbench-NAME.so) that exports one symbol,
 * SBD_ENTRY_SYMBOL, returning a pointer to a const struct sbd_driver.  The
 * host (the sbench executable) loads it with dlopen(RTLD_NOW|RTLD_LOCAL),
 * refuses it when abi_major differs from its own, and reads only the members
 * that fit in struct_size, so drivers built against an older minor version
 * keep working after members are appended.  Rules for evolving this file:
 *   - members are only ever appended to the structs below, never reordered;
 *   - appending a member bumps SBD_ABI_MINOR;
 *   - changing the meaning or type of a member bumps SBD_ABI_MAJOR.
 *
 * Threading: every sbd_conn is used by one thread at a time.  Drivers keep
 * no mutable global state except what init/done manage.
 *
 * Memory: the host never frees what a driver allocated and vice versa.  A
 * result's values and an error's message are owned by the connection and
 * stay valid until the next call on that connection.
 */
#ifndef SBENCH_DRIVER_H
#define SBENCH_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBD_ABI_MAJOR 1
#define SBD_ABI_MINOR 8

/* Name of the function every driver exports: const struct sbd_driver *f(void) */
#define SBD_ENTRY_SYMBOL "sbench_driver_entry"
#define SBD_ENTRY sbench_driver_entry

/* A driver that models the server inside sbench's own process (the null
 * driver's model server) names the threads that stand for the server so
 * (prctl PR_SET_NAME, at most 15 characters): sbench compare's probe,
 * which reads /proc/PID/task/TID/comm, counts them as the local server's
 * tasks, not as the client's threads. */
#define SBD_MODEL_SERVER_THREAD "sbench-modelsrv"

#if defined(__GNUC__)
#define SBD_EXPORT __attribute__((visibility("default")))
#else
#define SBD_EXPORT
#endif

/* Outcome of every driver call. */
enum sbd_status {
    SBD_OK = 0,          /* done; for fetch_row: a row was produced */
    SBD_DONE = 1,        /* fetch_row only: no more rows */
    SBD_RETRY = 2,       /* deadlock, lock wait timeout, serialization
                            failure, busy database: the transaction may be
                            rolled back and run again */
    SBD_CONN_LOST = 3,   /* the connection is gone; reconnect to go on */
    SBD_ERROR = 4,       /* any other error (syntax, constraint, ...) */
    SBD_UNSUPPORTED = 5, /* the driver does not implement this call */
    SBD_AGAIN = 6        /* poll_result only (ABI 1.1): the answer is not
                            complete yet; poll the socket and call again */
};

/* Parameter and column types, as seen by workloads (sysbench.sql.type). */
enum sbd_type {
    SBD_TYPE_NULL = 0,
    SBD_TYPE_INT = 1,      /* int64_t in .i (TINYINT..BIGINT) */
    SBD_TYPE_DOUBLE = 2,   /* double in .d (FLOAT, DOUBLE, NUMERIC) */
    SBD_TYPE_STRING = 3,   /* bytes in .s/.len (CHAR, VARCHAR, TEXT, ...) */
    SBD_TYPE_TIME = 4,     /* string form "HH:MM:SS" in .s */
    SBD_TYPE_DATE = 5,     /* string form "YYYY-MM-DD" in .s */
    SBD_TYPE_DATETIME = 6, /* string form "YYYY-MM-DD HH:MM:SS" in .s */
    SBD_TYPE_BYTES = 7     /* ABI 1.3: binary bytes in .s/.len, any byte
                              value (NUL too); sent as binary (bytea,
                              BLOB, SQL_C_BINARY), and a binary column
                              reads back as its raw bytes.  The host
                              never passes it to a driver whose
                              abi_minor is below 3 (it sends STRING) */
};

/* One parameter or column value.  For parameters, .type is the type the
 * statement was prepared with; is_null marks SQL NULL.  For strings, .s is
 * NOT necessarily NUL-terminated: use .len. */
struct sbd_value {
    int type;          /* enum sbd_type */
    int is_null;
    int64_t i;
    double d;
    const char *s;
    size_t len;
};

/* Error details of the last failed call on a connection (or of a failed
 * connect, where the host passes its own struct). */
struct sbd_error {
    int status;              /* enum sbd_status: RETRY, CONN_LOST or ERROR */
    long native_code;        /* server/client error number, 0 if none */
    char sqlstate[6];        /* five characters and NUL, "" if unknown */
    char message[512];       /* one line, no trailing newline, never a
                                password */
};

/* What a query or execute produced.  Filled by the driver. */
struct sbd_result_info {
    int64_t affected_rows;   /* rows changed by DML, -1 if unknown */
    int64_t nrows;           /* rows in the result set, -1 if not known
                                until fetched, 0 if no result set */
    int nfields;             /* columns in the result set, 0 if none */
};

/* Option kinds, for --help and validation by the host. */
enum sbd_option_kind {
    SBD_OPT_STRING = 0,
    SBD_OPT_INT = 1,
    SBD_OPT_BOOL = 2,
    SBD_OPT_SECRET = 3,  /* a password: masked everywhere the host prints */
    SBD_OPT_LIST = 4     /* comma-separated strings */
};

/* An option the driver accepts on the command line: --NAME=VALUE.  Names
 * start with the driver's name ("pgsql-host").  Terminated by name == NULL. */
struct sbd_option {
    const char *name;
    int kind;                 /* enum sbd_option_kind */
    const char *default_value;/* NULL: no default */
    const char *help;
};

/* Log levels for sbd_host.log. */
enum sbd_log_level { SBD_LOG_DEBUG = 0, SBD_LOG_INFO = 1, SBD_LOG_WARN = 2,
                     SBD_LOG_ERROR = 3 };

/* Services the host offers a driver.  Drivers read options only here, never
 * through symbols of the executable.  Later members are appended. */
struct sbd_host {
    size_t struct_size;
    int abi_major, abi_minor;
    /* Value of an option (driver or core) as given or defaulted; NULL if
     * unset and no default.  The string lives as long as the run. */
    const char *(*opt_str)(const char *name);
    /* 1 if the user gave the option (command line or password file),
     * 0 if only its default applies: lets a driver leave a setting to the
     * client library's environment variables (PGHOST, MYSQL_PWD, ...). */
    int (*opt_is_set)(const char *name);
    /* Integer and boolean values; the host validated them at parse time. */
    long long (*opt_int)(const char *name);
    int (*opt_bool)(const char *name);
    /* One line to stderr, prefixed by the driver name; printf format. */
    void (*log)(int level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    /* Connect timeout in seconds (--db-connect-timeout), 0 = none. */
    int connect_timeout;
    /* Query timeout in seconds (--db-query-timeout), 0 = none. */
    int query_timeout;
};

/* Capabilities (sbd_driver.caps). */
#define SBD_CAP_PREPARED        (1u << 0) /* prepare/execute are server-side */
#define SBD_CAP_BULK_LOAD       (1u << 1) /* bulk_begin/row/end implemented */
#define SBD_CAP_BACKSLASH_ESC   (1u << 2) /* string literals treat '\' as an
                                             escape (MySQL), so the host's
                                             literal quoting doubles it */
#define SBD_CAP_NONBLOCKING     (1u << 3) /* socket/send_query/send_execute/
                                             poll_result implemented (ABI 1.1) */
#define SBD_CAP_PIPELINE        (1u << 4) /* pipeline implemented (ABI 1.2) */
#define SBD_CAP_SERVER_COUNTERS (1u << 5) /* server_counters implemented */
#define SBD_CAP_STREAM          (1u << 6) /* query_stream implemented (ABI 1.3) */
#define SBD_CAP_HOST_IO         (1u << 7) /* host_io, io_want, io_done
                                             implemented (ABI 1.4) */
#define SBD_CAP_UNTYPED_PREPARE (1u << 8) /* prepare does not depend on the
                                             parameter types (each execute
                                             sends them): the host prepares
                                             a statement with placeholders
                                             at once, so the server's error
                                             comes at prepare, and keeps it
                                             when the types change */
#define SBD_CAP_SERVER_SAMPLE   (1u << 9) /* server_sample and server_waits
                                             implemented (ABI 1.6) */

/* One step of a statement's I/O that the host does for the driver
 * (io_want): send out[0..out_len) and/or receive up to in_room bytes into
 * in, on fd.  out_len 0: nothing to send; in_room 0: nothing to receive
 * now.  The buffers stay valid and unmoved until io_done reports the step. */
struct sbd_io {
    int fd;
    const void *out;
    size_t out_len;
    void *in;
    size_t in_room;
};

/* What io_done reports. */
enum sbd_io_kind { SBD_IO_SENT = 1, SBD_IO_RECEIVED = 2 };

typedef struct sbd_conn sbd_conn;   /* opaque, defined by each driver */
typedef struct sbd_stmt sbd_stmt;   /* opaque, defined by each driver */

/* Counters read from the server itself, to cross-check sbench's counts.
 * Any member the server cannot tell is -1. */
struct sbd_server_counters {
    int64_t commits;      /* transactions committed (xact_commit, Com_commit) */
    int64_t rollbacks;
    int64_t selects;      /* SELECT statements (Com_select) */
    int64_t inserts, updates, deletes;
    int64_t statements;   /* all statements (Questions), -1 if unknown */
};

/* ABI 1.6: the server's counters of one moment, read on the counters'
 * connection once per reporting window by the host's sampler
 * (core/server_sampler.c), which subtracts two reads.  The host sets
 * struct_size to its sizeof before the call and fills every count with -1;
 * the driver writes only the members that fit in struct_size, and leaves
 * at -1 what the server cannot tell.  Cumulative counts unless marked
 * "now" (a level at the moment of the read).
 * server_sample and server_waits each return within
 * SBD_SAMPLE_TIMEOUT_MS of their call, whatever the server does (a client-
 * side deadline on the counters' connection; past it the connection is
 * dropped and the call fails): a silent server never holds the host's
 * reporting thread longer. */
#define SBD_SAMPLE_TIMEOUT_MS 3000
struct sbd_server_sample {
    size_t struct_size;
    int64_t commits, rollbacks;   /* as server_counters: this connection's own
                                     reads (server_sample, server_waits too)
                                     left out */
    int64_t statements;           /* all statements (Questions), own left out */
    int64_t blks_read, blks_hit;  /* pages read from disk / found in the buffer
                                     pool (Innodb_buffer_pool_reads and
                                     _read_requests) */
    int64_t temp_bytes;           /* written to temporary files */
    int64_t deadlocks, conflicts;
    int64_t rows_read;            /* rows returned and fetched (Innodb_rows_read) */
    int64_t rows_written;         /* rows inserted, updated, deleted */
    int64_t wal_bytes;            /* WAL / redo log written (Innodb_os_log_written) */
    int64_t wal_waits;            /* waits for WAL space or flush (Innodb_log_waits;
                                     PostgreSQL: wal_buffers_full) */
    int64_t checkpoints_timed, checkpoints_req;
    int64_t buffers_written;      /* buffers written by checkpoints, the
                                     background writer and backends
                                     (Innodb_buffer_pool_pages_flushed) */
    int64_t lock_waits;           /* row lock waits (Innodb_row_lock_waits);
                                     PostgreSQL: -1 (see server_waits) */
    int64_t lock_wait_ms;         /* time in row lock waits (Innodb_row_lock_time) */
    int64_t locks_waiting_now;    /* now: lock requests not granted (pg_locks,
                                     Innodb_row_lock_current_waits) */
    int64_t history_length_now;   /* now: undo history not yet purged */
    int64_t wait_events_now;      /* ABI 1.8.  now: 1 when server_waits names the
                                     sessions' wait events (MariaDB/MySQL:
                                     performance_schema's), 0 when only
                                     their states (performance_schema
                                     off), -1 not said */
};

/* ABI 1.6: one wait of an active-session sample: how many of the run's
 * sessions (those of the current database, this connection left out) were
 * active in it at the moment of the read ("CPU" when active and waiting
 * on nothing). */
#define SBD_WAIT_NAME 64
struct sbd_wait {
    char name[SBD_WAIT_NAME];     /* "type:event", NUL-terminated */
    int64_t sessions;
};

/* What opening one connection cost, phase by phase (ABI 1.7), ns; -1: the
 * driver could not see that phase.  tcp: from the start to the socket's
 * connection (DNS and refused hosts included); tls: the TLS handshake, 0
 * on a session without TLS; auth: the rest of the client library's
 * connect (startup message, authentication exchange, the server's session
 * start, up to its first ready-for-query).  Their sum is at most the
 * connection time the host measures around connect. */
struct sbd_connect_phases {
    int64_t tcp_ns, tls_ns, auth_ns;
};

struct sbd_driver {
    /* --- identity; checked by the host before anything else --- */
    size_t struct_size;        /* sizeof(struct sbd_driver) at build time */
    int abi_major, abi_minor;  /* SBD_ABI_MAJOR, SBD_ABI_MINOR */
    const char *name;          /* "pgsql": what --db-driver names */
    const char *description;   /* one line for --help */
    unsigned caps;             /* SBD_CAP_* */
    const struct sbd_option *options; /* NULL-name terminated, may be NULL */

    /* --- process lifetime (optional: NULL means nothing to do) --- */
    /* Required.  Called once after options are parsed, before any thread
     * starts.  The driver keeps `host` (valid for the whole run) to read its
     * options in connect.  Validates the driver's options; on failure fills
     * errbuf with one line and returns SBD_ERROR.  Drivers that accept an
     * "ignore errors" list (--mysql-ignore-errors) report the listed errors
     * as SBD_RETRY: the host restarts the event for every SBD_RETRY and
     * counts it under "ignored errors". */
    int (*init)(const struct sbd_host *host, char *errbuf, size_t errlen);
    void (*done)(void);
    /* Optional.  Called on every worker thread before its first and after
     * its last call (mysql_thread_init and the like). */
    int (*thread_init)(void);
    void (*thread_done)(void);
    /* Client library version, e.g. "libpq 15.18".  Static string. */
    const char *(*client_version)(void);

    /* --- connections (required) --- */
    /* Opens a connection for worker `thread_id` (0-based; drivers may use
     * it to spread hosts round-robin).  On success *out owns the connection
     * until disconnect.  On failure *out is NULL and err is filled. */
    int (*connect)(int thread_id, sbd_conn **out, struct sbd_error *err);
    /* Closes and frees; NULL is a no-op.  Frees the connection's
     * statements that the host did not close. */
    void (*disconnect)(sbd_conn *conn);
    /* Error details of the last failed call on conn.  Owned by conn. */
    const struct sbd_error *(*last_error)(sbd_conn *conn);
    /* SQL dialect the server speaks: "postgresql", "mysql", "sqlite", "db2"
     * or "ansi".  Static string. */
    const char *(*dialect)(sbd_conn *conn);
    /* Server version string, e.g. "PostgreSQL 15.18".  Owned by conn. */
    const char *(*server_version)(sbd_conn *conn);

    /* --- plain queries (required) --- */
    /* Runs one SQL statement of len bytes (not necessarily NUL-terminated)
     * and receives its whole result.  The result set, if any, stays
     * readable with fetch_row until free_result or the next query/execute
     * on this connection. */
    int (*query)(sbd_conn *conn, const char *sql, size_t len,
                 struct sbd_result_info *info);
    /* Next row of the current result: fills row[0..nfields-1] and returns
     * SBD_OK, or SBD_DONE after the last row.  Strings point into memory
     * owned by conn, valid until the next call on conn. */
    int (*fetch_row)(sbd_conn *conn, struct sbd_value *row);
    /* Releases the current result; no-op if none. */
    void (*free_result)(sbd_conn *conn);

    /* --- prepared statements (required; may return SBD_UNSUPPORTED, and
     * the host then emulates them with query) --- */
    /* Prepares sql with nparams '?' placeholders of the given types (enum
     * sbd_type).  The driver translates placeholders to its own syntax.
     * On success *out is owned by conn until close_stmt or disconnect. */
    int (*prepare)(sbd_conn *conn, const char *sql, size_t len, int nparams,
                   const int *param_types, sbd_stmt **out);
    /* Executes with params[0..nparams-1]; like query for the result. */
    int (*execute)(sbd_conn *conn, sbd_stmt *stmt,
                   const struct sbd_value *params, int nparams,
                   struct sbd_result_info *info);
    void (*close_stmt)(sbd_conn *conn, sbd_stmt *stmt);

    /* --- transactions (optional: NULL means the host sends BEGIN,
     * COMMIT and ROLLBACK as queries) --- */
    int (*begin)(sbd_conn *conn);
    int (*commit)(sbd_conn *conn);
    int (*rollback)(sbd_conn *conn);

    /* --- bulk load for prepare (SBD_CAP_BULK_LOAD; else NULL and the host
     * builds multi-row INSERTs) --- */
    /* Starts loading rows into table(columns...).  types[i] is enum
     * sbd_type of column i. */
    int (*bulk_begin)(sbd_conn *conn, const char *table,
                      const char *const *columns, const int *types,
                      int ncolumns);
    /* Adds one row of ncolumns values. */
    int (*bulk_row)(sbd_conn *conn, const struct sbd_value *values);
    /* Flushes and ends the load. */
    int (*bulk_end)(sbd_conn *conn);

    /* --- cross-check (SBD_CAP_SERVER_COUNTERS; else NULL) --- */
    /* Reads the server's own counters for the current database. */
    int (*server_counters)(sbd_conn *conn, struct sbd_server_counters *out);

    /* --- nonblocking statements (ABI 1.1, SBD_CAP_NONBLOCKING; else NULL)
     * Lets one thread drive many connections.  At most one statement is in
     * flight per connection; while it is, the only calls allowed on the
     * connection are socket, poll_result and disconnect.  prepare,
     * close_stmt and the other calls stay blocking. --- */
    /* The file descriptor to poll() while a statement is in flight. */
    int (*socket)(sbd_conn *conn);
    /* Start a query / an execute like query and execute would; SBD_OK
     * means sent (or queued: poll_result flushes the rest), anything else
     * is the error (last_error tells) and nothing is in flight.  The host
     * does not need sql or params to stay valid after the call. */
    int (*send_query)(sbd_conn *conn, const char *sql, size_t len);
    int (*send_execute)(sbd_conn *conn, sbd_stmt *stmt,
                        const struct sbd_value *params, int nparams);
    /* Consumes what the server sent, without blocking.  SBD_AGAIN while
     * the answer is incomplete: poll the socket for reading, and for
     * writing too when *want_write is set on return.  Otherwise the status
     * and info exactly as query/execute would have returned, and the
     * statement is no longer in flight; afterwards fetch_row and
     * free_result work as usual. */
    int (*poll_result)(sbd_conn *conn, struct sbd_result_info *info, int *want_write);

    /* --- pipelining (ABI 1.2, SBD_CAP_PIPELINE with SBD_CAP_NONBLOCKING;
     * else NULL) --- */
    /* pipeline(conn, 1) puts a connection with nothing in flight in
     * pipeline mode: send_query and send_execute may then be called again
     * before earlier answers came, and poll_result returns the answers one
     * at a time, oldest first (SBD_AGAIN until the oldest is complete).
     * Every statement still runs as its own unit, exactly as if it had been
     * sent alone (autocommit, errors, and the statements after a failed
     * one behave as without pipelining).  In pipeline mode only send_*,
     * poll_result, fetch_row, free_result, socket, last_error, pipeline
     * and disconnect may be called.  pipeline(conn, 0) leaves it; nothing
     * may be in flight then.  Returns SBD_OK or an error (last_error). */
    int (*pipeline)(sbd_conn *conn, int on);

    /* --- streamed results (ABI 1.3, SBD_CAP_STREAM; else NULL and the
     * host runs query) --- */
    /* Runs one SQL statement like query, but returns once the result's
     * columns are known: its rows are read from the server as fetch_row
     * asks for them (mysql_use_result, a forward-only cursor), so the
     * first row comes before the last was sent.  info->nrows is -1.  Until
     * fetch_row returned SBD_DONE or an error, or free_result (which reads
     * and drops the rest), the only calls allowed on the connection are
     * fetch_row, free_result, last_error and disconnect. */
    int (*query_stream)(sbd_conn *conn, const char *sql, size_t len,
                        struct sbd_result_info *info);

    /* --- host I/O (ABI 1.4, SBD_CAP_HOST_IO with SBD_CAP_NONBLOCKING;
     * else NULL) ---
     * Lets the host move the bytes of the statements sent with send_query
     * and send_execute itself, so that one thread can hand the sends and
     * receives of all its connections to the kernel in one system call
     * (io_uring).  host_io(conn, 1), called with nothing in flight, puts
     * the connection in that mode (SBD_OK), or refuses (SBD_UNSUPPORTED:
     * the connection works as before).  In it, send_* only build the
     * request, and poll_result only parses what io_done delivered: it
     * returns SBD_AGAIN until the answer is complete, without reading or
     * writing the socket itself.  While a statement is in flight the host
     * asks io_want what to move; io_want returns 1 and fills *io, or 0 when
     * this statement takes the driver's own I/O (plain poll on socket and
     * poll_result, as without host I/O: a statement on the client
     * library's path, a pipeline, a --db-query-timeout deadline).  After
     * each send or receive the host reports its result with io_done:
     * `result` is the byte count, 0 for a receive at the end of the stream,
     * or -errno; then it calls poll_result. */
    int (*host_io)(sbd_conn *conn, int on);
    int (*io_want)(sbd_conn *conn, struct sbd_io *io);
    void (*io_done)(sbd_conn *conn, enum sbd_io_kind kind, long result);

    /* --- column names (ABI 1.5; else NULL) --- */
    /* The name the server gave column i (0-based) of the current result,
     * NUL-terminated, or NULL when i is out of range or the name is not
     * known.  Owned by the connection, valid until its next call (this one
     * too: copy a name before asking the next); asked before fetch_row
     * returned SBD_DONE (a driver may drop the names with the last row).  Only called when a workload asks (rs:field_name),
     * never per statement. */
    const char *(*field_name)(sbd_conn *conn, int i);
    /* --- the server's evidence (ABI 1.6, SBD_CAP_SERVER_SAMPLE; else NULL)
     * Called by the host's sampler on the connection that reads
     * server_counters, never on a worker's. --- */
    /* The counters of this moment (struct sbd_server_sample). */
    int (*server_sample)(sbd_conn *conn, struct sbd_server_sample *out);
    /* One active-session sample: at most max waits into out, how many
     * into *n. */
    int (*server_waits)(sbd_conn *conn, struct sbd_wait *out, int max, int *n);

    /* --- connection phases (ABI 1.7; else NULL) --- */
    /* The phases of the connection's own opening (see struct
     * sbd_connect_phases), asked once right after connect succeeded. */
    void (*connect_phases)(sbd_conn *conn, struct sbd_connect_phases *out);
};

/* The entry point every driver defines:
 *   SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void) { return &drv; }
 * It must not fail or allocate. */
typedef const struct sbd_driver *(*sbd_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* SBENCH_DRIVER_H */
