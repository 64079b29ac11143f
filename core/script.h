/*
 * The workload script as the core sees it: a table of hooks that the Lua
 * binding fills (lua/l_script.c), as sysbench calls its tests through
 * sb_operations_t and wrk through its script_* functions.  The core never
 * touches a Lua state: each worker's script state belongs to the binding,
 * behind struct sb_worker's `script`.
 *
 * Every hook runs on the thread that owns the worker.  Unless said
 * otherwise, a hook returns 0 on success and -1 on an error whose message
 * (file:line: message, with a traceback where it helps) is in w->error.
 */
#ifndef SB_SCRIPT_H
#define SB_SCRIPT_H

#include <stddef.h>

struct sb_worker;
struct sb_options;
struct sb_report;
struct sb_conn;

struct sb_script_ops {
    /* The language and its version, for headers: "Lua 5.4". */
    const char *language;

    /* --- a worker's script state --- */
    /* Creates w's state on the calling thread: the sbench API installed,
     * sbench.opt filled from the registry when with_opts, the workload
     * run.  w->script owns it until destroy. */
    int (*create)(struct sb_worker *w, int with_opts);
    /* Frees w's state (connections its script opened are closed with it);
     * a worker without one is a no-op. */
    void (*destroy)(struct sb_worker *w);
    /* Registers the options the script declared into o; -1 with one line
     * in err when a declaration is malformed. */
    int (*register_options)(struct sb_worker *w, struct sb_options *o, char *err, size_t errlen);
    /* Fills sbench.opt again from the registry (after it was resolved). */
    void (*set_options)(struct sb_worker *w);

    /* --- calls --- */
    /* Calls the script's global function `name` without arguments (init,
     * done, prepare, ...): 1 when it has none, 0 when it ran, -1 on error. */
    int (*call)(struct sb_worker *w, const char *name);
    /* Commands the script declares: 0 none by that name, 1 serial, 2 run
     * by every thread (PARALLEL_COMMAND).  call_command returns like call. */
    int (*find_command)(struct sb_worker *w, const char *cmd);
    int (*call_command)(struct sb_worker *w, const char *cmd);
    /* Writes the names of the commands the script declares into buf,
     * sorted and ", "-separated ("" when none), truncated to len. */
    void (*command_names)(struct sb_worker *w, char *buf, size_t len);
    /* Makes the script stop where it is (an interrupted serial command);
     * async-signal-safe. */
    void (*interrupt)(struct sb_worker *w);

    /* --- the run command --- */
    /* Calls thread_init and readies the event loop. */
    int (*worker_init)(struct sb_worker *w);
    /* The one-client event loop: runs the script's event() for every
     * event sb_event_next grants (core/event.h), records each with
     * sb_event_close, and applies the restart rules to its errors.  Returns
     * when the run is over: 0, or -1 on a fatal error. */
    int (*run_events)(struct sb_worker *w);
    /* Calls thread_done. */
    int (*worker_done)(struct sb_worker *w);

    /* --- clients multiplexed on one worker (core/clients.c) --- */
    /* Creates client cid (its own environment, the workload run in it).
     * Returns the client (owned by w's state, freed with it) or NULL. */
    void *(*client_create)(struct sb_worker *w, int cid);
    /* Calls the client's function `name` (thread_init, thread_done) where
     * every statement blocks; returns like call. */
    int (*client_call)(struct sb_worker *w, void *client, const char *name);
    /* Runs the client's event from its start (start = 1) or on from the
     * statement it waited for, until it waits again or ends: an enum
     * sb_event_outcome; SB_EVENT_WAIT with *wait = the connection whose
     * answer it waits for. */
    int (*client_step)(struct sb_worker *w, void *client, int start, struct sb_conn **wait);

    /* --- reports (on the control worker) --- */
    /* Calls sbench.hooks.<hook>(stat) with sysbench 1.0's stat table for
     * report r: 1 when it ran, 0 when the script has none, -1 on error. */
    int (*report_hook)(struct sb_worker *w, const char *hook, const struct sb_report *r);
    /* 1 when the script defines sbench.hooks.<hook>. */
    int (*has_hook)(struct sb_worker *w, const char *hook);
    /* The server's version and settings, read on a connection of the
     * hook's own, as a JSON object into buf (run.server_settings of the
     * final JSON report): 0, or -1 with w->error and {"error": ...} in
     * buf.  On the control worker, outside the measured time. */
    int (*server_settings)(struct sb_worker *w, char *buf, size_t len);
};

#endif
