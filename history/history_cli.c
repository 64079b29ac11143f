/*
 * history_cli.c: `sbench history`: its options, the subcommand chosen,
 * the store opened and the filter built from --workload, --label,
 * --target, --since, --until, --digest, --session, --last.
 */
#include "history_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/options.h"

static void add_options(struct sb_options *o)
{
#define ADD(name, kind, def, help) sb_options_add(o, name, kind, SB_SRC_CORE, def, help, NULL, 0, 0)
    ADD("history", SB_OPT_STRING, NULL, "the store: a SQLite file, postgresql://... or a libpq DSN "
        "(default: $SBENCH_HISTORY, else $XDG_DATA_HOME/sbench/history.db)");
    ADD("workload", SB_OPT_STRING, NULL, "only runs of this workload");
    ADD("label", SB_OPT_STRING, NULL, "only runs with this KEY=VALUE label (repeatable: all must match)");
    ADD("target", SB_OPT_STRING, NULL, "only runs on this target: a compare target's name, a driver, "
        "or DRIVER://HOST:PORT/DB as list prints it");
    ADD("since", SB_OPT_STRING, NULL, "only runs started at or after: YYYY-MM-DD[THH:MM[:SS]], Nd, Nh "
        "or Nm ago, @EPOCH");
    ADD("until", SB_OPT_STRING, NULL, "only runs started at or before (as --since)");
    ADD("digest", SB_OPT_STRING, NULL, "only runs with this options digest (list's CONFIG)");
    ADD("session", SB_OPT_STRING, NULL, "only runs of this session (a compare invocation)");
    sb_options_add(o, "last", SB_OPT_INT, SB_SRC_CORE, "0", "only the newest N runs (0 = all)", NULL, 0,
                   1000000000);
    ADD("format", SB_OPT_STRING, "csv", "export: csv or json");
    ADD("with-report", SB_OPT_BOOL, "off", "export --format=json: each run's whole report too");
    ADD("output", SB_OPT_STRING, NULL, "export: write to this file instead of stdout");
    ADD("html", SB_OPT_STRING, NULL, "report: the trend as a self-contained HTML page (charts by gnuplot)");
    ADD("fail-slower", SB_OPT_STRING, NULL, "gate: exit status 3 when the newest runs sit after a significant "
        "slowdown larger than PCT percent");
    ADD("saturated-load", SB_OPT_STRING, "1.5", "trend, gate: set aside runs that ended with the 1-minute load "
        "per CPU at or above this (off: none)");
    ADD("help", SB_OPT_BOOL, "off", "print this help and exit");
#undef ADD
}

static void usage(const struct sb_options *o)
{
    printf("Usage: sbench history COMMAND [options] [ARGS]\n\n"
           "The run history: every `sbench run`, each of compare's runs, `sbench pgbench` and\n"
           "each imported report, recorded after its report (docs/history.md).\n\n"
           "Commands:\n"
           "  list                 the runs the filter options select, oldest first\n"
           "  show RUN             one run: its figures, target, versions, labels, host, windows\n"
           "  diff RUN RUN         two runs' figures with their intervals, and what changed:\n"
           "                       options, server settings, versions, host facts, labels\n"
           "  trend                comparable runs (one workload, options digest and target:\n"
           "                       the newest selected run's) as a series\n"
           "                       and its change points (sessions as the unit): the first run\n"
           "                       after each, the step with its 95%% interval, what changed\n"
           "  export               the selected runs as CSV or JSON (--format)\n"
           "  gate --fail-slower=PCT  exit status 3 when the newest runs of the trend sit after a\n"
           "                       significant slowdown larger than PCT%%, else 0\n"
           "  import FILE|DIR...   JSON reports (--report-format=json --output), merged shard\n"
           "                       sets (sbench merge's JSON) and compare results directories\n"
           "  report --html=FILE   the trend as an HTML page: tps with intervals and p95 charts,\n"
           "                       each run with what changed from the one before\n\n"
           "RUN is the number list prints or a run id (a unique prefix will do).\n\nOptions:\n");
    sb_options_print_help(o, SB_SRC_CORE, stdout);
}

