/*
 * The Lua binding's one public entry, for the composition root (cli/main.c):
 * the table of hooks through which the engine calls workloads.  Nothing
 * else of lua/ is visible outside it.
 */
#ifndef SB_L_SCRIPT_H
#define SB_L_SCRIPT_H

#include "../core/script.h"

/* The Lua binding's table (lua/l_script.c): static, valid until exit;
 * never NULL. */
const struct sb_script_ops *sb_lua_script(void);

#endif
