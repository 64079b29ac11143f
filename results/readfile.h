/*
 * readfile.h: a whole file read into memory, bounded, for the readers of
 * result files (sbench merge, sbench compare): their bytes are untrusted
 * and the buffer is what the parsers (results/hdr_read.c, the JSON library)
 * are given.  Only regular files are opened: a FIFO, a device or a socket
 * is refused without blocking (O_NONBLOCK, then fstat), a directory is
 * said to be one.
 */
#ifndef SB_READFILE_H
#define SB_READFILE_H

#include <stddef.h>

/* Largest file sb_read_file reads. */
#define SB_READ_FILE_MAX ((size_t)1 << 31)
/* Longest line sb_read_file accepts (32 MiB): a report's final line or a
 * log's interval is far shorter; a longer one is refused while reading,
 * so a huge line costs at most about this much memory. */
#define SB_READ_LINE_MAX ((size_t)32 << 20)

/*
 * Opens path for reading if it is a regular file.  Returns the file
 * descriptor (the caller closes it), or -1 with one line in err ("is a
 * directory", "not a regular file (a FIFO)", "cannot read: reason").
 */
int sb_open_regular(const char *path, char *err, size_t errlen);

/*
 * The contents of path, NUL-terminated (the NUL not counted in *len), no
 * line longer than SB_READ_LINE_MAX.  Returns a buffer the caller frees,
 * or NULL with one line in err ("cannot read: reason", "is a directory",
 * "not a regular file (...)", "larger than N bytes", "line L is longer
 * than N bytes, the limit for one line", "out of memory").
 */
char *sb_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
