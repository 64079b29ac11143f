/*
 * sbench.pgbench_rand: pgbench 15's random draws in C, for the hot path of
 * `sbench pgbench` (workloads/pgbench_rand.lua uses these when the sbench
 * table has them and keeps its pure-Lua versions, which give the same
 * numbers, for plain Lua).  The generator is PostgreSQL's pg_prng
 * (xoroshiro128**, a public-domain algorithm); its state is the Lua table
 * { s0 = int, s1 = int } pgbench_rand.new makes, read and written back on
 * each call so that a retry's saved state (pgbench_fail.lua) stays a plain
 * copy of two integers.  No allocation per call.
 *
 *   uniform(st, lo, hi)               random(lo, hi); the caller checked lo <= hi
 *   uniform_fast(st, lo, hi)          the same when lo, hi are integers, lo <= hi and
 *                                     hi - lo < 2^63 - 1; else nothing (nil, no draw)
 *   exponential(st, lo, hi, param)    random_exponential
 *   gaussian(st, lo, hi, param)       random_gaussian
 *   zipfian(st, lo, hi, s)            random_zipfian
 *   double(st)                        [0, 1) with 52 random bits
 *   permute(val, size, seed)          pgbench's permute()
 *   hash_fnv1a(val, seed), hash_murmur2(val, seed)
 */
#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdint.h>

#include "l_internal.h"

struct prng {
    uint64_t s0, s1;
};

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t next64(struct prng *p)
{
    uint64_t s0 = p->s0, sx = p->s1 ^ s0;
    uint64_t val = rotl(s0 * 5, 7) * 9;
    p->s0 = rotl(s0, 24) ^ sx ^ (sx << 16);
    p->s1 = rotl(sx, 37);
    return val;
}

/* Position of the highest set bit of x != 0 (0..63). */
static int leftmost_one(uint64_t x)
{
    return 63 - __builtin_clzll(x);
}

/* An unsigned offset in [0, range] by bitmask rejection (pg_prng_uint64_range). */
static uint64_t range64(struct prng *p, uint64_t range)
{
    if (range == 0)
        return 0;
    int shift = 63 - leftmost_one(range);
    uint64_t v;
    do
        v = next64(p) >> shift;
    while (v > range);
    return v;
}

static double draw_double(struct prng *p)
{
    return (double)(next64(p) >> 12) * 0x1.0p-52;
}

static uint64_t get_u64(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    uint64_t v = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* The state table at index 1, read into p. */
static void load(lua_State *L, struct prng *p)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    p->s0 = get_u64(L, 1, "s0");
    p->s1 = get_u64(L, 1, "s1");
}

static void store(lua_State *L, const struct prng *p)
{
    lua_pushinteger(L, (lua_Integer)p->s0);
    lua_setfield(L, 1, "s0");
    lua_pushinteger(L, (lua_Integer)p->s1);
    lua_setfield(L, 1, "s1");
}

int l_pgrand_uniform(uint64_t st[2], lua_Integer lo, lua_Integer hi, lua_Integer *out)
{
    uint64_t width = (uint64_t)hi - (uint64_t)lo;
    if (lo > hi || width >= (uint64_t)INT64_MAX) /* empty, or pgbench's "too large" */
        return 0;
    struct prng p = {st[0], st[1]};
    *out = (lua_Integer)((uint64_t)lo + range64(&p, width));
    st[0] = p.s0;
    st[1] = p.s1;
    return 1;
}

static int p_uniform(lua_State *L)
{
    struct prng p;
    load(L, &p);
    uint64_t lo = (uint64_t)luaL_checkinteger(L, 2), hi = (uint64_t)luaL_checkinteger(L, 3);
    uint64_t v = lo + range64(&p, hi - lo);
    store(L, &p);
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
}

static int p_uniform_fast(lua_State *L)
{
    if (!lua_isinteger(L, 2) || !lua_isinteger(L, 3))
        return 0;
    lua_Integer lo = lua_tointeger(L, 2), hi = lua_tointeger(L, 3);
    uint64_t width = (uint64_t)hi - (uint64_t)lo;
    if (lo > hi || width >= (uint64_t)INT64_MAX) /* empty, or pgbench's "too large" */
        return 0;
    struct prng p;
    load(L, &p);
    uint64_t v = (uint64_t)lo + range64(&p, width);
    store(L, &p);
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
}

static int p_double(lua_State *L)
{
    struct prng p;
    load(L, &p);
    double d = draw_double(&p);
    store(L, &p);
    lua_pushnumber(L, d);
    return 1;
}

/* lo + (int64) ((hi - lo + 1) * r), as pgbench ends each distribution. */
static void push_scaled(lua_State *L, lua_Integer lo, lua_Integer hi, double r)
{
    double n = (double)(lua_Integer)((uint64_t)hi - (uint64_t)lo + 1);
    lua_pushinteger(L, (lua_Integer)((uint64_t)lo + (uint64_t)(int64_t)(n * r)));
}

