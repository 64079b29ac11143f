/*
 * The Lua side of sbench: creating a worker's lua_State with the sbench API
 * installed and the workload loaded, calling hooks under lua_pcall with a
 * traceback, and reading what the script declares (options, commands).
 */
#ifndef SB_LUA_ENV_H
#define SB_LUA_ENV_H

#include <stddef.h>

struct lua_State;
struct sb_worker;
struct sb_options;
struct sb_report;
struct sb_conn;

/* Creates w's Lua state: standard libraries, the sbench API, sbench.opt
 * from the registry (when with_opts), and the workload script executed.
 * Returns the state (owned by the caller: close with lua_close) or NULL
 * with the error (file:line: message) in w->error. */
struct lua_State *l_state_create(struct sb_worker *w, int with_opts);

/* Fills sbench.opt in w's state from the registry. */
void l_set_options(struct sb_worker *w);

/* Registers the options the script declared in sbench.cmdline.options.
 * Returns 0, or -1 with a message in err. */
int l_register_options(struct sb_worker *w, struct sb_options *o, char *err, size_t errlen);

/* Calls the global function `name` (no arguments).  Returns 1 if it is
 * not defined, 0 when it ran, -1 on error (message in w->error). */
int l_call_global(struct sb_worker *w, const char *name);

/* Looks up sbench.cmdline.commands[cmd]: returns 0 if absent, 1 for a
 * serial command, 2 for a PARALLEL_COMMAND.  The function stays in the
 * registry for l_call_command. */
int l_find_command(struct sb_worker *w, const char *cmd);
/* Calls sbench.cmdline.commands[cmd][1]; same returns as l_call_global. */
int l_call_command(struct sb_worker *w, const char *cmd);

/* Prepares the event loop: looks up `event` once.  Returns 0 or -1 with
 * w->error set (no event function). */
int l_event_prepare(struct sb_worker *w);

/* Runs one event, restarting it on ignorable SQL errors.  Returns 0 when
 * the event completed, -1 on a fatal error (w->error set). */
int l_event_run(struct sb_worker *w);

/* Client coroutines (--clients > --threads): one per connection, each with
 * its own global environment (reads fall through to the state's _G). */
struct l_client {
    struct lua_State *co;   /* runs the client's events */
    int co_ref, env_ref;    /* registry references */
    int cid;                /* 0..clients-1; sbench.cid in its environment */
    int retries;            /* restarts of the current event */
    struct sb_conn *conns[16]; /* connections its code opened (not owned) */
    int nconns;
};

/* Creates client cid in w's state: a fresh _ENV whose metatable reads
 * from _G, an own sbench table (cid, hooks; the rest shared), an own
 * require, and the workload script run in it.  Returns 0, or -1 with
 * w->error set. */
int l_client_create(struct sb_worker *w, int cid, struct l_client *cl);
/* Calls the client's function `name` (thread_init, thread_done) on the
 * worker's main thread, so every statement in it blocks; same returns as
 * l_call_global.  Connections opened while a client's code runs (here or
 * in l_client_step) are listed in its conns[], for --reconnect=transaction. */
int l_client_call(struct sb_worker *w, struct l_client *cl, const char *name);

enum { L_CLIENT_WAIT, L_CLIENT_DONE, L_CLIENT_RESTART, L_CLIENT_STOP, L_CLIENT_FAILED,
       L_CLIENT_FATAL };
/* Runs the client's event (from its start when `start`, else resuming it
 * after its statement completed) until it waits for a statement
 * (L_CLIENT_WAIT, *wait = the connection), completes (L_CLIENT_DONE), or
 * fails; failures follow l_event_run's rules: L_CLIENT_RESTART (run it
 * again), L_CLIENT_STOP (cut short by a stop request), L_CLIENT_FAILED
 * (after --max-retries, counted), L_CLIENT_FATAL (w->error set). */
int l_client_step(struct sb_worker *w, struct l_client *cl, int start, struct sb_conn **wait);

/* Calls sbench.hooks.<hook>(stat) on w's state (the control state) with
 * sysbench 1.0's stat table for report r.  Returns 1 when the hook ran, 0
 * when the script has none, -1 on error (w->error set). */
int l_report_hook(struct sb_worker *w, const char *hook, const struct sb_report *r);

/* True if the script defines sbench.hooks.<name>. */
int l_has_hook(struct sb_worker *w, const char *name);

#endif
