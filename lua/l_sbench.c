/*
 * The global `sbench` table (alias `sysbench`): version, tid, opt, cmdline,
 * hooks, error, progress and rand, with sysbench 1.0's names and numbers
 * (sql.error, cmdline.ARG_*), and the rand globals of sysbench's
 * compatibility layer (sb_rand, sb_rnd, sb_rand_uniq, ...); sbench.sql
 * (with sql.type) comes from l_sql_open.c, option values from l_opt.c.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/options.h"
#include "l_internal.h"

#ifndef SB_VERSION
#define SB_VERSION "0.0.0"
#endif


/* ---- sbench.rand ---- */

static sb_rand *R(lua_State *L) { return &l_worker(L)->rand; }

/* luaL_checkinteger without its extra call: these run several times per
 * event. */
static inline lua_Integer int_arg(lua_State *L, int i)
{
    int ok;
    lua_Integer v = lua_tointegerx(L, i, &ok);
    return ok ? v : l_luajit_int(L, i); /* 7.9 -> 7, as sysbench's FFI */
}

static int r_uniform(lua_State *L)
{
    lua_pushinteger(L, sb_rand_uniform(R(L), int_arg(L, 1), int_arg(L, 2)));
    return 1;
}

static int r_gaussian(lua_State *L)
{
    const struct sb_rand_conf *c = &l_worker(L)->run->rand;
    lua_pushinteger(L, sb_rand_gaussian(R(L), int_arg(L, 1), int_arg(L, 2),
                                        c->spec_iter));
    return 1;
}

static int r_special(lua_State *L)
{
    const struct sb_rand_conf *c = &l_worker(L)->run->rand;
    lua_pushinteger(L, sb_rand_special(R(L), int_arg(L, 1), int_arg(L, 2),
                                       c->spec_iter, c->spec_pct, c->spec_res));
    return 1;
}

static int r_pareto(lua_State *L)
{
    lua_pushinteger(L, sb_rand_pareto(R(L), int_arg(L, 1), int_arg(L, 2),
                                      l_worker(L)->run->rand.pareto_h));
    return 1;
}

static int r_zipfian(lua_State *L)
{
    lua_pushinteger(L, sb_rand_zipfian(R(L), int_arg(L, 1), int_arg(L, 2),
                                       l_worker(L)->run->rand.zipf_exp));
    return 1;
}

static int r_default(lua_State *L)
{
    switch (l_worker(L)->run->rand.kind) {
    case SB_RAND_UNIFORM: return r_uniform(L);
    case SB_RAND_GAUSSIAN: return r_gaussian(L);
    case SB_RAND_PARETO: return r_pareto(L);
    case SB_RAND_ZIPFIAN: return r_zipfian(L);
    default: return r_special(L);
    }
}

static int r_uniform_double(lua_State *L)
{
    lua_pushnumber(L, sb_rand_double(R(L)));
    return 1;
}

static int r_unique(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)sb_rand_unique(R(L)));
    return 1;
}

static int r_uniform_uint64(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)sb_rand_u64(R(L))); /* all 64 bits, as a Lua integer */
    return 1;
}

/* sb_rnd(): a random 32-bit value (sysbench's compatibility global). */
static int r_rnd(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)(sb_rand_u64(R(L)) & 0xffffffffu));
    return 1;
}

/* sb_rand_uniq([a [, b]]): a value of rand.unique()'s sequence within
 * [a, b] (default [0, 2^32-1]), drawn until one falls inside, as sysbench
 * does; the values stay unique within the thread. */
static int r_uniq_range(lua_State *L)
{
    lua_Integer a = luaL_optinteger(L, 1, 0), b = luaL_optinteger(L, 2, 4294967295LL);
    luaL_argcheck(L, a <= b && b >= 0 && a <= 4294967295LL, 2,
                  "the range [a, b] must overlap [0, 4294967295]");
    for (uint64_t tries = 0; tries <= UINT32_MAX; tries++) {
        lua_Integer v = (lua_Integer)sb_rand_unique(R(L));
        if (v >= a && v <= b) {
            lua_pushinteger(L, v);
            return 1;
        }
    }
    return luaL_error(L, "sb_rand_uniq: every unique value in [%I, %I] is used", a, b);
}

