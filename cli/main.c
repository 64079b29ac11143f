/*
 * sbench's entry point: the command line (sysbench 1.0's shape:
 * `sbench [options] WORKLOAD COMMAND`), core options, choosing and loading
 * the driver, loading the workload into the control Lua state, and handing
 * over to the command.  The only place that decides the exit status:
 * 0 success, 1 a failure while running, 2 a usage error (3: the regression
 * gate of `sbench compare`).
 */
#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbench/driver.h>

#include "../author/lint.h"
#include "../author/new.h"
#include "../author/trace.h"
#include "../compare/compare.h"
#include "../core/db.h"
#include "../core/driver_loader.h"
#include "info.h"
#include "pgbench_cli.h"
#include "run_options.h"
#include "../lib/options.h"
#include "../core/paths.h"
#include "../core/prometheus.h"
#include "../core/report.h"
#include "../core/run.h"
#include "../core/script.h"
#include "../core/shard.h"
#include "../lua/l_script.h"
#include "../merge/merge.h"
#include "../history/history_cli.h"
#include "../history/history_run.h"

#define DEFAULT_DRIVER "sqlite"

/* --report-format's values and help, and --output's help, from the table
 * of report formats (core/report.c): "text|json|csv", "json and csv go
 * to ...", "json/csv". */
struct format_texts { struct sb_report_format_names n; char help[256], output_help[256]; };

static void format_texts(struct format_texts *t)
{
    sb_report_format_names(&t->n);
    snprintf(t->help, sizeof t->help, "report format; %s go%s to --output or stdout", t->n.files,
             t->n.plural ? "" : "es");
    snprintf(t->output_help, sizeof t->output_help,
             "write the %s report to this file (written whole at the end of the run)", t->n.slashed);
}

