/*
 * sbench.pgbench_script: a pgbench script's plain commands run in C, for
 * the hot path of `sbench pgbench` (workloads/pgbench_run.lua builds the
 * plan once a script has run through on a connection; scripts with other
 * commands, -r, or a statement that is not prepared keep the Lua loop).
 *
 *   local prog = sbench.pgbench_script.compile(plan)
 *   local in_tx = prog:run(vars, ctx, rs)  -- one pass; true: a BEGIN left open
 *   prog:at()                              -- the command it stopped at (1-based)
 *
 * plan: an array of ops, each { cmd = index of the script's command } and
 *   { var = NAME, expr = f }                        \set NAME f(ctx)
 *   { var = NAME, expr = f, lo = L, hi = H, hi_var = V }
 *        \set NAME random(L, H [* :V]): drawn here (l_pgrand.c's pgbench
 *        draw on rs), or f(ctx) when V is not an integer or the bounds do
 *        not make a range (f then raises or draws as pgbench does)
 *   { st = stmt, exec = stmt.execute, params = { param... }, names = { NAME... },
 *     verb = "begin"|"commit"|"rollback"|nil, slow = function(vars) }
 *        the prepared statement with its BIGINT parameters from the
 *        variables; slow() runs the command the Lua way when a value is
 *        not an integer.
 *   { branch = "if", expr = f, jump = J }  \if: on at J + 1 (J: its \else or
 *        \endif) when f(ctx) is not true
 *   { branch = "else", jump = J }          the branch before ran: on at J + 1
 *   { branch = "endif" }
 * The plan has one op per command, in order (op i is command i).
 * A statement may yield (--clients): the loop goes on in its continuation.
 * No allocation per run: the plan's Lua objects sit in the program's user
 * value, read by index.
 */
#include <lauxlib.h>
#include <lua.h>

#include <stdlib.h>
#include <string.h>

#include "l_internal.h"
#include "l_sql_int.h"

#define PROG_MT "sbench.pgbench_script"

enum { OP_SET, OP_RANDOM, OP_SQL, OP_IF, OP_ELSE, OP_ENDIF };
enum { VERB_NONE, VERB_BEGIN, VERB_END };

struct op {
    int kind, cmd, verb, jump; /* jump: a branch's command to go on after (1-based) */
    int var_ref, fn_ref, hi_var_ref; /* indexes in the user value; 0: none */
    int stmt_ref, exec_ref;
    lua_Integer lo, hi;
    int nparams, first_param;
};

/* The user value's first entries: the random state's keys. */
enum { UV_S0 = 1, UV_S1, UV_FIRST_FREE = UV_S1 };

/* rng: the client's random state while ops draw from it (rng_state
 * RNG_DIRTY: newer than ctx.rs's, written back before any Lua runs). */
enum { RNG_UNREAD, RNG_READ, RNG_DIRTY };

struct prog {
    int n, pc, in_tx, nparams, rng_state;
    uint64_t rng[2];
    struct op *ops;
    struct l_param **params;
    int *param_name_ref;
};

/* Stack of run: 1 prog, 2 vars, 3 ctx, 4 rs, 5 the user value. */
enum { A_PROG = 1, A_VARS, A_CTX, A_RS, A_UV };

/* Sets the statement's parameters from the variables: 1, or 0 when one is
 * not an integer (the caller runs the command the slow way). */
static int set_params(lua_State *L, const struct prog *p, const struct op *o)
{
    for (int k = 0; k < o->nparams; k++) {
        struct l_param *pa = p->params[o->first_param + k];
        lua_rawgeti(L, A_UV, p->param_name_ref[o->first_param + k]);
        lua_rawget(L, A_VARS);
        int is_int = lua_isinteger(L, -1);
        lua_Integer v = is_int ? lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        if (!is_int)
            return 0;
        if (pa->v != NULL) {
            pa->v->i = v;
            pa->v->is_null = 0;
        }
    }
    return 1;
}

