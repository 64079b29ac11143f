/*
 * sbench.report_section{...}: a workload declares a section of the final
 * report as data (core/report_sections.h), so that the core prints it from
 * the event types and `sbench merge`, which runs no Lua, prints the same
 * section from the merged counts.
 *
 *   sbench.report_section{
 *      title = "TPC-C ...",
 *      rows = {
 *         {kind = "per_minute", label = "NOPM ...:", types = "new_order"},
 *         {kind = "share", label = "...:", types = "a", of = "a,b",
 *          limit_pct = 1, limit_count = 1, units = false, of_each = 1},
 *         {kind = "mix", label = "...:", types = "a+b,c"},
 *         {kind = "percentile", label = "...:", types = "a,b",
 *          percentile = 90, limit_ms = 5000},
 *      }}
 *
 * Only the control state's declaration counts (every state runs the
 * script's top level; the workers' calls check the table and do nothing
 * else).  A malformed declaration raises an error naming what is wrong.
 */
#include <lauxlib.h>
#include <string.h>

#include "l_internal.h"

/* t[key] as a string into out (size len): "" when absent; raises when it
 * is not a string or too long. */
static void str_field(lua_State *L, int t, const char *key, char *out, size_t len, int row)
{
    lua_getfield(L, t, key);
    out[0] = 0;
    if (!lua_isnil(L, -1)) {
        size_t n;
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        if (s == NULL || n >= len) {
            if (row > 0)
                luaL_error(L, "sbench.report_section: row %d: '%s' must be a string of at most %d bytes",
                           row, key, (int)len - 1);
            luaL_error(L, "sbench.report_section: '%s' must be a string of at most %d bytes", key,
                       (int)len - 1);
        }
        memcpy(out, s, n + 1);
    }
    lua_pop(L, 1);
}

/* t[key] as a number, or dflt when absent; raises when not a number. */
static double num_field(lua_State *L, int t, const char *key, double dflt, int row)
{
    lua_getfield(L, t, key);
    double v = dflt;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "sbench.report_section: row %d: '%s' must be a number", row, key);
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* The row at the top of the stack into row (number i, from 1). */
static void read_row(lua_State *L, int i, struct sb_section_row *row)
{
    int t = lua_gettop(L);
    if (!lua_istable(L, t))
        luaL_error(L, "sbench.report_section: row %d is not a table", i);
    char kind[16];
    str_field(L, t, "kind", kind, sizeof kind, i);
    if (sb_section_kind_of(kind, &row->kind) < 0)
        luaL_error(L, "sbench.report_section: row %d: kind must be per_minute, share, mix or percentile",
                   i);
    str_field(L, t, "label", row->label, sizeof row->label, i);
    str_field(L, t, "types", row->types, sizeof row->types, i);
    str_field(L, t, "of", row->of, sizeof row->of, i);
    row->percentile = num_field(L, t, "percentile", 0, i);
    row->limit_ms = num_field(L, t, "limit_ms", 0, i);
    row->limit_pct = num_field(L, t, "limit_pct", 0, i);
    lua_getfield(L, t, "units");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        luaL_error(L, "sbench.report_section: row %d: 'units' must be true or false", i);
    row->units = lua_toboolean(L, -1);
    lua_pop(L, 1);
    double each = num_field(L, t, "of_each", 1, i);
    row->of_each = each >= 1 && each <= 1000 && each == (int)each ? (int)each : -1; /* -1: refused by the check */
    double count = num_field(L, t, "limit_count", 0, i);
    row->limit_count = count >= 0 && count <= 1000000 && count == (int)count ? (int)count : -1;
}

static int l_report_section(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    struct sb_report_section sec;
    memset(&sec, 0, sizeof sec);
    str_field(L, 1, "title", sec.title, sizeof sec.title, 0);
    lua_getfield(L, 1, "rows");
    if (!lua_istable(L, -1))
        return luaL_error(L, "sbench.report_section: 'rows' must be a list of rows");
    lua_Integer n = luaL_len(L, -1);
    if (n < 1 || n > SB_SECTION_ROWS_MAX)
        return luaL_error(L, "sbench.report_section: 1 to %d rows", SB_SECTION_ROWS_MAX);
    sec.nrows = (int)n;
    for (int i = 1; i <= sec.nrows; i++) {
        lua_rawgeti(L, -1, i);
        read_row(L, i, &sec.rows[i - 1]);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    struct sb_worker *w = l_worker(L);
    char err[200];
    /* the control state's declaration is the run's; the workers' only checked */
    if ((w->id < 0 ? sb_report_sections_add(&w->run->sections, &sec, err, sizeof err)
                   : sb_report_section_check(&sec, err, sizeof err)) < 0)
        return luaL_error(L, "sbench.report_section: %s", err);
    return 0;
}

void l_open_section(lua_State *L)
{
    lua_pushcfunction(L, l_report_section);
    lua_setfield(L, -2, "report_section");
}