static void add_core_options(struct sb_options *o)
{
    const long long BIG = LLONG_MAX / 4;
#define ADD(name, kind, def, help, choices, mn, mx) \
    sb_options_add(o, name, kind, SB_SRC_CORE, def, help, choices, mn, mx)
    ADD("threads", SB_OPT_INT, "1", "number of threads to use", NULL, 1, 100000);
    ADD("clients", SB_OPT_INT, "0",
        "number of database connections (clients) the threads drive, each running events "
        "on its own (0 = one per thread; fewer than --threads lowers --threads); when it differs "
        "from --threads the final report adds Clients fairness", NULL, 0, 100000);
    ADD("events", SB_OPT_INT, "0", "limit for total number of events (0 = no limit)", NULL, 0, BIG);
    ADD("time", SB_OPT_INT, "10", "limit for total execution time in seconds (0 = no limit)", NULL, 0, 100000000);
    ADD("forever", SB_OPT_BOOL, "off", "run until interrupted when --time=0 and --events=0", NULL, 0, 0);
    ADD("warmup-time", SB_OPT_INT, "0", "run events for this many seconds before measuring", NULL, 0, 100000000);
    ADD("forced-shutdown", SB_OPT_STRING, "off",
        "seconds (or N% of --time) to wait after --time before exiting with unfinished events, 'off' to wait", NULL, 0, 0);
    ADD("report-interval", SB_OPT_NUMBER, "0", "seconds between intermediate reports (0 = none)", NULL, 0, 100000000);
    ADD("report-checkpoints", SB_OPT_LIST, "",
        "seconds since the start (comma list) at which to print the full report of what ran since "
        "the previous checkpoint; the final report then covers the time after the last one "
        "(sysbench's option)", NULL, 0, 0);
    ADD("percentile", SB_OPT_NUMBER, "95", "latency percentile to report (0 = none)", NULL, 0, 100);
    ADD("histogram", SB_OPT_BOOL, "off", "print the latency histogram in the final report", NULL, 0, 0);
    ADD("percentiles", SB_OPT_LIST, "50,90,95,99,99.9,99.99", "percentiles listed in the final and JSON reports", NULL, 0, 0);
    static struct format_texts ft;
    format_texts(&ft);
    ADD("report-format", SB_OPT_STRING, sb_report_formats[0]->name, ft.help, ft.n.choices, 0, 0);
    ADD("output", SB_OPT_STRING, NULL, ft.output_help, NULL, 0, 0);
    ADD("hdr-log", SB_OPT_STRING, NULL, "write each reporting window's latency histogram to this HdrHistogram interval log", NULL, 0, 0);
    ADD("prometheus", SB_OPT_STRING, NULL, "serve /metrics for Prometheus at ADDR:PORT during the run (e.g. 127.0.0.1:9273)", NULL, 0, 0);
    ADD("histogram-precision", SB_OPT_NUMBER, "0.01", "relative error of latency percentiles", NULL, 0, 1);
    ADD("rand-type", SB_OPT_STRING, "special", "distribution of rand.default", "uniform|gaussian|special|pareto|zipfian", 0, 0);
    ADD("rand-seed", SB_OPT_INT, "0", "seed for the random number generators (0 = from the clock)", NULL, 0, BIG);
    ADD("rand-spec-iter", SB_OPT_INT, "12", "iterations for the gaussian and special distributions", NULL, 1, 1000);
    ADD("rand-spec-pct", SB_OPT_NUMBER, "1", "percentage of values treated as special", NULL, 0, 100);
    ADD("rand-spec-res", SB_OPT_NUMBER, "75", "percentage of draws that hit special values", NULL, 0, 100);
    ADD("rand-pareto-h", SB_OPT_NUMBER, "0.2", "parameter h of the pareto distribution", NULL, 0, 1);
    ADD("rand-zipfian-exp", SB_OPT_NUMBER, "0.8", "exponent of the zipfian distribution", NULL, 0, 100);
    ADD("db-driver", SB_OPT_STRING, NULL, "database driver (default: the embedded sqlite)", NULL, 0, 0);
    ADD("db-ps-mode", SB_OPT_STRING, "auto", "prepared statements: auto (server-side) or disable", "auto|disable", 0, 0);
    ADD("db-debug", SB_OPT_BOOL, "off", "print driver debug messages", NULL, 0, 0);
    ADD("db-connect-timeout", SB_OPT_INT, "10", "seconds to wait for a connection", NULL, 0, 86400);
    ADD("db-query-timeout", SB_OPT_INT, "0", "seconds a statement may run (0 = no limit)", NULL, 0, 86400);
    ADD("db-ignore-sqlstates", SB_OPT_LIST, "23505",
        "SQLSTATEs that restart the event like a deadlock (23505: PostgreSQL unique violation, as sysbench)", NULL, 0, 0);
    ADD("db-max-result-bytes", SB_OPT_INT, "268435456", "largest answer to one statement the wire fast paths read, in bytes: a longer one ends the connection with an error", NULL, 65536, 1 << 30);
    ADD("max-failed-share", SB_OPT_NUMBER, "100", "exit non-zero when more than this percentage of event attempts failed (a run in which no event succeeded always does)", NULL, 0, 100);
    ADD("db-reconnect", SB_OPT_BOOL, "on", "reconnect and restart the event when a connection is lost", NULL, 0, 0);
    ADD("reconnect", SB_OPT_STRING, "off", "transaction: open a new connection for every event (pgbench -C)", "off|transaction", 0, 0);
    ADD("io", SB_OPT_STRING, "auto", "how a thread driving several clients moves their statements: uring (all its connections' sends and receives in one io_uring system call), poll (a send and a receive per statement, one poll() for all), auto (uring where the kernel and the driver allow it)", "auto|poll|uring", 0, 0);
    ADD("pipeline", SB_OPT_INT, "0", "send up to N statements of an event without waiting for each answer (libpq pipeline mode; 0 = off)", NULL, 0, 100000);
    ADD("max-retries", SB_OPT_INT, "0", "restarts of one event after retryable errors before it counts as failed (0 = no limit)", NULL, 0, 1000000);
    ADD("rate", SB_OPT_NUMBER, "0", "target events per second in total, Poisson arrivals; latency counts from the scheduled start (0 = unlimited)", NULL, 0, 100000000);
    ADD("rate-backlog-max", SB_OPT_INT, "100000", "under --rate, arrivals not yet started past which the run stops with sysbench's FATAL 'The event queue is full' and exit 1, as sysbench 1.0.20's queue (0 = no limit, as pgbench -R)", NULL, 0, 1000000000);
    ADD("rate-profile", SB_OPT_STRING, NULL, "an arrival rate that changes over the run, phases joined by ';': hold:RATE:DURATION, ramp:FROM-TO:DURATION, step:R1,R2,...:EACH, spike:BASE:PEAK:AT:LENGTH[:DURATION], sine:MEAN:AMPL:PERIOD[:DURATION], file:PATH (lines time,rate); replaces --rate, latency counts from each scheduled start (docs/load-profiles.md)", NULL, 0, 0);
    ADD("clients-profile", SB_OPT_STRING, NULL, "closed loop: the number of active clients over the run, in --rate-profile's phases (hold:N:DURATION, ramp:FROM-TO:DURATION, step:N1,N2,...:EACH, ...); --clients is the ceiling (docs/load-profiles.md)", NULL, 0, 0);
    ADD("rate-distribution", SB_OPT_STRING, "poisson", "arrivals under --rate", "poisson|fixed", 0, 0);
    ADD("latency-limit", SB_OPT_NUMBER, "0", "count events slower than this many milliseconds (0 = off)", NULL, 0, 100000000);
    ADD("db-server-counters", SB_OPT_BOOL, "on", "read the server's own counters before and after the run (one extra connection) and print them beside sbench's", NULL, 0, 0);
    ADD("server-metrics", SB_OPT_BOOL, "on", "sample the server's own evidence window by window on the counters' connection (its counters at each --report-interval, its sessions' wait events ~10 times a second, the host's /proc when local) into every report", NULL, 0, 0);
    ADD("db-server-settings", SB_OPT_BOOL, "on", "read the server's version and settings after the run into the JSON report's run.server_settings and the run history's record (one extra session of a few SELECTs, which the server's own counters see)", NULL, 0, 0);
    ADD("db-bulk-bytes", SB_OPT_INT, "524288", "largest multi-row INSERT sbench builds, in bytes", NULL, 1024, 1 << 30);
    ADD("driver-path", SB_OPT_STRING, NULL, "directories to search for drivers (':'-separated)", NULL, 0, 0);
    ADD("workload-path", SB_OPT_STRING, NULL, "directories to search for workloads (':'-separated)", NULL, 0, 0);
    ADD("test", SB_OPT_STRING, NULL, "the workload, sysbench 0.5's way: '--test=FILE|NAME COMMAND' is 'WORKLOAD COMMAND'", NULL, 0, 0);
    ADD("verbosity", SB_OPT_INT, "3",
        "verbosity level: below 3 only errors, the script's own output and --report-format=json/csv "
        "(no header, no text report)", NULL, 0, 5);
    ADD("config-file", SB_OPT_STRING, NULL, "file of options, one option=value a line (sysbench's); the command line wins", NULL, 0, 0);
    ADD("thread-stack-size", SB_OPT_SIZE, "64K", "sysbench's stack size per thread: accepted and ignored (the threads get the system's default, which Lua and the client libraries need)", NULL, 0, 0);
    ADD("debug", SB_OPT_BOOL, "off", "print more debugging info: a script's errors with their Lua stack traceback", NULL, 0, 0);
    ADD("validate", SB_OPT_BOOL, "off", "perform validation checks where possible: fileio checks every block it reads (sbench's other workloads check what they can always)", NULL, 0, 0);
    ADD("help", SB_OPT_BOOL, "off", "print this help and exit", NULL, 0, 0);
    ADD("version", SB_OPT_BOOL, "off", "print the version and exit", NULL, 0, 0);
#undef ADD
    sb_shard_add_options(o); /* --shard, --shard-count, --run-id, --start-at */
    sb_history_add_options(o); /* --history, --label (history/history_run.c) */
    sb_trace_add_options(o); /* --trace-output, --trace-rollback */
    sb_lint_add_options(o);  /* --lint */
    sb_new_add_options(o);   /* --from-tables, --dialect */
}

