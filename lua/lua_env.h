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

/* True if the script defines sbench.hooks.<name>. */
int l_has_hook(struct sb_worker *w, const char *name);

#endif
