/*
 * Signals and sleeping: SIGINT/SIGTERM ask the run to stop (a second one
 * exits at once), and interrupt a serial command running on the main
 * thread through the script's async-signal-safe hook (see run.h).
 */
#include "run.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "script.h"

volatile sig_atomic_t sb_interrupted;
/* The worker running a serial command on the main thread, for the signal
 * handler (the script's interrupt hook is async-signal-safe). */
static struct sb_worker *volatile signal_worker;

void sb_signal_worker_set(struct sb_worker *w)
{
    signal_worker = w;
}

static void on_signal(int sig)
{
    if (sb_interrupted) {
        static const char msg[] = "\nsbench: interrupted twice, exiting now\n";
        ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)r;
        _exit(130);
    }
    sb_interrupted = sig;
    struct sb_worker *w = signal_worker;
    if (w)
        w->run->script_ops->interrupt(w);
}

const char *sb_interrupt_message(void)
{
    if (sb_interrupted == SIGTERM)
        return "sbench: terminated (SIGTERM), finishing the events in flight "
               "(another SIGTERM or SIGINT exits now)";
    return "sbench: interrupted, finishing the events in flight (Ctrl-C again to exit now)";
}

void sb_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void sb_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
    nanosleep(&ts, NULL);
}
