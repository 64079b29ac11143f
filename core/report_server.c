/*
 * The server's evidence in the reports (report_server.h).  The causes,
 * strongest first: lock waits (a third of the sampled session time in
 * Lock:*, or InnoDB row lock waits in a third of the transactions), WAL
 * flushes (a third in WAL waits), reads from disk (buffer hit ratio below
 * 90% over at least 1000 pages read), one wait event with half of the
 * sampled time (a wait on the client, ClientRead or "Writing to net", is
 * said to be the client's); else "no single cause".  A requested checkpoint is named
 * beside any of them, with its windows.
 */
#include "report_server.h"

#include <stdio.h>
#include <string.h>

#define MIN_SESSION_SAMPLES 10 /* fewer: the shares say nothing */

/* The share of sampled session time whose wait name starts with prefix
 * (or contains it, when `anywhere`), and the largest such name. */
static double wait_share(const struct sb_wait_tally *t, const char *prefix, int anywhere,
                         const char **top)
{
    int64_t n = 0, best = 0;
    *top = "";
    for (int i = 0; i < t->n; i++) {
        int hit = anywhere ? strstr(t->name[i], prefix) != NULL
                           : strncmp(t->name[i], prefix, strlen(prefix)) == 0;
        if (!hit)
            continue;
        n += t->count[i];
        if (t->count[i] > best) {
            best = t->count[i];
            *top = t->name[i];
        }
    }
    return t->total > 0 ? 100.0 * (double)n / (double)t->total : 0;
}

static double hit_ratio(const struct sbd_server_sample *d)
{
    if (d->blks_read < 0 || d->blks_hit < 0 || d->blks_read + d->blks_hit == 0)
        return -1;
    return 100.0 * (double)d->blks_hit / (double)(d->blks_read + d->blks_hit);
}

static int lock_cause(const struct sb_sampled *s, double tx, char *buf, size_t len)
{
    const char *top;
    double lock = wait_share(&s->waits, "Lock:", 0, &top);
    if (s->waits.total >= MIN_SESSION_SAMPLES && lock >= 33.0) {
        snprintf(buf, len, "server-bound: %.0f%% of sampled backend time in lock waits (%s%s)",
                 lock, top, strstr(top, "transactionid") || strstr(top, "tuple") ||
                 strstr(top, "row lock") ? ", row lock waits" : "");
        return 1;
    }
    if (s->d.lock_waits >= 0 && tx > 0 && (double)s->d.lock_waits >= tx / 3) {
        snprintf(buf, len, "server-bound: row lock waits in %.0f%% of transactions "
                 "(Innodb_row_lock_waits %lld, %lld ms waited)",
                 100.0 * (double)s->d.lock_waits / tx, (long long)s->d.lock_waits,
                 (long long)s->d.lock_wait_ms);
        return 1;
    }
    return 0;
}

/* The first cause the evidence names (see the top of the file). */
static void main_cause(const struct sb_sampled *s, double tx, char *buf, size_t len)
{
    const char *top;
    if (lock_cause(s, tx, buf, len))
        return;
    double wal = wait_share(&s->waits, "WAL", 1, &top);
    if (s->waits.total >= MIN_SESSION_SAMPLES && wal >= 33.0) {
        snprintf(buf, len, "server-bound: %.0f%% of sampled backend time in WAL waits (%s)", wal,
                 top);
        return;
    }
    double hit = hit_ratio(&s->d);
    if (hit >= 0 && hit < 90.0 && s->d.blks_read >= 1000) {
        snprintf(buf, len, "reads from disk: buffer hit ratio %.0f%% (%lld pages read)", hit,
                 (long long)s->d.blks_read);
        return;
    }
    if (s->waits.total >= MIN_SESSION_SAMPLES && s->waits.n > 0 &&
        strcmp(s->waits.name[0], "CPU") != 0 &&
        100.0 * (double)s->waits.count[0] / (double)s->waits.total >= 50.0) {
        const char *w = s->waits.name[0];
        int client = strstr(w, "Client") != NULL || strstr(w, "to net") != NULL ||
                     strstr(w, "from net") != NULL;
        snprintf(buf, len, "%s: %.0f%% of sampled backend time in %s%s",
                 client ? "the server waited on its clients" : "server-bound",
                 100.0 * (double)s->waits.count[0] / (double)s->waits.total, w,
                 client ? " (the client or the network)" : "");
        return;
    }
    if (s->waits.n > 0 && s->waits.total > 0)
        snprintf(buf, len, "no single cause: the top wait, %s, has %.0f%% of sampled backend time",
                 s->waits.name[0], 100.0 * (double)s->waits.count[0] / (double)s->waits.total);
    else
        snprintf(buf, len, "no single cause: no session was seen waiting");
}

