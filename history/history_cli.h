/*
 * history_cli.h: `sbench history` (history_cli.c), and what its
 * subcommands share: the store opened, the filter from the options, the
 * figures a report's windows give (history_view.c).
 */
#ifndef SB_HISTORY_CLI_H
#define SB_HISTORY_CLI_H

#include <stdio.h>

#include "history.h"

struct sb_options;

/* `sbench history SUBCOMMAND [options] [ARGS]`: argv[0] is "sbench";
 * returns the exit status (0, 1 failure, 2 usage). */
int sb_history_main(int argc, char **argv);

/* What a subcommand gets: its words after the subcommand, the options,
 * the store, the filter the options make, where it writes. */
struct hist_cmd {
    const char *const *args;
    int nargs;
    const struct sb_options *o;
    struct sb_history *h;
    struct sb_hist_filter f;
    FILE *out;
};

int hist_cmd_list(struct hist_cmd *c);
int hist_cmd_trend(struct hist_cmd *c);
int hist_cmd_export(struct hist_cmd *c);
int hist_cmd_show(struct hist_cmd *c);
int hist_cmd_diff(struct hist_cmd *c);
int hist_cmd_import(struct hist_cmd *c);
int hist_cmd_gate(struct hist_cmd *c);
int hist_cmd_report(struct hist_cmd *c);

/* The trend's series (history_list.c): the runs like the newest one c's
 * filter selects (its workload, options digest and target), with their
 * reports, oldest first; a line naming it on c->out.  0 (none: runs->n 0),
 * or -1 after one line on stderr. */
int hist_series(struct hist_cmd *c, struct sb_hist_runs *runs);
/* What changed between runs a and b (history_show.c): labels, versions,
 * options, server settings, host facts, one line each. */
void hist_diff_changes(FILE *f, const struct sb_hist_run *a, const struct sb_hist_run *b);

/* ---- history_changes_view.c ---- */

/* The change points of a trend's runs, printed with what changed at each
 * (history_stats.h); with g, also the gate's verdict at fail_slower
 * percent and in *gate_run the first run after its change point.  0, or
 * -1 after one line on stderr. */
struct hs_gate_verdict;
int hist_trend_changes(struct hist_cmd *c, const struct sb_hist_runs *runs, double fail_slower,
                       struct hs_gate_verdict *g, long long *gate_run);

/* ---- history_view.c ---- */

/* "YYYY-MM-DD HH:MM:SS" (UTC) of t. */
void hist_time_text(double t, char *buf, size_t len);
/* Seconds since the epoch of "YYYY-MM-DD[THH:MM[:SS]][Z]", "Nd"/"Nh"/"Nm"
 * ago, or "@SECONDS"; -1 when it is none of them. */
double hist_time_parse(const char *s);
/* The target as "DRIVER://HOST:PORT/DB" (the parts there are). */
void hist_target_text(const struct sb_hist_run *r, char *buf, size_t len);

/* The tps of a run's windows (its report's interval lines): their mean
 * and the half-width of its 95% interval (Student's t over the windows,
 * which are not independent: a rough interval); n 0 when fewer than 2. */
struct hist_windows {
    int n;
    double mean, half;
};
void hist_windows_of(const struct sb_hist_run *r, struct hist_windows *w);

/* The final line of a run's report (a new reference), or NULL. */
struct json_object *hist_final_line(const struct sb_hist_run *r);

/* One run in the store: by number or run id (a unique prefix), with its
 * report.  0, or -1 with one line on stderr. */
int hist_one_run(struct sb_history *h, const char *which, struct sb_hist_run *out);

#endif