static int r_string(lua_State *L)
{
    size_t len;
    const char *tmpl = luaL_checklstring(L, 1, &len);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, len);
    sb_rand_string(R(L), tmpl, len, out);
    luaL_pushresultsize(&b, len);
    return 1;
}

static int r_varstring(lua_State *L)
{
    lua_Integer mn = luaL_checkinteger(L, 1), mx = luaL_checkinteger(L, 2);
    luaL_argcheck(L, mn >= 0 && mx >= mn && mx <= 1 << 20, 2, "need 0 <= min <= max");
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, (size_t)mx);
    size_t n = sb_rand_varstring(R(L), (size_t)mn, (size_t)mx, out);
    luaL_pushresultsize(&b, n);
    return 1;
}

void l_open_rand(lua_State *L)
{
    static const luaL_Reg f[] = {
        {"uniform", r_uniform}, {"default", r_default}, {"gaussian", r_gaussian},
        {"special", r_special}, {"pareto", r_pareto}, {"zipfian", r_zipfian},
        {"uniform_double", r_uniform_double}, {"unique", r_unique}, {"string", r_string},
        {"varstring", r_varstring}, {"rand_uniform", r_uniform},
        {"uniform_uint64", r_uniform_uint64}, {NULL, NULL}};
    luaL_newlib(L, f);
    lua_setfield(L, -2, "rand");
}

/* ---- sbench.progress ---- */

static int p_expect(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    if (n > 0)
        atomic_fetch_add(&l_worker(L)->run->expected_rows, (uint64_t)n);
    return 0;
}

/* ---- sbench.opt ---- */



void l_set_options(struct sb_worker *w)
{
    lua_State *L = ((struct l_thread *)w->script)->L;
    const struct sb_options *o = w->run->opts;
    lua_getglobal(L, "sbench");
    lua_getfield(L, -1, "opt");
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *p = sb_options_at(o, i);
        char key[160];
        l_opt_lua_name(p, key, sizeof key);
        l_push_opt_value(L, p, p->value ? p->value : p->def);
        lua_setfield(L, -2, key);
    }
    lua_pop(L, 2);
    l_legacy_export(w->script, 0); /* a legacy script: as globals too */
}

/* ---- sysbench's helpers in sbench.cmdline ---- */

/* Pushes sbench.cmdline.commands[name] and returns 1 when it is a
 * command (a table with a first member); else pushes nothing, returns 0. */
static int push_command_entry(lua_State *L, int name_idx)
{
    lua_getglobal(L, "sbench");
    if (lua_type(L, -1) != LUA_TTABLE || lua_getfield(L, -1, "cmdline") != LUA_TTABLE ||
        lua_getfield(L, -1, "commands") != LUA_TTABLE) {
        lua_settop(L, name_idx);
        return 0;
    }
    lua_pushvalue(L, name_idx);
    if (lua_gettable(L, -2) != LUA_TTABLE || lua_geti(L, -1, 1) == LUA_TNIL) {
        lua_settop(L, name_idx);
        return 0;
    }
    lua_pop(L, 1);
    lua_replace(L, name_idx + 1);
    lua_settop(L, name_idx + 1);
    return 1;
}

static int c_command_defined(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushboolean(L, push_command_entry(L, 1));
    return 1;
}

static int c_command_parallel(lua_State *L)
{
    lua_settop(L, 1);
    int parallel = 0;
    if (push_command_entry(L, 1)) {
        lua_geti(L, -1, 2);
        parallel = lua_isboolean(L, -1) && lua_toboolean(L, -1);
    }
    lua_pushboolean(L, parallel);
    return 1;
}

/* call_command(name): false when there is no such command; else its
 * function's result, nil counting as true (sysbench's rule). */
