/*
 * partial.h: what is said of an output file that could not be written to
 * its end (a full disk, a quota).  Its writer wrote it as PATH.partial
 * (hdr_log.c: renamed to PATH only when whole), so that no reader takes it
 * for a whole one; one line on stderr says what failed and where the bytes
 * that were written are.  Used for --hdr-log (--output is written to a
 * temporary file and renamed only when whole).
 */
#ifndef SB_PARTIAL_H
#define SB_PARTIAL_H

/* option: "--hdr-log"; path: the file; err: the errno of the failure, 0
 * if unknown. */
void sb_partial_said(const char *option, const char *path, int err);

#endif /* SB_PARTIAL_H */
