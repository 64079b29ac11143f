/*
 * The run command's options read into struct sb_run (cli/run_options.c):
 * parsed once, before the engine starts, so the engine and the binding
 * never read an option by name on the measured path.
 */
#ifndef SB_CLI_RUN_OPTIONS_H
#define SB_CLI_RUN_OPTIONS_H

#include <stddef.h>

struct sb_run;

/* --rand-type and its parameters, --rand-seed (sysbench's): into run. */
int sb_cli_parse_rand(struct sb_run *run);
/* The run command's plain options (limits, rate, retries, reconnects,
 * pipeline, server counters) into run; the checks come with
 * sb_cli_parse_run_options. */
void sb_cli_read_run_options(struct sb_run *run);
/* The run command's options that can be wrong (ignored SQLSTATEs,
 * --forced-shutdown, --report-checkpoints, the outputs) into run, after
 * sb_cli_read_run_options.  Returns 0, or -1 with one line in err (a
 * usage error). */
int sb_cli_parse_run_options(struct sb_run *run, char *err, size_t errlen);

#endif