static void print_found(const char *name, const char *path, void *ctx)
{
    (void)ctx;
    printf("  %-24s %s\n", name, path);
}

static void usage(struct sb_options *o)
{
    printf("Usage: sbench [options] WORKLOAD COMMAND\n");
    printf("       sbench [--report-format=json] info    the machine, drivers and workloads found\n");
    printf("       sbench [driver options] params          the server's version and settings (diag params)\n");
    printf("       sbench merge [options] FILES|DIR    the shards' reports of one run as one (sbench merge --help)\n");
    printf("       sbench compare FILE.lua | --target=NAME:OPTIONS... WORKLOAD   targets compared (sbench compare --help)\n");
    printf("       sbench capacity --slo='p99<20ms' --rate-max=R [options] WORKLOAD   the highest rate within the SLOs\n");
    printf("       sbench report DIR                     a comparison's results redrawn\n");
    printf("       sbench pgbench [pgbench options] [dbname]   pgbench 15's command line (docs/pgbench.md)\n");
    printf("       sbench history list|show|diff|trend|export|import|report   the runs recorded (sbench history --help)\n");
    printf("       sbench lint WORKLOAD                  the traps its source shows (exit 1 when it finds one)\n");
    printf("       sbench [driver options] new NAME [--from-tables=T1,T2] [--dialect=D]   write NAME.lua, a workload to start from\n\n");
    printf("Commands: prepare, run, cleanup, help (the workload's help() or options), trace (a few "
           "events, each statement printed as sent: --trace-output, --trace-rollback), and any a "
           "workload adds.\n");
    printf("WORKLOAD is a name found on the workload path, a path to a .lua file, or a Lua module on\n"
           "LUA_PATH. Without COMMAND the workload's script only runs; without WORKLOAD (or with '-')\n"
           "the script is read from the standard input, as sysbench does.\n\n");
    printf("General options:\n");
    sb_options_print_help(o, SB_SRC_CORE, stdout);
    struct sb_dirs dirs;
    sb_driver_dirs(sb_opt_str(o, "driver-path"), &dirs);
    printf("\nDrivers found (--db-driver=NAME; each has its own --NAME-* options, see 'sbench --db-driver=NAME --help'):\n");
    sb_list_drivers(&dirs, print_found, NULL);
    sb_workload_dirs(sb_opt_str(o, "workload-path"), &dirs);
    printf("\nWorkloads found:\n");
    sb_list_workloads(&dirs, print_found, NULL);
}

struct name_list { char buf[2048]; size_t len; };

static void collect_name(const char *name, const char *path, void *ctx)
{
    (void)path;
    struct name_list *l = ctx;
    if (l->len < sizeof l->buf - 70)
        l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len, "%s%s",
                                   l->len ? ", " : "", name);
}

