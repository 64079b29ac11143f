/*
 * readfile.h: a whole file read into memory, bounded, for the readers of
 * result files (sbench merge, sbench compare): their bytes are untrusted
 * and the buffer is what the parsers (results/hdr_read.c, the JSON library)
 * are given.
 */
#ifndef SB_READFILE_H
#define SB_READFILE_H

#include <stddef.h>

/* Largest file sb_read_file reads. */
#define SB_READ_FILE_MAX ((size_t)1 << 31)

/*
 * The contents of path, NUL-terminated (the NUL not counted in *len).
 * Returns a buffer the caller frees, or NULL with one line in err ("cannot
 * read: reason", "larger than N bytes", "out of memory").
 */
char *sb_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
