/*
 * hdr_read_test.c: unit tests for results/hdr_read.c, the HdrHistogram log
 * reader of sbench merge.  The writer (core/hdr_log.c) is the other party:
 * random histograms written by it read back bucket for bucket; then every
 * way a log or an encoded histogram can be broken (truncated line, bad
 * base64, cookie, zlib stream, payload, another layout, a tagged line)
 * gives -1 and a message naming the line, never a crash (this file runs
 * under the suite's ASan build too).  Prints "N passed, 0 failed".
 */
#include "../../core/hdr_log.h"
#include "../../results/hdr_read.h"
#include "../../core/histogram.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static sb_histogram *random_hist(double precision, int n)
{
    sb_histogram *h = sb_histogram_create(1000, 3600LL * 1000000000LL, precision);
    for (int i = 0; i < n; i++) {
        /* log-uniform over 1 us .. 10 s, some below the floor, a few huge */
        double e = 3 + (double)(next() % 7000) / 1000.0;
        int64_t v = (int64_t)pow(10.0, e);
        if (i % 97 == 0)
            v = 1;
        sb_histogram_record(h, v);
    }
    return h;
}

static void same_buckets(const sb_histogram *a, const sb_histogram *b, const char *what)
{
    CHECK(sb_histogram_bucket_count(a) == sb_histogram_bucket_count(b), "%s: layouts", what);
    for (int i = 0; i < sb_histogram_bucket_count(a); i++)
        CHECK(sb_histogram_count_at(a, i) == sb_histogram_count_at(b, i), "%s: bucket %d: %llu vs %llu",
              what, i, (unsigned long long)sb_histogram_count_at(a, i),
              (unsigned long long)sb_histogram_count_at(b, i));
}

/* writer -> decoder, three precisions, empty and full histograms */
static void test_round_trip(void)
{
    double precs[] = {0.01, 0.001, 0.05};
    int sizes[] = {0, 1, 10000};
    for (int p = 0; p < 3; p++)
        for (int s = 0; s < 3; s++) {
            sb_histogram *h = random_hist(precs[p], sizes[s]);
            size_t cap = sb_hdr_base64_bound(h) + 1;
            char *b64 = malloc(cap), err[256];
            long n = sb_hdr_encode_base64(h, b64, cap);
            CHECK(n > 0, "encode");
            sb_histogram *d = sb_histogram_clone_empty(h);
            CHECK(sb_hdr_decode_add(b64, (size_t)n, d, err, sizeof err) == 0, "decode: %s", err);
            same_buckets(h, d, "round trip");
            CHECK(sb_histogram_count(d) == sb_histogram_count(h), "count");
            /* adding twice doubles every bucket */
            CHECK(sb_hdr_decode_add(b64, (size_t)n, d, err, sizeof err) == 0, "decode 2: %s", err);
            for (int i = 0; i < sb_histogram_bucket_count(h); i++)
                CHECK(sb_histogram_count_at(d, i) == 2 * sb_histogram_count_at(h, i), "double %d", i);
            /* another layout is refused and d is left alone */
            sb_histogram *other = sb_histogram_create(1000, 3600LL * 1000000000LL, precs[(p + 1) % 3]);
            CHECK(sb_hdr_decode_add(b64, (size_t)n, other, err, sizeof err) == -1 &&
                  strstr(err, "settings differ") && sb_histogram_count(other) == 0, "layout: %s", err);
            sb_histogram_destroy(other);
            sb_histogram_destroy(d);
            sb_histogram_destroy(h);
            free(b64);
        }
    PASS("round trip through hdr_log.c's encoder, 3 precisions x 3 sizes; other layouts refused");
}

/* every prefix and every single-byte change of an encoding: -1 or a
 * decode whose count is the buckets' sum, never a crash */
static void test_broken_encodings(void)
{
    sb_histogram *h = random_hist(0.01, 5000);
    size_t cap = sb_hdr_base64_bound(h) + 1;
    char *b64 = malloc(cap), err[256];
    long n = sb_hdr_encode_base64(h, b64, cap);
    int refused = 0;
    for (long len = 0; len < n; len++) {
        sb_histogram *d = sb_histogram_clone_empty(h);
        if (sb_hdr_decode_add(b64, (size_t)len, d, err, sizeof err) != 0)
            refused++;
        sb_histogram_destroy(d);
    }
    CHECK(refused == n, "every proper prefix is refused (%d of %ld)", refused, n);
    static const char alphabet[] = "AZaz09+/=!";
    for (long i = 0; i < n; i++) {
        char saved = b64[i];
        b64[i] = alphabet[next() % (sizeof alphabet - 1)];
        sb_histogram *d = sb_histogram_clone_empty(h);
        int rc = sb_hdr_decode_add(b64, (size_t)n, d, err, sizeof err);
        uint64_t sum = 0;
        for (int k = 0; k < sb_histogram_bucket_count(d); k++)
            sum += sb_histogram_count_at(d, k);
        CHECK(rc == -1 ? sb_histogram_count(d) == 0 : sum == sb_histogram_count(d), "byte %ld", i);
        sb_histogram_destroy(d);
        b64[i] = saved;
    }
    sb_histogram *d = sb_histogram_clone_empty(h);
    CHECK(sb_hdr_decode_add("HISTFAAAAA==", 12, d, err, sizeof err) == -1, "short");
    CHECK(sb_hdr_decode_add("not base64!!", 12, d, err, sizeof err) == -1 && strstr(err, "base64"), "%s", err);
    sb_histogram_destroy(d);
    sb_histogram_destroy(h);
    free(b64);
    PASS("every prefix refused; every byte changed refused or consistent");
}