static int c_call_command(lua_State *L)
{
    lua_settop(L, 1);
    if (!push_command_entry(L, 1)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_geti(L, -1, 1);
    lua_call(L, 0, 1);
    lua_pushboolean(L, lua_isnil(L, -1) || lua_toboolean(L, -1));
    return 1;
}

static int c_print_test_options(lua_State *L)
{
    sb_options_print_help(l_worker(L)->run->opts, SB_SRC_WORKLOAD, stdout);
    putchar('\n');
    return 0;
}

/* sbench reads the declarations itself, before any command */
static int c_read_cmdline_options(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

/* sbench.cmdline: what was asked (command, script_path, the whole
 * command line as argv[0..n]) and the declarations' vocabulary. */
static void open_cmdline(lua_State *L, const struct sb_run *run)
{
    lua_newtable(L);
    lua_newtable(L);
    lua_setfield(L, -2, "options");
    lua_newtable(L);
    lua_setfield(L, -2, "commands");
    if (run->command) {
        lua_pushstring(L, run->command);
        lua_setfield(L, -2, "command");
    }
    if (run->script_name) { /* as given; none for a script read from stdin */
        lua_pushstring(L, run->script_name);
        lua_setfield(L, -2, "script_path");
    }
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "PARALLEL_COMMAND");
    static const char *const args[] = {"ARG_NULL", "ARG_BOOL", "ARG_INT", "ARG_SIZE", "ARG_DOUBLE",
                                       "ARG_STRING", "ARG_LIST", "ARG_FILE", "ARG_MAX"};
    for (int i = 0; i < (int)(sizeof args / sizeof args[0]); i++) {
        lua_pushinteger(L, i); /* L_ARG_NULL .. L_ARG_MAX */
        lua_setfield(L, -2, args[i]);
    }
    lua_createtable(L, run->argc, 1);
    for (int i = 0; i < run->argc; i++) {
        lua_pushstring(L, run->argv[i]);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, "argv");
    static const luaL_Reg helpers[] = {
        {"command_defined", c_command_defined}, {"command_parallel", c_command_parallel},
        {"call_command", c_call_command}, {"print_test_options", c_print_test_options},
        {"read_cmdline_options", c_read_cmdline_options}, {NULL, NULL}};
    luaL_setfuncs(L, helpers, 0);
    lua_setfield(L, -2, "cmdline");
}

/* Builds the sbench table and sets the globals sbench and sysbench. */
void l_open_sbench(lua_State *L, struct sb_worker *w)
{
    lua_newtable(L);
    lua_pushstring(L, SB_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushstring(L, "sbench " SB_VERSION);
    lua_setfield(L, -2, "version_string");
    lua_pushinteger(L, w->id >= 0 ? w->id : 0); /* the control state is 0, as in sysbench */
    lua_setfield(L, -2, "tid");
    lua_newtable(L);
    lua_setfield(L, -2, "opt");
    open_cmdline(L, w->run);

    lua_newtable(L);
    lua_setfield(L, -2, "hooks");

    /* sysbench 1.0's error codes: error({errcode = RESTART_EVENT})
     * restarts the event */
    lua_newtable(L);
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "NONE");
    lua_pushinteger(L, L_RESTART_EVENT);
    lua_setfield(L, -2, "RESTART_EVENT");
    lua_setfield(L, -2, "error");

    lua_newtable(L);
    lua_pushcfunction(L, p_expect);
    lua_setfield(L, -2, "expect");
    lua_setfield(L, -2, "progress");

    l_open_rand(L);
    l_open_pgrand(L);
    l_open_pgscript(L);
    l_open_sql(L);
    /* sql.error: sysbench's error classes (its db_error_t) */
    lua_getfield(L, -1, "sql");
    lua_createtable(L, 0, 3);
    static const char *const classes[] = {"NONE", "IGNORABLE", "FATAL"};
    for (int i = 0; i < 3; i++) {
        lua_pushinteger(L, i);
        lua_setfield(L, -2, classes[i]);
    }
    lua_setfield(L, -2, "error");
    lua_pop(L, 1);
    l_open_report(L);
    l_open_section(L);
    l_open_event(L);
    l_open_diag(L);
    l_open_builtin(L);
    l_open_shard(L);
    l_open_barrier(L);

    /* the globals of sysbench 1.0's compatibility layer */
    static const struct { const char *global, *field; } legacy[] = {
        {"sb_rand", "default"}, {"sb_rand_uniform", "uniform"},
        {"sb_rand_gaussian", "gaussian"}, {"sb_rand_special", "special"},
        {"sb_rand_str", "string"}};
    lua_getfield(L, -1, "rand");
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        lua_getfield(L, -1, legacy[i].field);
        lua_setglobal(L, legacy[i].global);
    }
    lua_pop(L, 1);
    lua_register(L, "sb_rnd", r_rnd);
    lua_register(L, "sb_rand_uniq", r_uniq_range);

    lua_pushvalue(L, -1);
    lua_setglobal(L, "sysbench");
    lua_setglobal(L, "sbench");
}
