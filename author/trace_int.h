/*
 * The trace's insides, shared by its files: a traced connection and
 * statement (trace_driver.c), one record of a statement and the sink that
 * prints it (trace_out.c).  Private to author/.
 */
#ifndef SB_AUTHOR_TRACE_INT_H
#define SB_AUTHOR_TRACE_INT_H

#include <stdint.h>
#include <stdio.h>
#include <sbench/driver.h>

/* What a record is. */
enum trace_what {
    TRACE_QUERY = 0,   /* a text sent as it is */
    TRACE_EXECUTE,     /* a prepared statement run with its values */
    TRACE_PREPARE,     /* a statement prepared on the server */
    TRACE_BEGIN,       /* the driver's own transaction calls */
    TRACE_COMMIT,
    TRACE_ROLLBACK,
    TRACE_CLOSE        /* a prepared statement closed on the server */
};

/* A statement prepared through the trace: the driver's, its text and its
 * number on the connection (what the trace names it by). */
struct trace_stmt {
    sbd_stmt *in;
    int no;
    size_t len;
    char sql[];
};

/* One statement as sent and answered. */
struct trace_rec {
    enum trace_what what;
    const char *sql;           /* the text (NULL for the driver's own verbs) */
    size_t len;
    int stmt_no;               /* TRACE_EXECUTE, TRACE_PREPARE: its number */
    const struct sbd_value *params;
    int nparams;
    const char *note;          /* why the trace sent it itself, or NULL */
    int status;                /* enum sbd_status */
    struct sbd_result_info info;
    int64_t fetched;           /* rows fetched by the workload */
    int64_t latency_ns;
    const struct sbd_error *err; /* when status is not SBD_OK */
};

/* The sink: text to `text` (may be NULL), JSON lines to `json` (may be
 * NULL), each record written whole under one lock. */
void trace_out_open(FILE *text, FILE *json);
/* Writes the record of a statement of connection conn_no of thread tid. */
void trace_out_stmt(int tid, int conn_no, uint64_t seq, const struct trace_rec *r);
/* Writes the failure policy's decision about a failed event attempt. */
void trace_out_decision(int tid, const char *sqlstate, long native, int status, const char *decision,
                        int retries);
/* Grows *p to at least need bytes (doubling); 0, or -1 when out of memory
 * (*p stays valid). */
int trace_grow(void **p, size_t *cap, size_t need);
/* 0, or -1 when a write to the JSON file failed. */
int trace_out_close(void);

#endif
