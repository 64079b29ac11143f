/*
 * The null driver's "server": what every statement does, whichever call
 * (blocking, nonblocking, pipelined) brought it.  It keeps no data; it
 * answers in order:
 *   - SELECT: --null-rows rows of one integer column (1, 2, ...); a SELECT
 *     of one integer literal ("SELECT 42") one row with that number; a
 *     SELECT COUNT(*) one row with 0 (it keeps no rows: every table, the
 *     catalog's too, is empty, so a workload's "does the table exist?"
 *     says no and prepare runs);
 *   - INSERT, UPDATE, DELETE: one affected row; anything else: no result;
 *   - a statement that does not start with a word: syntax error (42601);
 *   - transactions as PostgreSQL runs them: after an error inside
 *     BEGIN..COMMIT every statement fails (25P02) until COMMIT or ROLLBACK,
 *     and that COMMIT rolls back;
 *   - --null-fail-every=N: the Nth, 2Nth, ... statement of a connection
 *     other than BEGIN, COMMIT and ROLLBACK fails as --null-fail-status
 *     says (retry: 40001, error: 23505, lost: the connection is gone,
 *     08006); a new connection counts from 0 again;
 *   - it counts, process-wide, the statements it answered without error by
 *     kind (server_counters), as a real server's statistics do.  COMMITs
 *     that committed are commits; ROLLBACKs, COMMITs of a failed
 *     transaction and transactions open when their connection ends are
 *     rollbacks.  Reading the counters is no statement, so the counting
 *     connection adds nothing to them.
 * The counters are the only state shared between threads (atomics: the
 * server is one party for every connection).
 */
#include "null_int.h"
#include "common/error.h"
#include "text.h"            /* lib/text.h: integer text (in the SDK, beside this file) */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct null_config null_cfg;

static struct {
    _Atomic int64_t commits, rollbacks, selects, inserts, updates, deletes, statements;
} counts;

int null_config_read(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    null_cfg.host = h;
    null_cfg.rows = h->opt_int("null-rows");
    long long delay_us = h->opt_int("null-delay-us");
    null_cfg.fail_every = h->opt_int("null-fail-every");
    const char *st = h->opt_str("null-fail-status");
    if (null_cfg.rows < 0) {
        snprintf(errbuf, errlen, "--null-rows must be >= 0");
        return SBD_ERROR;
    }
    if (delay_us < 0 || delay_us > 60000000) {
        snprintf(errbuf, errlen, "--null-delay-us must be between 0 and 60000000 (60 s)");
        return SBD_ERROR;
    }
    /* the model server's own setting, outside the client's options, as a
     * real server is upgraded or reconfigured behind a benchmark (a step
     * in a run history with the same options): it replaces --null-delay-us
     * and the server's version says so */
    const char *server_delay = getenv("SBENCH_NULL_SERVER_DELAY_US");
    snprintf(null_cfg.server_version, sizeof null_cfg.server_version, "null");
    if (server_delay && *server_delay) {
        char *end;
        long long v = strtoll(server_delay, &end, 10);
        if (*end || v < 0 || v > 60000000) {
            snprintf(errbuf, errlen, "SBENCH_NULL_SERVER_DELAY_US must be between 0 and 60000000 (60 s)");
            return SBD_ERROR;
        }
        delay_us = v;
        snprintf(null_cfg.server_version, sizeof null_cfg.server_version, "null (delay %lld us)", v);
    }
    null_cfg.delay_ns = delay_us * 1000;
    long long slots = h->opt_int("null-slots");
    if (slots < 0 || slots > NULL_MAX_SLOTS) {
        snprintf(errbuf, errlen, "--null-slots must be between 0 and %d (0: no shared limit)", NULL_MAX_SLOTS);
        return SBD_ERROR;
    }
    null_cfg.slots = (int)slots;
    if (null_cfg.fail_every < 0) {
        snprintf(errbuf, errlen, "--null-fail-every must be >= 0 (0: no failures)");
        return SBD_ERROR;
    }
    if (st == NULL || strcmp(st, "retry") == 0) {
        null_cfg.fail_status = SBD_RETRY;
    } else if (strcmp(st, "error") == 0) {
        null_cfg.fail_status = SBD_ERROR;
    } else if (strcmp(st, "lost") == 0) {
        null_cfg.fail_status = SBD_CONN_LOST;
    } else {
        snprintf(errbuf, errlen, "--null-fail-status must be retry, error or lost, not '%s'", st);
        return SBD_ERROR;
    }
    return SBD_OK;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

static int is_letter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

/* "SELECT COUNT(*) ..." (any case, blanks allowed around the '(' and '*'). */
static int count_select(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    if (end - p < 5 || strncasecmp(p, "count", 5) != 0)
        return 0;
    p += 5;
    const char *want = "(*)";
    for (; *want; want++) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end || *p != *want)
            return 0;
        p++;
    }
    return 1;
}

