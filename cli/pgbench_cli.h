/*
 * `sbench pgbench [pgbench options] [dbname]`: pgbench 15-19's command line
 * rewritten into sbench's (cli/pgbench_cli.c, docs/pgbench.md).
 */
#ifndef SB_PGBENCH_CLI_H
#define SB_PGBENCH_CLI_H

#include <stddef.h>
#include <stdio.h>

/* 1 when argv is `sbench pgbench ...` in pgbench's form: no word after it
 * is one of the workload's commands (prepare, run, cleanup, help). */
int sb_pgbench_is_command(int argc, char **argv);

/* Rewrites argv into sbench's own command line.  On success *out_argv is a
 * NULL-terminated array of *out_argc strings the caller owns (they live for
 * the whole process: main never frees them) and 0 is returned; on a bad or
 * unsupported option, -1 with one line in err and nothing allocated; for
 * --help or -?, 1 and nothing allocated (print sb_pgbench_usage); for -V
 * or -b list, 2 after printing what pgbench prints (exit 0). */
int sb_pgbench_translate(int argc, char **argv, int *out_argc, char ***out_argv, char *err,
                         size_t errlen);

/* What `sbench pgbench --help` prints: the options accepted and refused. */
void sb_pgbench_usage(FILE *out);

#endif
