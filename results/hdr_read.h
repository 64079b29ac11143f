/*
 * hdr_read.h: reader of HdrHistogram interval logs and of base64 V2
 * compressed histograms (the format core/hdr_log.c writes; see hdr_log.h
 * for the layout), for `sbench merge`.  Everything works on a buffer in
 * memory, never a file, and every byte is untrusted: a malformed input is
 * an error with one line naming the line and what is wrong, never a crash
 * or a read past the buffer (the shape a fuzzer can drive directly).
 *
 * Thread use: a reader belongs to one thread; nothing is global.
 */
#ifndef SB_HDR_READ_H
#define SB_HDR_READ_H

#include <stddef.h>

#include "../core/histogram.h"

/*
 * Decodes one base64 V2 compressed histogram, text[0 .. len-1] (no NUL
 * needed), and adds its counts to h.  The encoded layout (lowest
 * discernible value, highest trackable value, significant digits) must be
 * h's.  h's min, max and sum become bucket bounds and middles
 * (sb_histogram_add_to_bucket).  Returns 0, or -1 with h unchanged and one
 * line in err (bad base64, cookie, compressed stream or payload; a layout
 * that differs; more buckets than h has).
 */
int sb_hdr_decode_add(const char *text, size_t len, sb_histogram *h, char *err, size_t errlen);

/* A reader over a log held in memory (buf[0 .. len-1], owned by the
 * caller and kept while the reader is used).  Fields after `line` are the
 * header as far as read. */
struct sb_hdr_reader {
    const char *p, *end;
    int line;                 /* number of the line last read, 1-based */
    int has_start, has_base;
    double start_time;        /* #[StartTime: ...], seconds since the epoch */
    double base_time;         /* #[BaseTime: ...]; timestamps are from it */
    char tag[256];            /* the last "#[sbench ...]" comment's text, "" if none */
};

/* One interval line.  hist points into the reader's buffer. */
struct sb_hdr_interval {
    int line;                 /* its line number */
    double start;             /* StartTimestamp: seconds from BaseTime */
    double length;            /* Interval_Length, seconds */
    double max;               /* Interval_Max as written */
    const char *hist;         /* Interval_Compressed_Histogram, hist_len bytes */
    size_t hist_len;
    const char *tag;          /* "Tag=NAME," (a profiled run's phase): NAME,
                                 tag_len bytes; NULL when untagged */
    size_t tag_len;
};

void sb_hdr_reader_init(struct sb_hdr_reader *r, const char *buf, size_t len);

/*
 * Reads up to the next interval line: comment and header lines on the way
 * are taken into r.  Returns 1 with *iv filled, 0 at the end of the
 * buffer, or -1 with "line N: reason" in err (a line that is not a
 * comment, the legend or four comma-separated fields; a number that is
 * not one; a "Tag=" without the comma that ends it; a last line
 * without its newline, which is a truncated file).
 */
int sb_hdr_reader_next(struct sb_hdr_reader *r, struct sb_hdr_interval *iv, char *err,
                       size_t errlen);

#endif /* SB_HDR_READ_H */
