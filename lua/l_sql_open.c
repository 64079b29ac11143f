/*
 * sbench.sql opened: the top of its three files (l_sql.c, l_sql_run.c,
 * l_sql_stmt.c), which call l_sql.c's helpers and never each other's
 * openers, so that no circle runs through them.
 */
#include "l_internal.h"
#include "l_sql_int.h"

void l_open_sql(lua_State *L)
{
    l_sql_open_base(L);
    l_sql_open_run(L);
    l_sql_open_stmt(L);
}
