/*
 * Numbers as LuaJIT formats them, for scripts written for sysbench's
 * LuaJIT: string.format and print.
 *
 * string.format: LuaJIT truncates a non-integral number given to an
 * integer conversion (%d %i %u %c %x %X %o) where Lua 5.4 raises "number
 * has no integer representation", and its %s renders a float with
 * "%.14g" (5, not Lua 5.4's 5.0).  The wrapper looks at the arguments'
 * types only; a call without a float argument goes straight to Lua 5.4's
 * string.format (measured: 88 instructions more on a 4,300-instruction
 * call with two integers, 2%).
 * Otherwise it walks the format once, replaces each such argument by
 * what LuaJIT would print, and then calls Lua 5.4's string.format: flags,
 * widths and every other conversion stay Lua 5.4's.
 *
 * LuaJIT's rules (lj_strfmt.c), reproduced here: %d %i take the number
 * cast to int64_t (truncation toward zero; NaN, infinities and values out
 * of range give -2^63, what x86-64's conversion yields); %u %x %X %o the
 * same, except that n >= 2^63 is first reduced by 2^64; %c takes it cast
 * to int32_t (out of range: -2^31) and prints its low byte.  NaN prints
 * as "nan" under every conversion (C's printf says "-nan" for some).
 * Not reproduced: LuaJIT also converts a string holding a non-integral
 * number for %d ("3.7" -> 3); here it raises as in Lua 5.4 (looking at
 * every string argument would cost every call).
 *
 * print: like Lua 5.4's, except that a float is rendered as LuaJIT renders
 * it ("%.14g", "nan", "inf", "-inf").  Integers print exactly in both.
 * Lua 5.4's own conversions (`..`, tostring, table.concat) cannot be
 * changed and still render 5.0 (see docs/lua-api.md).
 */
#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "l_internal.h"

/* A float as LuaJIT's tostring renders it, into buf (>= 32 bytes);
 * returns the length. */
static int render(lua_Number n, char *buf, size_t size)
{
    if (isnan(n))
        return snprintf(buf, size, "nan");
    if (isinf(n))
        return snprintf(buf, size, n > 0 ? "inf" : "-inf");
    return snprintf(buf, size, "%.14g", n);
}

/* C's (int64_t)n as x86-64 computes it: -2^63 when out of range or NaN. */
static int64_t cast_i64(lua_Number n)
{
    if (n >= -9223372036854775808.0 && n < 9223372036854775808.0)
        return (int64_t)n;
    return INT64_MIN;
}

/* The integer LuaJIT formats for a non-integral number n under conversion
 * c (one of d i u c x X o). */
static lua_Integer luajit_int(lua_Number n, char c)
{
    switch (c) {
    case 'd':
    case 'i':
        return cast_i64(n);
    case 'c':
        return n > -2147483649.0 && n < 2147483648.0 ? (int32_t)n : INT32_MIN;
    default:
        return cast_i64(n >= 9223372036854775808.0 ? n - 18446744073709551616.0 : n);
    }
}

/* Argument i of a conversion c: replaced when Lua 5.4 would reject it or
 * print it differently from LuaJIT. */
static void fix_arg(lua_State *L, int i, char c)
{
    int ok;
    if (c == 's') {
        if (lua_type(L, i) == LUA_TNUMBER && !lua_isinteger(L, i)) {
            char buf[64];
            int len = render(lua_tonumber(L, i), buf, sizeof buf);
            lua_pushlstring(L, buf, (size_t)len);
            lua_replace(L, i);
        }
        return;
    }
    if (strchr("eEfFgG", c) != NULL) {
        if (lua_type(L, i) == LUA_TNUMBER && isnan(lua_tonumber(L, i))) {
            lua_pushnumber(L, fabs(lua_tonumber(L, i))); /* "nan", never "-nan" */
            lua_replace(L, i);
        }
        return;
    }
    if (strchr("diucxXo", c) == NULL || lua_type(L, i) != LUA_TNUMBER)
        return;
    (void)lua_tointegerx(L, i, &ok);
    if (ok)
        return;                            /* Lua 5.4 takes it as it is */
    lua_pushinteger(L, luajit_int(lua_tonumber(L, i), c));
    lua_replace(L, i);
}

/* Walks the format as Lua 5.4's string.format does (one argument per
 * conversion other than %%) and fixes each argument.  A malformed
 * conversion is left for Lua 5.4 to report. */
static void fix_args(lua_State *L)
{
    size_t len;
    const char *f = lua_tolstring(L, 1, &len);
    if (f == NULL)
        return;
    const char *end = f + len;
    int top = lua_gettop(L), arg = 1;
    while (f < end) {
        if (*f++ != '%')
            continue;
        if (f < end && *f == '%') {
            f++;
            continue;
        }
        while (f < end && strchr("-+ #0123456789.", *f) != NULL && *f != '\0')
            f++;
        if (++arg > top || f >= end)
            return;
        fix_arg(L, arg, *f++);
    }
}

/* Lua 5.4's string.format (the same C function in every state). */
static _Atomic(lua_CFunction) lua_format;

/* Only a float argument can need LuaJIT's rule: integers and strings go
 * straight to Lua 5.4's string.format, at the cost of one lua_isinteger
 * per integer argument and a lua_type more per other argument. */
static int format(lua_State *L)
{
    for (int i = 2, n = lua_gettop(L); i <= n; i++)
        if (!lua_isinteger(L, i) && lua_type(L, i) == LUA_TNUMBER) {
            fix_args(L);
            break;
        }
    return atomic_load_explicit(&lua_format, memory_order_relaxed)(L);
}

/* Lua's print, with floats as LuaJIT renders them; the line is built whole
 * and written with one fwrite, so that lines printed at once by several
 * threads never run together ("thread 0 0/1thread 1 0/1"). */
static int print(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        if (lua_type(L, i) == LUA_TNUMBER && !lua_isinteger(L, i)) {
            char buf[64];
            luaL_addlstring(&b, buf, (size_t)render(lua_tonumber(L, i), buf, sizeof buf));
        } else {
            luaL_tolstring(L, i, NULL);
            luaL_addvalue(&b);
        }
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *line = lua_tolstring(L, -1, &len);
    fwrite(line, 1, len, stdout);
    fflush(stdout);
    return 0;
}

void l_open_format(lua_State *L)
{
    lua_pushcfunction(L, print);
    lua_setglobal(L, "print");
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "format");
    atomic_store_explicit(&lua_format, lua_tocfunction(L, -1), memory_order_relaxed);
    lua_pushcfunction(L, format);
    lua_setfield(L, -3, "format");
    lua_pop(L, 2);
}