/* The filter options into c->f.  0, or -1 with one line on stderr. */
static int filter_of(struct hist_cmd *c)
{
    const struct sb_options *o = c->o;
    struct sb_hist_filter *f = &c->f;
    f->workload = sb_opt_str(o, "workload");
    f->target = sb_opt_str(o, "target");
    f->options_digest = sb_opt_str(o, "digest");
    f->session = sb_opt_str(o, "session");
    f->limit = (int)sb_opt_int(o, "last");
    for (int i = 0; sb_options_arg_at(o, i); i++) {
        const struct sb_arg *a = sb_options_arg_at(o, i);
        if (strcmp(a->name, "label") != 0)
            continue;
        if (f->nlabels == SB_HIST_MAX_LABELS || !strchr(a->value, '=')) {
            fprintf(stderr, "sbench history: --label='%s': KEY=VALUE, at most %d\n", a->value,
                    SB_HIST_MAX_LABELS);
            return -1;
        }
        f->labels[f->nlabels++] = a->value;
    }
    static const char *const times[] = {"since", "until"};
    for (int i = 0; i < 2; i++) {
        const char *s = sb_opt_str(o, times[i]);
        double t = s ? hist_time_parse(s) : 0;
        if (t < 0) {
            fprintf(stderr, "sbench history: --%s='%s' is not a time: YYYY-MM-DD[THH:MM[:SS]], Nd, Nh, "
                    "Nm or @EPOCH\n", times[i], s);
            return -1;
        }
        *(i ? &f->until : &f->since) = t;
    }
    if (f->limit < 0) {
        fprintf(stderr, "sbench history: --last must be 0 or more\n");
        return -1;
    }
    return 0;
}

static const struct {
    const char *name;
    int (*run)(struct hist_cmd *c);
} commands[] = {
    {"list", hist_cmd_list},     {"show", hist_cmd_show},     {"diff", hist_cmd_diff},
    {"trend", hist_cmd_trend},   {"export", hist_cmd_export}, {"import", hist_cmd_import},
    {"report", hist_cmd_report},
    {"gate", hist_cmd_gate},
};

/* The subcommand on c with the store open. */
static int run_command(struct hist_cmd *c, int (*run)(struct hist_cmd *c))
{
    char err[1024];
    if (filter_of(c) != 0)
        return 2;
    const char *spec = sb_opt_str(c->o, "history");
    char where[1024];
    if (run != hist_cmd_import && sb_history_exists(spec, where, sizeof where) == 0) { /* reading makes no empty store */
        fprintf(stderr, "sbench history: no history store at '%s' (runs are recorded there as they run; "
                        "--history names another)\n", where);
        return 1;
    }
    int rc = sb_history_open(spec, &c->h, err, sizeof err);
    if (rc == 1) {
        fprintf(stderr, "sbench history: the history is off (--history or SBENCH_HISTORY): nothing to read\n");
        return 2;
    }
    if (rc != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        return 1;
    }
    c->out = stdout;
    rc = run(c);
    sb_history_close(c->h);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sbench history: the output could not be written\n");
        rc = 1;
    }
    return rc;
}

int sb_history_main(int argc, char **argv)
{
    char err[1024];
    const char **words;
    int nwords, rc = 2;
    struct sb_options *o = sb_options_create();
    if (o == NULL) {
        fprintf(stderr, "sbench history: out of memory\n");
        return 1;
    }
    add_options(o);
    if (sb_options_parse_argv(o, argc, argv, &words, &nwords, err, sizeof err) != 0 ||
        sb_options_resolve(o, 1, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        goto out;
    }
    if (sb_opt_bool(o, "help") || nwords < 2) {
        usage(o);
        rc = nwords < 2 && !sb_opt_bool(o, "help") ? 2 : 0;
        goto out;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(words[1], commands[i].name) == 0) {
            struct hist_cmd c = {.args = words + 2, .nargs = nwords - 2, .o = o};
            rc = run_command(&c, commands[i].run);
            goto out;
        }
    fprintf(stderr, "sbench history: unknown command '%s' (list, show, diff, trend, gate, export, import, report; "
            "sbench history --help)\n", words[1]);
out:
    sb_options_destroy(o);
    return rc;
}
