/*
 * partial.h: what becomes of an output file that could not be written to
 * its end (a full disk, a quota): it is renamed PATH.partial, so that no
 * reader takes it for a whole one, and one line on stderr says what failed
 * and where the bytes that were written are.  Used for --hdr-log (--output
 * is written to a temporary file and renamed only when whole).
 */
#ifndef SB_PARTIAL_H
#define SB_PARTIAL_H

/* option: "--hdr-log"; path: the file; err: the errno of the failure, 0
 * if unknown. */
void sb_set_aside(const char *option, const char *path, int err);

#endif /* SB_PARTIAL_H */
