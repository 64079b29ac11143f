/*
 * Passwords from the command line or a file, one behaviour for every
 * driver: --NAME-password and --NAME-password-file exclude each other; the
 * file's first line is the password, without its line end (LF or CR LF);
 * a file that is missing, unreadable or has an empty first line is an
 * error naming the option and the file.  The password itself is never
 * written into a message, and copies are wiped when freed.
 */
#ifndef SBENCH_DRIVERS_PASSWORD_H
#define SBENCH_DRIVERS_PASSWORD_H

#include <sbench/driver.h>

#include <stddef.h>

/* Reads the password from the first line of `path`.  `option` names the
 * option in errors ("--pgsql-password-file").  0 and *out a new string
 * (free with sbc_password_free), or -1 with *out NULL and one line in
 * errbuf. */
int sbc_password_file(const char *path, const char *option, char **out,
                      char *errbuf, size_t errlen);

/* The password the user gave driver `name` ("pgsql") through
 * --NAME-password (an empty value is an empty password) or
 * --NAME-password-file (an empty value counts as not given).  0 and *out a new string (free with sbc_password_free), or NULL
 * when neither was given; -1 with *out NULL and one line in errbuf when
 * both were given, the file cannot be used, or memory ran out. */
int sbc_password_get(const struct sbd_host *h, const char *name, char **out,
                     char *errbuf, size_t errlen);

/* Wipes and frees pw; NULL is a no-op. */
void sbc_password_free(char *pw);

#endif /* SBENCH_DRIVERS_PASSWORD_H */
