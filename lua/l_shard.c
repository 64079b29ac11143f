/*
 * sbench.shard: which shard of a group this process is (core/shard.h), for
 * workloads that partition their keys: sbench.shard.index (0-based),
 * sbench.shard.count (1 when the run is not sharded) and
 * sbench.shard.run_id ("" when none).  Read live from the run, so the
 * control state, created before the identity is settled, sees it too.
 */
#include <lauxlib.h>
#include <lua.h>

#include <string.h>

#include "l_internal.h"

static int shard_index(lua_State *L)
{
    const struct sb_shard *s = &l_worker(L)->run->shard;
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, s->given ? s->index : 0);
    else if (strcmp(k, "count") == 0)
        lua_pushinteger(L, s->given ? s->count : 1);
    else if (strcmp(k, "run_id") == 0)
        lua_pushstring(L, s->run_id);
    else
        lua_pushnil(L);
    return 1;
}

static int shard_newindex(lua_State *L)
{
    return luaL_error(L, "sbench.shard is read-only");
}

void l_open_shard(lua_State *L)
{
    lua_newtable(L);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, shard_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, shard_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "shard");
}