void sb_sampled_cause(const struct sb_sampled *s, double tx, char *buf, size_t len)
{
    buf[0] = 0;
    if (s == NULL || !s->valid)
        return;
    main_cause(s, tx, buf, len);
    /* a requested checkpoint is named beside any cause, with its window */
    for (int i = 0; i < s->ncheckpoint_windows; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s %.0f-%.0f s", i ? "," :
                 "; a requested checkpoint in the window", s->checkpoint_window[i][0],
                 s->checkpoint_window[i][1]);
    }
}

static void json_count(FILE *f, const char *name, int64_t v)
{
    if (v >= 0)
        fprintf(f, ",\"%s\":%lld", name, (long long)v);
    else
        fprintf(f, ",\"%s\":null", name);
}

/* A string from the server (a wait event's name) as JSON: printable ASCII
 * only, quotes and backslashes escaped. */
static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, f);
        else
            fprintf(f, "\\u%04x", c);
    }
    fputc('"', f);
}

static void json_waits(FILE *f, const struct sb_wait_tally *t)
{
    fprintf(f, ",\"active_sessions\":{\"samples\":%lld,\"session_samples\":%lld,\"waits\":[",
            (long long)t->samples, (long long)t->total);
    for (int i = 0; i < t->n; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_text(f, t->name[i]);
        fprintf(f, ",\"count\":%lld,\"share\":%.4f}", (long long)t->count[i],
                t->total > 0 ? (double)t->count[i] / (double)t->total : 0.0);
    }
    fprintf(f, "],\"other\":%lld}", (long long)t->other);
}

static void json_host(FILE *f, const struct sb_host_stat *h)
{
    if (!h->have)
        return;
    fprintf(f, ",\"host\":{\"cpu_ticks\":{\"user\":%lld,\"system\":%lld,\"iowait\":%lld,"
               "\"idle\":%lld,\"other\":%lld},\"context_switches\":%lld,"
               "\"disk_read_bytes\":%lld,\"disk_write_bytes\":%lld}",
            (long long)h->user, (long long)h->system, (long long)h->iowait, (long long)h->idle,
            (long long)h->other, (long long)h->ctxt, (long long)h->read_sectors * 512,
            (long long)h->write_sectors * 512);
}

void sb_sampled_json(FILE *f, const struct sb_sampled *s, const char *why, double tx,
                     double seconds)
{
    if (s == NULL || !s->valid) {
        if (why != NULL && why[0]) {
            fprintf(f, ",\"server_metrics\":{\"sampled\":false,\"why\":");
            json_text(f, why);
            fputc('}', f);
        }
        return;
    }
    fprintf(f, ",\"server_metrics\":{\"sampled\":true%s",
            s->from_shard0 ? ",\"sampled_by\":\"shard 0, for every shard\"" : "");
    for (int i = 0; i < SB_SAMPLE_FIELDS; i++)
        json_count(f, sb_sample_field_names[i], sb_sample_field(&s->d, i));
    double hit = hit_ratio(&s->d);
    if (hit >= 0)
        fprintf(f, ",\"hit_ratio\":%.4f", hit / 100);
    json_waits(f, &s->waits);
    json_host(f, &s->host);
    int64_t all = s->d.statements >= 0 ? s->d.statements : s->d.commits;
    fprintf(f, ",\"sampler\":{\"queries\":%lld,\"query_ms_avg\":%.3f,\"query_ms_max\":%.3f,"
               "\"queries_per_second\":%.2f,\"statement_share\":%.6f}",
            (long long)s->queries, s->queries ? s->query_ms / (double)s->queries : 0.0,
            s->query_ms_max, seconds > 0 ? (double)s->queries / seconds : 0.0,
            all + s->queries > 0 ? (double)s->queries / (double)(all + s->queries) : 0.0);
    for (int i = 0; i < s->ncheckpoint_windows; i++)
        fprintf(f, "%s[%.3f,%.3f]%s", i ? "," : ",\"checkpoint_windows\":[",
                s->checkpoint_window[i][0], s->checkpoint_window[i][1],
                i == s->ncheckpoint_windows - 1 ? "]" : "");
    char cause[300];
    sb_sampled_cause(s, tx, cause, sizeof cause);
    fprintf(f, ",\"cause\":");
    json_text(f, cause);
    fputc('}', f);
}

