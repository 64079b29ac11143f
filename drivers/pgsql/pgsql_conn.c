/*
 * pgsql driver: connections.  connect builds the libpq keyword list from
 * the settings pgsql.c read at init, runs the session's setup SQL and
 * picks the connection's transport (pgd_wire_setup); disconnect frees
 * everything.  The top of the driver's files: it calls the paths below
 * (pgsql_wire.c, pgsql_stmt.c, pgsql_bulk.c) and none calls it.
 */
#include "pgsql_int.h"
#include "../common/error.h"
#include "../common/list.h"
#include "../common/password.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- connections ------------------------------------------------------- */

static void on_notice(void *arg, const PGresult *res)
{
    (void)arg;
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    pgd_notice(PQresultErrorField(res, PG_DIAG_SEVERITY),
               msg ? msg : PQresultErrorMessage(res));
}

/* Fills err for a failed connect so that the message names the server. */
static void connect_error(PGconn *pg, const char *h, struct sbd_error *err)
{
    const char *msg = pg ? PQerrorMessage(pg) : "out of memory";
    char prefix[300] = "";
    if (strstr(msg, "connection to server") == NULL) {
        const char *ph = pg ? PQhost(pg) : NULL;
        const char *pp = pg ? PQport(pg) : NULL;
        snprintf(prefix, sizeof prefix, "connecting to host \"%s\" port %s:",
                 ph && *ph ? ph : (h ? h : "(libpq default)"),
                 pp && *pp ? pp : (pgd_cfg.port ? pgd_cfg.port : "(libpq default)"));
    }
    pgd_set_error(err, SBD_ERROR, "08001", prefix, msg);
}

/* One libpq connection to host h with the password given or the
 * command's token (a token refused at authentication is fetched again,
 * sbc_pwcmd_reject).  The connection, or NULL with err filled. */
static PGconn *open_pg(const struct pgd_settings *cfg, const char *h,
                       struct sbd_connect_phases *ph, struct sbd_error *err)
{
    for (int attempt = 1;; attempt++) {
        const char *kw[16], *val[16];
        int n = 0;
        char *token = NULL; /* --pgsql-password-command's output */
        if (cfg->pwcmd.command != NULL) {
            char msg[300];
            if ((token = sbc_pwcmd_get(&pgd_cfg.pwcmd, msg, sizeof msg)) == NULL) {
                pgd_set_error(err, SBD_ERROR, "08001", NULL, msg);
                return NULL;
            }
        }
#define KV(k, v) do { if ((v) != NULL) { kw[n] = (k); val[n] = (v); n++; } } while (0)
        /* libpq expands the first dbname that is a connection string or
         * URI; the keywords after it override its parts */
        KV("dbname", cfg->conninfo);
        KV("host", h);
        KV("port", cfg->port);
        KV("user", cfg->user);
        KV("password", token != NULL ? token : cfg->password);
        KV("dbname", cfg->dbname);
        KV("sslmode", cfg->sslmode);
        KV("sslrootcert", cfg->sslrootcert);
        KV("connect_timeout", cfg->ctimeout_buf[0] ? cfg->ctimeout_buf : NULL);
        KV(cfg->conninfo ? "fallback_application_name" : "application_name", "sbench");
#undef KV
        kw[n] = NULL;
        val[n] = NULL;
        int timed_out;
        PGconn *pg = pgd_connect_poll(kw, val, cfg->conninfo != NULL, ph, &timed_out);
        if (timed_out) {
            char where[300];
            snprintf(where, sizeof where, "connecting to host \"%s\" port %s:",
                     h ? h : (PQhost(pg) ? PQhost(pg) : "(libpq default)"),
                     PQport(pg) && *PQport(pg) ? PQport(pg) : "(libpq default)");
            pgd_set_error(err, SBD_ERROR, "08001", where, "timeout expired");
            sbc_password_free(token);
            PQfinish(pg);
            return NULL;
        }
        if (pg != NULL && PQstatus(pg) == CONNECTION_OK) {
            sbc_password_free(token); /* libpq keeps its own copy */
            return pg;
        }
        /* the server asked for the password and refused the connection:
         * the token may have rotated */
        int retry = pg != NULL && token != NULL && PQconnectionUsedPassword(pg) &&
                    sbc_pwcmd_reject(&pgd_cfg.pwcmd, token, attempt);
        if (!retry) {
            connect_error(pg, h, err);
            sbc_error_mask(err, token);
        }
        sbc_password_free(token);
        if (pg != NULL)
            PQfinish(pg);
        if (!retry)
            return NULL;
    }
}

int pgd_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    const struct pgd_settings *cfg = &pgd_cfg;
    const char *h = sbc_list_pick(&cfg->hosts, thread_id);
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        pgd_set_error(err, SBD_ERROR, NULL, NULL, "out of memory");
        return SBD_ERROR;
    }
    if ((c->pg = open_pg(cfg, h, &c->phases, err)) == NULL) {
        pgd_disconnect(c);
        return SBD_ERROR;
    }
    PQsetNoticeReceiver(c->pg, on_notice, NULL);

    if (cfg->session_sql[0] != 0) {
        PGresult *res = pgd_pq_exec(c, cfg->session_sql);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            pgd_error(c, res);
            PQclear(res);
            pgd_set_error(err, SBD_ERROR, c->err.sqlstate, "session setup failed:",
                      c->err.message);
            pgd_disconnect(c);
            return SBD_ERROR;
        }
        PQclear(res);
    }

    /* "15.20 (Debian 15.20-0+deb12u1)" -> "PostgreSQL 15.20" */
    const char *sv = PQparameterStatus(c->pg, "server_version");
    size_t vn = sv ? strcspn(sv, " ") : 0;
    if (vn > sizeof c->version - 12)
        vn = sizeof c->version - 12;
    memcpy(c->version, "PostgreSQL ", 11);
    memcpy(c->version + 11, sv ? sv : "", vn);
    c->version[11 + vn] = 0;
    pgd_wire_setup(c, cfg->wire);
    *out = c;
    return SBD_OK;
}

void pgd_connect_phases(sbd_conn *c, struct sbd_connect_phases *out)
{
    *out = c->phases;
}

void pgd_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    if (c->wire_execs > 0)
        pgd_cfg.host->log(SBD_LOG_DEBUG, "%ld statements went over the wire protocol fast path",
                  c->wire_execs);
    pgd_clear_result(c);
    pgd_sock_blocking(c, 0);
    while (c->stmts != NULL) {
        struct sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        pgd_free_stmt(s);
    }
    pgd_copy_free(c);
    pgd_wire_free(&c->wire);
    free(c->pipe_out);
    if (c->async_res != NULL)
        PQclear(c->async_res);
    if (c->pg != NULL)
        PQfinish(c->pg);
    free(c->kinds);
    free(c->sql);
    free(c);
}

/* Owned by c; describes its last failed call.  Never NULL. */
const struct sbd_error *pgd_last_error(sbd_conn *c) { return &c->err; }

/* Static string; never NULL. */
const char *pgd_dialect(sbd_conn *c) { (void)c; return "postgresql"; }

/* Owned by c, valid until disconnect; "PostgreSQL " alone if the server
 * did not report its version.  Never NULL. */
const char *pgd_server_version(sbd_conn *c) { return c->version; }

