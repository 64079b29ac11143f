/*
 * history_store.c: the history store opened (which store a spec names,
 * its schema made or migrated under a lock), a record appended in one
 * transaction, and the store's statement path (SQLite or PostgreSQL).
 * The schema is docs/history.md's; its version is in the table
 * sbench_history_meta.
 */
#include "history_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <unistd.h>

int hist_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
             struct hist_rows *rows, char *err, size_t errlen)
{
    if (h->pg)
        return hist_pg_sql(h, sql, params, nparams, rows, err, errlen);
    return hist_sqlite_sql(h, sql, params, nparams, rows, err, errlen);
}

void hist_rows_free(struct hist_rows *rows)
{
    for (size_t i = 0; i < rows->nrows * (size_t)rows->ncols; i++)
        free(rows->cells[i]);
    free(rows->cells);
    rows->cells = NULL;
    rows->nrows = 0;
}

/* ---- the schema ---- */

/* Version 1.  The id column is the one that differs between the stores. */
static const char *const schema_v1[] = {
    "CREATE TABLE sbench_runs (id %s, run_id TEXT NOT NULL UNIQUE, session TEXT NOT NULL,"
    " source TEXT NOT NULL, time DOUBLE PRECISION NOT NULL, cmdline TEXT, workload TEXT,"
    " options_digest TEXT, driver TEXT, host TEXT, port INTEGER, dbname TEXT, target TEXT,"
    " point_index INTEGER, repeat_index INTEGER, labels TEXT,"
    " tps DOUBLE PRECISION, qps DOUBLE PRECISION, errors DOUBLE PRECISION,"
    " reconnects DOUBLE PRECISION, transactions DOUBLE PRECISION, seconds DOUBLE PRECISION,"
    " lat_avg_ms DOUBLE PRECISION, lat_p50_ms DOUBLE PRECISION, lat_p95_ms DOUBLE PRECISION,"
    " lat_p99_ms DOUBLE PRECISION, lat_max_ms DOUBLE PRECISION, nopm DOUBLE PRECISION,"
    " server_version TEXT, sbench_version TEXT, driver_version TEXT, report TEXT)",
    "CREATE TABLE sbench_run_labels (run BIGINT NOT NULL REFERENCES sbench_runs(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, key))",
    "CREATE INDEX sbench_runs_time ON sbench_runs (time)",
    "CREATE INDEX sbench_runs_workload ON sbench_runs (workload, options_digest)",
    "CREATE INDEX sbench_runs_session ON sbench_runs (session)",
    NULL,
};

/* Version 2: the client host's load per CPU; labels found by key and value. */
static const char *const schema_v2[] = {
    "ALTER TABLE sbench_runs ADD COLUMN host_load DOUBLE PRECISION",
    "CREATE INDEX sbench_run_labels_key ON sbench_run_labels (key, value)",
    NULL,
};

/* The schema version in the store: 0 when it has none (a new store), -1
 * when it cannot be read. */
static int schema_version(struct sb_history *h, char *err, size_t errlen)
{
    struct hist_rows rows = {0};
    if (hist_sql(h, "SELECT value FROM sbench_history_meta WHERE key = 'schema_version'", NULL, 0,
                 &rows, err, errlen) != 0)
        return strstr(err, "sbench_history_meta") ? 0 : -1; /* no such table */
    int v = rows.nrows == 1 && rows.cells[0] ? atoi(rows.cells[0]) : 0;
    hist_rows_free(&rows);
    return v < 0 ? -1 : v;
}

/* The steps from version `from` to this sbench's: a new store (0) is
 * made as version 1 and goes up the same steps as an older store. */
