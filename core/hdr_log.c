/*
 * hdr_log.c: HdrHistogram interval log writer and V2 compressed histogram
 * encoder (see hdr_log.h for the file layout).  Written from the published
 * format description:
 *
 *   compressed := int32 0x1c849314 (V2 compressed cookie, word-size nibble 1)
 *                 int32 length of the DEFLATE (zlib) stream
 *                 zlib stream of `encoded`
 *   encoded    := int32 0x1c849313 (V2 encoding cookie)
 *                 int32 payload length in bytes
 *                 int32 normalizing index offset (0)
 *                 int32 number of significant value digits
 *                 int64 lowest discernible value
 *                 int64 highest trackable value
 *                 float64 integer-to-double value conversion ratio (1.0)
 *                 payload
 *   payload    := counts[0 .. last non-zero], each a ZigZag LEB128-64b9B
 *                 signed word: a count >= 0, or -n for a run of n > 1 zeros
 *
 * All integers are big-endian.  LEB128-64b9B: 7 bits per byte, low first,
 * high bit = "more follows", and the 9th byte (if reached) carries 8 bits.
 */
#include "hdr_log.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define V2_ENCODING_COOKIE 0x1c849313u
#define V2_COMPRESSED_COOKIE 0x1c849314u
#define V2_HEADER_LEN 40
#define V2_MAX_WORD 9

/* Scratch buffers reused across intervals (one log = one thread). */
struct enc_bufs {
    unsigned char *raw;
    size_t raw_cap;
    unsigned char *z;
    size_t z_cap;
};

struct sb_hdr_log {
    FILE *fp;
    char *path;       /* the log's name */
    char *partial;    /* "path.partial", written until whole; NULL: path
                         itself (not a regular file: a FIFO, /dev/stdout) */
    int failed;
    int first_errno;  /* errno of the first failed write, 0 = unknown */
    struct enc_bufs bufs;
    char *b64;
    size_t b64_cap;
};

/* ---- encoding ------------------------------------------------------------ */

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_be64(unsigned char *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

/* ZigZag + LEB128-64b9B of v at p; returns bytes written (1..9). */
static size_t put_zigzag(unsigned char *p, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (u < 0x80) {
            p[n++] = (unsigned char)u;
            return n;
        }
        p[n++] = (unsigned char)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    p[n++] = (unsigned char)u; /* 9th byte: the remaining 8 bits */
    return n;
}

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (*cap >= need)
        return 0;
    unsigned char *nb = realloc(*buf, need);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = need;
    return 0;
}

static size_t raw_bound(const sb_histogram_hdr_params *p)
{
    return V2_HEADER_LEN + (size_t)p->counts_len * V2_MAX_WORD;
}

/*
 * Encodes h (uncompressed V2) into b->raw and compresses it with its
 * 8-byte compressed header into b->z.  Returns the length of b->z's
 * content, or 0 when out of memory or zlib failed.
 */
