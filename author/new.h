/*
 * `sbench new NAME`: writes NAME.lua, a workload that passes `sbench
 * lint` and runs: from the template kept in workloads/templates/, or with
 * --from-tables=t1,t2 from tables on a live connection (their columns,
 * primary keys and key ranges), in the SQL of --dialect or of the server.
 */
#ifndef SB_AUTHOR_NEW_H
#define SB_AUTHOR_NEW_H

struct sb_options;
struct sb_run;

/* Registers --from-tables and --dialect into o. */
void sb_new_add_options(struct sb_options *o);

/* 1 when --from-tables asks for a connection (the driver must be loaded
 * and its options resolved first). */
int sb_new_needs_driver(const struct sb_options *o);

/* Writes NAME.lua in the working directory (never over an existing file)
 * and says so on stdout.  run->drv is the loaded driver when
 * sb_new_needs_driver.  Returns the exit status: 0 written, 1 a failure
 * while reading the tables or writing, 2 bad input (a name that is not a
 * Lua identifier, the file exists, an unknown --dialect); one line on
 * stderr for each. */
int sb_new_command(struct sb_run *run, const char *name);

#endif
