/*
 * hdr_log.h: writer of HdrHistogram's interval log (the text format read by
 * HdrHistogram's HistogramLogReader, hdr-histogram-js's HistogramLogReader,
 * HistogramLogProcessor, HdrHistogram plotters), one line per reporting
 * interval with the interval's latency histogram in HdrHistogram's V2
 * compressed encoding, base64.
 *
 * File layout:
 *
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
 *   #[BaseTime: 1700000000.123 (seconds since epoch)]
 *   #[sbench: values in nanoseconds; Interval_Max in milliseconds (maxValueUnitRatio 1000000)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   0.000,1.000,12.345,HISTFAAAA...
 *
 * Timestamps are seconds relative to BaseTime (= StartTime); the histogram
 * values are nanoseconds, and Interval_Max is the interval's max value
 * divided by 1e6 (milliseconds), HdrHistogram's usual maxValueUnitRatio for
 * nanosecond histograms; readers decode the histogram itself in ns.
 *
 * Thread use: one thread (the reporter) owns a log; nothing here is called
 * on the measured path.  The histogram passed in must not be recorded into
 * while it is encoded (pass the reporter's merged/window copy).
 */
#ifndef SB_HDR_LOG_H
#define SB_HDR_LOG_H

#include <stddef.h>

#include "histogram.h"

struct sb_hdr_log;

/*
 * Creates the log `path` and writes the header, with StartTime and
 * BaseTime = start_epoch_seconds (e.g. the run's start, seconds since the
 * epoch, with fractions).  Returns a new log owned by the caller (close with
 * sb_hdr_log_close), or NULL with a one-line message in err (when err is not
 * NULL) when the file cannot be created or written, or out of memory.
 * A regular file (or a new one) is written as "path.partial" and renamed
 * to path only by a close with every write done, so that an end that
 * never reaches the close (a second Ctrl-C, a kill, a crash) or a failed
 * write leaves "path.partial" and no path; an old path is removed at
 * open.  Anything else (a symbolic link, a FIFO, /dev/stdout) is written
 * in place.
 */
struct sb_hdr_log *sb_hdr_log_open(const char *path, double start_epoch_seconds, char *err,
                                   size_t errlen);

/*
 * Appends one interval: start offset from BaseTime and length in seconds,
 * the interval's max (ms) and its encoded histogram.  Returns 0, or -1 when
 * encoding or writing failed (the failure is remembered for close).
 */
int sb_hdr_log_write(struct sb_hdr_log *log, double start_offset_s, double length_s,
                     const sb_histogram *interval);
/* The same with the interval line tagged "Tag=TAG," (the format's way to
 * mark intervals: a --rate-profile's phase); ',' in TAG becomes '+', a
 * blank '_'.  NULL or "": no tag. */
int sb_hdr_log_write_tagged(struct sb_hdr_log *log, const char *tag, double start_offset_s,
                            double length_s, const sb_histogram *interval);

/*
 * Appends the comment line "#[text]" (HdrHistogram's readers skip lines
 * that start with '#'); text must not contain a newline or "]".  Returns
 * 0, or -1 (remembered for close) when it could not be written or text is
 * not a one-line comment.
 */
int sb_hdr_log_comment(struct sb_hdr_log *log, const char *text);

/*
 * Flushes and closes the file, renames "path.partial" to path, and frees
 * log; NULL is a no-op (returns 0).  Returns 0, or -1 when any write
 * (including this flush/close) or the rename failed, with errno set to the
 * first failure's (0 when unknown): the bytes written stay in
 * "path.partial".
 */
int sb_hdr_log_close(struct sb_hdr_log *log);

/* Closes the log and removes what was written (no file is left); NULL is
 * a no-op.  For a run that failed before it measured anything. */
void sb_hdr_log_discard(struct sb_hdr_log *log);

/*
 * Upper bound of the length (without the terminating NUL) of
 * sb_hdr_encode_base64()'s output for any histogram of h's layout.
 */
size_t sb_hdr_base64_bound(const sb_histogram *h);

/*
 * Encodes h as HdrHistogram's V2 compressed histogram, base64 (standard
 * alphabet, padded), NUL-terminated, into out[0 .. outlen-1].  Returns the
 * length written (without the NUL), or -1 when outlen is too small (use
 * sb_hdr_base64_bound() + 1) or out of memory; out is then "" if outlen > 0.
 */
long sb_hdr_encode_base64(const sb_histogram *h, char *out, size_t outlen);

#endif /* SB_HDR_LOG_H */