/* "SELECT <integer>" (digits with an optional '-', within int64_t) with
 * nothing after but blanks and a ';': *v. */
static int literal_select(const char *p, const char *end, int64_t *v)
{
    while (p < end && is_blank(*p))
        p++;
    const char *num = p;
    p += p < end && *p == '-';
    if (p == end || *p < '0' || *p > '9')
        return 0;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    const char *num_end = p;
    while (p < end && (is_blank(*p) || *p == ';'))
        p++;
    return p == end && sbc_text_to_i64(num, (size_t)(num_end - num), v) == 0;
}

struct null_sql null_parse(const char *sql, size_t len)
{
    static const struct { const char *word; int kind; } words[] = {
        {"select", NK_SELECT}, {"insert", NK_INSERT}, {"update", NK_UPDATE},
        {"delete", NK_DELETE}, {"begin", NK_BEGIN}, {"start", NK_BEGIN},
        {"commit", NK_COMMIT}, {"rollback", NK_ROLLBACK},
    };
    struct null_sql s = {NK_OTHER, 0, 0};
    const char *end = sql + len;
    while (sql < end && (is_blank(*sql) || *sql == '('))
        sql++;
    if (sql == end) {
        s.kind = NK_EMPTY;
        return s;
    }
    if (!is_letter(*sql)) {
        s.kind = NK_SYNTAX;
        return s;
    }
    size_t n = 0;
    while (sql + n < end && is_letter(sql[n]))
        n++;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == n && strncasecmp(sql, words[i].word, n) == 0) {
            s.kind = words[i].kind;
            break;
        }
    if (s.kind == NK_SELECT) {
        s.literal = literal_select(sql + n, end, &s.value);
        if (!s.literal && count_select(sql + n, end)) {
            s.literal = 1;
            s.value = 0;
        }
    }
    return s;
}

