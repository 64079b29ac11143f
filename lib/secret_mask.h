/*
 * secret_mask.h: the passwords inside a value shown to the user (a
 * connection string, a URI, a command line) replaced by "***".
 */
#ifndef SB_SECRET_MASK_H
#define SB_SECRET_MASK_H

#include <stddef.h>

/* Copies in to out (cap bytes, always terminated when cap > 0) with every
 * password masked:
 *   - a key ending in "password" or the key "pwd", any case, followed by
 *     "=" (spaces around it allowed): libpq's `password=v` and
 *     `password='v w'`, ODBC's `PWD=v;` and `PWD={v;w}`, a URI's
 *     `?password=v&`, a command line's `--pgsql-password=v` and
 *     `sslpassword=v`: the value becomes ***;
 *   - a URI's user information, scheme://user:secret@host: the part after
 *     the colon becomes ***.
 * A value ends at a space, ';' or '&' unless quoted ('...', "..." or
 * {...}); an option at the very start of in (--x-password=V) takes the rest.
 * A key is a whole word of letters, digits, '_' and '-' (so
 * `--target='n:--x-password=V'` is found too).  A value cut
 * by cap is still masked (nothing of a secret is ever copied).  Returns out. */
char *sb_secret_mask(const char *in, char *out, size_t cap);

#endif
