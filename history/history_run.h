/*
 * history_run.h: a benchmark command's record in the run history, for
 * cli/main.c: the options --history and --label, the copy of the report
 * the run writes as it goes (core/bench.c writes it into run->history_json),
 * and the record appended once the report is written.  Nothing here runs
 * while the run measures.
 */
#ifndef SB_HISTORY_RUN_H
#define SB_HISTORY_RUN_H

#include <stdio.h>

struct sb_options;

/* --history=PATH|URI|DSN|off and --label=KEY=VALUE (repeatable). */
void sb_history_add_options(struct sb_options *o);

/* The report's copy being written (f), its bytes once closed. */
struct sb_history_capture {
    FILE *f;
    char *buf;
    size_t len;
};

/*
 * Before the run: checks --label (0, or -1 with one line in err: a usage
 * error) and, unless the history is off (--history=off, or
 * SBENCH_HISTORY=off without --history), opens c->f for the report's copy
 * (NULL when off or when the copy cannot be made: the run goes on).
 */
int sb_history_capture_start(const struct sb_options *o, struct sb_history_capture *c, char *err,
                             size_t errlen);

/*
 * After the run's report: when the run succeeded (rc 0), its record built
 * from the copy and appended to the store --history names; a store that
 * cannot be opened or written gets one line on stderr and changes nothing
 * else.  source: "run", "pgbench", "merge"; argv: the command line as given
 * (secrets are masked).  Compare's runs are marked by their parent through
 * SBENCH_HISTORY_SESSION, _TARGET, _POINT and _REPEAT (docs/history.md).
 * Frees the copy.
 */
void sb_history_capture_end(const struct sb_options *o, struct sb_history_capture *c, int rc,
                            const char *source, int argc, char **argv);

#endif