static int p_exponential(lua_State *L)
{
    struct prng p;
    load(L, &p);
    lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
    double param = luaL_checknumber(L, 4);
    double cut = exp(-param);
    double u = 1.0 - draw_double(&p);
    double r = -log(cut + (1.0 - cut) * u) / param;
    store(L, &p);
    push_scaled(L, lo, hi, r);
    return 1;
}

static int p_gaussian(lua_State *L)
{
    struct prng p;
    load(L, &p);
    lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
    double param = luaL_checknumber(L, 4), stdev;
    do {
        double r1 = 1.0 - draw_double(&p);
        double r2 = 1.0 - draw_double(&p);
        stdev = sqrt(-2.0 * log(r1)) * sin(2.0 * M_PI * r2);
    } while (stdev < -param || stdev >= param);
    store(L, &p);
    push_scaled(L, lo, hi, (stdev + param) / (param * 2.0));
    return 1;
}

static int p_zipfian(lua_State *L)
{
    struct prng p;
    load(L, &p);
    lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
    double s = luaL_checknumber(L, 4);
    int64_t n = (int64_t)((uint64_t)hi - (uint64_t)lo + 1);
    if (n <= 1) {
        lua_pushinteger(L, lo);
        return 1;
    }
    double b = pow(2.0, s - 1.0), x;
    for (;;) {
        double u = draw_double(&p), v = draw_double(&p);
        x = floor(pow(u, -1.0 / (s - 1.0)));
        double t = pow(1.0 + 1.0 / x, s - 1.0);
        if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= (double)n)
            break;
    }
    store(L, &p);
    lua_pushinteger(L, (lua_Integer)((uint64_t)lo - 1 + (uint64_t)(int64_t)x));
    return 1;
}

/* pg_prng_seed: the state from a seed through splitmix64. */
static uint64_t splitmix(uint64_t *v)
{
    uint64_t z = (*v += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int p_permute(lua_State *L)
{
    uint64_t val = (uint64_t)luaL_checkinteger(L, 1), size = (uint64_t)luaL_checkinteger(L, 2);
    uint64_t seed = (uint64_t)luaL_checkinteger(L, 3);
    if ((int64_t)size < 2) {
        lua_pushinteger(L, 0);
        return 1;
    }
    struct prng p = {splitmix(&seed), 0};
    p.s1 = splitmix(&seed);
    if (p.s0 == 0 && p.s1 == 0)
        p.s0 = 0x5851F42D4C957F2Du;
    uint64_t v = val % size;
    int masklen = leftmost_one(size);
    uint64_t mask = (((uint64_t)1) << masklen) - 1;
    for (int i = 0; i < 6; i++) {
        uint64_t m = (next64(&p) & mask) | 1, r = next64(&p) & mask;
        if (v <= mask) {
            v = ((v * m) ^ r) & mask;
            v = ((v << 1) & mask) | (v >> (masklen - 1));
        }
        m = (next64(&p) & mask) | 1;
        r = next64(&p) & mask;
        uint64_t t = size - 1 - v;
        if (t <= mask) {
            t = ((t * m) ^ r) & mask;
            t = ((t << 1) & mask) | (t >> (masklen - 1));
            v = size - 1 - t;
        }
        r = range64(&p, size - 1);
        uint64_t sum = v + r;
        if (sum < v) /* the carry out of 64 bits */
            sum -= size;
        v = sum % size;
    }
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
}

static int p_hash_fnv1a(lua_State *L)
{
    uint64_t val = (uint64_t)luaL_checkinteger(L, 1), seed = (uint64_t)luaL_checkinteger(L, 2);
    uint64_t h = 0xCBF29CE484222325u ^ seed;
    for (int i = 0; i < 8; i++) {
        h = (h ^ (val & 0xFF)) * 0x100000001B3u;
        val >>= 8;
    }
    lua_pushinteger(L, (lua_Integer)h);
    return 1;
}

static int p_hash_murmur2(lua_State *L)
{
    const uint64_t mul = 0xC6A4A7935BD1E995u;
    uint64_t val = (uint64_t)luaL_checkinteger(L, 1), seed = (uint64_t)luaL_checkinteger(L, 2);
    uint64_t h = seed ^ (mul * 8), k = val * mul;
    k ^= k >> 47;
    k *= mul;
    h = (h ^ k) * mul;
    h ^= h >> 47;
    h *= mul;
    lua_pushinteger(L, (lua_Integer)(h ^ (h >> 47)));
    return 1;
}

void l_open_pgrand(lua_State *L)
{
    static const luaL_Reg f[] = {
        {"uniform", p_uniform}, {"uniform_fast", p_uniform_fast}, {"double", p_double}, {"exponential", p_exponential},
        {"gaussian", p_gaussian}, {"zipfian", p_zipfian}, {"permute", p_permute},
        {"hash_fnv1a", p_hash_fnv1a}, {"hash_murmur2", p_hash_murmur2}, {NULL, NULL}};
    luaL_newlib(L, f);
    lua_setfield(L, -2, "pgbench_rand");
}
