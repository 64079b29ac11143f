/*
 * LuaJIT's `bit` module (BitOp) for scripts written for sysbench's LuaJIT:
 * tobit, tohex, bnot, band, bor, bxor, lshift, rshift, arshift, rol, ror,
 * bswap, with LuaJIT's 32-bit semantics and the same results.
 *
 * An argument is reduced to 32 bits as LuaJIT reduces a number: it adds
 * 2^52 + 2^51 to the double and keeps the low 32 bits of the sum, so
 * values wrap modulo 2^32 and a fraction rounds half to even (2.5 -> 2,
 * 3.5 -> 4); NaN and infinities give 0; beyond 2^51 the sum's rounding
 * decides, exactly as in LuaJIT.  A Lua 5.4 integer is the same number as
 * a double up to 2^53; beyond that (where a LuaJIT script can only hold
 * 64-bit cdata) its low 32 bits are used.  Numeric strings are accepted,
 * as in LuaJIT.  Results are Lua integers in [-2^31, 2^31), which print as
 * LuaJIT prints them.  Shift counts use their low 5 bits.  Not provided:
 * LuaJIT's 64-bit variants that take and return int64/uint64 cdata.
 */
#include <lauxlib.h>
#include <lua.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "l_internal.h"

/* LuaJIT's lj_num2bit: the low word of n + 2^52 + 2^51. */
static int32_t num2bit(double n)
{
    double d = n + 6755399441055744.0;
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (int32_t)(uint32_t)u;
}

/* Argument i reduced to 32 bits (see the top of the file). */
static int32_t arg(lua_State *L, int i)
{
    if (lua_isinteger(L, i)) {
        lua_Integer v = lua_tointeger(L, i);
        if (v < -(INT64_C(1) << 53) || v > (INT64_C(1) << 53))
            return (int32_t)(uint32_t)(lua_Unsigned)v;
        return num2bit((double)v);
    }
    return num2bit(luaL_checknumber(L, i));
}

static int push(lua_State *L, int32_t v)
{
    lua_pushinteger(L, v);
    return 1;
}

static int b_tobit(lua_State *L) { return push(L, arg(L, 1)); }
static int b_bnot(lua_State *L) { return push(L, (int32_t)~(uint32_t)arg(L, 1)); }

static int b_bswap(lua_State *L)
{
    uint32_t x = (uint32_t)arg(L, 1);
    return push(L, (int32_t)((x >> 24) | ((x >> 8) & 0xff00u) | ((x & 0xff00u) << 8) | (x << 24)));
}

/* band, bor, bxor: one or more arguments. */
#define FOLD(name, op)                                       \
    static int name(lua_State *L)                            \
    {                                                        \
        uint32_t r = (uint32_t)arg(L, 1);              \
        for (int i = 2, n = lua_gettop(L); i <= n; i++)      \
            r op (uint32_t)arg(L, i);                  \
        return push(L, (int32_t)r);                          \
    }
FOLD(b_band, &=)
FOLD(b_bor, |=)
FOLD(b_bxor, ^=)

/* The shift count's low 5 bits, as LuaJIT (and x86) use them. */
static unsigned count(lua_State *L) { return (unsigned)arg(L, 2) & 31u; }

static int b_lshift(lua_State *L)
{
    uint32_t x = (uint32_t)arg(L, 1);
    return push(L, (int32_t)(x << count(L)));
}

static int b_rshift(lua_State *L)
{
    uint32_t x = (uint32_t)arg(L, 1);
    return push(L, (int32_t)(x >> count(L)));
}

static int b_arshift(lua_State *L)
{
    int32_t x = arg(L, 1);
    unsigned n = count(L);
    /* arithmetic shift without relying on >> of a negative value */
    uint32_t r = (uint32_t)x >> n;
    if (x < 0 && n > 0)
        r |= ~(UINT32_MAX >> n);
    return push(L, (int32_t)r);
}

static int b_rol(lua_State *L)
{
    uint32_t x = (uint32_t)arg(L, 1);
    unsigned n = count(L);
    return push(L, (int32_t)(n ? (x << n) | (x >> (32 - n)) : x));
}

static int b_ror(lua_State *L)
{
    uint32_t x = (uint32_t)arg(L, 1);
    unsigned n = count(L);
    return push(L, (int32_t)(n ? (x >> n) | (x << (32 - n)) : x));
}

/* tohex(x [, n]): |n| hex digits of x's 32 bits (default 8), upper case
 * when n < 0, n taken as bit.tobit(n).  1..8 keep the low 4|n| bits
 * (LuaJIT's documented range); 0 gives ""; more than 8 pad with zeros,
 * at most 254 digits (LuaJIT builds differ beyond 8, see docs/lua-api.md:
 * this rule agrees with all of them up to 254). */
enum { TOHEX_MAX_DIGITS = 254 };
static int b_tohex(lua_State *L)
{
    uint32_t b = (uint32_t)arg(L, 1);
    int32_t n = lua_isnoneornil(L, 2) ? 8 : arg(L, 2);
    int upper = n < 0;
    uint32_t digits = upper ? 0u - (uint32_t)n : (uint32_t)n;
    if (digits > TOHEX_MAX_DIGITS)
        digits = TOHEX_MAX_DIGITS;
    if (digits < 8)
        b &= (UINT32_C(1) << (4 * digits)) - 1;
    char buf[TOHEX_MAX_DIGITS + 1];
    int len = digits ? snprintf(buf, sizeof buf, upper ? "%0*" PRIX32 : "%0*" PRIx32,
                                (int)digits, b)
                     : 0;
    lua_pushlstring(L, buf, (size_t)len);
    return 1;
}

static int open_bit(lua_State *L)
{
    static const luaL_Reg f[] = {
        {"tobit", b_tobit}, {"tohex", b_tohex}, {"bnot", b_bnot}, {"band", b_band},
        {"bor", b_bor}, {"bxor", b_bxor}, {"lshift", b_lshift}, {"rshift", b_rshift},
        {"arshift", b_arshift}, {"rol", b_rol}, {"ror", b_ror}, {"bswap", b_bswap},
        {NULL, NULL}};
    luaL_newlib(L, f);
    return 1;
}

void l_open_bit(lua_State *L)
{
    luaL_requiref(L, "bit", open_bit, 1); /* global `bit`, and require("bit") */
    lua_pop(L, 1);
}
