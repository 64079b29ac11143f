/* fuzz_json_read.c: libFuzzer target for the readers of sbench's JSON
 * result files, whose bytes come from other machines and runs: json-c
 * through results/json_get.c (sb_json_parse, the JSON lines reader), the
 * shard report of `sbench merge` (merge/merge_load.c, mg_shard_parse_json:
 * every field, the exact histograms in merge_data) and the run report of
 * `sbench compare` (compare/compare_load.c, cmp_report_parse).  Any bytes
 * must give an error of one line or a structure that holds together,
 * never a read past the buffer, a crash, UB or a leak.  Oracles:
 *  - sb_json_parse: a value that is an object or a list, which json-c
 *    writes back and parses again to an equal value; NULL with one line;
 *  - the JSON lines reader: it stops exactly at the end, with as many
 *    lines read as the input has, or with one line naming where;
 *  - a shard report read whole: one window per interval line, its
 *    transactions equal to its latency histogram's count, every exact
 *    histogram's count the sum of its buckets, min <= max, thread lists as
 *    long as "threads"; failed: one line naming the file;
 *  - a run report read whole: a final object of type "final", one point
 *    per interval line; failed: no final, one line naming the file.
 * Semantic oracle (nothing accepted may lie): each line of an accepted
 * report is parsed again here with json-c alone, and its transactions,
 * seconds and tps must be what the reader took (the shard's windows and
 * final, the run's points), its seconds a time (finite, 0 to 1e9, above 0
 * when transactions ran) and its tps transactions / seconds recomputed.
 * The buffers are exactly as large as the input, so ASan sees a read one
 * byte past it.  Build and run: tests/fuzz/fuzz.sh. */
#include "../../compare/compare.h"
#include "../../results/json_get.h"
#include "../../merge/merge_shard.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct json_tokener *tok;

static void die(const char *what)
{
    fprintf(stderr, "oracle failed: %s\n", what);
    abort();
}

/* An error is one non-empty line inside err, starting with prefix. */
static void check_err(const char *err, size_t errlen, const char *prefix)
{
    size_t n = strnlen(err, errlen);
    if (n == 0 || n == errlen || strchr(err, '\n'))
        die("an error message that is not one line");
    if (prefix && strncmp(err, prefix, strlen(prefix)) != 0)
        die("an error message that does not name the file");
}

static void check_hist(const sb_histogram *h)
{
    if (h == NULL)
        die("a histogram missing from a report read whole");
    uint64_t sum = 0;
    for (int i = 0; i < sb_histogram_bucket_count(h); i++)
        sum += sb_histogram_count_at(h, i);
    if (sum != sb_histogram_count(h))
        die("a histogram's count is not the sum of its buckets");
    if (sb_histogram_count(h) && sb_histogram_min(h) > sb_histogram_max(h))
        die("a histogram's min is above its max");
}

static void one_value(const char *buf, size_t len)
{
    char err[256] = "";
    json_object *o = sb_json_parse(tok, buf, len, err, sizeof err);
    if (o == NULL) {
        check_err(err, sizeof err, NULL);
        return;
    }
    if (!json_object_is_type(o, json_type_object) && !json_object_is_type(o, json_type_array) &&
        !json_object_is_type(o, json_type_string) && !json_object_is_type(o, json_type_int) &&
        !json_object_is_type(o, json_type_double) && !json_object_is_type(o, json_type_boolean))
        die("sb_json_parse gave a null");
    size_t tl;
    const char *text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &tl);
    char *copy = malloc(tl ? tl : 1);
    if (!copy)
        die("out of memory");
    memcpy(copy, text, tl);
    json_object *again = sb_json_parse(NULL, copy, tl, err, sizeof err);
    if (again == NULL || !json_object_equal(o, again)) {
        fprintf(stderr, "written back: %.*s\n", (int)(tl > 400 ? 400 : tl), copy);
        die("json-c's writing of a value does not parse back equal");
    }
    free(copy);
    json_object_put(again);
    json_object_put(o);
}

/* The number of lines of a JSON lines buffer (its newlines). */
static int count_lines(const char *buf, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\n';
    return n;
}

static void lines(const char *buf, size_t len)
{
    struct sb_json_lines r;
    char err[256] = "";
    json_object *o;
    int got;
    if (sb_json_lines_init(&r, buf, len, err, sizeof err) != 0) {
        check_err(err, sizeof err, NULL);
        sb_json_lines_close(&r);
        return;
    }
    while ((got = sb_json_lines_next(&r, &o, err, sizeof err)) == 1)
        json_object_put(o);
    if (got == 0 && (r.line != count_lines(buf, len) || r.p != buf + len))
        die("the JSON lines reader ended before the last line");
    if (got < 0) {
        check_err(err, sizeof err, NULL);
        if (o != NULL || r.line < 1 || r.line > count_lines(buf, len))
            die("a failed line without its number");
    }
    sb_json_lines_close(&r);
}

/* Line i (0-based) of buf parsed by json-c alone (a new reference), or
 * NULL. */
static json_object *raw_line(const char *buf, size_t len, int i)
{
    const char *p = buf, *end = buf + len;
    for (; i > 0 && p < end; i--) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    char *copy = malloc(n + 1);
    if (!copy)
        die("out of memory");
    memcpy(copy, p, n);
    copy[n] = 0;
    json_object *o = json_tokener_parse(copy);
    free(copy);
    return o;
}