/* sysbench 0.4's built-in oltp test, which has no script (its other
 * built-in tests are workloads: cpu, memory, threads, mutex, fileio): one
 * line saying so and 1, or 0 when name is not it. */
static int sysbench_builtin(const char *name)
{
    if (strcmp(name, "oltp") == 0) {
        fprintf(stderr, "sbench: 'oltp' was sysbench 0.4's built-in test; its transaction is "
                        "the oltp_read_write workload's\n");
        return 1;
    }
    return 0;
}

/* Loads driver `name` from dirs and registers its options.  Returns the
 * driver, or NULL after printing why (*status: 2 unknown, 1 unloadable). */
static const struct sbd_driver *load_driver(const struct sb_dirs *dirs, const char *name,
                                            struct sb_options *o, int *status)
{
    char path[1400], err[1024];
    if (sb_find_driver(dirs, name, path, sizeof path) != 0) {
        struct name_list l = {.len = 0};
        sb_list_drivers(dirs, collect_name, &l);
        fprintf(stderr, "sbench: unknown driver '%s' (drivers found: %s)\n", name,
                l.len ? l.buf : "none");
        *status = 2;
        return NULL;
    }
    const struct sbd_driver *drv = sb_driver_load(path, name, err, sizeof err);
    if (drv == NULL) {
        fprintf(stderr, "sbench: %s\n", err);
        *status = 1;
        return NULL;
    }
    sb_driver_register_options(drv, o);
    return drv;
}

/* Options of drivers other than the one in use (--mysql-host under
 * --db-driver=pgsql): sysbench has every driver built in and accepts them
 * all, and wrapper scripts pass both sets.  The options of each driver
 * found that an argument names are registered, to be accepted and
 * ignored; a misspelt one is still refused. */
static void accept_other_drivers(struct sb_options *o, const struct sb_dirs *dirs,
                                 const char *in_use)
{
    const struct sb_arg *g;
    for (int i = 0; (g = sb_options_arg_at(o, i)) != NULL; i++) {
        const char *dash = strchr(g->name, '-');
        char name[64], path[1400];
        size_t n = dash ? (size_t)(dash - g->name) : 0;
        if (g->used || n == 0 || n >= sizeof name || sb_opt_find(o, g->name))
            continue;
        memcpy(name, g->name, n);
        name[n] = 0;
        if (strcmp(name, in_use) != 0 && sb_find_driver(dirs, name, path, sizeof path) == 0)
            sb_driver_peek_options(path, o, SB_SRC_OTHER_DRIVER);
    }
}

/* --NAME-dry-run (sysbench's --mysql-dry-run): nothing goes to a server,
 * every statement succeeds and returns no rows.  The null driver does
 * exactly that (with --null-rows=0 and --null-dialect=NAME unless given),
 * so it takes the place of driver NAME.  Returns the driver to use (NULL
 * after printing why). */
