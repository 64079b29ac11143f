/*
 * hdr_read.c: HdrHistogram interval log reader and V2 compressed
 * histogram decoder (see hdr_read.h; the format is described at the top
 * of hdr_log.c).  Decoding: base64 -> 8-byte compressed header (cookie,
 * zlib length) -> zlib (inflated into a buffer sized by the target
 * histogram, so a stream that claims more is refused) -> 40-byte V2 header
 * -> ZigZag LEB128-64b9B counts with runs of zeros.  The counts go into a
 * scratch array first and into the histogram only when all of it decoded.
 */
#include "hdr_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define COOKIE_MASK 0xffffff0fu
#define V2_ENCODING_BASE 0x1c849303u   /* 0x1c849313 with the word-size nibble */
#define V2_COMPRESSED_BASE 0x1c849304u /* 0x1c849314 */
#define V2_HEADER_LEN 40
#define MAX_HIST_TEXT (64u << 20)

/* ---- base64 -------------------------------------------------------------- */

static int b64_val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict standard base64 with padding; out holds len / 4 * 3 bytes.
 * Returns the decoded length, or -1. */
static long b64_decode(const char *s, size_t len, unsigned char *out)
{
    if (len == 0 || len % 4 != 0)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4], pad = 0;
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)s[i + k];
            if (c == '=' && i + 4 == len && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad || (v[k] = b64_val(c)) < 0) {
                return -1;
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[o++] = (unsigned char)(w >> 16);
        if (pad < 2)
            out[o++] = (unsigned char)(w >> 8);
        if (pad < 1)
            out[o++] = (unsigned char)w;
    }
    return (long)o;
}

/* ---- V2 ------------------------------------------------------------------ */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* One ZigZag LEB128-64b9B word at *pos (< end): 0, or -1 when the payload
 * ends inside it. */
static int get_zigzag(const unsigned char *p, size_t end, size_t *pos, int64_t *out)
{
    uint64_t u = 0;
    size_t i = *pos;
    int shift = 0;
    for (int k = 0; k < 9; k++) {
        if (i >= end)
            return -1;
        unsigned char b = p[i++];
        if (k == 8) {
            u |= (uint64_t)b << 56;
            break;
        }
        u |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    *pos = i;
    *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return 0;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return -1;
}

/* Walks the counts of the V2 payload raw[40 .. n-1] (len buckets): checks
 * them (h == NULL), or adds them to h (after a check that passed).  The
 * check sums the counts without overflow: with the `already` values the
 * target holds, the total stays within INT64_MAX (no count can wrap the
 * total back to a plausible one). */
static int walk_counts(const unsigned char *raw, size_t n, int32_t len, sb_histogram *h,
                       uint64_t already, char *err, size_t errlen)
{
    size_t pos = V2_HEADER_LEN;
    int64_t idx = 0;
    uint64_t total = already;
    while (pos < n) {
        int64_t w;
        if (get_zigzag(raw, n, &pos, &w) != 0)
            return fail(err, errlen, "the histogram's counts end inside a number");
        if (w < 0) {
            if (w == INT64_MIN || -w > (int64_t)len - idx)
                return fail(err, errlen, "a run of zero counts goes past the histogram's buckets");
            idx += -w;
            continue;
        }
        if (idx >= len)
            return fail(err, errlen, "more counts than the histogram has buckets");
        if ((uint64_t)w > (uint64_t)INT64_MAX - total)
            return fail(err, errlen, "the histogram's counts add up to more than 2^63-1 (overflow)");
        total += (uint64_t)w;
        if (h && w > 0)
            sb_histogram_add_to_bucket(h, (int)idx, (uint64_t)w);
        idx++;
    }
    return 0;
}

int sb_hdr_decode_add(const char *text, size_t len, sb_histogram *h, char *err, size_t errlen)
{
    if (len == 0 || len > MAX_HIST_TEXT)
        return fail(err, errlen, "empty or oversized encoded histogram");
    sb_histogram_hdr_params prm;
    sb_histogram_hdr_layout(h, &prm);
    size_t raw_cap = V2_HEADER_LEN + (size_t)prm.counts_len * 9 + 1;
    unsigned char *bin = malloc(len / 4 * 3 + 3);
    unsigned char *raw = malloc(raw_cap);
    int rc = -1;
    long bl;
    if (!bin || !raw) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    if ((bl = b64_decode(text, len, bin)) < 0) {
        fail(err, errlen, "the histogram is not base64");
        goto out;
    }
    if (bl < 8 || (be32(bin) & COOKIE_MASK) != V2_COMPRESSED_BASE) {
        fail(err, errlen, "not an HdrHistogram V2 compressed histogram (cookie)");
        goto out;
    }
    uint32_t zlen = be32(bin + 4);
    if (zlen != (uint32_t)(bl - 8)) {
        fail(err, errlen, "the compressed histogram's length does not match its data");
        goto out;
    }
    uLongf rawlen = (uLongf)raw_cap;
    int zr = uncompress(raw, &rawlen, bin + 8, zlen);
    if (zr == Z_BUF_ERROR && rawlen == (uLongf)raw_cap) {
        fail(err, errlen, "the histogram holds more buckets than --histogram-precision gives");
        goto out;
    }
    if (zr != Z_OK) {
        fail(err, errlen, "the compressed histogram does not inflate (corrupt)");
        goto out;
    }
    if (rawlen < V2_HEADER_LEN || (be32(raw) & COOKIE_MASK) != V2_ENCODING_BASE ||
        be32(raw + 4) != rawlen - V2_HEADER_LEN || be32(raw + 8) != 0) {
        fail(err, errlen, "bad V2 histogram header (cookie, payload length or index offset)");
        goto out;
    }
    int32_t sig = (int32_t)be32(raw + 12);
    int64_t lowest = (int64_t)be64(raw + 16), highest = (int64_t)be64(raw + 24);
    if (sig != prm.significant_figures || lowest != prm.lowest_discernible_value ||
        highest != prm.highest_trackable_value) {
        if (err && errlen)
            snprintf(err, errlen, "histogram settings differ: encoded lowest %lld, highest %lld, "
                     "%d significant digits; expected %lld, %lld, %d",
                     (long long)lowest, (long long)highest, (int)sig,
                     (long long)prm.lowest_discernible_value,
                     (long long)prm.highest_trackable_value, prm.significant_figures);
        goto out;
    }
    if (walk_counts(raw, rawlen, prm.counts_len, NULL, sb_histogram_count(h), err, errlen) != 0)
        goto out;
    walk_counts(raw, rawlen, prm.counts_len, h, 0, NULL, 0);
    rc = 0;
out:
    free(bin);
    free(raw);
    return rc;
}

/* ---- the log ------------------------------------------------------------- */

void sb_hdr_reader_init(struct sb_hdr_reader *r, const char *buf, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = buf;
    r->end = buf + len;
}

static int line_err(const struct sb_hdr_reader *r, char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "line %d: %s", r->line, msg);
    return -1;
}

