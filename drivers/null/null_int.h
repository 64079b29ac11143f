/*
 * null driver internals shared by its five files: null.c (the plugin:
 * options, connections, blocking and streamed calls), null_server.c (the
 * "server" every call talks to: what a statement is, its answer,
 * transactions, injected failures, the process-wide counters),
 * null_async.c (nonblocking and pipelined calls: answers queued in order,
 * ready after --null-delay-us, signalled on a timerfd), null_hostio.c
 * (host I/O: the host moves requests and answers through a socketpair)
 * and null_hostsrv.c (the server's thread on the socketpairs' far ends).
 */
#ifndef SBENCH_NULL_INT_H
#define SBENCH_NULL_INT_H

#include <sbench/driver.h>

#include <stdatomic.h>
#include <stdint.h>

/* What a statement is, from its first word (decided once per prepared
 * statement, per call for text). */
enum null_kind {
    NK_OTHER = 0, NK_SELECT, NK_INSERT, NK_UPDATE, NK_DELETE,
    NK_BEGIN, NK_COMMIT, NK_ROLLBACK,
    NK_EMPTY,        /* nothing but blanks: answered with no result */
    NK_SYNTAX        /* does not start with a word: a syntax error */
};

/* A statement as the server sees it. */
struct null_sql {
    int kind;        /* enum null_kind */
    int literal;     /* SELECT of one integer literal: answers that number */
    int64_t value;   /* the literal */
};

/* How an answer failed (the message is written when it is delivered). */
enum null_fail {
    NF_NONE = 0,
    NF_INJECTED,     /* --null-fail-every: status from --null-fail-status */
    NF_ABORTED,      /* a statement in a transaction that failed earlier */
    NF_SYNTAX,       /* NK_SYNTAX */
    NF_LOST          /* the connection was lost before this statement */
};

/* One answer: what query/execute or poll_result returns for a statement. */
struct null_answer {
    int64_t ready_ns;        /* CLOCK_MONOTONIC time it is complete */
    int status;              /* enum sbd_status */
    int fail;                /* enum null_fail */
    int64_t seq;             /* the statement's number on its connection */
    int64_t rows;            /* rows of its result set */
    int64_t first_value;     /* value of the first row */
    struct sbd_result_info info;
};

enum null_txn { NT_NONE = 0, NT_OPEN, NT_ABORTED };

/* Host I/O (null_hostio.c): the statement whose bytes the host moves. */
/* The host I/O's states (null_hostio.c). */
enum { HIO_IDLE = 0, HIO_SEND, HIO_RECV, HIO_FAILED };

struct null_hio {
    int on;                  /* host_io(conn, 1) accepted */
    int fd[2];               /* socketpair: the host's end, the server's */
    int state;               /* idle, sending, receiving, failed */
    int err;                 /* errno of the host's failed step */
    struct null_sql req;     /* the request: the statement, as sent */
    size_t sent;             /* bytes of req the host sent */
    struct null_answer kept; /* the server's answer, as it wrote it */
    struct null_answer ans;  /* the answer as the host received it */
    size_t got;              /* bytes of ans received */
    int64_t stmts;           /* statements sent on host I/O */
    int64_t sent_early;      /* ... whose send the host reported done
                                before their answer was written */
    /* the server thread's side (null_hostsrv.c) */
    int slot;                /* its slot in the server's table, -1: none */
    struct null_sql srv_req; /* the request as it reads it */
    size_t srv_got;          /* bytes of srv_req read */
    int srv_err;             /* why it shut its end on a request, 0: it
                                did not, or for a lost connection */
    _Atomic int answered;    /* the request in flight is answered (or
                                its end shut) */
};

struct sbd_conn {
    struct sbd_error err;
    int fd;                  /* readable when the oldest answer in flight
                                is ready: a timerfd with --null-delay-us,
                                else an eventfd; -1 when none */
    int64_t armed_ns;        /* timerfd: the time it is armed for, 0 when
                                disarmed; eventfd: 1 while readable */
    int pipeline;            /* pipeline mode on */
    int lost;                /* an injected loss happened: all calls fail */
    int txn;                 /* enum null_txn */
    int64_t seq;             /* statements received */
    int64_t eligible;        /* statements counted by --null-fail-every */
    int64_t last_ready_ns;   /* ready time of the latest answer */
    /* answers in flight, oldest at head; grown (doubled) when full */
    struct null_answer *q;
    int qcap, qhead, qn;
    /* the current result, read by fetch_row */
    int64_t rows_left;
    int64_t next_value;
    int streaming;           /* query_stream's result is being read */
    struct sbd_stmt *stmts;  /* prepared statements not closed yet */
    struct null_hio hio;
};

