/*
 * Passwords from a command (--NAME-password-command, --password-ttl): the
 * command is run through /bin/sh at a physical connection, and the first
 * line of what it prints is the password (an IAM or Entra token that
 * expires: a new connection, --db-reconnect's or --reconnect=transaction's,
 * gets a fresh one).  Its output is kept for --password-ttl seconds (0:
 * the command runs at every connection) and shared by the process's
 * connections; it is never written into a message, and copies are wiped
 * when freed.  A command that fails, prints nothing or takes longer than
 * SBC_PWCMD_TIMEOUT_MS fails the connection with one line naming the
 * option (its exit status, never its output).
 */
#ifndef SBENCH_DRIVERS_PASSWORD_CMD_H
#define SBENCH_DRIVERS_PASSWORD_CMD_H

#include <sbench/driver.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define SBC_PWCMD_TIMEOUT_MS 30000
#define SBC_PWCMD_MAX_OUTPUT 65536
#define SBC_PWCMD_AUTH_TRIES 3  /* connection attempts when the token is refused */

struct sbc_pwcmd {
    const char *command;        /* NULL: no command given */
    char option[80];            /* "--pgsql-password-command", for messages */
    int64_t ttl_ms;
    pthread_mutex_t lock;       /* over the cache and the command's run */
    char *cached;               /* the last password, NULL: none yet */
    int64_t fetched_ms;         /* CLOCK_MONOTONIC time it was printed */
};

/* Reads --NAME-password-command and --password-ttl into pc for driver
 * `name` ("pgsql"); `other_given`: a password came from --NAME-password or
 * --NAME-password-file (they exclude the command).  0, or -1 with one line
 * in errbuf. */
int sbc_pwcmd_init(struct sbc_pwcmd *pc, const struct sbd_host *h, const char *name,
                   int other_given, char *errbuf, size_t errlen);

/* The password for a new connection: the cached one while younger than
 * the TTL, else the command's output.  A new string (free with
 * sbc_password_free), or NULL with one line in errbuf. */
char *sbc_pwcmd_get(struct sbc_pwcmd *pc, char *errbuf, size_t errlen);

/* A token the server refused at authentication (it rotated, or a cached
 * one expired): dropped from the cache if it is still the cached one, so
 * that the next sbc_pwcmd_get runs the command again.  Returns 1 when the
 * driver should retry: `attempt` (1 for the first refusal) is below
 * SBC_PWCMD_AUTH_TRIES; it then has slept attempt * 100 ms, which covers
 * a rotation that changes the server before the command's source. */
int sbc_pwcmd_reject(struct sbc_pwcmd *pc, const char *token, int attempt);

/* Wipes the cache (at the driver's done). */
void sbc_pwcmd_free(struct sbc_pwcmd *pc);

#endif /* SBENCH_DRIVERS_PASSWORD_CMD_H */