static const struct sbd_driver *dry_run(const struct sbd_driver *drv, const struct sb_dirs *dirs,
                                        struct sb_options *o, int *status)
{
    char opt[80];
    snprintf(opt, sizeof opt, "%s-dry-run", drv->name);
    if (!sb_opt_find(o, opt) || !sb_opt_bool(o, opt))
        return drv;
    drv = load_driver(dirs, "null", o, status);
    char err[1024];
    const char *dialect = strcmp(opt, "mysql-dry-run") == 0 ? "mysql" : "ansi";
    if (drv && (sb_opt_set_default(o, "null-rows", "0") != 0 ||
                sb_opt_set_default(o, "null-dialect", dialect) != 0)) {
        fprintf(stderr, "sbench: --%s: the null driver lacks --null-rows or --null-dialect\n", opt);
        *status = 1;
        return NULL;
    }
    if (drv && sb_options_resolve(o, 0, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        *status = 2;
        return NULL;
    }
    return drv;
}

/* The workload's file name for "NAME options:" (sysbench: the basename). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* `WORKLOAD help`: the script's own help() when it has one, else its
 * options in name order (the options were checked and set first, as
 * sysbench does for every command). */
static int help_command(struct sb_run *run)
{
    struct sb_worker *ctl = run->control;
    int rc = run->script_ops->call(ctl, "help");
    if (rc < 0) {
        sb_report_worker_error(ctl);
        return 1;
    }
    if (rc == 0)
        return 0;
    int declared = 0;
    for (int i = 0; i < sb_options_count(run->opts); i++)
        declared += sb_options_at(run->opts, i)->source == SB_SRC_WORKLOAD;
    if (declared == 0) {
        fprintf(stderr, "sbench: workload '%s' has no 'help' command (it declares no options and "
                "no help() function)\n", run->script_name);
        return 2;
    }
    printf("%s options:\n", base_name(run->script_name));
    sb_options_print_help(run->opts, SB_SRC_WORKLOAD, stdout);
    putchar('\n');
    return 0;
}

/* A workload given without a command (`#!/usr/bin/env sbench` scripts)
 * or read from the standard input: sysbench runs the script's body and
 * nothing else, and does not look at its options. */
static int run_script_only(struct sb_run *run, int from_stdin)
{
    char err[1024];
    if (run->verbosity >= 3)
        sb_print_version(run);
    if (from_stdin && isatty(STDIN_FILENO) && run->verbosity >= 3)
        printf("Reading the script from the standard input (end it with Ctrl-D; 'sbench --help' "
               "for the usage):\n\n");
    fflush(stdout);
    const struct sbd_driver *drv = run->drv;
    if (drv->init(sb_host_create(run->opts, drv->name), err, sizeof err) != SBD_OK) {
        fprintf(stderr, "sbench: %s driver: %s\n", drv->name, err);
        return 1;
    }
    struct sb_worker *ctl = sb_worker_create(run, -1);
    if (ctl == NULL) {
        fprintf(stderr, "sbench: out of memory\n");
        return 1;
    }
    run->control = ctl;
    int rc = 0;
    if (run->script_ops->create(ctl, 1) < 0) {
        fprintf(stderr, "FATAL: %s\n", ctl->error);
        rc = 1;
    }
    run->script_ops->destroy(ctl);
    sb_worker_destroy(ctl);
    if (drv->done)
        drv->done();
    return rc;
}

/* Where the workload comes from: a name or file (words[0]), or the
 * standard input (no words, or "-"), as sysbench reads it. */
static int find_script(struct sb_run *run, const char **words, int nwords, char *script,
                       size_t len)
{
    if (nwords == 0 || strcmp(words[0], "-") == 0) {
        run->script = run->script_name = NULL;
        return 0;
    }
    struct sb_dirs wdirs;
    sb_workload_dirs(sb_opt_str(run->opts, "workload-path"), &wdirs);
    if (sb_find_workload(&wdirs, words[0], script, len) != 0) {
        size_t wl = strlen(words[0]);
        if (strchr(words[0], '/') || (wl > 4 && strcmp(words[0] + wl - 4, ".lua") == 0)) {
            fprintf(stderr, "sbench: workload file '%.200s' does not exist or is not a regular file\n",
                    words[0]);
            return 2;
        }
        if (sysbench_builtin(words[0]))
            return 2;
        struct name_list l = {.len = 0};
        sb_list_workloads(&wdirs, collect_name, &l);
        fprintf(stderr, "sbench: unknown workload '%s' (workloads found: %s; a module name is "
                "also looked up on LUA_PATH)\n", words[0], l.len ? l.buf : "none");
        return 2;
    }
    run->script = script;
    run->script_name = words[0];
    return 0;
}

/* What the command line asks for, as main's steps read it. */
struct cmdline {
    const char **words;     /* WORKLOAD COMMAND (the options' registry owns them) */
    int nwords;
    const char *command;    /* NULL: run the script only */
    const char *test;       /* --test=WORKLOAD, or NULL */
    int want_help, stdin_script, default_driver;
    int trace;              /* WORKLOAD trace: a run of the traced driver (author/) */
    const char *new_name;   /* sbench new NAME (author/new.c), after the driver */
    struct sb_dirs ddirs;   /* where drivers are looked for */
};

/* Steps of main: each returns the exit status when sbench is done (an
 * answer given, or a reason printed), or GO_ON. */
enum { GO_ON = -1 };

/* `sbench lint WORKLOAD`: the findings on stdout; 0 none, 1 some, 2 the
 * workload not found or not readable. */
static int lint_command(struct sb_run *run, const struct cmdline *cl)
{
    static char script[1400];
    if (cl->nwords != 2) {
        fprintf(stderr, "sbench: usage: sbench lint WORKLOAD (a name on the workload path or a .lua file)\n");
        return 2;
    }
    int rc = find_script(run, cl->words + 1, 1, script, sizeof script);
    if (rc != 0)
        return rc;
    int n = sb_lint_file(script, run->opts, 1, stdout, "");
    return n < 0 ? 2 : n > 0;
}

/* `WORKLOAD trace` is a run of --events events (one per client unless
 * given) without a time limit.  0, or -1 when the defaults cannot be set. */
static int trace_defaults(struct sb_options *o)
{
    char events[32];
    long long clients = sb_opt_int(o, "clients"), threads = sb_opt_int(o, "threads");
    snprintf(events, sizeof events, "%lld", clients > threads ? clients : threads);
    return sb_opt_set_default(o, "events", events) == 0 && sb_opt_set_default(o, "time", "0") == 0 ? 0 : -1;
}

/* --version, info, --test, params, the words and --help. */
static int read_words(struct sb_run *run, struct cmdline *cl)
{
    struct sb_options *o = run->opts;
    if (sb_opt_bool(o, "version")) {
        printf("sbench %s (driver ABI %d.%d, %s)\n", SB_VERSION, SBD_ABI_MAJOR, SBD_ABI_MINOR,
               run->script_ops->language);
        return 0;
    }
    if (cl->nwords == 1 && strcmp(cl->words[0], "info") == 0) /* no driver, no workload */
        return sb_info_command(o, run->script_ops->language,
                               strcmp(sb_opt_str(o, "report-format"), "json") == 0);

    /* --test=WORKLOAD COMMAND (sysbench 0.5's form, which 1.0 still takes):
     * the workload goes first among the words; the registry's array has
     * room for every argv element, and --test took one */
    cl->test = sb_opt_str(o, "test");
    if (cl->test != NULL) {
        memmove(cl->words + 1, cl->words, (size_t)cl->nwords * sizeof *cl->words);
        cl->words[0] = cl->test;
        cl->nwords++;
    }

    if (cl->nwords >= 1 && strcmp(cl->words[0], "lint") == 0)
        return lint_command(run, cl);
    if (cl->nwords >= 1 && strcmp(cl->words[0], "new") == 0) {
        if (cl->nwords != 2) {
            fprintf(stderr, "sbench: usage: sbench [driver options] new NAME [--from-tables=T1,T2] [--dialect=D]\n");
            return 2;
        }
        if (!sb_new_needs_driver(o)) /* the template alone: no driver */
            return sb_new_command(run, cl->words[1]);
        cl->new_name = cl->words[1];
    }

    static const char *const params_words[] = {"diag", "params"};
    if (cl->nwords == 1 && strcmp(cl->words[0], "params") == 0) { /* sbench params = sbench diag params */
        cl->words = (const char **)params_words;
        cl->nwords = 2;
    }

    if (cl->nwords > 2) {
        fprintf(stderr, "sbench: unrecognized command line argument '%.200s' (usage: sbench "
                "[options] WORKLOAD COMMAND)\n", cl->words[2]);
        return 2;
    }
    run->verbosity = (int)sb_opt_int(o, "verbosity");
    cl->want_help = sb_opt_bool(o, "help");
    cl->command = cl->nwords >= 2 ? cl->words[1] : NULL;
    if (cl->command && strcmp(cl->command, "trace") == 0 && trace_defaults(o) == 0) {
        cl->trace = 1;
        cl->command = "run";
    }
    if (cl->want_help && cl->nwords > 0 && strcmp(cl->words[0], "-") != 0)
        cl->command = "help";
    /* sysbench runs a script read from stdin and nothing else, whatever
     * the command */
    cl->stdin_script = !cl->want_help && (cl->nwords == 0 || strcmp(cl->words[0], "-") == 0);
    return GO_ON;
}

/* The driver (its options are needed before the workload's), and
 * --help without a workload. */
static int choose_driver(struct sb_run *run, struct cmdline *cl)
{
    struct sb_options *o = run->opts;
    char err[1024];
    const char *drv_name = sb_opt_str(o, "db-driver");
    cl->default_driver = drv_name == NULL;
    if (cl->default_driver)
        drv_name = DEFAULT_DRIVER;
    sb_driver_dirs(sb_opt_str(o, "driver-path"), &cl->ddirs);
    const struct sbd_driver *drv = NULL;
    int need_driver = cl->stdin_script || !(cl->command && strcmp(cl->command, "help") == 0);
    need_driver = need_driver && !(cl->want_help && cl->nwords == 0);
    if (need_driver || (cl->want_help && !cl->default_driver)) {
        int status;
        drv = load_driver(&cl->ddirs, drv_name, o, &status);
        if (drv == NULL)
            return status;
        if (sb_options_resolve(o, 0, err, sizeof err) != 0) {
            fprintf(stderr, "sbench: %s\n", err);
            return 2;
        }
        if (need_driver && (drv = dry_run(drv, &cl->ddirs, o, &status)) == NULL)
            return status;
    }
    run->drv = drv;
    run->driver_name = drv_name;

    if (cl->want_help && (cl->nwords == 0 || strcmp(cl->words[0], "-") == 0)) {
        usage(o);
        if (drv) {
            printf("\nOptions of driver '%s' (%s):\n", drv->name, drv->description ? drv->description : "");
            sb_options_print_help(o, SB_SRC_DRIVER, stdout);
        }
        return 0;
    }
    return GO_ON;
}

/* The workload found, threads and clients, the seed, statement setup;
 * a script without a command runs here. */
static int choose_workload(struct sb_run *run, const struct cmdline *cl)
{
    struct sb_options *o = run->opts;
    static char script[1400];
    int rc = find_script(run, cl->words, cl->nwords, script, sizeof script);
    if (rc != 0 && cl->want_help) { /* --help with a workload not found: the usage, as sysbench */
        usage(o);
        return 0;
    }
    if (rc != 0)
        return rc;
    if (cl->test != NULL)
        fprintf(stderr, "sbench: --test is deprecated (as in sysbench 1.0): "
                        "'sbench [options] %s COMMAND' is the same\n", cl->test);
    run->command = cl->command;
    run->threads = (int)sb_opt_int(o, "threads");
    run->clients = (int)sb_opt_int(o, "clients");
    if (run->clients == 0)
        run->clients = run->threads;
    else if (run->clients < run->threads)
        run->threads = run->clients;
    sb_cli_parse_rand(run);

    run->ps_disabled = strcmp(sb_opt_str(o, "db-ps-mode"), "disable") == 0;
    if (run->drv)
        sb_db_setup(run->drv, run->ps_disabled, sb_opt_int(o, "db-bulk-bytes"));
    if (cl->command == NULL || cl->stdin_script) /* the script alone (#!/usr/bin/env sbench, stdin) */
        return run_script_only(run, cl->stdin_script);
    return GO_ON;
}

/* The control worker's script state, the options it declares, help. */
static int load_control_script(struct sb_run *run, const struct cmdline *cl)
{
    struct sb_options *o = run->opts;
    char err[1024];
    struct sb_worker *ctl = sb_worker_create(run, -1);
    if (ctl == NULL) {
        fprintf(stderr, "sbench: out of memory\n");
        return 1;
    }
    run->control = ctl;
    /* the banner first, before what the script's body prints (sysbench's
     * order); only when stdout is not a JSON or CSV report (run's, or the
     * one `params`/diag print there), so that stdout parses whole */
    const char *out = sb_opt_str(o, "output");
    int text_on_stdout = strcmp(sb_opt_str(o, "report-format"), "text") == 0 || (out && *out);
    if (run->verbosity >= 3 && text_on_stdout) {
        /* no driver named when none was asked for: a workload without a
         * database runs on the null one (no_database_driver) */
        const struct sbd_driver *drv = run->drv;
        if (cl->default_driver)
            run->drv = NULL;
        sb_print_version(run);
        run->drv = drv;
    }
    if (run->script_ops->create(ctl, 1) < 0) {
        fprintf(stderr, "FATAL: %s\n", ctl->error);
        return 1;
    }
    if (run->script_ops->register_options(ctl, o, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        return 1;
    }
    accept_other_drivers(o, &cl->ddirs, run->drv ? run->drv->name : "");
    if (sb_options_resolve(o, 1, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        return 2;
    }
    run->script_ops->set_options(ctl);
    if (strcmp(cl->command, "help") == 0)
        return help_command(run);
    return GO_ON;
}

/* A workload without a database (sysbench's built-in tests): the null
 * driver unless --db-driver names one, no note about it, and no server to
 * read counters or settings from.  0, or 1 after printing why. */
static int no_database_driver(struct sb_run *run, struct cmdline *cl)
{
    run->server_counters = run->server_settings = run->server_metrics = 0;
    if (!cl->default_driver)
        return 0;
    int status;
    const struct sbd_driver *drv = load_driver(&cl->ddirs, "null", run->opts, &status);
    if (drv == NULL)
        return 1;
    run->drv = drv;
    run->driver_name = "null";
    cl->default_driver = 0;
    sb_db_setup(drv, run->ps_disabled, sb_opt_int(run->opts, "db-bulk-bytes"));
    return 0;
}

/* The run's own options (limits, shutdown, checkpoints, outputs, shard),
 * then the driver started. */
static int start_command(struct sb_run *run, struct cmdline *cl)
{
    struct sb_options *o = run->opts;
    char err[1024];
    sb_cli_read_run_options(run);
    /* a workload without a database may end on its own (memory's
     * --memory-total-size), or run until interrupted as sysbench's do */
    if (strcmp(cl->command, "run") == 0 && run->time_limit == 0 && run->event_limit == 0 &&
        !sb_opt_bool(o, "forever") && !run->no_database) {
        fprintf(stderr, "sbench: --time=0 and --events=0 would run forever; add --forever if that is meant\n");
        return 2;
    }
    if (sb_cli_parse_run_options(run, err, sizeof err) != 0 || sb_shard_apply(run, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        return 2;
    }
    static const char *const ignored[] = {"thread-stack-size", "validate"};
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (sb_opt_is_set(o, ignored[i]) && run->verbosity >= 3)
            fprintf(stderr, "sbench: note: --%s is accepted for sysbench's command lines and "
                    "changes nothing here%s (see sbench --help)\n", ignored[i],
                    strcmp(ignored[i], "validate") == 0 ? " but in fileio, whose reads check each block" : "");
    if (run->no_database && no_database_driver(run, cl) != 0)
        return 1;
    if (cl->default_driver)
        fprintf(stderr, "sbench: no --db-driver given, using the embedded SQLite database '%s' "
               "(transactions: --sqlite-begin=%s)\n",
               sb_opt_str(o, "sqlite-db") ? sb_opt_str(o, "sqlite-db") : "sbtest.db",
               sb_opt_str(o, "sqlite-begin") ? sb_opt_str(o, "sqlite-begin") : "auto");
    if (cl->trace) { /* the traced driver in the real one's place; no extra sessions unless asked */
        run->server_counters = run->server_counters && sb_opt_is_set(o, "db-server-counters");
        run->server_settings = run->server_settings && sb_opt_is_set(o, "db-server-settings");
        if ((run->drv = sb_trace_begin(run->drv, o, err, sizeof err)) == NULL) {
            fprintf(stderr, "sbench: %s\n", err);
            return 2;
        }
        sb_db_setup(run->drv, run->ps_disabled, sb_opt_int(o, "db-bulk-bytes"));
    }
    const struct sbd_host *host = sb_host_create(o, run->drv->name);
    if (run->drv->init(host, err, sizeof err) != SBD_OK) {
        fprintf(stderr, "sbench: %s driver: %s\n", run->drv->name, err);
        return 1;
    }
    return GO_ON;
}

/* sbench merge (merge/merge.c), the merged set recorded in the run
 * history (history/history_run.c) when it is written. */
static int merge_and_record(int argc, char **argv)
{
    char err[1024];
    const char **words;
    int nwords;
    struct sb_history_capture hist = {0};
    struct sb_options *o = sb_options_create();
    if (o == NULL) {
        fprintf(stderr, "sbench merge: out of memory\n");
        return 1;
    }
    sb_history_add_options(o);
    if (sb_options_parse_argv(o, argc, argv, &words, &nwords, err, sizeof err) == 0 &&
        sb_options_resolve(o, 0, err, sizeof err) == 0 &&
        sb_history_capture_start(o, &hist, err, sizeof err) != 0) {
        fprintf(stderr, "sbench merge: %s\n", err);
        sb_options_destroy(o);
        return 2;
    }
    int rc = sb_merge_command(argc, argv, hist.f);
    sb_history_capture_end(o, &hist, rc, "merge", argc, argv);
    sb_options_destroy(o);
    return rc;
}

int main(int argc, char **argv)
{
    char err[1024];
    static struct sb_run run;
    int given_argc = argc, is_pgbench = sb_pgbench_is_command(argc, argv);
    char **given_argv = argv; /* the command line as the user gave it, for the history */
    if (is_pgbench) { /* pgbench's command line: cli/pgbench_cli.c */
        int prc = sb_pgbench_translate(argc, argv, &argc, &argv, err, sizeof err);
        if (prc == 1) {
            sb_pgbench_usage(stdout);
            return 0;
        }
        if (prc == 2) /* -V, -b list */
            return 0;
        if (prc != 0) { /* exit 1, as pgbench's option errors */
            fprintf(stderr, "sbench pgbench: %s\n", err);
            return 1;
        }
    }
    run.script_ops = sb_lua_script();
    run.argc = argc;
    run.argv = argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    if (sb_merge_is_command(argc, argv)) /* merge/merge.c */
        return merge_and_record(argc, argv);
    /* the comparison commands (compare/compare_cli.c): a child sbench per run */
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return sb_compare_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "capacity") == 0) /* compare/capacity.c */
        return sb_capacity_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return sb_report_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "history") == 0) /* history/history_cli.c */
        return sb_history_main(argc, argv);