static uint64_t rs_get(lua_State *L, int key)
{
    lua_rawgeti(L, A_UV, key);
    lua_rawget(L, A_RS);
    uint64_t v = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

static void rs_set(lua_State *L, int key, uint64_t v)
{
    lua_rawgeti(L, A_UV, key);
    lua_pushinteger(L, (lua_Integer)v);
    lua_rawset(L, A_RS);
}

/* The random state back into ctx.rs before Lua code runs (which may draw
 * or, on an error, keep it for a retry). */
static void rng_flush(lua_State *L, struct prog *p)
{
    if (p->rng_state == RNG_DIRTY) {
        rs_set(L, UV_S0, p->rng[0]);
        rs_set(L, UV_S1, p->rng[1]);
    }
    p->rng_state = RNG_UNREAD;
}

/* \set NAME random(lo, hi [* :var]) drawn here: 1, or 0 (f's turn). */
static int draw(lua_State *L, struct prog *p, const struct op *o)
{
    lua_Integer hi = o->hi, v;
    if (o->hi_var_ref) {
        lua_rawgeti(L, A_UV, o->hi_var_ref);
        lua_rawget(L, A_VARS);
        int is_int = lua_isinteger(L, -1);
        lua_Integer m = is_int ? lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
        if (!is_int || __builtin_mul_overflow(o->hi, m, &hi))
            return 0;
    }
    if (o->lo > hi)
        return 0;
    if (p->rng_state == RNG_UNREAD) {
        p->rng[0] = rs_get(L, UV_S0);
        p->rng[1] = rs_get(L, UV_S1);
        p->rng_state = RNG_READ;
    }
    if (!l_pgrand_uniform(p->rng, o->lo, hi, &v))
        return 0;
    p->rng_state = RNG_DIRTY;
    lua_rawgeti(L, A_UV, o->var_ref);
    lua_pushinteger(L, v);
    lua_rawset(L, A_VARS);
    return 1;
}

static int run_k(lua_State *L, int status, lua_KContext ctx);

/* \if's condition: NULL is false, a number true when not zero (pgbench_expr's truth). */
static int truth(lua_State *L, int i)
{
    if (lua_isboolean(L, i))
        return lua_toboolean(L, i);
    if (lua_isinteger(L, i))
        return lua_tointeger(L, i) != 0;
    if (lua_type(L, i) == LUA_TNUMBER)
        return lua_tonumber(L, i) != 0.0;
    return 0;
}

/* The ops from p->pc on; each statement's call continues in run_k. */
static int run_from(lua_State *L, struct prog *p)
{
    for (; p->pc < p->n; p->pc++) {
        const struct op *o = &p->ops[p->pc];
        if (o->kind == OP_RANDOM && draw(L, p, o))
            continue;
        if (o->kind == OP_ENDIF)
            continue;
        if (o->kind == OP_ELSE) { /* the branch before ran: on after \endif */
            p->pc = o->jump - 1;
            continue;
        }
        rng_flush(L, p);
        if (o->kind == OP_IF) { /* false: on after its \else or \endif */
            lua_rawgeti(L, A_UV, o->fn_ref);
            lua_pushvalue(L, A_CTX);
            lua_call(L, 1, 1);
            if (!truth(L, -1))
                p->pc = o->jump - 1;
            lua_pop(L, 1);
            continue;
        }
        if (o->kind != OP_SQL) {
            lua_rawgeti(L, A_UV, o->var_ref);
            lua_rawgeti(L, A_UV, o->fn_ref);
            lua_pushvalue(L, A_CTX);
            lua_call(L, 1, 1);
            lua_rawset(L, A_VARS);
            continue;
        }
        if (o->verb != VERB_NONE)
            p->in_tx = o->verb == VERB_BEGIN;
        if (set_params(L, p, o)) {
            lua_rawgeti(L, A_UV, o->exec_ref);
            lua_rawgeti(L, A_UV, o->stmt_ref);
            lua_callk(L, 1, 0, 0, run_k);
        } else {
            lua_rawgeti(L, A_UV, o->fn_ref);
            lua_pushvalue(L, A_VARS);
            lua_callk(L, 1, 0, 0, run_k);
        }
    }
    rng_flush(L, p);
    lua_pushboolean(L, p->in_tx);
    return 1;
}

static int run_k(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    struct prog *p = lua_touserdata(L, A_PROG);
    p->pc++;
    return run_from(L, p);
}

static int prog_run(lua_State *L)
{
    struct prog *p = l_sql_to_class(L, 1, PROG_MT);
    luaL_checktype(L, A_VARS, LUA_TTABLE);
    luaL_checktype(L, A_RS, LUA_TTABLE);
    lua_settop(L, A_RS);
    lua_getiuservalue(L, A_PROG, 1);
    p->pc = 0;
    p->in_tx = 0;
    p->rng_state = RNG_UNREAD;
    return run_from(L, p);
}

static int prog_at(lua_State *L)
{
    struct prog *p = luaL_checkudata(L, 1, PROG_MT);
    lua_pushinteger(L, p->pc < p->n ? p->ops[p->pc].cmd : 0);
    return 1;
}

/* Keeps the value at index v in the user value table (index uv); its index. */
static int keep(lua_State *L, int uv, int v, int *count)
{
    lua_pushvalue(L, v);
    lua_rawseti(L, uv, ++*count);
    return *count;
}

/* Field k of the table on top, kept (0 when nil). */
static int keep_field(lua_State *L, int uv, const char *k, int *count)
{
    lua_getfield(L, -1, k);
    int ref = lua_isnil(L, -1) ? 0 : keep(L, uv, -1, count);
    lua_pop(L, 1);
    return ref;
}

static lua_Integer int_field(lua_State *L, const char *k)
{
    lua_getfield(L, -1, k);
    lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* One SQL op from the plan entry on top: its statement, parameters, verb. */
static void compile_sql(lua_State *L, struct prog *p, struct op *o, int uv, int *count)
{
    o->kind = OP_SQL;
    o->stmt_ref = keep_field(L, uv, "st", count);
    o->exec_ref = keep_field(L, uv, "exec", count);
    o->fn_ref = keep_field(L, uv, "slow", count);
    if (!o->stmt_ref || !o->exec_ref || !o->fn_ref)
        luaL_error(L, "pgbench_script.compile: a statement op without st, exec or slow");
    lua_getfield(L, -1, "verb");
    const char *verb = lua_tostring(L, -1);
    o->verb = verb == NULL ? VERB_NONE : strcmp(verb, "begin") == 0 ? VERB_BEGIN : VERB_END;
    lua_pop(L, 1);
    lua_getfield(L, -1, "params");
    lua_getfield(L, -2, "names");
    luaL_checktype(L, -2, LUA_TTABLE);
    luaL_checktype(L, -1, LUA_TTABLE);
    o->nparams = (int)lua_rawlen(L, -2);
    o->first_param = p->nparams;
    for (int k = 1; k <= o->nparams; k++) {
        lua_rawgeti(L, -2, k);
        struct l_param *pa = luaL_checkudata(L, -1, PARAM_MT);
        if (pa->v != NULL && pa->v->type != SBD_TYPE_INT)
            luaL_error(L, "pgbench_script.compile: parameter %d is not an integer one", k);
        p->params[p->nparams] = pa;
        lua_pop(L, 1);
        lua_rawgeti(L, -1, k);
        p->param_name_ref[p->nparams++] = keep(L, uv, -1, count);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

/* Parameters of all the plan's statements (the arrays' size). */
static int count_params(lua_State *L, int plan, int n)
{
    int total = 0;
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, plan, i);
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_getfield(L, -1, "params");
        if (lua_istable(L, -1))
            total += (int)lua_rawlen(L, -1);
        lua_pop(L, 2);
    }
    return total;
}

static int prog_compile(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 1), nparams = count_params(L, 1, n);
    size_t size = sizeof(struct prog) + (size_t)n * sizeof(struct op) +
                  (size_t)nparams * (sizeof(struct l_param *) + sizeof(int));
    struct prog *p = lua_newuserdatauv(L, size, 1); /* 2 */
    memset(p, 0, size);
    p->ops = (struct op *)(p + 1);
    p->params = (struct l_param **)(p->ops + n);
    p->param_name_ref = (int *)(p->params + nparams);
    p->n = n;
    luaL_setmetatable(L, PROG_MT);
    lua_newtable(L); /* 3: the user value */
    lua_pushliteral(L, "s0");
    lua_rawseti(L, 3, UV_S0);
    lua_pushliteral(L, "s1");
    lua_rawseti(L, 3, UV_S1);
    int count = UV_FIRST_FREE;
    for (int i = 0; i < n; i++) {
        struct op *o = &p->ops[i];
        lua_rawgeti(L, 1, i + 1);
        o->cmd = (int)int_field(L, "cmd");
        lua_getfield(L, -1, "st");
        int is_sql = !lua_isnil(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "branch");
        const char *branch = lua_tostring(L, -1);
        lua_pop(L, 1);
        if (is_sql) {
            compile_sql(L, p, o, 3, &count);
        } else if (branch != NULL) {
            o->kind = strcmp(branch, "if") == 0 ? OP_IF : strcmp(branch, "else") == 0 ? OP_ELSE : OP_ENDIF;
            o->jump = (int)int_field(L, "jump");
            if (o->kind == OP_IF && !(o->fn_ref = keep_field(L, 3, "expr", &count)))
                return luaL_error(L, "pgbench_script.compile: \\if op %d without expr", i + 1);
            if (o->kind != OP_ENDIF && (o->jump <= i + 1 || o->jump > n))
                return luaL_error(L, "pgbench_script.compile: op %d jumps to %d", i + 1, o->jump);
        } else {
            o->var_ref = keep_field(L, 3, "var", &count);
            o->fn_ref = keep_field(L, 3, "expr", &count);
            if (!o->var_ref || !o->fn_ref)
                return luaL_error(L, "pgbench_script.compile: op %d has neither st nor var and expr", i + 1);
            lua_getfield(L, -1, "lo");
            o->kind = lua_isinteger(L, -1) ? OP_RANDOM : OP_SET;
            lua_pop(L, 1);
            if (o->kind == OP_RANDOM) {
                o->lo = int_field(L, "lo");
                o->hi = int_field(L, "hi");
                o->hi_var_ref = keep_field(L, 3, "hi_var", &count);
            }
        }
        lua_pop(L, 1);
    }
    lua_setiuservalue(L, 2, 1);
    return 1;
}

void l_open_pgscript(lua_State *L)
{
    if (luaL_newmetatable(L, PROG_MT)) {
        static const luaL_Reg m[] = {{"run", prog_run}, {"at", prog_at}, {NULL, NULL}};
        luaL_newlibtable(L, m);
        lua_pushvalue(L, -2); /* each method's upvalue 1: the metatable (l_sql_to_class) */
        luaL_setfuncs(L, m, 1);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, prog_compile);
    lua_setfield(L, -2, "compile");
    lua_setfield(L, -2, "pgbench_script");
}
