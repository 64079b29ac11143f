/*
 * report_check.c: a JSON report line checked as untrusted (report_check.h).
 */
#include "report_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"

/* a and b equal to the writer's rounding (%.15g of each operand) */
static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* "what" is a rate of count in seconds s: finite, >= 0, count / s. */
static int check_rate(const json_object *o, const char *what, uint64_t count, double s, char *err,
                      size_t errlen)
{
    double rate;
    if (sb_json_get_num(o, what, &rate, err, errlen))
        return -1;
    double want = s > 0 ? (double)count / s : 0;
    if (rate < 0 || !near(rate, want)) {
        snprintf(err, errlen, "\"%s\" is %.17g, but %llu in %.9g s is %.17g (a rate must be its count "
                              "over its seconds)", what, rate, (unsigned long long)count, s, want);
        return -1;
    }
    return 0;
}

/* A latency object {count, min, avg, max, sum, percentiles} at path. */
static int check_latency(const json_object *o, const char *path, uint64_t *count, char *err,
                         size_t errlen)
{
    char p[160];
    double mn, avg, mx, sum = 0;
    const json_object *l = sb_json_at(o, path);
#define GET_NUM(key, out) (snprintf(p, sizeof p, "%s." key, path), sb_json_get_num(o, p, out, err, errlen))
    snprintf(p, sizeof p, "%s.count", path);
    if (sb_json_get_u64(o, p, count, err, errlen) || GET_NUM("min", &mn) || GET_NUM("avg", &avg) ||
        GET_NUM("max", &mx))
        return -1;
    int has_sum = sb_json_member(l, "sum") != NULL;
    if (has_sum && GET_NUM("sum", &sum))
        return -1;
#undef GET_NUM
    /* a window's min and max are its buckets' bounds, its avg exact: only
     * min <= max holds between them */
    if (mn < 0 || avg < 0 || mx < 0 || sum < 0 || (*count > 0 && mn > mx)) {
        snprintf(err, errlen, "\"%s\": min %.9g, avg %.9g, max %.9g are not latencies (negative, or "
                              "min above max)", path, mn, avg, mx);
        return -1;
    }
    if (has_sum && !near(sum, avg * (double)*count) &&
        fabs(sum - avg * (double)*count) > 1e-6 * (double)*count) {
        snprintf(err, errlen, "\"%s.sum\" is %.17g, but %llu latencies of avg %.17g make %.17g", path,
                 sum, (unsigned long long)*count, avg, avg * (double)*count);
        return -1;
    }
    json_object *pct = sb_json_member(l, "percentiles");
    double last = 0;
    if (pct != NULL) {
        if (!json_object_is_type(pct, json_type_object)) {
            snprintf(err, errlen, "\"%s.percentiles\" is not an object", path);
            return -1;
        }
        json_object_object_foreach(pct, key, v) {
            double x = sb_json_num_of(v);
            if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
                x = -1;
            if (!isfinite(x) || x < 0 || x < last * (1 - 1e-9)) {
                snprintf(err, errlen, "\"%s.percentiles.%s\" is not a latency at least the one before it",
                         path, key);
                return -1;
            }
            last = x;
        }
    }
    return 0;
}

/* Each member of object `what` that is {count, rate, latency_ms}. */
static int check_counted(const json_object *o, const char *what, double s, char *err, size_t errlen)
{
    json_object *set = sb_json_member(o, what);
    if (set == NULL)
        return 0;
    if (!json_object_is_type(set, json_type_object)) {
        snprintf(err, errlen, "\"%s\" is not an object", what);
        return -1;
    }
    json_object_object_foreach(set, key, v) {
        char p[200];
        uint64_t count, lat_count;
        if (!json_object_is_type(v, json_type_object) || sb_json_member(v, "rate") == NULL)
            continue;
        if (strlen(key) > 100) {
            snprintf(err, errlen, "\"%s\" has a name longer than 100 bytes", what);
            return -1;
        }
        snprintf(p, sizeof p, "%s.%s.count", what, key);
        if (sb_json_get_u64(o, p, &count, err, errlen))
            return -1;
        snprintf(p, sizeof p, "%s.%s.rate", what, key);
        if (check_rate(o, p, count, s, err, errlen))
            return -1;
        snprintf(p, sizeof p, "%s.%s.latency_ms", what, key);
        if (sb_json_member(v, "latency_ms") && check_latency(o, p, &lat_count, err, errlen))
            return -1;
    }
    return 0;
}

/* queries.read, .write, .other = the kinds' counts as core/stats.h adds
 * them (select; insert + update + delete; begin + commit + rollback +
 * other). */
static int check_kinds(const json_object *o, const uint64_t q[4], char *err, size_t errlen)
{
    static const char *const groups[3][5] = {
        {"select", NULL}, {"insert", "update", "delete", NULL}, {"begin", "commit", "rollback", "other", NULL}};
    static const char *const names[3] = {"read", "write", "other"};
    for (int g = 0; g < 3; g++) {
        uint64_t sum = 0, n;
        char p[64];
        for (int k = 0; groups[g][k]; k++) {
            snprintf(p, sizeof p, "kinds.%s.count", groups[g][k]);
            if (sb_json_get_u64(o, p, &n, err, errlen))
                return -1;
            if (__builtin_add_overflow(sum, n, &sum)) {
                snprintf(err, errlen, "the kinds' counts of \"queries.%s\" overflow", names[g]);
                return -1;
            }
        }
        if (sum != q[g]) {
            snprintf(err, errlen, "\"queries.%s\" is %llu, but its statement kinds count %llu", names[g],
                     (unsigned long long)q[g], (unsigned long long)sum);
            return -1;
        }
    }
    return 0;
}

