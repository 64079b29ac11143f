/*
 * hdr_log_test.c: unit tests for core/hdr_log.c, and the log producer of
 * tests/integration/hdr_log.sh.
 *
 *   hdr_log_test                      round-trips encoded histograms through
 *                                     an independent decoder written here
 *                                     (base64, zlib, V2 header, ZigZag
 *                                     LEB128 with zero runs), checks the
 *                                     log file's text and error paths;
 *                                     prints "N passed, 0 failed"
 *   hdr_log_test --log F --expect E   writes an interval log F with known
 *                                     intervals and, in E, one line per
 *                                     interval "count p50 p99 p100 max" (ns)
 *                                     as sb_histogram reports them (max =
 *                                     exact raw max), after a first line
 *                                     "precision P"
 */
#include "../../core/hdr_log.h"
#include "../../core/histogram.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"

/* ---- an independent decoder ------------------------------------------------ */

static int b64_val(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Returns decoded length; out must hold strlen(s) bytes. -1 on bad input. */
static long b64_decode(const char *s, unsigned char *out)
{
    size_t n = strlen(s), o = 0;
    if (n % 4 != 0)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=') {
                if (i + 4 != n || k < 2)
                    return -1;
                v[k] = 0;
                pad++;
            } else {
                if (pad)
                    return -1;
                v[k] = b64_val((unsigned char)s[i + k]);
                if (v[k] < 0)
                    return -1;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (unsigned char)(w >> 16);
        if (pad < 2) out[o++] = (unsigned char)(w >> 8);
        if (pad < 1) out[o++] = (unsigned char)w;
    }
    return (long)o;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

struct decoded {
    int sig;
    int64_t lowest, highest;
    uint32_t norm;
    double ratio;
    uint64_t *counts;
    long ncounts;
};

/* Decodes base64 text into d (d->counts malloc'd, caller frees);
 * returns 0 or a negative step number on failure. */
static int decode(const char *b64, struct decoded *d, long counts_cap)
{
    size_t n = strlen(b64);
    unsigned char *bin = malloc(n + 1);
    long bl = b64_decode(b64, bin);
    if (bl < 8) { free(bin); return -1; }
    if (be32(bin) != 0x1c849314u) { free(bin); return -2; }
    uint32_t zl = be32(bin + 4);
    if ((long)zl + 8 != bl) { free(bin); return -3; }
    uLongf rawcap = 40 + (uLongf)counts_cap * 9 + 64;
    unsigned char *raw = malloc(rawcap);
    uLongf rawlen = rawcap;
    if (uncompress(raw, &rawlen, bin + 8, zl) != Z_OK) { free(bin); free(raw); return -4; }
    free(bin);
    if (rawlen < 40 || be32(raw) != 0x1c849313u) { free(raw); return -5; }
    uint32_t payload = be32(raw + 4);
    if (payload + 40 != rawlen) { free(raw); return -6; }
    d->norm = be32(raw + 8);
    d->sig = (int)be32(raw + 12);
    d->lowest = (int64_t)be64(raw + 16);
    d->highest = (int64_t)be64(raw + 24);
    uint64_t rb = be64(raw + 32);
    memcpy(&d->ratio, &rb, sizeof d->ratio);
    d->counts = calloc((size_t)counts_cap, sizeof *d->counts);
    long idx = 0;
    size_t pos = 40;
    while (pos < rawlen) {
        uint64_t u = 0;
        int shift = 0;
        for (int k = 0; k < 9; k++) {
            if (pos >= rawlen) { free(raw); return -7; }
            unsigned char c = raw[pos++];
            if (k == 8) { u |= (uint64_t)c << 56; break; }
            u |= (uint64_t)(c & 0x7f) << shift;
            shift += 7;
            if (!(c & 0x80)) break;
        }
        int64_t v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (v < 0) {
            idx += -v;
        } else {
            if (idx >= counts_cap) { free(raw); return -8; }
            d->counts[idx++] = (uint64_t)v;
        }
    }
    d->ncounts = idx;
    free(raw);
    return 0;
}

static void check_roundtrip(const sb_histogram *h, const char *what)
{
    size_t cap = sb_hdr_base64_bound(h) + 1;
    char *b64 = malloc(cap);
    long n = sb_hdr_encode_base64(h, b64, cap);
    CHECK(n > 0 && (size_t)n == strlen(b64), "%s: encode returned %ld", what, n);
    CHECK(strncmp(b64, "HISTF", 5) == 0, "%s: starts %.8s", what, b64);

    sb_histogram_hdr_params p;
    sb_histogram_hdr_layout(h, &p);
    struct decoded d;
    int rc = decode(b64, &d, p.counts_len);
    CHECK(rc == 0, "%s: decode step %d", what, rc);
    CHECK(d.sig == p.significant_figures, "%s: sig %d", what, d.sig);
    CHECK(d.lowest == p.lowest_discernible_value, "%s: lowest %lld", what, (long long)d.lowest);
    CHECK(d.highest == p.highest_trackable_value, "%s: highest", what);
    CHECK(d.norm == 0 && d.ratio == 1.0, "%s: norm %u ratio %g", what, d.norm, d.ratio);
    for (int i = 0; i < p.counts_len; i++)
        CHECK(d.counts[i] == sb_histogram_count_at(h, i), "%s: count[%d] %llu != %llu", what, i,
              (unsigned long long)d.counts[i], (unsigned long long)sb_histogram_count_at(h, i));
    free(d.counts);

    /* too small a buffer is refused */
    char small[8];
    CHECK(sb_hdr_encode_base64(h, small, sizeof small) == -1 && small[0] == '\0', "%s: small", what);
    free(b64);
    PASS(what);
}

static void unit_tests(void)
{
    const double precs[] = {0.01, 0.001, 0.00001};
    for (size_t k = 0; k < sizeof precs / sizeof precs[0]; k++) {
        sb_histogram *h = sb_histogram_create(1000, (int64_t)3600e9, precs[k]);
        CHECK(h, "create");
        char name[64];
        snprintf(name, sizeof name, "roundtrip empty p=%g", precs[k]);
        check_roundtrip(h, name);
        sb_histogram_record(h, 1234567);
        snprintf(name, sizeof name, "roundtrip single p=%g", precs[k]);
        check_roundtrip(h, name);
        for (int i = 0; i < 100000; i++)
            sb_histogram_record(h, 1000 + (int64_t)i * 37 + (i % 7) * 1000000);
        sb_histogram_record_n(h, 50000000, UINT64_C(1) << 40);   /* big count: 7-byte word */
        sb_histogram_record_n(h, 60000000, UINT64_C(1) << 62);   /* 9-byte word */
        sb_histogram_record(h, INT64_C(9000000000000));           /* clamped to highest */
        snprintf(name, sizeof name, "roundtrip mixed p=%g", precs[k]);
        check_roundtrip(h, name);
        sb_histogram_destroy(h);
    }

    /* the file */
    char path[] = "/tmp/hdr_log_test.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    char err[256];
    struct sb_hdr_log *log = sb_hdr_log_open(path, 1700000000.25, err, sizeof err);
    CHECK(log, "open: %s", err);
    sb_histogram *h = sb_histogram_create(1000, (int64_t)3600e9, 0.01);
    sb_histogram_record(h, 2500000);
    CHECK(sb_hdr_log_write(log, 0.0, 1.0, h) == 0, "write");
    CHECK(sb_hdr_log_write(log, 1.0, 1.5, h) == 0, "write");
    CHECK(sb_hdr_log_close(log) == 0, "close");
    FILE *fp = fopen(path, "r");
    char line[4096];
    int lines = 0, intervals = 0;
    while (fgets(line, sizeof line, fp)) {
        lines++;
        if (lines == 1)
            CHECK(strcmp(line, "#[Histogram log format version 1.3]\n") == 0, "%s", line);
        if (lines == 2)
            CHECK(strncmp(line, "#[StartTime: 1700000000.250 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]", 80) == 0, "%s", line);
        if (lines == 3)
            CHECK(strcmp(line, "#[BaseTime: 1700000000.250 (seconds since epoch)]\n") == 0, "%s", line);
        if (line[0] != '#' && line[0] != '"') {
            intervals++;
            const char *want = intervals == 1 ? "0.000,1.000,2.500,HISTF" : "1.000,1.500,2.500,HISTF";
            CHECK(strncmp(line, want, strlen(want)) == 0, "interval line %s", line);
        }
    }
    fclose(fp);
    CHECK(intervals == 2, "%d intervals", intervals);
    unlink(path);
    close(fd);
    sb_histogram_destroy(h);
    PASS("log file text");

    err[0] = '\0';
    CHECK(sb_hdr_log_open("/nonexistent-dir/x.hlog", 0, err, sizeof err) == NULL && strstr(err, "/nonexistent-dir"),
          "open failure: %s", err);
    CHECK(sb_hdr_log_close(NULL) == 0, "close NULL");
    PASS("errors");
}

/* ---- the integration log -------------------------------------------------- */

static int write_known_log(const char *logpath, const char *expectpath)
{
    const double prec = 0.01;
    char err[256];
    struct sb_hdr_log *log = sb_hdr_log_open(logpath, 1700000000.5, err, sizeof err);
    if (!log) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    FILE *ex = fopen(expectpath, "w");
    if (!ex) {
        perror(expectpath);
        return 1;
    }
    fprintf(ex, "precision %g\n", prec);
    sb_histogram *h = sb_histogram_create(1000, (int64_t)3600e9, prec);
    for (int iv = 0; iv < 7; iv++) {
        sb_histogram_reset(h);
        switch (iv) {
        case 0: /* 1000 values from 1 ms to 10 ms */
            for (int i = 0; i < 1000; i++)
                sb_histogram_record(h, 1000000 + (int64_t)i * 9000);
            break;
        case 1: /* empty */
            break;
        case 2: /* one value */
            sb_histogram_record(h, 250000);
            break;
        case 3: /* bimodal: p50 at 100 us, p99 at 2 s */
            sb_histogram_record_n(h, 100000, 980);
            sb_histogram_record_n(h, 2000000000, 20);
            break;
        case 4: /* large counts */
            sb_histogram_record_n(h, 5000000, UINT64_C(1000000000000));
            sb_histogram_record_n(h, 7000000, UINT64_C(3000000000));
            break;
        case 5: /* below lowest, near and above highest */
            sb_histogram_record_n(h, 10, 60);
            sb_histogram_record_n(h, INT64_C(3599000000000), 30);
            sb_histogram_record_n(h, INT64_C(7200000000000), 10);
            break;
        case 6: /* spread over decades */
            for (int64_t v = 1000; v < INT64_C(100000000000); v = v * 11 / 10 + 1)
                sb_histogram_record(h, v);
            break;
        }
        if (sb_hdr_log_write(log, iv * 1.0, 1.0, h) != 0) {
            fprintf(stderr, "write failed\n");
            return 1;
        }
        fprintf(ex, "%llu %lld %lld %lld %lld\n", (unsigned long long)sb_histogram_count(h),
                (long long)sb_histogram_percentile(h, 50), (long long)sb_histogram_percentile(h, 99),
                (long long)sb_histogram_percentile(h, 100), (long long)sb_histogram_max(h));
    }
    sb_histogram_destroy(h);
    if (sb_hdr_log_close(log) != 0 || fclose(ex) != 0) {
        fprintf(stderr, "close failed\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--log") == 0 && strcmp(argv[3], "--expect") == 0)
        return write_known_log(argv[2], argv[4]);
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--log FILE --expect FILE]\n", argv[0]);
        return 2;
    }
    unit_tests();
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
