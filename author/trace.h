/*
 * `sbench WORKLOAD trace`: a short run whose every statement is printed as
 * the driver received it.  The composition root (cli/main.c) calls this
 * header only: the trace's options, the traced driver that takes the real
 * one's place for the run (author/trace_driver.c, so that a run without a
 * trace has nothing more on its statement path), and the end of the trace.
 */
#ifndef SB_AUTHOR_TRACE_H
#define SB_AUTHOR_TRACE_H

#include <stddef.h>
#include <sbench/driver.h>

struct sb_options;

/* Registers --trace-output and --trace-rollback into o. */
void sb_trace_add_options(struct sb_options *o);

/* Readies the trace before the driver is started: opens --trace-output,
 * watches the failure policy's decisions (core/event.h) and returns the
 * driver to run with in place of drv (drv's calls, each recorded).  NULL
 * with one line in err when --trace-output cannot be written. */
const struct sbd_driver *sb_trace_begin(const struct sbd_driver *drv, const struct sb_options *o,
                                        char *err, size_t errlen);

/* Ends the trace: flushes and closes --trace-output.  Returns 0, or -1
 * (one line on stderr) when the file could not be written whole. */
int sb_trace_end(void);

#endif
