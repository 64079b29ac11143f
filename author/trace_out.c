/*
 * The trace's sink: one statement's record (or one decision of the
 * failure policy) written as a line of text for the author and as a JSON
 * line for tools (--trace-output), each written whole under one lock, so
 * that the lines of threads never mix.  A trace is not a measured run:
 * formatting and a lock per statement are what it is for.
 */
#include "trace_int.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static FILE *out_text, *out_json;
static int json_failed;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* A line being built; on out of memory it stops growing (and says so). */
struct line {
    char *s;
    size_t len, cap;
    int oom;
};

int trace_grow(void **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static void add(struct line *l, const char *p, size_t n)
{
    if (l->oom || trace_grow((void **)&l->s, &l->cap, l->len + n + 1) != 0) {
        l->oom = 1;
        return;
    }
    memcpy(l->s + l->len, p, n);
    l->len += n;
    l->s[l->len] = 0;
}

static void addf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct line *l, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        add(l, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Bytes as a quoted string: in JSON (escaped), or for a reader (control
 * bytes as \xNN, quotes doubled as SQL writes them). */
static void add_quoted(struct line *l, const char *s, size_t n, int json)
{
    add(l, json ? "\"" : "'", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (json && (ch == '"' || ch == '\\'))
            addf(l, "\\%c", ch);
        else if (!json && ch == '\'')
            add(l, "''", 2);
        else if (ch < 0x20 || ch == 0x7f || (json && ch >= 0x80))
            addf(l, json ? "\\u%04x" : "\\x%02x", ch);
        else
            add(l, (const char *)&ch, 1);
    }
    add(l, json ? "\"" : "'", 1);
}

static const char *const type_names[] = {"null", "int", "double", "string",
                                         "time", "date", "datetime", "bytes"};

static const char *type_name(int t)
{
    return t >= 0 && t < (int)(sizeof type_names / sizeof type_names[0]) ? type_names[t] : "unknown";
}

/* One bound value: its type and value. */
static void add_value(struct line *l, const struct sbd_value *v, int json)
{
    if (json)
        addf(l, "{\"type\":\"%s\",\"value\":", type_name(v->type));
    else
        addf(l, "%s ", type_name(v->type));
    if (v->is_null || v->type == SBD_TYPE_NULL)
        add(l, json ? "null" : "NULL", 4);
    else if (v->type == SBD_TYPE_INT)
        addf(l, "%" PRId64, v->i);
    else if (v->type == SBD_TYPE_DOUBLE)
        addf(l, "%.17g", v->d);
    else if (v->type == SBD_TYPE_BYTES) {
        add(l, json ? "\"" : "x'", json ? 1 : 2);
        for (size_t i = 0; i < v->len; i++)
            addf(l, "%02x", (unsigned char)v->s[i]);
        add(l, json ? "\"" : "'", 1);
    } else
        add_quoted(l, v->s ? v->s : "", v->s ? v->len : 0, json);
    if (json)
        add(l, "}", 1);
}

static const char *const what_names[] = {"query", "execute", "prepare", "begin", "commit", "rollback",
                                         "close"};

static const char *status_name(int st)
{
    switch (st) {
    case SBD_OK: return "ok";
    case SBD_RETRY: return "retry";
    case SBD_CONN_LOST: return "connection lost";
    case SBD_UNSUPPORTED: return "unsupported";
    default: return "error";
    }
}

/* The rows of the result: the driver's count, or those the workload read
 * when the driver counts only as rows are read; -1 when neither knows
 * (the workload read none of them). */
static int64_t rows_of(const struct trace_rec *r)
{
    return r->info.nrows >= 0 ? r->info.nrows : r->fetched > 0 ? r->fetched : -1;
}

/* The text line: [thread T conn C] LATENCY ms  WHAT ... -> ANSWER */
static void text_line(struct line *l, int tid, int conn_no, const struct trace_rec *r)
{
    addf(l, "[thread %d conn %d] %9.3f ms  ", tid, conn_no, (double)r->latency_ns / 1e6);
    if (r->what == TRACE_EXECUTE || r->what == TRACE_PREPARE || r->what == TRACE_CLOSE)
        addf(l, "%s s%d%s", r->what == TRACE_EXECUTE ? "EXECUTE" : r->what == TRACE_PREPARE ? "PREPARE" : "CLOSE",
             r->stmt_no, r->what == TRACE_CLOSE ? "" : " ");
    else if (r->what != TRACE_QUERY)
        add(l, r->what == TRACE_BEGIN ? "BEGIN" : r->what == TRACE_COMMIT ? "COMMIT" : "ROLLBACK",
            r->what == TRACE_COMMIT ? 6 : r->what == TRACE_BEGIN ? 5 : 8);
    if (r->sql != NULL)
        add(l, r->sql, r->len);
    for (int i = 0; i < r->nparams; i++) {
        add(l, i == 0 ? "  (" : ", ", i == 0 ? 3 : 2);
        add_value(l, &r->params[i], 0);
        if (i == r->nparams - 1)
            add(l, ")", 1);
    }
    if (r->note)
        addf(l, "  [%s]", r->note);
    if (r->status != SBD_OK && r->err)
        addf(l, " -> %s%s%.5s (native %ld): %.300s\n", status_name(r->status),
             r->err->sqlstate[0] ? ": SQLSTATE " : "", r->err->sqlstate, r->err->native_code, r->err->message);
    else if (r->what == TRACE_PREPARE || r->what >= TRACE_BEGIN)
        add(l, " -> ok\n", 7);
    else if (r->info.nfields > 0 && rows_of(r) < 0)
        add(l, " -> rows (none read by the workload)\n", 37);
    else if (r->info.nfields > 0)
        addf(l, " -> %" PRId64 " row%s\n", rows_of(r), rows_of(r) == 1 ? "" : "s");
    else
        addf(l, " -> %" PRId64 " affected\n", r->info.affected_rows);
}

static void json_line(struct line *l, int tid, int conn_no, uint64_t seq, const struct trace_rec *r)
{
    addf(l, "{\"thread\":%d,\"conn\":%d,\"seq\":%" PRIu64 ",\"kind\":\"%s\"", tid, conn_no, seq,
         what_names[r->what]);
    if (r->what == TRACE_EXECUTE || r->what == TRACE_PREPARE || r->what == TRACE_CLOSE)
        addf(l, ",\"stmt\":%d", r->stmt_no);
    if (r->sql) {
        add(l, ",\"sql\":", 7);
        add_quoted(l, r->sql, r->len, 1);
    }
    if (r->what == TRACE_EXECUTE) {
        add(l, ",\"params\":[", 11);
        for (int i = 0; i < r->nparams; i++) {
            if (i)
                add(l, ",", 1);
            add_value(l, &r->params[i], 1);
        }
        add(l, "]", 1);
    }
    if (r->note)
        addf(l, ",\"note\":\"%s\"", r->note);
    addf(l, ",\"status\":\"%s\",\"latency_us\":%.3f", status_name(r->status), (double)r->latency_ns / 1e3);
    if (r->status == SBD_OK && r->what <= TRACE_EXECUTE)
    {
        if (r->info.nfields > 0 && rows_of(r) < 0)
            add(l, ",\"rows\":null", 12);
        else
            addf(l, ",\"rows\":%" PRId64, r->info.nfields > 0 ? rows_of(r) : 0);
        addf(l, ",\"affected\":%" PRId64, r->info.affected_rows);
    }
    if (r->status != SBD_OK && r->err) {
        addf(l, ",\"sqlstate\":\"%.5s\",\"native\":%ld,\"message\":", r->err->sqlstate, r->err->native_code);
        add_quoted(l, r->err->message, strnlen(r->err->message, sizeof r->err->message), 1);
    }
    add(l, "}\n", 2);
}

static void write_lines(struct line *t, struct line *j)
{
    pthread_mutex_lock(&out_lock);
    if (out_text && t->len)
        fwrite(t->s, 1, t->len, out_text);
    if (out_json && j->len && fwrite(j->s, 1, j->len, out_json) != j->len)
        json_failed = 1;
    if (t->oom || j->oom)
        json_failed = 1;
    pthread_mutex_unlock(&out_lock);
    free(t->s);
    free(j->s);
}

void trace_out_open(FILE *text, FILE *json)
{
    out_text = text;
    out_json = json;
    json_failed = 0;
}

void trace_out_stmt(int tid, int conn_no, uint64_t seq, const struct trace_rec *r)
{
    struct line t = {0}, j = {0};
    if (out_text)
        text_line(&t, tid, conn_no, r);
    if (out_json)
        json_line(&j, tid, conn_no, seq, r);
    write_lines(&t, &j);
}

void trace_out_decision(int tid, const char *sqlstate, long native, int status, const char *decision,
                        int retries)
{
    struct line t = {0}, j = {0};
    if (out_text)
        addf(&t, "[thread %d] event failed (%s%s%.5s, native %ld): %s (restarts so far: %d)\n", tid,
             status_name(status), sqlstate && *sqlstate ? ", SQLSTATE " : "", sqlstate ? sqlstate : "", native,
             decision, retries);
    if (out_json)
        addf(&j, "{\"thread\":%d,\"kind\":\"event_failed\",\"status\":\"%s\",\"sqlstate\":\"%.5s\","
                 "\"native\":%ld,\"decision\":\"%s\",\"retries\":%d}\n",
             tid, status_name(status), sqlstate ? sqlstate : "", native, decision, retries);
    write_lines(&t, &j);
}

int trace_out_close(void)
{
    int rc = 0;
    pthread_mutex_lock(&out_lock);
    if (out_text)
        fflush(out_text);
    if (out_json && (fflush(out_json) != 0 || ferror(out_json) || json_failed))
        rc = -1;
    out_text = out_json = NULL;
    pthread_mutex_unlock(&out_lock);
    return rc;
}
