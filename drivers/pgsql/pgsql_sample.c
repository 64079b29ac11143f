/*
 * pgsql driver: the server's evidence for the host's sampler (ABI 1.6):
 * the counters of one moment (pg_stat_database, pg_stat_wal,
 * pg_stat_bgwriter or, from 17, pg_stat_checkpointer, pg_locks) and one
 * active-session sample (the wait events of the current database's other
 * client backends, pg_stat_activity's).  Runs on the counters' connection
 * only; each statement here is one transaction the server counts, so it
 * is added to counter_reads and left out of commits as server_counters
 * does (pgsql_stmt.c).  Each request's answer is due within
 * SBD_SAMPLE_TIMEOUT_MS (a silent server must not hold the reporting
 * thread).
 */
#include "pgsql_int.h"
#include "../common/sock_io.h"

#include <stdio.h>
#include <string.h>

/* Before each request of this file: its answer is due within
 * SBD_SAMPLE_TIMEOUT_MS, whatever --db-query-timeout says (past it
 * pgsql_pqwait.c drops the connection). */
static void sample_deadline(sbd_conn *c)
{
    pgd_clear_result(c);
    pgd_sock_blocking(c, 0);
    c->pq_deadline = sbc_now_ms() + SBD_SAMPLE_TIMEOUT_MS;
    c->pq_timed_out = 0;
}

/* A statement of this file: one transaction, counted as one of this
 * connection's own.  The result is the caller's (PQclear). */
static PGresult *own_exec(sbd_conn *c, const char *sql)
{
    sample_deadline(c);
    PGresult *res = pgd_pq_last(c, PQsendQuery(c->pg, sql));
    c->counter_reads++;
    return res;
}

/* The active sessions of the current database but this one, by wait: from
 * pg_stat_get_activity itself (the view pg_stat_activity adds joins this
 * needs not), prepared once so that ten samples a second are not planned
 * ten times. */
#define WAITS_STMT "sbench_sampler_waits"
static const char waits_sql[] =
    "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*) "
    "FROM pg_stat_get_activity(NULL) WHERE state = 'active' AND pid <> pg_backend_pid() "
    "AND backend_type = 'client backend' "
    "AND datid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "GROUP BY 1 ORDER BY 2 DESC";

/* Once per connection: the server cancels each of this connection's
 * statements after 2 s (a stalled server cannot hold the reporting
 * thread), and the waits' statement is prepared.  SBD_OK or the error. */
static int sampler_setup(sbd_conn *c)
{
    if (c->sampler_ready)
        return SBD_OK;
    if (c->in_copy || c->in_flight)
        return pgd_fail(c, "the counters' connection is busy");
    PGresult *res = own_exec(c, "SET statement_timeout = 2000");
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    if (ok) {
        PQclear(res);
        sample_deadline(c);
        res = pgd_pq_last(c, PQsendPrepare(c->pg, WAITS_STMT, waits_sql, 0, NULL));
        c->counter_reads++;
        ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    }
    int st = ok ? SBD_OK : pgd_error(c, res);
    PQclear(res);
    c->sampler_ready = ok;
    return st;
}

/* The counters' query for this server version: one row, the columns in
 * the order of struct sbd_server_sample from commits (NULL: unknown). */