static size_t encode_compressed(const sb_histogram *h, struct enc_bufs *b)
{
    sb_histogram_hdr_params prm;
    sb_histogram_hdr_layout(h, &prm);

    size_t rcap = raw_bound(&prm);
    if (grow(&b->raw, &b->raw_cap, rcap) != 0)
        return 0;

    /* Counts up to the last non-zero one (at least one word, as the
     * reference encoder writes for an empty histogram). */
    int32_t limit = 0;
    for (int32_t i = prm.counts_len - 1; i >= 0; i--) {
        if (sb_histogram_count_at(h, i) != 0) {
            limit = i + 1;
            break;
        }
    }
    if (limit == 0)
        limit = 1;

    unsigned char *raw = b->raw;
    size_t pos = V2_HEADER_LEN;
    int32_t i = 0;
    while (i < limit) {
        uint64_t c = sb_histogram_count_at(h, i++);
        if (c == 0) {
            int64_t zeros = 1;
            while (i < limit && sb_histogram_count_at(h, i) == 0) {
                zeros++;
                i++;
            }
            pos += put_zigzag(raw + pos, zeros > 1 ? -zeros : 0);
        } else {
            pos += put_zigzag(raw + pos, c > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)c);
        }
    }

    uint64_t ratio_bits;
    double one = 1.0;
    memcpy(&ratio_bits, &one, sizeof ratio_bits); /* IEEE 754 binary64 */
    put_be32(raw, V2_ENCODING_COOKIE);
    put_be32(raw + 4, (uint32_t)(pos - V2_HEADER_LEN));
    put_be32(raw + 8, 0);
    put_be32(raw + 12, (uint32_t)prm.significant_figures);
    put_be64(raw + 16, (uint64_t)prm.lowest_discernible_value);
    put_be64(raw + 24, (uint64_t)prm.highest_trackable_value);
    put_be64(raw + 32, ratio_bits);

    uLong zb = compressBound((uLong)pos);
    if (grow(&b->z, &b->z_cap, 8 + (size_t)zb) != 0)
        return 0;
    uLongf zlen = zb;
    if (compress2(b->z + 8, &zlen, raw, (uLong)pos, Z_DEFAULT_COMPRESSION) != Z_OK)
        return 0;
    put_be32(b->z, V2_COMPRESSED_COOKIE);
    put_be32(b->z + 4, (uint32_t)zlen);
    return 8 + (size_t)zlen;
}

static size_t b64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Standard base64 with padding; out must hold b64_len(n) + 1 bytes. */
static void b64_encode(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
}

size_t sb_hdr_base64_bound(const sb_histogram *h)
{
    sb_histogram_hdr_params prm;
    sb_histogram_hdr_layout(h, &prm);
    return b64_len(8 + (size_t)compressBound((uLong)raw_bound(&prm)));
}

long sb_hdr_encode_base64(const sb_histogram *h, char *out, size_t outlen)
{
    struct enc_bufs b = {0};
    long ret = -1;
    if (outlen > 0)
        out[0] = '\0';
    size_t n = encode_compressed(h, &b);
    if (n > 0 && b64_len(n) < outlen) {
        b64_encode(b.z, n, out);
        ret = (long)b64_len(n);
    }
    free(b.raw);
    free(b.z);
    return ret;
}

/* ---- the log file ---------------------------------------------------------- */

/* Remembers a failure (and the first errno seen) for sb_hdr_log_close. */
static int mark_failed(struct sb_hdr_log *log)
{
    if (!log->failed || !log->first_errno)
        log->first_errno = errno;
    log->failed = 1;
    return -1;
}

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen > 0)
        snprintf(err, errlen, fmt, a, b);
}

/* Where the log is written until it is whole: "path.partial" for a
 * regular file or a new one (a stale path is removed: it is being
 * replaced), else path itself (a symbolic link, written through as
 * before; a FIFO, a device).  Returns 0, or -1 out of memory. */
static int choose_names(struct sb_hdr_log *log, const char *path)
{
    struct stat st;
    size_t n = strlen(path) + sizeof ".partial";
    log->path = strdup(path);
    if (log->path == NULL)
        return -1;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return 0;
    log->partial = malloc(n);
    if (log->partial == NULL)
        return -1;
    snprintf(log->partial, n, "%s.partial", path);
    remove(path);
    return 0;
}

static void free_log(struct sb_hdr_log *log)
{
    free(log->bufs.raw);
    free(log->bufs.z);
    free(log->b64);
    free(log->path);
    free(log->partial);
    free(log);
}