/* The line's transactions and seconds, read here; its seconds a time and
 * its tps their quotient, or the reader accepted a lie. */
static void true_line(const json_object *o, uint64_t *events, double *secs)
{
    json_object *t = NULL, *s = NULL, *r = NULL;
    if (!json_object_object_get_ex(o, "transactions", &t) || !json_object_object_get_ex(o, "seconds", &s) ||
        !json_object_object_get_ex(o, "tps", &r))
        die("an accepted report line without transactions, seconds or tps");
    *events = json_object_get_uint64(t);
    *secs = json_object_get_double(s);
    double tps = json_object_get_double(r), want = *secs > 0 ? (double)*events / *secs : 0;
    if (!isfinite(*secs) || *secs < 0 || *secs > 1e9 || (*events > 0 && *secs <= 0))
        die("an accepted report line whose seconds are not a time");
    if (!isfinite(tps) || tps < 0 || fabs(tps - want) > 1e-6 * fmax(1.0, want))
        die("an accepted report line whose tps is not its transactions over its seconds");
}

static void shard_report(const char *buf, size_t len)
{
    struct mg_shard s;
    char err[512] = "";
    if (mg_shard_parse_json(&s, "fuzz.json", buf, len, err, sizeof err) != 0) {
        check_err(err, sizeof err, "fuzz.json");
        mg_shard_free(&s);
        return;
    }
    if (s.nw != count_lines(buf, len) - 1)
        die("a shard report read whole without one window per interval line");
    if (s.d.events != sb_histogram_count(s.lat))
        die("a shard report's transactions differ from its latencies");
    check_hist(s.lat);
    check_hist(s.connect);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        check_hist(s.kind[k]);
    if (s.lag)
        check_hist(s.lag);
    for (int i = 0; i < s.nnamed; i++)
        check_hist(s.named_lat[i]);
    if (s.threads < 1 || !s.thread_events || !s.thread_busy_ns || s.count < 1 || s.index < 0 ||
        s.index >= s.count || !(s.precision > 0 && s.precision < 1) || s.run == NULL)
        die("a shard report read whole without its threads, shard or options");
    if (strnlen(s.run_id, sizeof s.run_id) == sizeof s.run_id ||
        strnlen(s.host, sizeof s.host) == sizeof s.host)
        die("a string of a shard report is not NUL-terminated");
    for (int i = 0; i <= s.nw; i++) { /* the windows, then the final line */
        json_object *o = raw_line(buf, len, i);
        uint64_t events;
        double secs;
        if (o == NULL)
            die("a line of an accepted shard report does not parse with json-c alone");
        true_line(o, &events, &secs);
        json_object_put(o);
        if (events != (i < s.nw ? s.w[i].d.events : s.d.events) ||
            secs != (i < s.nw ? s.w[i].seconds : s.seconds))
            die("a shard's transactions or seconds differ from its line's, read again");
    }
    mg_shard_free(&s);
}

static void run_report(const char *buf, size_t len)
{
    json_object *final = (json_object *)buf; /* must become NULL or the final */
    json_object *intervals = json_object_new_array();
    char err[512] = "";
    if (!intervals)
        die("out of memory");
    if (cmp_report_parse("run.json", buf, len, &final, intervals, err, sizeof err) != 0) {
        check_err(err, sizeof err, "run.json");
        if (final != NULL)
            die("a failed run report with a final line");
    } else {
        const char *type = sb_json_str(final, "type");
        if (!type || strcmp(type, "final") != 0)
            die("a run report's final line is not of type final");
        int n = (int)sb_json_len(intervals);
        if (n != count_lines(buf, len) - 1)
            die("a run report read whole without one point per interval line");
        double t = 0;
        for (int i = 0, k = 0; i <= n; i++) { /* each line: the points (time, tps) and the final */
            json_object *o = raw_line(buf, len, i), *type = NULL;
            uint64_t events;
            double secs;
            if (o == NULL)
                die("a line of an accepted run report does not parse with json-c alone");
            true_line(o, &events, &secs);
            int is_final = json_object_object_get_ex(o, "type", &type) &&
                           strcmp(json_object_get_string(type), "final") == 0;
            json_object_put(o);
            if (is_final)
                continue;
            json_object *pt = sb_json_elem(intervals, (size_t)k++);
            t += secs;
            double want = secs > 0 ? (double)events / secs : 0;
            if (fabs(sb_json_num_of(sb_json_elem(pt, 0)) - t) > 1e-9 * fmax(1.0, t) ||
                fabs(sb_json_num_of(sb_json_elem(pt, 1)) - want) > 1e-6 * fmax(1.0, want))
                die("a run report's point differs from its interval line, read again");
        }
        json_object_put(final);
    }
    json_object_put(intervals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!tok && !(tok = json_tokener_new()))
        die("out of memory");
    char *buf = malloc(size ? size : 1);
    if (!buf)
        die("out of memory");
    memcpy(buf, data, size);
    one_value(buf, size);
    lines(buf, size);
    shard_report(buf, size);
    run_report(buf, size);
    free(buf);
    return 0;
}