static int upgrade(struct sb_history *h, int from, char *err, size_t errlen)
{
    static const char *const *const steps[] = {schema_v1, schema_v2};
    char sql[2048];
    for (int v = from; v < SB_HIST_SCHEMA_VERSION; v++)
        for (int i = 0; steps[v][i]; i++) {
            snprintf(sql, sizeof sql, steps[v][i],
                     h->pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT");
            if (hist_sql(h, sql, NULL, 0, NULL, err, errlen) != 0)
                return -1;
        }
    return 0;
}

/* Brings the store to SB_HIST_SCHEMA_VERSION inside a transaction that
 * holds the store against other sbench processes.  0, or -1 with err. */
static int migrate(struct sb_history *h, char *err, size_t errlen)
{
    const char *begin = h->pg ? "BEGIN" : "BEGIN IMMEDIATE";
    if (hist_sql(h, begin, NULL, 0, NULL, err, errlen) != 0)
        return -1;
    if (h->pg && hist_sql(h, "SELECT pg_advisory_xact_lock(7420042)", NULL, 0, NULL, err, errlen) != 0)
        goto fail;
    if (hist_sql(h, "CREATE TABLE IF NOT EXISTS sbench_history_meta (key TEXT PRIMARY KEY, value TEXT)",
                 NULL, 0, NULL, err, errlen) != 0)
        goto fail;
    int v = schema_version(h, err, errlen);
    if (v < 0)
        goto fail;
    if (v > SB_HIST_SCHEMA_VERSION) { /* another sbench got there first */
        snprintf(err, errlen, "its schema is version %d, newer than this sbench's (%d)", v,
                 SB_HIST_SCHEMA_VERSION);
        goto fail;
    }
    if (upgrade(h, v, err, errlen) != 0)
        goto fail;
    char ver[16];
    snprintf(ver, sizeof ver, "%d", SB_HIST_SCHEMA_VERSION);
    const char *p[] = {ver};
    if (hist_sql(h, "DELETE FROM sbench_history_meta WHERE key = 'schema_version'", NULL, 0, NULL, err,
                 errlen) != 0 ||
        hist_sql(h, "INSERT INTO sbench_history_meta (key, value) VALUES ('schema_version', $1)", p, 1,
                 NULL, err, errlen) != 0 ||
        hist_sql(h, "COMMIT", NULL, 0, NULL, err, errlen) != 0)
        goto fail;
    return 0;
fail:;
    char ignored[256];
    hist_sql(h, "ROLLBACK", NULL, 0, NULL, ignored, sizeof ignored);
    return -1;
}

/* ---- opening ---- */

/* The spec that "" or NULL means: $SBENCH_HISTORY, else the XDG data file. */
static const char *default_spec(char *buf, size_t len)
{
    const char *env = getenv("SBENCH_HISTORY");
    if (env && *env)
        return env;
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/')
        snprintf(buf, len, "%s/sbench/history.db", xdg);
    else { /* $HOME, else the user's home in the password database */
        const char *home = getenv("HOME");
        const struct passwd *pw = home && *home ? NULL : getpwuid(getuid());
        snprintf(buf, len, "%s/.local/share/sbench/history.db", home && *home ? home : pw ? pw->pw_dir : "/");
    }
    return buf;
}

static int is_pg_spec(const char *spec)
{
    return strncmp(spec, "postgresql://", 13) == 0 || strncmp(spec, "postgres://", 11) == 0 ||
           (strchr(spec, '=') != NULL && strchr(spec, '/') == NULL);
}

/* spec for messages: a URI's password replaced by "***", a DSN's too. */
static void describe(const char *spec, char *out, size_t len)
{
    if ((size_t)snprintf(out, len, "%s", spec) >= len)
        out[len - 1] = '\0'; /* cut */
    char *at = strchr(out, '@'), *scheme = strstr(out, "://");
    if (scheme && at && at > scheme) {
        char *colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
        if (colon) /* user:password@ */
            memmove(colon + 4, at, strlen(at) + 1), memcpy(colon, ":***", 4);
    }
    char *pw = strstr(out, "password=");
    if (pw) {
        char *end = pw + 9;
        while (*end && *end != ' ' && *end != '&')
            end++;
        memmove(pw + 12, end, strlen(end) + 1);
        memcpy(pw + 9, "***", 3);
    }
}

int sb_history_exists(const char *spec, char *where, size_t wherelen)
{
    char buf[4096];
    if (spec == NULL || *spec == '\0')
        spec = default_spec(buf, sizeof buf);
    describe(spec, where, wherelen);
    if (strcmp(spec, "off") == 0)
        return -1;
    return is_pg_spec(spec) || access(spec, F_OK) == 0;
}

int sb_history_open(const char *spec, struct sb_history **out, char *err, size_t errlen)
{
    char buf[4096];
    *out = NULL;
    if (spec == NULL || *spec == '\0')
        spec = default_spec(buf, sizeof buf);
    if (strcmp(spec, "off") == 0)
        return 1;
    struct sb_history *h = calloc(1, sizeof *h);
    if (h == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    h->pg = is_pg_spec(spec);
    describe(spec, h->where, sizeof h->where);
    char why[512];
    int rc = h->pg ? hist_pg_open(h, spec, why, sizeof why) : hist_sqlite_open(h, spec, why, sizeof why);
    if (rc == 0) {
        int v = schema_version(h, why, sizeof why);
        if (v > SB_HIST_SCHEMA_VERSION) {
            snprintf(why, sizeof why, "its schema is version %d, newer than this sbench's (%d)", v,
                     SB_HIST_SCHEMA_VERSION);
            rc = -1;
        } else if (v < 0 || (v < SB_HIST_SCHEMA_VERSION && migrate(h, why, sizeof why) != 0))
            rc = -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "history store '%s': %s", h->where, why);
        sb_history_close(h);
        return -1;
    }
    *out = h;
    return 0;
}

const char *sb_history_where(const struct sb_history *h)
{
    return h->where;
}

void sb_history_close(struct sb_history *h)
{
    if (h == NULL)
        return;
    if (h->db)
        h->pg ? hist_pg_close(h) : hist_sqlite_close(h);
    free(h);
}