static void text_waits(FILE *f, const struct sb_wait_tally *t)
{
    fprintf(f, "    top waits (%lld samples):", (long long)t->samples);
    for (int i = 0; i < t->n && i < 4; i++)
        fprintf(f, "%s %s %.1f%%", i ? "," : "", t->name[i],
                100.0 * (double)t->count[i] / (double)t->total);
    fprintf(f, "%s\n", t->n == 0 ? " no active session seen" : "");
}

void sb_sampled_text(FILE *f, const struct sb_sampled *s, const char *why, double tx,
                     double seconds)
{
    if (s == NULL || !s->valid) {
        if (why != NULL && why[0])
            fprintf(f, "Server: not sampled: %s\n\n", why);
        return;
    }
    fprintf(f, "Server (sampled%s):\n", s->from_shard0 ? " by shard 0, for every shard" : "");
    text_waits(f, &s->waits);
    if (s->d.checkpoints_timed >= 0 && s->d.checkpoints_req >= 0)
        fprintf(f, "    checkpoints:                         %lld timed, %lld requested\n",
                (long long)s->d.checkpoints_timed, (long long)s->d.checkpoints_req);
    double hit = hit_ratio(&s->d);
    if (hit >= 0)
        fprintf(f, "    buffer hit ratio:                    %.2f%% (%lld pages read)\n", hit,
                (long long)s->d.blks_read);
    if (tx > 0 && s->d.rows_read >= 0 && s->d.rows_written >= 0)
        fprintf(f, "    rows per transaction:                %.2f read, %.2f written\n",
                (double)s->d.rows_read / tx, (double)s->d.rows_written / tx);
    if (s->d.lock_waits >= 0)
        fprintf(f, "    row lock waits:                      %lld (%lld ms)\n",
                (long long)s->d.lock_waits, (long long)s->d.lock_wait_ms);
    const struct sb_host_stat *h = &s->host;
    int64_t ticks = h->user + h->system + h->iowait + h->idle + h->other;
    if (h->have && ticks > 0 && seconds > 0)
        fprintf(f, "    host CPU:                            user %.0f%%, system %.0f%%, iowait %.0f%%, "
                "idle %.0f%%; %.0f context switches/s; disk %.2f MiB/s read, %.2f MiB/s written\n",
                100.0 * (double)h->user / (double)ticks, 100.0 * (double)h->system / (double)ticks,
                100.0 * (double)h->iowait / (double)ticks, 100.0 * (double)h->idle / (double)ticks,
                (double)h->ctxt / seconds, (double)h->read_sectors * 512 / 1048576 / seconds,
                (double)h->write_sectors * 512 / 1048576 / seconds);
    fprintf(f, "    sampler:                             %lld queries, avg %.3f ms, max %.3f ms\n",
            (long long)s->queries, s->queries ? s->query_ms / (double)s->queries : 0.0,
            s->query_ms_max);
    char cause[300];
    sb_sampled_cause(s, tx, cause, sizeof cause);
    fprintf(f, "    cause:                               %s\n\n", cause);
}

void sb_sampled_csv_header(FILE *f)
{
    fprintf(f, ",server_commits_per_sec,server_hit_ratio,server_rows_read_per_sec,"
               "server_rows_written_per_sec,server_wal_bytes_per_sec,server_checkpoints_req,"
               "server_lock_waits,server_top_wait,server_top_wait_share");
}

/* A count per second, or an empty field when unknown. */
static void csv_rate(FILE *f, int64_t v, double seconds)
{
    if (v >= 0 && seconds > 0)
        fprintf(f, ",%.2f", (double)v / seconds);
    else
        fputc(',', f);
}

void sb_sampled_csv_row(FILE *f, const struct sb_sampled *s, double seconds)
{
    if (!s->valid) {
        fprintf(f, ",,,,,,,,,");
        return;
    }
    csv_rate(f, s->d.commits, seconds);
    double hit = hit_ratio(&s->d);
    if (hit >= 0)
        fprintf(f, ",%.4f", hit / 100);
    else
        fputc(',', f);
    csv_rate(f, s->d.rows_read, seconds);
    csv_rate(f, s->d.rows_written, seconds);
    csv_rate(f, s->d.wal_bytes, seconds);
    csv_rate(f, s->d.checkpoints_req, 1);
    csv_rate(f, s->d.lock_waits, 1);
    fputc(',', f);
    if (s->waits.n > 0) { /* a wait's name: letters, digits and few signs */
        for (const char *p = s->waits.name[0]; *p; p++)
            fputc(*p == ',' || *p == '"' || (unsigned char)*p < 0x20 ? '_' : *p, f);
        fprintf(f, ",%.4f", (double)s->waits.count[0] / (double)s->waits.total);
    } else {
        fputc(',', f);
    }
}
