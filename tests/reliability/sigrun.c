/* sigrun: run a command, send it signals at given times, bound its run time.
 *
 *   sigrun [-a SECONDS:SIG]... [-l LIMIT] [-o OUT] [-e ERR] -- CMD...
 *
 * SIG is INT, TERM, HUP or PIPE.  The command starts in its own process
 * group with default SIGINT/SIGTERM/SIGPIPE (even when the caller ignores
 * them, as a background job of a shell does), stdin from /dev/null.  Prints
 * one line "exit=N signal=S elapsed=T since_last_signal=U hung=H": exit=-1
 * when it died from signal S; since_last_signal=-1.00 when no signal was
 * sent (the command ended first).  After LIMIT seconds (default 30) the
 * process group gets SIGKILL, hung=1 and sigrun's status is 3.  (A C helper
 * rather than a script: python3 alone can take seconds to start here.) */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int signum(const char *s)
{
    if (!strcmp(s, "INT")) return SIGINT;
    if (!strcmp(s, "TERM")) return SIGTERM;
    if (!strcmp(s, "HUP")) return SIGHUP;
    if (!strcmp(s, "PIPE")) return SIGPIPE;
    if (!strcmp(s, "KILL")) return SIGKILL;
    return -1;
}

static void redirect(const char *path, int fd, int flags)
{
    if (!path)
        return;
    int f = open(path, flags, 0644);
    if (f < 0 || dup2(f, fd) < 0) {
        perror(path);
        _exit(127);
    }
    close(f);
}

int main(int argc, char **argv)
{
    double at[32];
    int sig[32], nat = 0, i = 1;
    double limit = 30;
    const char *out = NULL, *err = NULL;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (i + 1 >= argc)
            goto usage;
        if (!strcmp(argv[i], "-a") && nat < 32) {
            char *colon = strchr(argv[++i], ':');
            if (!colon || (sig[nat] = signum(colon + 1)) < 0)
                goto usage;
            at[nat++] = atof(argv[i]);
        } else if (!strcmp(argv[i], "-l")) {
            limit = atof(argv[++i]);
        } else if (!strcmp(argv[i], "-o")) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "-e")) {
            err = argv[++i];
        } else {
            goto usage;
        }
    }
    if (i + 1 >= argc)
        goto usage;
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        redirect("/dev/null", 0, O_RDONLY);
        redirect(out, 1, O_WRONLY | O_CREAT | O_TRUNC);
        redirect(err, 2, O_WRONLY | O_CREAT | O_TRUNC);
        execvp(argv[i + 1], argv + i + 1);
        perror(argv[i + 1]);
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0, hung = 0, next = 0;
    double last = -1;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        double t = now() - t0;
        while (next < nat && at[next] <= t) {
            kill(pid, sig[next++]);
            last = now();
        }
        if (t > limit) {
            hung = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    double end = now();
    printf("exit=%d signal=%d elapsed=%.2f since_last_signal=%.2f hung=%d\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           WIFSIGNALED(status) ? WTERMSIG(status) : 0, end - t0,
           last < 0 ? -1.0 : end - last, hung);
    return hung ? 3 : 0;
usage:
    fprintf(stderr, "usage: sigrun [-a SECONDS:SIG]... [-l LIMIT] [-o OUT] [-e ERR] -- CMD...\n");
    return 2;
}