static void add(_Atomic int64_t *counter)
{
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

/* A transaction ends without committing. */
static void roll_back(sbd_conn *c)
{
    add(&counts.rollbacks);
    c->txn = NT_NONE;
}

/* The statement failed: status and why; an error inside a transaction
 * aborts it, a lost connection takes its transaction with it. */
static void failed(sbd_conn *c, struct null_answer *a, int status, int why)
{
    a->status = status;
    a->fail = why;
    if (status == SBD_CONN_LOST) {
        c->lost = 1;
        if (c->txn != NT_NONE)
            roll_back(c);
    } else if (c->txn == NT_OPEN) {
        c->txn = NT_ABORTED;
    }
}

void null_serve(sbd_conn *c, const struct null_sql *s, struct null_answer *a)
{
    memset(a, 0, sizeof *a);
    a->seq = ++c->seq;
    a->status = SBD_OK;
    a->info.affected_rows = 0;
    if (c->lost) {
        a->status = SBD_CONN_LOST;
        a->fail = NF_LOST;
        return;
    }
    switch (s->kind) {
    case NK_SYNTAX:
        failed(c, a, SBD_ERROR, NF_SYNTAX);
        return;
    case NK_ROLLBACK:
        roll_back(c);
        break;
    case NK_COMMIT:
        if (c->txn == NT_ABORTED)
            roll_back(c);
        else
            add(&counts.commits);
        c->txn = NT_NONE;
        break;
    default:
        if (c->txn == NT_ABORTED) {
            failed(c, a, SBD_ERROR, NF_ABORTED);
            return;
        }
        if (s->kind == NK_BEGIN) {
            c->txn = NT_OPEN;
            break;
        }
        if (null_cfg.fail_every > 0 && ++c->eligible % null_cfg.fail_every == 0) {
            failed(c, a, null_cfg.fail_status, NF_INJECTED);
            return;
        }
        break;
    }
    add(&counts.statements);
    switch (s->kind) {
    case NK_SELECT:
        add(&counts.selects);
        a->rows = s->literal ? 1 : null_cfg.rows;
        a->first_value = s->literal ? s->value : 1;
        a->info.nrows = a->rows;
        a->info.nfields = 1;
        break;
    case NK_INSERT: add(&counts.inserts); a->info.affected_rows = 1; break;
    case NK_UPDATE: add(&counts.updates); a->info.affected_rows = 1; break;
    case NK_DELETE: add(&counts.deletes); a->info.affected_rows = 1; break;
    default: break;
    }
}

int null_deliver(sbd_conn *c, const struct null_answer *a, struct sbd_result_info *info)
{
    long long seq = (long long)a->seq;
    *info = a->info;
    c->rows_left = a->rows;
    c->next_value = a->first_value;
    switch (a->fail) {
    case NF_NONE:
        break;
    case NF_INJECTED:
        if (a->status == SBD_CONN_LOST)
            sbc_error(&c->err, a->status, 0, "08006", NULL, "null driver: connection lost "
                      "(--null-fail-status=lost) at statement %lld of this connection", seq);
        else
            sbc_error(&c->err, a->status, 0, a->status == SBD_RETRY ? "40001" : "23505", NULL,
                      "null driver: injected failure (--null-fail-every) at statement %lld "
                      "of this connection", seq);
        break;
    case NF_ABORTED:
        sbc_error(&c->err, a->status, 0, "25P02", NULL, "current transaction is aborted, "
                  "commands ignored until end of transaction block (statement %lld of this "
                  "connection)", seq);
        break;
    case NF_SYNTAX:
        sbc_error(&c->err, a->status, 0, "42601", NULL, "null driver: syntax error: statement "
                  "%lld of this connection does not start with a keyword", seq);
        break;
    case NF_LOST:
        sbc_error(&c->err, a->status, 0, "08006", NULL, "null driver: the connection was lost "
                  "before statement %lld (--null-fail-status=lost)", seq);
        break;
    }
    return a->status;
}

void null_end_session(sbd_conn *c)
{
    if (!c->lost && c->txn != NT_NONE)
        roll_back(c);
}

int null_misuse(sbd_conn *c, const char *what)
{
    return sbc_error(&c->err, SBD_ERROR, 0, "HY010", NULL,
                     "null driver: %s (the host broke a rule of driver.h)", what);
}

int null_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    if (c->qn > 0 || c->pipeline || null_hio_busy(c) || c->streaming)
        return null_misuse(c, "server_counters with statements in flight or in pipeline mode");
    out->commits = atomic_load(&counts.commits);
    out->rollbacks = atomic_load(&counts.rollbacks);
    out->selects = atomic_load(&counts.selects);
    out->inserts = atomic_load(&counts.inserts);
    out->updates = atomic_load(&counts.updates);
    out->deletes = atomic_load(&counts.deletes);
    out->statements = atomic_load(&counts.statements);
    return SBD_OK;
}