/* A finite number filling s[0 .. n-1]; 0, or -1. */
static int number(const char *s, size_t n, double *out)
{
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (!strchr("0123456789-.", tmp[0]))
        return -1;
    char *end;
    double v = strtod(tmp, &end);
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* "#[Name: NUMBER ..." -> 0 with *v; -1 when the number is missing. */
static int header_number(const char *s, size_t n, size_t skip, double *v)
{
    size_t k = skip;
    while (k < n && s[k] == ' ')
        k++;
    size_t e = k;
    while (e < n && strchr("0123456789.-", s[e]))
        e++;
    return number(s + k, e - k, v);
}

static int comment(struct sb_hdr_reader *r, const char *s, size_t n, char *err, size_t errlen)
{
    static const char st[] = "#[StartTime:", bt[] = "#[BaseTime:", sb[] = "#[sbench ";
    if (n >= sizeof st - 1 && memcmp(s, st, sizeof st - 1) == 0) {
        if (header_number(s, n, sizeof st - 1, &r->start_time) != 0)
            return line_err(r, err, errlen, "StartTime without a number");
        r->has_start = 1;
    } else if (n >= sizeof bt - 1 && memcmp(s, bt, sizeof bt - 1) == 0) {
        if (header_number(s, n, sizeof bt - 1, &r->base_time) != 0)
            return line_err(r, err, errlen, "BaseTime without a number");
        r->has_base = 1;
    } else if (n >= sizeof sb - 1 && memcmp(s, sb, sizeof sb - 1) == 0) {
        size_t t = n - 2; /* without "#[" */
        if (s[n - 1] == ']')
            t--;
        if (t >= sizeof r->tag)
            return line_err(r, err, errlen, "sbench comment too long");
        memcpy(r->tag, s + 2, t);
        r->tag[t] = 0;
    }
    return 0;
}

int sb_hdr_reader_next(struct sb_hdr_reader *r, struct sb_hdr_interval *iv, char *err,
                       size_t errlen)
{
    while (r->p < r->end) {
        const char *s = r->p;
        const char *nl = memchr(s, '\n', (size_t)(r->end - s));
        r->line++;
        if (nl == NULL)
            return line_err(r, err, errlen, "the file ends inside a line (truncated)");
        size_t n = (size_t)(nl - s);
        r->p = nl + 1;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (memchr(s, '\0', n))
            return line_err(r, err, errlen, "a NUL byte (not a text log)");
        if (n == 0)
            continue;
        if (s[0] == '#') {
            if (comment(r, s, n, err, errlen) != 0)
                return -1;
            continue;
        }
        if (s[0] == '"') /* the legend */
            continue;
        const char *q = s, *e = s + n;
        iv->tag = NULL;
        iv->tag_len = 0;
        if (n >= 4 && memcmp(s, "Tag=", 4) == 0) { /* a profiled run's phase (core/hdr_log.c) */
            const char *c = memchr(s + 4, ',', n - 4);
            if (c == NULL)
                return line_err(r, err, errlen, "a tag without the comma that ends it");
            iv->tag = s + 4;
            iv->tag_len = (size_t)(c - (s + 4));
            q = c + 1;
        }
        const char *f[4];
        size_t fl[4];
        for (int k = 0; k < 4; k++) {
            const char *c = k < 3 ? memchr(q, ',', (size_t)(e - q)) : e;
            if (c == NULL)
                return line_err(r, err, errlen, "not 4 comma-separated fields");
            f[k] = q;
            fl[k] = (size_t)(c - q);
            q = c + 1;
        }
        if (memchr(f[3], ',', fl[3]))
            return line_err(r, err, errlen, "more than 4 comma-separated fields");
        if (number(f[0], fl[0], &iv->start) || number(f[1], fl[1], &iv->length) ||
            number(f[2], fl[2], &iv->max) || iv->start < 0 || iv->length < 0 || iv->max < 0)
            return line_err(r, err, errlen, "start, length and max must be numbers >= 0");
        if (fl[3] == 0)
            return line_err(r, err, errlen, "no histogram");
        iv->line = r->line;
        iv->hist = f[3];
        iv->hist_len = fl[3];
        return 1;
    }
    return 0;
}
