/* fuzz_hdr_read.c: libFuzzer target for the HdrHistogram readers of
 * `sbench merge` and `sbench compare` (results/hdr_read.c): an interval log
 * and its base64 V2 compressed histograms come from other machines, so
 * any bytes must end in an interval, the end, or an error of one line,
 * never a read past the buffer, a crash or UB.  Each input is used three
 * ways:
 *  1. as a log: sb_hdr_reader_next over exactly the input's bytes, and
 *     every interval's histogram through sb_hdr_decode_add.  Oracle: an
 *     interval's fields lie inside the buffer, its numbers are finite and
 *     >= 0, lines only grow; a decode that fails leaves the histogram
 *     unchanged, one that succeeds grows it, and its total count always
 *     equals the sum of its buckets, with min <= max when not empty.
 *     Semantic oracle: whatever interval the reader accepts, its count is
 *     recomputed from the same text by this file's own base64, zlib and
 *     payload decoding (ref_total) and must be what the reader added,
 *     within 2^63-1 (counts that overflow must be refused).
 *  2. as the payload of a V2 histogram (counts, ZigZag LEB128, zero runs)
 *     that this file wraps correctly (header, zlib, base64): the decoder
 *     must agree with the independent decoder below (same buckets, or
 *     both refuse; counts that add up past 2^63-1 are refused by both).
 *  3. as values recorded into a histogram, which sb_hdr_encode_base64
 *     (core/hdr_log.c, the writer) encodes: it must read back equal.
 * The whole input is also given to sb_hdr_decode_add as one encoded
 * histogram.  Build and run: tests/fuzz/fuzz.sh. */
#include "../../core/hdr_log.h"
#include "../../results/hdr_read.h"
#include "../../core/histogram.h"
#include "../../core/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define V2_HEADER_LEN 40

static sb_histogram *h_log, *h_a, *h_b;
static uint64_t *ref, *snap;
static char *b64;
static size_t b64_cap;

static void die(const char *what)
{
    fprintf(stderr, "oracle failed: %s\n", what);
    abort();
}

/* An error must be one non-empty line inside err. */
static void check_err(const char *err, size_t errlen)
{
    size_t n = strnlen(err, errlen);
    if (n == 0 || n == errlen || strchr(err, '\n'))
        die("an error message that is not one line");
}

/* Total == sum of the buckets, min <= max when not empty. */
static void check_sane(const sb_histogram *h)
{
    uint64_t sum = 0;
    for (int i = 0; i < sb_histogram_bucket_count(h); i++)
        if (__builtin_add_overflow(sum, sb_histogram_count_at(h, i), &sum) || sum > (uint64_t)INT64_MAX)
            die("the histogram's buckets add up past 2^63-1: an overflow was accepted");
    if (sum != sb_histogram_count(h))
        die("the histogram's count is not the sum of its buckets");
    if (sb_histogram_count(h) && sb_histogram_min(h) > sb_histogram_max(h))
        die("min above max");
}

static void take_snap(const sb_histogram *h, uint64_t *s)
{
    for (int i = 0; i < sb_histogram_bucket_count(h); i++)
        s[i] = sb_histogram_count_at(h, i);
}

static int same_as_snap(const sb_histogram *h, const uint64_t *s)
{
    for (int i = 0; i < sb_histogram_bucket_count(h); i++)
        if (s[i] != sb_histogram_count_at(h, i))
            return 0;
    return 1;
}

/* decode_add with its oracles: unchanged on error, sane always. */
static int decode_checked(const char *text, size_t len, sb_histogram *h)
{
    char err[256];
    uint64_t before = sb_histogram_count(h);
    take_snap(h, snap);
    memset(err, 0, sizeof err);
    int rc = sb_hdr_decode_add(text, len, h, err, sizeof err);
    if (rc != 0) {
        if (rc != -1)
            die("decode_add returned neither 0 nor -1");
        check_err(err, sizeof err);
        if (sb_histogram_count(h) != before || !same_as_snap(h, snap))
            die("a failed decode changed the histogram");
    }
    check_sane(h);
    return rc;
}

static int ref_total(const char *text, size_t len, int32_t nbuckets, uint64_t *count);