struct sbd_stmt {
    struct null_sql sql;
    struct sbd_stmt *next;          /* the connection's statements, freed
                                       with it (driver.h: owned by conn
                                       until close_stmt or disconnect) */
};

/* --- null_server.c --- */

/* Options read at init (host kept for logging). */
struct null_config {
    const struct sbd_host *host;
    long long rows;          /* --null-rows */
    long long delay_ns;      /* --null-delay-us, in ns */
    char server_version[64]; /* "null", or what SBENCH_NULL_SERVER_DELAY_US made it */
    int slots;               /* --null-slots: shared server slots, 0 = one per connection */
    long long fail_every;    /* --null-fail-every, 0 = never */
    int fail_status;         /* SBD_RETRY, SBD_ERROR or SBD_CONN_LOST */
};
extern struct null_config null_cfg;
#define NULL_MAX_SLOTS 4096

/* Reads and checks the --null-* options into null_cfg.  SBD_OK, or
 * SBD_ERROR with one line in errbuf. */
int null_config_read(const struct sbd_host *h, char *errbuf, size_t errlen);

/* What sql is (len bytes, not necessarily NUL-terminated). */
struct null_sql null_parse(const char *sql, size_t len);

/* The server runs one statement received on c and fills *a (all but
 * ready_ns): the answer, the transaction state and the counters change
 * here, once per statement, whether it is read blocking or later. */
void null_serve(sbd_conn *c, const struct null_sql *s, struct null_answer *a);

/* The answer's result becomes c's current result; for a failed one, c->err
 * is filled.  Returns a->status. */
int null_deliver(sbd_conn *c, const struct null_answer *a, struct sbd_result_info *info);

/* The connection ends (disconnect): an open transaction is rolled back. */
void null_end_session(sbd_conn *c);

/* Fills c->err for a call the ABI does not allow now (SQLSTATE HY010, as
 * ODBC's "function sequence error") and returns SBD_ERROR. */
int null_misuse(sbd_conn *c, const char *what);

/* Process-wide counts of the statements answered (server_counters). */
int null_server_counters(sbd_conn *c, struct sbd_server_counters *out);

/* --- null_async.c --- */

/* Creates c->fd.  SBD_OK, or SBD_ERROR with err filled. */
int null_async_open(sbd_conn *c, struct sbd_error *err);
/* Closes c->fd and frees the queue. */
void null_async_close(sbd_conn *c);
/* When the next answer of c is ready: max(now, previous answer) + delay. */
int64_t null_next_ready(sbd_conn *c);
/* Sleeps until the CLOCK_MONOTONIC time t (no-op when delay is 0). */
void null_wait_until(int64_t t);

int null_socket(sbd_conn *c);
int null_send_query(sbd_conn *c, const char *sql, size_t len);
int null_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *p, int n);
int null_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write);
int null_pipeline(sbd_conn *c, int on);

/* --- null_hostio.c --- */

void null_hio_init(sbd_conn *c);     /* at connect: no socketpair yet */
void null_hio_close(sbd_conn *c);    /* at disconnect */
/* 1 while a statement is on the host's I/O (here, not in null_hostio.c:
 * the model server's counters ask it too, and null_hostio.c calls the
 * server, so a call the other way would make a circle). */
static inline int null_hio_busy(const sbd_conn *c)
{
    return c->hio.state != HIO_IDLE;
}
/* 1 when the next send goes on the host's I/O. */
int null_hio_takes(const sbd_conn *c);
/* The send of s on the host's I/O: the request is built, not sent. */
int null_hio_send(sbd_conn *c, const struct null_sql *s);
/* poll_result for a statement on the host's I/O. */
int null_hio_poll(sbd_conn *c, struct sbd_result_info *info);
int null_host_io(sbd_conn *c, int on);
/* --- null_hostsrv.c --- */

/* The server thread serves c's end (fd[1]), the thread started the first
 * time: 0, or -1 when it cannot (no thread or descriptor left). */
int null_hsrv_add(sbd_conn *c);
/* The server no longer serves c; both ends of its pair are closed. */
void null_hsrv_remove(sbd_conn *c);
/* The driver's done: the thread ends. */
void null_hsrv_stop(void);

int null_io_want(sbd_conn *c, struct sbd_io *io);
void null_io_done(sbd_conn *c, enum sbd_io_kind kind, long result);

#endif
