/*
 * Where sbench looks for drivers and workloads.  Drivers: --driver-path,
 * $SBENCH_DRIVER_PATH, the installed libdir/sbench, then the build tree.
 * Workloads: --workload-path, $SBENCH_PATH, the installed datadir/sbench,
 * then the source tree's workloads/ (when run from the build tree), then
 * as a Lua module (sysbench's way): on $LUA_PATH's templates, then
 * ./NAME.lua.  Path lists are ':'-separated, LUA_PATH ';'-separated.
 */
#ifndef SB_PATHS_H
#define SB_PATHS_H

#include <stddef.h>

#define SB_MAX_DIRS 16

struct sb_dirs {
    int n;
    char dir[SB_MAX_DIRS][1024];
};

/* Fills the driver search directories in order; option may be NULL. */
void sb_driver_dirs(const char *option, struct sb_dirs *out);
/* Fills the workload search directories in order; option may be NULL. */
void sb_workload_dirs(const char *option, struct sb_dirs *out);

/* Finds driver `name`: writes the .so path into out and returns 0, or -1
 * if none of the directories has it. */
int sb_find_driver(const struct sb_dirs *dirs, const char *name, char *out, size_t len);
/* Finds workload `name` (a name, or a path to a .lua file): writes the
 * path into out and returns 0, or -1. */
int sb_find_workload(const struct sb_dirs *dirs, const char *name, char *out, size_t len);

/* Calls fn(name, path, ctx) once per driver / workload found, in name
 * order (a name found in two directories: the first one's).  A workload
 * is a .lua file with a line that defines event() or a command (prepare,
 * cleanup, thread_run, sysbench.cmdline.commands): library modules
 * (tpcc_common, diag_stats, ...) are not listed. */
void sb_list_drivers(const struct sb_dirs *dirs,
                     void (*fn)(const char *name, const char *path, void *ctx), void *ctx);
void sb_list_workloads(const struct sb_dirs *dirs,
                       void (*fn)(const char *name, const char *path, void *ctx), void *ctx);

#endif
