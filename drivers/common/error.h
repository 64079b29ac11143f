/*
 * Filling a struct sbd_error, one way for every driver: status, native
 * code, SQLSTATE and a printf-formatted message made one line (every run
 * of blanks, tabs and line ends becomes one space, none at either end),
 * with the driver's password masked as "***", and cut to fit without
 * splitting a UTF-8 character.  Errors are off the hot path: formatting is
 * allowed here.
 */
#ifndef SBENCH_DRIVERS_ERROR_H
#define SBENCH_DRIVERS_ERROR_H

#include <sbench/driver.h>

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define SBC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SBC_PRINTF(f, a)
#endif

/* Fills e: status (enum sbd_status), native code (0 if none), SQLSTATE
 * (copied when it is five characters, else ""), and the message fmt
 * formatted, with every occurrence of `secret` (NULL or "": none) masked,
 * made one line and cut to fit.  Returns status, so that a driver can
 * write `return sbc_error(...)`.  Never fails. */
int sbc_error(struct sbd_error *e, int status, long native_code, const char *sqlstate,
              const char *secret, const char *fmt, ...) SBC_PRINTF(6, 7);
int sbc_verror(struct sbd_error *e, int status, long native_code, const char *sqlstate,
               const char *secret, const char *fmt, va_list ap) SBC_PRINTF(6, 0);

/* Replaces every occurrence of `secret` (NULL or "": none) in buf
 * (NUL-terminated, cap bytes of room) with "***", cutting the result at
 * cap - 1 bytes (and at 2047) if it grows; for a driver that builds a
 * message from several parts and knows more than one password.  Only
 * whole words are masked: an occurrence inside a longer name (password
 * sbtest in relation "sbtest1" or DSN sbtest_pg) is left as it is. */
void sbc_mask(char *buf, size_t cap, const char *secret);

/* The secret a driver masks in its messages: its password, or "" when the
 * password is also one of names (NULL-terminated: the user name, the
 * database), which the messages must be able to show.  Static result (the
 * password itself or ""). */
const char *sbc_secret(const char *password, const char *const *names);

/* Masks every occurrence of `secret` (NULL or "": none) in e->message
 * with "***", for a second password a driver knows of (an environment
 * variable's); the message stays one line and fits. */
void sbc_error_mask(struct sbd_error *e, const char *secret);

#endif /* SBENCH_DRIVERS_ERROR_H */
