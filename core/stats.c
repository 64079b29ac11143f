/*
 * Merging per-thread statistics, and statement classification.
 */
#include "stats.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

void sb_stats_snapshot(struct sb_thread_stats *const *threads, int n, struct sb_snapshot *out)
{
    double t = out->time;
    memset(out, 0, sizeof *out);
    out->time = t;
    for (int i = 0; i < n; i++) {
        const struct sb_thread_stats *s = threads[i];
        out->events += SB_GET(s->events);
        for (int k = 0; k < SB_Q_NKINDS; k++)
            out->queries[k] += SB_GET(s->queries[k]);
        out->ignored_errors += SB_GET(s->ignored_errors);
        out->reconnects += SB_GET(s->reconnects);
        out->failed_events += SB_GET(s->failed_events);
        out->busy_ns += SB_GET(s->busy_ns);
        uint64_t nc = SB_GET(s->connects);
        if (nc) {
            int64_t mn = SB_GET(s->connect_min_ns), mx = SB_GET(s->connect_max_ns);
            if (out->connects == 0 || mn < out->connect_min_ns)
                out->connect_min_ns = mn;
            if (mx > out->connect_max_ns)
                out->connect_max_ns = mx;
        }
        out->connects += nc;
        out->connect_ns += SB_GET(s->connect_ns);
    }
}

void sb_stats_merge_latency(struct sb_thread_stats *const *threads, int n, sb_histogram *dst)
{
    sb_histogram_reset(dst);
    for (int i = 0; i < n; i++)
        sb_histogram_add(dst, threads[i]->latency);
}

int sb_classify_sql(const char *sql, size_t len)
{
    size_t i = 0;
    while (i < len && (isspace((unsigned char)sql[i]) || sql[i] == '('))
        i++;
    const char *w = sql + i;
    size_t n = 0;
    while (i + n < len && isalpha((unsigned char)w[n]))
        n++;
#define IS(word) (n == sizeof(word) - 1 && strncasecmp(w, word, n) == 0)
    if (IS("SELECT") || IS("WITH") || IS("SHOW") || IS("VALUES"))
        return SB_Q_SELECT;
    if (IS("INSERT") || IS("REPLACE") || IS("COPY"))
        return SB_Q_INSERT;
    if (IS("UPDATE"))
        return SB_Q_UPDATE;
    if (IS("DELETE"))
        return SB_Q_DELETE;
    if (IS("BEGIN") || IS("COMMIT") || IS("ROLLBACK") || IS("START") || IS("END"))
        return SB_Q_TXN;
#undef IS
    return SB_Q_OTHER;
}