static int check_time(const json_object *o, const char *what, double *out, char *err, size_t errlen)
{
    if (sb_json_get_num(o, what, out, err, errlen))
        return -1;
    if (!(*out >= 0 && *out <= SB_REPORT_MAX_SECONDS)) {
        snprintf(err, errlen, "\"%s\" is %.17g: not a time in seconds (0 to %.0f)", what, *out,
                 SB_REPORT_MAX_SECONDS);
        return -1;
    }
    return 0;
}

int sb_report_line_check(const json_object *o, char *err, size_t errlen)
{
    double s, t;
    uint64_t events, q[4], lat_count;
    const char *type = sb_json_str(o, "type");
    if (check_time(o, "seconds", &s, err, errlen) ||
        (sb_json_member(o, "time") && check_time(o, "time", &t, err, errlen)) ||
        sb_json_get_u64(o, "transactions", &events, err, errlen))
        return -1;
    if (events > 0 && s <= 0) {
        snprintf(err, errlen, "\"seconds\" is %.17g, but %llu transactions ran: not a time", s,
                 (unsigned long long)events);
        return -1;
    }
    if (sb_json_get_u64(o, "queries.read", &q[0], err, errlen) ||
        sb_json_get_u64(o, "queries.write", &q[1], err, errlen) ||
        sb_json_get_u64(o, "queries.other", &q[2], err, errlen) ||
        sb_json_get_u64(o, "queries.total", &q[3], err, errlen))
        return -1;
    uint64_t sum;
    if (__builtin_add_overflow(q[0], q[1], &sum) || __builtin_add_overflow(sum, q[2], &sum) ||
        sum != q[3]) {
        snprintf(err, errlen, "\"queries.total\" is %llu, not read + write + other",
                 (unsigned long long)q[3]);
        return -1;
    }
    if (sb_json_member(o, "kinds") && check_kinds(o, q, err, errlen))
        return -1;
    if (check_rate(o, "tps", events, s, err, errlen) || check_rate(o, "qps", q[3], s, err, errlen) ||
        check_latency(o, "latency_ms", &lat_count, err, errlen) ||
        check_counted(o, "kinds", s, err, errlen) || check_counted(o, "named", s, err, errlen))
        return -1;
    /* every event has its latency, but those a script counted itself
     * (core/tally.c takes the counts from the histograms) */
    uint64_t script = 0;
    if (sb_json_member(o, "script_transactions") &&
        sb_json_get_u64(o, "script_transactions", &script, err, errlen))
        return -1;
    if (lat_count > events || events - lat_count != script) {
        snprintf(err, errlen, "\"transactions\" is %llu, but \"latency_ms.count\" is %llu and "
                              "\"script_transactions\" %llu (every transaction has its latency, or was "
                              "counted by the script)", (unsigned long long)events,
                 (unsigned long long)lat_count, (unsigned long long)script);
        return -1;
    }
    (void)type;
    return 0;
}

/* *sum += the count at path of o, held at UINT64_MAX once it overflows (no
 * wrap back to a sum that looks right) */
static void add_count(uint64_t *sum, const json_object *o, const char *path)
{
    char msg[8];
    uint64_t v = 0;
    (void)sb_json_get_u64(o, path, &v, msg, sizeof msg); /* checked by sb_report_line_check */
    if (__builtin_add_overflow(*sum, v, sum))
        *sum = UINT64_MAX;
}

void sb_report_windows_add(struct sb_report_windows *w, const json_object *o)
{
    w->n++;
    add_count(&w->transactions, o, "transactions");
    add_count(&w->latencies, o, "latency_ms.count");
    add_count(&w->queries, o, "queries.total");
    w->seconds += sb_json_num(o, "seconds");
}

/* One sum of the windows against the final line's: equal, or on the side
 * `side` allows (> 0: the windows may hold more, < 0: less). */
static int window_sum(const char *what, uint64_t sum, uint64_t fin, int side, char *err, size_t errlen)
{
    if (sum == fin || (side > 0 && sum > fin) || (side < 0 && sum < fin))
        return 0;
    snprintf(err, errlen, "the interval lines' \"%s\" add up to %llu, the final line's is %llu (the "
                          "windows cover the final report's run)", what, (unsigned long long)sum,
             (unsigned long long)fin);
    return -1;
}

static uint64_t fin_count(const json_object *fin, const char *path)
{
    uint64_t v = 0;
    add_count(&v, fin, path);
    return v;
}

int sb_report_windows_check(const struct sb_report_windows *w, const json_object *fin, char *err,
                            size_t errlen)
{
    if (w->n == 0) /* no --report-interval, or the run ended in its warmup */
        return 0;
    /* after --report-checkpoints the final line covers the time since the
     * last one, the windows the whole run; workers cut off by
     * --forced-shutdown may still count after the last window */
    const char *cp = sb_json_str(sb_json_at(fin, "run.options"), "report-checkpoints");
    int side = cp && *cp ? 1 : sb_json_int(fin, "unfinished_on_forced_shutdown") > 0 ? -1 : 0;
    double s = sb_json_num(fin, "seconds");
    if (window_sum("transactions", w->transactions, fin_count(fin, "transactions"), side, err, errlen) ||
        window_sum("latency_ms.count", w->latencies, fin_count(fin, "latency_ms.count"), side, err, errlen) ||
        window_sum("queries.total", w->queries, fin_count(fin, "queries.total"), side, err, errlen))
        return -1;
    /* the last window is left out when it is under 1 ms and empty */
    if (side == 0 && fabs(w->seconds - s) > 0.001 + 1e-9 * s) {
        snprintf(err, errlen, "the interval lines' \"seconds\" add up to %.9g, the final line's is %.9g "
                              "(the windows cover the final report's run)", w->seconds, s);
        return -1;
    }
    return 0;
}
