/*
 * The Lua binding as the core sees it: the table of hooks of
 * core/script.h, over the binding's files (l_state.c, l_event.c,
 * l_client.c, l_report.c, l_settings.c).
 */
#include <lua.h>

#include "l_internal.h"
#include "l_script.h"

static const struct sb_script_ops lua_ops = {
    .language = "Lua " LUA_VERSION_MAJOR "." LUA_VERSION_MINOR,
    .create = l_state_create,
    .destroy = l_state_destroy,
    .register_options = l_register_options,
    .set_options = l_set_options,
    .call = l_call_global,
    .find_command = l_find_command,
    .call_command = l_call_command,
    .command_names = l_command_names,
    .interrupt = l_interrupt,
    .worker_init = l_worker_init,
    .run_events = l_run_events,
    .worker_done = l_worker_done,
    .client_create = l_client_create,
    .client_call = l_client_call,
    .client_step = l_client_step,
    .report_hook = l_report_hook,
    .has_hook = l_has_hook,
    .server_settings = l_server_settings,
};

const struct sb_script_ops *sb_lua_script(void) { return &lua_ops; }
