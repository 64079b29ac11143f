/*
 * sbench.barrier(): in a PARALLEL_COMMAND, waits until every thread
 * running the command has reached it (core/barrier.h), so that a command
 * can work in phases: one thread creates the tables, all load, all build
 * indexes.  Outside a parallel command (or with one thread) it returns at
 * once.  Raises when another thread failed or the command was interrupted.
 */
#include <lauxlib.h>
#include <lua.h>

#include "../core/barrier.h"
#include "l_internal.h"

static int barrier(lua_State *L)
{
    struct sb_worker *w = l_worker(L);
    struct sb_run *run = w->run;
    if (run->barrier == NULL || w->id < 0)
        return 0;
    if (sb_barrier_wait(run->barrier, run) != 0)
        return luaL_error(L, "barrier: another thread of the command failed or it was interrupted");
    return 0;
}

void l_open_barrier(lua_State *L)
{
    lua_pushcfunction(L, barrier);
    lua_setfield(L, -2, "barrier");
}