static const char *sample_sql(int v)
{
/* one simple-protocol message, one transaction: a fresh statistics
 * snapshot, then the row */
#define CLEAR "SELECT pg_stat_clear_snapshot(); "
    /* checkpoints: pg_stat_checkpointer from 17, pg_stat_bgwriter before */
    if (v >= 170000)
        return CLEAR "SELECT d.xact_commit, d.xact_rollback, NULL, d.blks_read, d.blks_hit, "
               "d.temp_bytes, d.deadlocks, d.conflicts, d.tup_returned + d.tup_fetched, "
               "d.tup_inserted + d.tup_updated + d.tup_deleted, w.wal_bytes::bigint, "
               "w.wal_buffers_full, k.num_timed, k.num_requested, "
               "k.buffers_written + b.buffers_clean, NULL, NULL, "
               "(SELECT count(*) FROM pg_locks WHERE NOT granted), NULL "
               "FROM pg_stat_database d, pg_stat_wal w, pg_stat_checkpointer k, "
               "pg_stat_bgwriter b WHERE d.datname = current_database()";
    if (v >= 140000)
        return CLEAR "SELECT d.xact_commit, d.xact_rollback, NULL, d.blks_read, d.blks_hit, "
               "d.temp_bytes, d.deadlocks, d.conflicts, d.tup_returned + d.tup_fetched, "
               "d.tup_inserted + d.tup_updated + d.tup_deleted, w.wal_bytes::bigint, "
               "w.wal_buffers_full, b.checkpoints_timed, b.checkpoints_req, "
               "b.buffers_checkpoint + b.buffers_clean + b.buffers_backend, NULL, NULL, "
               "(SELECT count(*) FROM pg_locks WHERE NOT granted), NULL "
               "FROM pg_stat_database d, pg_stat_wal w, pg_stat_bgwriter b "
               "WHERE d.datname = current_database()";
    return CLEAR "SELECT d.xact_commit, d.xact_rollback, NULL, d.blks_read, d.blks_hit, "
           "d.temp_bytes, d.deadlocks, d.conflicts, d.tup_returned + d.tup_fetched, "
           "d.tup_inserted + d.tup_updated + d.tup_deleted, NULL, NULL, "
           "b.checkpoints_timed, b.checkpoints_req, "
           "b.buffers_checkpoint + b.buffers_clean + b.buffers_backend, NULL, NULL, "
           "(SELECT count(*) FROM pg_locks WHERE NOT granted), NULL "
           "FROM pg_stat_database d, pg_stat_bgwriter b WHERE d.datname = current_database()";
}

int pgd_server_sample(sbd_conn *c, struct sbd_server_sample *out)
{
    int st = sampler_setup(c);
    if (st != SBD_OK)
        return st;
    int v = PQserverVersion(c->pg);
    if (v >= 150000) /* this session's transactions so far (the waits' samples)
                      * flushed to the statistics as it goes idle, so that the
                      * read sees every one of its own */
        PQclear(own_exec(c, "SELECT pg_stat_force_next_flush()"));
    int64_t own = c->counter_reads; /* this read's own transaction not yet counted */
    PGresult *res = own_exec(c, sample_sql(v));
    enum { NCOLS = 19 };
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 || PQnfields(res) != NCOLS) {
        int st = PQresultStatus(res) == PGRES_TUPLES_OK
                 ? pgd_fail(c, "pg_stat_database has no row for this database")
                 : pgd_error(c, res);
        PQclear(res);
        return st;
    }
    int64_t *dst = &out->commits;
    size_t fit = (out->struct_size - offsetof(struct sbd_server_sample, commits)) / sizeof(int64_t);
    for (int i = 0; i < NCOLS && (size_t)i < fit; i++)
        dst[i] = PQgetisnull(res, 0, i) ? -1
                 : pgd_parse_int(PQgetvalue(res, 0, i), (size_t)PQgetlength(res, 0, i));
    if (out->commits >= 0)
        out->commits -= own;
    if (offsetof(struct sbd_server_sample, wait_events_now) + sizeof(int64_t) <= out->struct_size)
        out->wait_events_now = 1; /* pg_stat_activity's wait events */
    PQclear(res);
    return SBD_OK;
}

int pgd_server_waits(sbd_conn *c, struct sbd_wait *out, int max, int *n)
{
    *n = 0;
    int st = sampler_setup(c);
    if (st != SBD_OK)
        return st;
    sample_deadline(c);
    PGresult *res = pgd_pq_last(c, PQsendQueryPrepared(c->pg, WAITS_STMT, 0, NULL, NULL, NULL, 0));
    c->counter_reads++;
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQnfields(res) != 2) {
        int st = pgd_error(c, res);
        PQclear(res);
        return st;
    }
    for (int i = 0; i < PQntuples(res) && *n < max; i++) {
        snprintf(out[*n].name, sizeof out[*n].name, "%s", PQgetvalue(res, i, 0));
        out[*n].sessions = pgd_parse_int(PQgetvalue(res, i, 1), (size_t)PQgetlength(res, i, 1));
        (*n)++;
    }
    PQclear(res);
    return SBD_OK;
}