/* 1: the input as a log. */
static void as_log(const char *buf, size_t len)
{
    struct sb_hdr_reader r;
    struct sb_hdr_interval iv;
    char err[256];
    int got, last = 0;
    sb_histogram_reset(h_log);
    sb_hdr_reader_init(&r, buf, len);
    memset(err, 0, sizeof err);
    while ((got = sb_hdr_reader_next(&r, &iv, err, sizeof err)) == 1) {
        if (iv.line <= last || iv.line != r.line)
            die("interval line numbers do not grow");
        last = iv.line;
        if (iv.hist < buf || iv.hist_len == 0 || iv.hist + iv.hist_len > buf + len)
            die("the histogram field lies outside the buffer");
        if (!isfinite(iv.start) || !isfinite(iv.length) || !isfinite(iv.max) || iv.start < 0 ||
            iv.length < 0 || iv.max < 0)
            die("an interval's numbers are not finite and >= 0");
        if (strnlen(r.tag, sizeof r.tag) == sizeof r.tag)
            die("the sbench comment is not NUL-terminated");
        uint64_t before = sb_histogram_count(h_log), want;
        if (decode_checked(iv.hist, iv.hist_len, h_log) == 0) {
            if (ref_total(iv.hist, iv.hist_len, sb_histogram_bucket_count(h_log), &want) != 0)
                die("the reader accepted a histogram this file's own decoding refuses");
            if (sb_histogram_count(h_log) - before != want)
                die("the count the reader added differs from the count recomputed from the same text");
        }
    }
    if (got == -1)
        check_err(err, sizeof err);
    else if (got != 0)
        die("reader_next returned neither 1, 0 nor -1");
    if (r.p > buf + len)
        die("the reader went past the buffer");
}

/* The independent decoder of a V2 payload into ref[]: 0, or -1 when it
 * is not one (a number cut short, a run or a count past the buckets). */
static int ref_decode(const unsigned char *p, size_t n, int32_t len)
{
    memset(ref, 0, (size_t)len * sizeof *ref);
    int64_t idx = 0;
    uint64_t total = 0;
    size_t i = 0;
    while (i < n) {
        uint64_t u = 0;
        int k;
        for (k = 0; k < 9; k++) {
            if (i >= n)
                return -1;
            unsigned char b = p[i++];
            if (k == 8) {
                u |= (uint64_t)b << 56;
                break;
            }
            u |= (uint64_t)(b & 0x7f) << (7 * k);
            if (!(b & 0x80))
                break;
        }
        /* ZigZag: u even -> u/2, odd -> -(u/2) - 1 */
        if (u & 1) {
            uint64_t zeros = (u >> 1) + 1; /* the run's length */
            if (zeros > (uint64_t)(len - idx))
                return -1;
            idx += (int64_t)zeros;
        } else {
            if (idx >= len)
                return -1;
            ref[idx++] += u >> 1;
            if ((u >> 1) > (uint64_t)INT64_MAX - total)
                return -1; /* the counts overflow: not a histogram */
            total += u >> 1;
        }
    }
    return 0;
}

/* The count of one encoded histogram (base64 of cookie, length, zlib of
 * header + payload) recomputed here, for the log's semantic oracle:
 * 0 with *count, or -1 when this decoding refuses it. */
static int ref_total(const char *text, size_t len, int32_t nbuckets, uint64_t *count)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char *bin = malloc(len / 4 * 3 + 3);
    size_t rawcap = V2_HEADER_LEN + (size_t)nbuckets * 9 + 1;
    unsigned char *raw = malloc(rawcap);
    size_t o = 0;
    int rc = -1;
    if (!bin || !raw)
        die("out of memory");
    for (size_t i = 0; i < len; i++) {
        const char *c = memchr(t, text[i], 64);
        if (text[i] == '=')
            break;
        if (!c || !text[i])
            goto out;
        unsigned v = (unsigned)(c - t);
        switch (i % 4) { /* 6 bits at a time into whole bytes */
        case 0: bin[o] = (unsigned char)(v << 2); break;
        case 1: bin[o++] |= (unsigned char)(v >> 4); bin[o] = (unsigned char)(v << 4); break;
        case 2: bin[o++] |= (unsigned char)(v >> 2); bin[o] = (unsigned char)(v << 6); break;
        case 3: bin[o++] |= (unsigned char)v; break;
        }
    }
    if (o < 8)
        goto out;
    uint32_t zlen = (uint32_t)bin[4] << 24 | (uint32_t)bin[5] << 16 | (uint32_t)bin[6] << 8 | bin[7];
    uLongf rawlen = (uLongf)rawcap;
    if (zlen != o - 8 || uncompress(raw, &rawlen, bin + 8, zlen) != Z_OK || rawlen < V2_HEADER_LEN)
        goto out;
    if (ref_decode(raw + V2_HEADER_LEN, rawlen - V2_HEADER_LEN, nbuckets) != 0)
        goto out;
    *count = 0;
    for (int32_t i = 0; i < nbuckets; i++)
        *count += ref[i];
    rc = 0;
out:
    free(bin);
    free(raw);
    return rc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

static size_t base64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    return o;
}