    struct sb_options *o = sb_options_create();
    if (o == NULL) {
        fprintf(stderr, "sbench: out of memory\n");
        return 1;
    }
    run.opts = o;
    add_core_options(o);
    struct cmdline cl = {0};
    if (sb_options_config_file(argc, argv, &argc, &argv, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        return 2;
    }
    if (sb_options_parse_argv(o, argc, argv, &cl.words, &cl.nwords, err, sizeof err) != 0 ||
        sb_options_resolve(o, 0, err, sizeof err) != 0) {
        fprintf(stderr, "sbench: %s\n", err);
        return 2;
    }
    int rc;
    if ((rc = read_words(&run, &cl)) != GO_ON || (rc = choose_driver(&run, &cl)) != GO_ON ||
        (cl.new_name != NULL && (rc = sb_new_command(&run, cl.new_name)) != GO_ON) ||
        (rc = choose_workload(&run, &cl)) != GO_ON || (rc = load_control_script(&run, &cl)) != GO_ON ||
        (rc = start_command(&run, &cl)) != GO_ON)
        return rc;

    /* the lint's warnings before a run: the source only, before the clock starts */
    if (strcmp(run.command, "run") == 0 && run.script != NULL && sb_opt_bool(o, "lint") && run.verbosity >= 1)
        (void)sb_lint_file(run.script, o, run.clients > run.threads, stderr, "sbench: lint: warning: ");
    /* the run history's record (history/): a shard's is its merged set's */
    struct sb_history_capture hist = {0};
    if (strcmp(cl.command, "run") == 0 && !run.shard.given) {
        if (sb_history_capture_start(o, &hist, err, sizeof err) != 0) {
            fprintf(stderr, "sbench: %s\n", err);
            return 2;
        }
        run.history_json = hist.f;
    }
    rc = sb_run_command(&run);
    if (cl.trace && sb_trace_end() != 0 && rc == 0)
        rc = 1;
    if (!run.abandoned)
        sb_history_capture_end(o, &hist, rc, is_pgbench ? "pgbench" : "run", given_argc, given_argv);
    if (run.abandoned) { /* worker threads still run: free nothing they use */
        fflush(stdout);
        _exit(rc);
    }
    run.script_ops->destroy(run.control);
    sb_worker_destroy(run.control);
    if (run.drv->done)
        run.drv->done();
    sb_options_destroy(o);
    return rc;
}