struct sb_hdr_log *sb_hdr_log_open(const char *path, double start_epoch_seconds, char *err,
                                   size_t errlen)
{
    struct sb_hdr_log *log = calloc(1, sizeof *log);
    if (!log || choose_names(log, path) != 0) {
        set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
        if (log)
            free_log(log);
        return NULL;
    }
    const char *written = log->partial ? log->partial : path;
    log->fp = fopen(written, "w");
    if (!log->fp) {
        set_err(err, errlen, "cannot create HdrHistogram log %s: %s", path, strerror(errno));
        free_log(log);
        return NULL;
    }

    char date[64] = "";
    time_t t = (time_t)start_epoch_seconds;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm);

    /* %.3f: the C locale is assumed (sbench never calls setlocale). */
    fprintf(log->fp, "#[Histogram log format version 1.3]\n");
    fprintf(log->fp, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_seconds, date);
    fprintf(log->fp, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_seconds);
    fprintf(log->fp, "#[sbench: values in nanoseconds; Interval_Max in milliseconds "
                     "(maxValueUnitRatio 1000000)]\n");
    fprintf(log->fp,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
    if (fflush(log->fp) != 0 || ferror(log->fp)) {
        set_err(err, errlen, "cannot write HdrHistogram log %s: %s", path, strerror(errno));
        fclose(log->fp);
        if (log->partial)
            remove(log->partial);
        free_log(log);
        return NULL;
    }
    return log;
}

int sb_hdr_log_write(struct sb_hdr_log *log, double start_offset_s, double length_s,
                     const sb_histogram *interval)
{
    return sb_hdr_log_write_tagged(log, NULL, start_offset_s, length_s, interval);
}

/* The log format's tag: no ',' (it ends the tag), no blank or line end. */
static void put_tag(FILE *fp, const char *tag)
{
    fputs("Tag=", fp);
    for (const char *p = tag; *p; p++)
        fputc(*p == ',' ? '+' : (*p == ' ' || *p == '\n' || *p == '\r') ? '_' : *p, fp);
    fputc(',', fp);
}

int sb_hdr_log_write_tagged(struct sb_hdr_log *log, const char *tag, double start_offset_s,
                            double length_s, const sb_histogram *interval)
{
    if (!log)
        return -1;
    size_t n = encode_compressed(interval, &log->bufs);
    if (n > 0 && log->b64_cap < b64_len(n) + 1) {
        char *nb = realloc(log->b64, b64_len(n) + 1);
        if (nb) {
            log->b64 = nb;
            log->b64_cap = b64_len(n) + 1;
        }
    }
    if (n == 0 || log->b64_cap < b64_len(n) + 1) {
        errno = ENOMEM;
        return mark_failed(log);
    }
    b64_encode(log->bufs.z, n, log->b64);

    /* Interval_Max: the interval's max in ms (values are ns; ratio 1e6). */
    double max_ms = sb_histogram_count(interval) ? (double)sb_histogram_max(interval) / 1e6 : 0.0;
    if (tag != NULL && *tag != 0)
        put_tag(log->fp, tag);
    if (fprintf(log->fp, "%.3f,%.3f,%.3f,%s\n", start_offset_s, length_s, max_ms, log->b64) < 0 ||
        fflush(log->fp) != 0)
        return mark_failed(log);
    return 0;
}

int sb_hdr_log_comment(struct sb_hdr_log *log, const char *text)
{
    if (!log)
        return -1;
    if (strpbrk(text, "\r\n]")) {
        errno = EINVAL;
        return mark_failed(log);
    }
    if (fprintf(log->fp, "#[%s]\n", text) < 0 || fflush(log->fp) != 0)
        return mark_failed(log);
    return 0;
}

int sb_hdr_log_close(struct sb_hdr_log *log)
{
    if (!log)
        return 0;
    if (fflush(log->fp) != 0 || ferror(log->fp))
        mark_failed(log);
    if (fclose(log->fp) != 0)
        mark_failed(log);
    if (!log->failed && log->partial && rename(log->partial, log->path) != 0)
        mark_failed(log);
    int failed = log->failed, err = log->first_errno;
    free_log(log);
    errno = err;
    return failed ? -1 : 0;
}

void sb_hdr_log_discard(struct sb_hdr_log *log)
{
    if (!log)
        return;
    fclose(log->fp);
    remove(log->partial ? log->partial : log->path);
    free_log(log);
}
