/*
 * Passwords from a command: see password_cmd.h.  The command runs with
 * posix_spawn (/bin/sh -c), its standard input /dev/null and its standard
 * output a pipe read until it closes, at most SBC_PWCMD_MAX_OUTPUT bytes and
 * SBC_PWCMD_TIMEOUT_MS (then the command is killed); its standard error is
 * the user's.
 */
#include "password_cmd.h"
#include "password.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sbc_pwcmd_init(struct sbc_pwcmd *pc, const struct sbd_host *h, const char *name,
                   int other_given, char *errbuf, size_t errlen)
{
    char opt[64];
    memset(pc, 0, sizeof *pc);
    pthread_mutex_init(&pc->lock, NULL);
    snprintf(opt, sizeof opt, "%s-password-command", name);
    snprintf(pc->option, sizeof pc->option, "--%s", opt);
    const char *cmd = h->opt_str(opt);
    if (cmd == NULL || *cmd == 0)
        return 0;
    if (other_given) {
        snprintf(errbuf, errlen, "give only one of --%s-password, --%s-password-file and %s",
                 name, name, pc->option);
        return -1;
    }
    long long ttl = h->opt_int("password-ttl");
    if (ttl < 0 || ttl > 86400 * 365) {
        snprintf(errbuf, errlen, "--password-ttl must be 0..31536000 seconds, not %lld", ttl);
        return -1;
    }
    pc->command = cmd;
    pc->ttl_ms = ttl * 1000;
    return 0;
}

/* Reads fd to its end into buf (at most cap - 1 bytes, NUL-terminated)
 * until `deadline`.  The length, or -1 (errno ETIMEDOUT, EFBIG or the
 * read's). */
static ssize_t read_all(int fd, char *buf, size_t cap, int64_t deadline)
{
    size_t len = 0;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return errno = ETIMEDOUT, -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 ? (errno = ETIMEDOUT, -1) : -1;
        if (len + 1 >= cap)
            return errno = EFBIG, -1;
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = 0;
    return (ssize_t)len;
}

/* Runs the command; its output's first line (a new string) or NULL with
 * errbuf. */
static char *run_command(struct sbc_pwcmd *pc, char *errbuf, size_t errlen)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(errbuf, errlen, "%s: cannot make a pipe: %s", pc->option, strerror(errno));
        return NULL;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    char *argv[] = {"sh", "-c", (char *)pc->command, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (err != 0) {
        close(pfd[0]);
        snprintf(errbuf, errlen, "%s: cannot run /bin/sh: %s", pc->option, strerror(err));
        return NULL;
    }
    char *out = malloc(SBC_PWCMD_MAX_OUTPUT);
    ssize_t n = out ? read_all(pfd[0], out, SBC_PWCMD_MAX_OUTPUT, now_ms() + SBC_PWCMD_TIMEOUT_MS) : -1;
    int read_err = n < 0 ? (out ? errno : ENOMEM) : 0;
    close(pfd[0]);
    if (n < 0)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (n >= 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        if (WIFEXITED(status))
            snprintf(errbuf, errlen, "%s: the command exited with status %d", pc->option,
                     WEXITSTATUS(status));
        else
            snprintf(errbuf, errlen, "%s: the command was killed by signal %d", pc->option,
                     WTERMSIG(status));
        n = -1;
    } else if (n < 0) {
        snprintf(errbuf, errlen, "%s: %s", pc->option,
                 read_err == ETIMEDOUT ? "the command printed no end of output within 30 s "
                                         "(killed)"
                 : read_err == EFBIG ? "the command printed more than 64 KiB (killed)"
                                     : strerror(read_err));
    }
    size_t len = n > 0 ? strcspn(out, "\r\n") : 0;
    if (n >= 0 && len == 0) {
        snprintf(errbuf, errlen, "%s: the command printed no password (its first line is empty)",
                 pc->option);
        n = -1;
    }
    if (n < 0) {
        if (out != NULL) {
            explicit_bzero(out, SBC_PWCMD_MAX_OUTPUT);
            free(out);
        }
        return NULL;
    }
    explicit_bzero(out + len, (size_t)n - len); /* the rest is not the password */
    out[len] = 0;
    char *pw = strdup(out);
    explicit_bzero(out, len);
    free(out);
    if (pw == NULL)
        snprintf(errbuf, errlen, "%s: out of memory", pc->option);
    return pw;
}

char *sbc_pwcmd_get(struct sbc_pwcmd *pc, char *errbuf, size_t errlen)
{
    pthread_mutex_lock(&pc->lock);
    int64_t now = now_ms();
    if (pc->cached == NULL || now - pc->fetched_ms >= pc->ttl_ms) {
        char *pw = run_command(pc, errbuf, errlen);
        if (pw == NULL) {
            pthread_mutex_unlock(&pc->lock);
            return NULL;
        }
        sbc_password_free(pc->cached);
        pc->cached = pw;
        pc->fetched_ms = now_ms();
    }
    char *copy = strdup(pc->cached);
    pthread_mutex_unlock(&pc->lock);
    if (copy == NULL)
        snprintf(errbuf, errlen, "%s: out of memory", pc->option);
    return copy;
}

int sbc_pwcmd_reject(struct sbc_pwcmd *pc, const char *token, int attempt)
{
    if (pc->command == NULL || token == NULL || attempt >= SBC_PWCMD_AUTH_TRIES)
        return 0;
    pthread_mutex_lock(&pc->lock);
    if (pc->cached != NULL && strcmp(pc->cached, token) == 0) {
        sbc_password_free(pc->cached);
        pc->cached = NULL;
    }
    pthread_mutex_unlock(&pc->lock);
    struct timespec pause = {.tv_sec = 0, .tv_nsec = attempt * 100L * 1000000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
    return 1;
}

void sbc_pwcmd_free(struct sbc_pwcmd *pc)
{
    sbc_password_free(pc->cached);
    pc->cached = NULL;
    pc->command = NULL;
}