/* 2: the input as the counts of a correctly wrapped V2 histogram. */
static void as_payload(const uint8_t *data, size_t size)
{
    sb_histogram_hdr_params prm;
    sb_histogram_hdr_layout(h_a, &prm);
    size_t rawlen = V2_HEADER_LEN + size;
    unsigned char *raw = malloc(rawlen);
    uLongf zlen = compressBound((uLong)rawlen);
    unsigned char *z = malloc(8 + zlen);
    if (!raw || !z)
        die("out of memory");
    double one = 1.0;
    uint64_t one_bits;
    memcpy(&one_bits, &one, sizeof one_bits);
    put32(raw, 0x1c849313u);
    put32(raw + 4, (uint32_t)size);
    put32(raw + 8, 0);
    put32(raw + 12, (uint32_t)prm.significant_figures);
    put64(raw + 16, (uint64_t)prm.lowest_discernible_value);
    put64(raw + 24, (uint64_t)prm.highest_trackable_value);
    put64(raw + 32, one_bits);
    memcpy(raw + V2_HEADER_LEN, data, size);
    if (compress2(z + 8, &zlen, raw, (uLong)rawlen, 1) != Z_OK)
        die("zlib");
    put32(z, 0x1c849314u);
    put32(z + 4, (uint32_t)zlen);
    size_t need = (8 + zlen + 2) / 3 * 4;
    char *text = malloc(need); /* exactly the text: ASan sees a read past it */
    if (!text)
        die("out of memory");
    size_t tl = base64(z, 8 + zlen, text);
    int want = ref_decode(data, size, prm.counts_len);
    sb_histogram_reset(h_a);
    int rc = decode_checked(text, tl, h_a);
    if (rc == 0 && want == 0) {
        uint64_t total = 0;
        for (int i = 0; i < prm.counts_len; i++) {
            if (sb_histogram_count_at(h_a, i) != ref[i])
                die("the decoder's bucket differs from the independent decoder's");
            total += ref[i];
        }
        if (total != sb_histogram_count(h_a))
            die("the count differs from the independent decoder's");
    } else if (rc == 0 || want == 0) {
        /* a payload longer than the decoder's inflate buffer is refused
         * ("more buckets than --histogram-precision gives"): the writer
         * never makes one, so only that refusal may differ */
        if (!(rc != 0 && want == 0 && size > (size_t)prm.counts_len * 9))
            die("the decoder and the independent decoder disagree on whether it is a histogram");
    }
    free(raw);
    free(z);
    free(text);
}

/* 3: values from the input recorded, encoded by the writer, read back. */
static void round_trip(const uint8_t *data, size_t size)
{
    sb_histogram_reset(h_a);
    sb_histogram_reset(h_b);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t v;
        memcpy(&v, data + i, 4);
        /* values from 1 us to past the highest trackable, and repeats */
        int64_t value = (int64_t)(v & 0x0fffffffu) << ((v >> 28) * 2); /* < 2^58 */
        sb_histogram_record_n(h_a, value, (v >> 28) + 1);
    }
    size_t bound = sb_hdr_base64_bound(h_a) + 1;
    if (bound > b64_cap) {
        free(b64);
        if (!(b64 = malloc(bound)))
            die("out of memory");
        b64_cap = bound;
    }
    long n = sb_hdr_encode_base64(h_a, b64, b64_cap);
    if (n <= 0)
        die("the writer failed to encode");
    if (decode_checked(b64, (size_t)n, h_b) != 0)
        die("a histogram the writer encoded does not read back");
    if (sb_histogram_count(h_a) != sb_histogram_count(h_b))
        die("the count read back differs");
    for (int i = 0; i < sb_histogram_bucket_count(h_a); i++)
        if (sb_histogram_count_at(h_a, i) != sb_histogram_count_at(h_b, i))
            die("a bucket read back differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!h_log) {
        h_log = sb_histogram_create(SB_HIST_LOWEST_NS, SB_HIST_HIGHEST_NS, 0.01);
        h_a = sb_histogram_clone_empty(h_log);
        h_b = sb_histogram_clone_empty(h_log);
        ref = calloc((size_t)sb_histogram_bucket_count(h_log), sizeof *ref);
        snap = calloc((size_t)sb_histogram_bucket_count(h_log), sizeof *snap);
        if (!h_log || !h_a || !h_b || !ref || !snap)
            die("out of memory");
    }
    /* exactly the input's bytes, so ASan sees a read one byte past them */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        die("out of memory");
    memcpy(buf, data, size);
    as_log(buf, size);
    sb_histogram_reset(h_a);
    decode_checked(buf, size, h_a);
    free(buf);
    as_payload(data, size);
    round_trip(data, size);
    return 0;
}
