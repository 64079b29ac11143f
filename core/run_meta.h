/*
 * The run described as a JSON object (core/run_meta.c), for the final
 * JSON report, and the wall-clock time in ISO 8601.
 */
#ifndef SB_RUN_META_H
#define SB_RUN_META_H

#include <stddef.h>

#include "run.h"

/* Writes the JSON object describing run into buf[0..len-1] (always valid
 * JSON: {"truncated":true} when it does not fit).  run->workers[0] must
 * exist (its seed is the run's).  end may be NULL; server_settings, a JSON
 * object text (script.h's server_settings), may be NULL or "". */
void sb_run_meta_json(const struct sb_run *run, const char *server_version, const char *server_settings,
                      const char *start, const char *end, char *buf, size_t len);

/* How the run's statements moved their bytes, as the JSON report's run.io
 * names it: "blocking" (one client per thread: the driver's own calls, as
 * sysbench), "poll" (a thread's clients multiplexed with poll()) or
 * "io_uring" (--io).  A static string. */
const char *sb_run_io_name(const struct sb_run *run);

/* The current UTC time as 2026-01-02T03:04:05Z into buf. */
void sb_iso_now(char *buf, size_t len);

#endif