/* writes a log with the writer, returns it in memory */
static char *write_log(int nintervals, size_t *len, const char *tag)
{
    char path[] = "/tmp/hdr_read_test.XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[256];
    struct sb_hdr_log *log = sb_hdr_log_open(path, 1700000000.25, err, sizeof err);
    CHECK(log, "open: %s", err);
    if (tag)
        CHECK(sb_hdr_log_comment(log, tag) == 0, "comment");
    for (int i = 0; i < nintervals; i++) {
        sb_histogram *h = random_hist(0.01, 100 * (i + 1));
        CHECK(sb_hdr_log_write(log, 0.5 + i, 1.0, h) == 0, "write");
        sb_histogram_destroy(h);
    }
    CHECK(sb_hdr_log_close(log) == 0, "close");
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    unlink(path);
    return buf;
}

static int read_all(const char *buf, size_t len, char *err, size_t errlen, struct sb_hdr_reader *r,
                    uint64_t *count)
{
    struct sb_hdr_interval iv;
    int n = 0, rc;
    *count = 0;
    sb_hdr_reader_init(r, buf, len);
    while ((rc = sb_hdr_reader_next(r, &iv, err, errlen)) == 1) {
        sb_histogram *h = sb_histogram_create(1000, 3600LL * 1000000000LL, 0.01);
        if (sb_hdr_decode_add(iv.hist, iv.hist_len, h, err, errlen) != 0) {
            sb_histogram_destroy(h);
            return -1;
        }
        *count += sb_histogram_count(h);
        sb_histogram_destroy(h);
        n++;
    }
    return rc < 0 ? -1 : n;
}

static void test_log(void)
{
    size_t len;
    char err[256];
    struct sb_hdr_reader r;
    uint64_t count;
    char *buf = write_log(4, &len, "sbench shard 1 of 3, run abc, settings 0123456789abcdef");
    CHECK(read_all(buf, len, err, sizeof err, &r, &count) == 4, "4 intervals: %s", err);
    CHECK(count == 100 + 200 + 300 + 400, "count %llu", (unsigned long long)count);
    CHECK(r.has_start && r.has_base && r.base_time == 1700000000.25, "base %f", r.base_time);
    CHECK(strcmp(r.tag, "sbench shard 1 of 3, run abc, settings 0123456789abcdef") == 0, "tag '%s'", r.tag);
    /* cut anywhere: refused (a line without its end) or fewer intervals,
     * never more, never a crash */
    for (size_t cut = 0; cut < len; cut++) {
        int n = read_all(buf, cut, err, sizeof err, &r, &count);
        CHECK(n == -1 ? strncmp(err, "line ", 5) == 0 : (n < 4 && (cut == 0 || buf[cut - 1] == '\n')),
              "cut at %zu: %d (%s)", cut, n, err);
    }
    /* a broken line is named */
    static const struct { const char *text, *msg; } bad[] = {
        {"#[BaseTime: 1.0]\n0.000,1.000,2.0\n", "line 2: not 4"},
        {"#[BaseTime: 1.0]\n0.000,x,2.0,HISTFAAA\n", "line 2: start, length"},
        {"#[BaseTime: 1.0]\n0.000,1.000,2.0,HISTFAAA,5\n", "line 2: more than 4"},
        {"#[BaseTime: 1.0]\nTag=a0.000;1.000\n", "line 2: a tag without"},
        {"#[BaseTime: 1.0]\nTag=a,0.000,1.000,2.0\n", "line 2: not 4"},
        {"#[BaseTime: zz]\n", "line 1: BaseTime"},
        {"0.000,1.000,-2.0,HISTFAAA\n", "line 1: start, length"},
        {"0.000,1.000,2.0,\n", "line 1: no histogram"},
        {"0.000,1.000,2.0,HIST", "line 1: the file ends inside"},
        {"0.0\0,1.000,2.0,HIST\n", "line 1: a NUL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t bl = strlen(bad[i].text);
        if (i == sizeof bad / sizeof bad[0] - 1)
            bl = 20;
        struct sb_hdr_interval iv;
        int rc;
        sb_hdr_reader_init(&r, bad[i].text, bl);
        while ((rc = sb_hdr_reader_next(&r, &iv, err, sizeof err)) == 1)
            ;
        CHECK(rc == -1 && strncmp(err, bad[i].msg, strlen(bad[i].msg)) == 0, "'%s': %d '%s'", bad[i].msg,
              rc, err);
    }
    /* a tagged interval (a profiled run's phase): its tag, then the fields */
    {
        static const char tagged[] = "#[BaseTime: 1.0]\nTag=hold:5:10,0.500,1.000,2.0,HISTFAAA\n";
        struct sb_hdr_interval iv;
        sb_hdr_reader_init(&r, tagged, sizeof tagged - 1);
        int rc = sb_hdr_reader_next(&r, &iv, err, sizeof err);
        CHECK(rc == 1 && iv.tag && iv.tag_len == 9 && memcmp(iv.tag, "hold:5:10", 9) == 0 && iv.start == 0.5 &&
              iv.length == 1.0 && iv.hist_len == 8, "tagged line: %d '%s'", rc, rc < 0 ? err : "");
    }
    /* a corrupt histogram in a well-formed line */
    char *p = strstr(buf, "HISTF");
    p[10] ^= 0x5;
    CHECK(read_all(buf, len, err, sizeof err, &r, &count) == -1, "corrupt histogram decoded");
    free(buf);
    PASS("interval log: header, tag, counts; every truncation; broken lines named");
}

int main(void)
{
    test_round_trip();
    test_broken_encodings();
    test_log();
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
