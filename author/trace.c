/*
 * `sbench WORKLOAD trace`'s setup: its options, where its lines go (the
 * text on stdout, JSON lines in --trace-output), the traced driver in
 * place of the real one (trace_driver.c), and the failure policy's
 * decisions heard through core/event.h's observer.
 */
#include "trace.h"
#include "trace_driver.h"
#include "trace_int.h"

#include "../core/event.h"
#include "../core/run.h"
#include "../lib/options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static FILE *json_file;
static const char *json_path;

void sb_trace_add_options(struct sb_options *o)
{
    sb_options_add(o, "trace-output", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "trace: also write each statement as a JSON line to this file", NULL, 0, 0);
    sb_options_add(o, "trace-rollback", SB_OPT_BOOL, SB_SRC_CORE, "off",
                   "trace: run the statements inside transactions that are rolled back (the "
                   "workload's COMMIT is sent as ROLLBACK), so that a trace changes nothing",
                   NULL, 0, 0);
}

static const char *decision_of(int outcome)
{
    switch (outcome) {
    case SB_EVENT_RESTART: return "rolled back, the event restarts";
    case SB_EVENT_FAILED: return "rolled back, the event counts as failed";
    case SB_EVENT_STOP: return "the run stops (a stop was requested)";
    default: return "fatal: the run stops";
    }
}

static void heard(const struct sb_worker *w, const struct sb_event_error *e, int outcome, int retries)
{
    trace_out_decision(w->id, e->sql ? e->sqlstate : "", e->sql ? e->native : 0,
                       e->sql ? e->status : SBD_RETRY, decision_of(outcome), retries);
}

const struct sbd_driver *sb_trace_begin(const struct sbd_driver *drv, const struct sb_options *o,
                                        char *err, size_t errlen)
{
    json_path = sb_opt_str(o, "trace-output");
    json_file = NULL;
    if (json_path && *json_path && (json_file = fopen(json_path, "w")) == NULL) {
        snprintf(err, errlen, "--trace-output: cannot write '%.300s': %s", json_path, strerror(errno));
        return NULL;
    }
    trace_out_open(stdout, json_file);
    sb_event_observe_failures(heard);
    return trace_driver(drv, sb_opt_bool(o, "trace-rollback"));
}

int sb_trace_end(void)
{
    sb_event_observe_failures(NULL);
    int rc = trace_out_close();
    if (json_file != NULL && fclose(json_file) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "sbench: --trace-output: '%.300s' could not be written whole\n", json_path);
    json_file = NULL;
    return rc;
}
