/*
 * compare.h: `sbench compare` and `sbench report`, comparing databases
 * (targets) over a matrix of workloads and thread counts with repeated,
 * interleaved runs.  The pieces, one file each:
 *
 *   compare_cli.c      the two commands' command lines, and the order of
 *                      the steps (the only entry points, for main.c)
 *   compare_spec.c     the description of a comparison: read from a Lua
 *                      file or the command line, stored as JSON in the
 *                      results directory, and its identity for resuming
 *   compare_exec.c     checks, prepare and the runs: one child sbench per
 *                      run, interleaved, resumable, with load and CPU
 *                      recorded per run
 *   compare_rounds.c   the order of the runs; with --repeats=auto, when a
 *                      point has had enough (compare_seq.c: the sequential
 *                      rule, Bonferroni over the looks; compare_seq.h)
 *   compare_load.c     the stored runs read back (final JSON report,
 *                      interval lines, HdrHistogram log, run record)
 *   compare_stats.c    statistics (compare_stats.h: pure functions)
 *   compare_summary.c  the summary (JSON): points, verdicts, knees,
 *                      warnings; the one source of every number the
 *                      text and HTML reports show
 *   compare_knee.c     where a target stops scaling (tested on the runs)
 *   compare_probe.c    a running child's threads: CPU and run delay
 *   compare_server_probe.c  the processes of a server on this machine
 *                      serving the child's TCP connections: the same
 *   compare_bottleneck.c  per point: client-bound, server CPU-bound,
 *                      machine saturated, server-bound, or nothing
 *   compare_env.c      the summary's environment: machine (info.json),
 *                      versions, server settings and those that differ
 *   compare_text.c     the markdown summary on stdout
 *   compare_html.c     the HTML report, charts drawn by gnuplot (SVG)
 *   compare_html_answer.c  its first screen: the targets ranked per point
 *   compare_json.c     the JSON compare writes (json-c; read back with
 *                      results/json_get.c)
 *   capacity.c         `sbench capacity`: the highest --rate within SLOs,
 *                      by steps of repeated runs (cmp_run_child)
 *
 * Nothing here runs on a measured path: every run is a child process.
 */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "../results/json_get.h"

#define CMP_MAX_TARGETS 16
#define CMP_MAX_WORKLOADS 16
#define CMP_MAX_THREADS 64
#define CMP_MAX_REPEATS 100
#define CMP_NAME_LEN 64

/* A list of strings ("--name=value" options), owned. */
struct cmp_strv {
    char **v;
    int n;
};

struct cmp_target {
    char name[CMP_NAME_LEN];
    struct cmp_strv opts;       /* run options of this target */
    int prepare;                /* 1: prepare (cleanup + prepare) its tables */
    char *from_dir;             /* NULL, or a results directory whose runs */
    char from_target[CMP_NAME_LEN]; /* of this target stand in for it */
};

struct cmp_workload {
    char label[CMP_NAME_LEN];   /* unique within the comparison */
    char *name;                 /* as sbench's WORKLOAD word */
    struct cmp_strv opts;
};

struct cmp_spec {
    char *title;
    struct cmp_target targets[CMP_MAX_TARGETS];
    int ntargets;
    struct cmp_workload workloads[CMP_MAX_WORKLOADS];
    int nworkloads;
    int threads[CMP_MAX_THREADS];
    int nthreads;
    long time;                  /* --time of each run (s) */
    long events;                /* --events of each run (0 = none) */
    long warmup;                /* --warmup-time of each run (s) */
    int repeats;                /* with repeats_auto: the maximum */
    int repeats_auto;           /* 1: --repeats=auto, a point stops when settled (compare_seq.h) */
    double auto_width;          /* --auto-width: settled when the interval is narrower (percent) */
    struct cmp_strv opts;       /* options of every run */
    char *source;               /* the comparison file, or NULL */
};

/* What the command was asked to do besides running (command line). */
struct cmp_request {
    const char *results;        /* results directory */
    const char *baseline;       /* target the others are gated against */
    double fail_slower;         /* percent; < 0: no gate */
    const char *html;           /* report file (default DIR/report.html) */
    const char *json;           /* summary file (default DIR/summary.json) */
    int quiet;                  /* no progress lines */
    const char *command;        /* the compare command line, masked */
};

/* ---- compare_spec.c ---- */

/* Frees what s owns and zeroes it; NULL is a no-op. */
void cmp_spec_free(struct cmp_spec *s);
void cmp_strv_free(struct cmp_strv *v);
/* Appends a copy of str; returns 0, or -1 when out of memory. */
int cmp_strv_push(struct cmp_strv *v, const char *str);
/* Splits text on blanks into v (no quoting: option values have no
 * spaces).  Returns 0 or -1 (out of memory). */
int cmp_strv_split(struct cmp_strv *v, const char *text);

/* Reads a comparison file (Lua returning a table) into s (zeroed by the
 * caller).  Returns 0, or -1 with one line in err. */
int cmp_spec_load_lua(struct cmp_spec *s, const char *path, char *err, size_t errlen);

/* Adds a target "NAME:OPTIONS" or "NAME:@DIR/TARGET" (--target=).
 * Returns 0, or -1 with one line in err. */
int cmp_spec_add_target(struct cmp_spec *s, const char *arg, char *err, size_t errlen);
/* Parses a --threads list "1,2,4" into s.  Returns 0 or -1 with err. */
int cmp_spec_set_threads(struct cmp_spec *s, const char *list, char *err, size_t errlen);

/* Checks a complete spec (names, limits, options compare sets itself)
 * and gives each workload without a label its name as label.  Returns 0,
 * or -1 with one line in err. */
int cmp_spec_check(struct cmp_spec *s, char *err, size_t errlen);

/* The target called name, or -1. */
int cmp_spec_target(const struct cmp_spec *s, const char *name);

/* The spec as JSON (passwords masked): a new reference owned by the
 * caller, or NULL when out of memory.  cmp_spec_identity() is the part
 * that must not change when a comparison resumes (all but the title and
 * the number of repeats). */
json_object *cmp_spec_to_json(const struct cmp_spec *s);
json_object *cmp_spec_identity(const json_object *spec_json);
/* Reads a spec back from cmp_spec_to_json()'s output (options stay
 * masked: good for reports, not for running).  Returns 0 or -1 with err. */
int cmp_spec_from_json(struct cmp_spec *s, const json_object *j, char *err, size_t errlen);

/* opt with the value of every "...password=VALUE" in it replaced by
 * "***" (an option, or a --target=NAME:OPTIONS argument).  Writes into
 * buf (truncating) and returns it. */
const char *cmp_mask_option(const char *opt, char *buf, size_t len);

/* ---- compare_exec.c ---- */

/* Runs every run of s not yet in results directory req->results, after
 * checking that each target answers and preparing their tables.  Returns
 * 0 when every run is done, 1 on a failure or an interruption (one line
 * on stderr says which). */
int cmp_execute(const struct cmp_spec *s, const struct cmp_request *req);

/* One child sbench (cmp_run_child, compare_exec.c; also sbench capacity's
 * runner): argv[0] is sbench's own executable, stdout to out_path,
 * stderr to err_path (NULL: out_path too); during cmp_execute a signal to
 * this process is passed on as SIGINT; probe NULL or the child's threads
 * sampled.  0 with
 * r filled, or -1 when it could not be started. */
struct cmp_child_result {
    int status;                 /* exit status, 128+signal when killed */
    double wall_s, cpu_s;
};
struct cmp_probe;
/* The machine's CPU time (/proc/stat, in ticks): 0, or -1 when unreadable;
 * the busy share between two readings. */
struct cmp_cpu_times { unsigned long long busy, total, steal; };
int cmp_read_cpu(struct cmp_cpu_times *t);
double cmp_busy_share(const struct cmp_cpu_times *a, const struct cmp_cpu_times *b);
int cmp_run_child(char *const argv[], const char *out_path, const char *err_path, struct cmp_child_result *r,
                  struct cmp_probe *probe);


/* ---- compare_rounds.c: the order of the runs ---- */

/* Runs run (w, t, k, rep) of a comparison; 0, or -1 to stop. */
typedef int (*cmp_round_fn)(void *ctx, int w, int t, int k, int rep);
/* The runs of s (saved targets aside) up to s->repeats each, and how many
 * of them dir holds done.  -1 when a run's state cannot be told (said on
 * stderr). */
int cmp_rounds_count(const struct cmp_spec *s, const char *dir, int *planned, int *done);
/* The runs s asks of dir: s->repeats per point and target (saved targets
 * aside); with repeats_auto, per point the repeats at which its runs on
 * disk settle it, else the maximum. */
int cmp_rounds_planned(const struct cmp_spec *s, const char *dir);
/* Calls run for every run not yet done in dir, in the interleaved order;
 * with repeats_auto, none for a point once its runs settle it.  0, or -1
 * when run stopped. */
int cmp_rounds_run(const struct cmp_spec *s, const char *dir, cmp_round_fn run, void *ctx);

/* ---- compare_load.c ---- */

/*
 * The runs of results directory dir for spec s, read back: a new JSON
 * object owned by the caller,
 *   {"runs": [ {workload, threads, target, repeat, id, final, record,
 *               intervals: [[time, tps], ...]} ...],
 *    "latency": { "<workload>/<threads>/<target>": {lowest, highest,
 *               sig_figs, counts: {index: count}, min_ns, max_ns} } }
 * where `final` is the run's final JSON report line and `record` the run
 * record compare wrote.  Runs not done are left out.  Targets with a
 * from_dir are read from there.  NULL with err on an unreadable file.
 */
json_object *cmp_load_runs(const struct cmp_spec *s, const char *dir, char *err, size_t errlen);

/* A run's JSON lines report held in buf[0 .. len-1] (path only names it
 * in messages): *final its final line (a new reference), intervals gets
 * an [end time, tps] pair per interval line.  Returns 0, or -1 with one
 * line in err and *final NULL (a line that is not JSON, a truncated
 * file, no final line, a second one, a line of another type). */
int cmp_report_parse(const char *path, const char *buf, size_t len, json_object **final,
                     json_object *intervals, char *err, size_t errlen);

/* ---- compare_check.c: a stored run checked before it is read ---- */

/* The driver a run without --db-driver loads (cli/main.c's default). */
#define CMP_DEFAULT_DRIVER "sqlite"

/* Run id in dir: 1 done (its record and report are there), 0 not done
 * (no record), -1 with one line in err naming the file: one cannot be
 * told (a symlink loop, no permission), or the report is missing beside
 * its record. */
int cmp_run_state(const char *dir, const char *id, char *err, size_t errlen);
/* The file name (no directory, no extension) of one run. */
void cmp_run_id(const struct cmp_spec *s, int w, int t, int k, int rep, char *buf, size_t len);
/* Run id's record: the fields compare_exec.c writes, each as the
 * summary's schema allows it, client_cpu_s at most wall_s on every CPU,
 * client_cpu_share its recomputation.  0, or -1 with the field in err. */
int cmp_record_check(const json_object *rec, const char *id, char *err, size_t errlen);
/* The final line of run (w, t, k) of s is that run's: the target's
 * --db-driver (CMP_DEFAULT_DRIVER when none), the point's thread count.
 * 0, or -1 with the field in err. */
int cmp_run_matches(const struct cmp_spec *s, int w, int t, int k, const json_object *final, char *err,
                    size_t errlen);
/* What the summary copies, of the shape docs/compare.schema.json gives
 * it: a host object (sbench info's, run.host; named what in messages),
 * a final line's percentiles and run object (its versions, host, server
 * settings),
 * info.json's drivers.  0, or -1 with the field in err. */
int cmp_host_check(const json_object *host, const char *what, char *err, size_t errlen);
int cmp_run_meta_check(const json_object *final, char *err, size_t errlen);
int cmp_drivers_check(const json_object *drivers, char *err, size_t errlen);

/* ---- compare_summary.c ---- */

/* The summary of a comparison (schema docs/compare.schema.json): a new
 * reference owned by the caller, or NULL with err.  loaded is
 * cmp_load_runs()'s result. */
json_object *cmp_summary(const struct cmp_spec *s, const json_object *spec_json, const json_object *loaded,
                    const struct cmp_request *req, char *err, size_t errlen);

/* ---- compare_probe.c, compare_server_probe.c ---- */

#define CMP_PROBE_TASKS 1100        /* threads of one child followed */
#define CMP_PROBE_PERIOD_MS 100     /* sampling period */
#define CMP_PROBE_MIN_S 0.2         /* a thread seen for less is left out */

struct cmp_probe_task {
    long tid;
    double t0, cpu0, delay0;    /* first sample: time, CPU and run delay (s) */
    double t1, cpu1, delay1;    /* last sample */
};
/* The threads of one child as sampled so far (zero it before the first). */
#define CMP_SERVER_PIDS 256         /* server processes followed */
struct cmp_probe {
    struct cmp_probe_task task[CMP_PROBE_TASKS];
    int n, samples;
    /* the local server's processes serving the child's connections
     * (compare_server_probe.c) and their tasks */
    int server_pid[CMP_SERVER_PIDS], nserver_pid;
    struct cmp_probe_task server_task[CMP_PROBE_TASKS];
    int nserver_task;
    int model_threads;          /* the most model-server tasks the child had at
                                 * once (sampled into server_task) */
};
/* Samples every task of pid into tasks[0..*n) (at most CMP_PROBE_TASKS);
 * with model non-NULL, the tasks that stand for a model server inside
 * sbench (named SBD_MODEL_SERVER_THREAD, sbench/driver.h) into
 * model[0..*nmodel) instead.  How many of those pid has now. */
int cmp_probe_tasks(struct cmp_probe_task *tasks, int *n, int pid, struct cmp_probe_task *model, int *nmodel);
/* Shares of the threads' observed lives: -1 when no thread was seen long
 * enough. */
struct cmp_probe_result {
    int threads;                /* threads measured */
    double busiest_cpu;         /* the busiest thread (CPU + run delay): its CPU share */
    double busiest_delay;       /* and its share runnable but waiting for a CPU */
    double mean_delay;          /* run-delay share, mean over the threads */
};

/* Samples /proc/PID/task/{*}/schedstat into p. */
void cmp_probe_sample(struct cmp_probe *p, int pid);
/* The shares of what p saw, into r. */
void cmp_probe_result(const struct cmp_probe *p, struct cmp_probe_result *r);
/* Finds (early in the run) and samples the processes of a server on this
 * machine that serve client_pid's TCP connections, and the threads of a
 * model server inside client_pid; call after cmp_probe_sample. */
void cmp_server_probe_sample(struct cmp_probe *p, int client_pid);
/* Their figures over their observed lives: CPU and run delay in cores
 * (sums over their tasks of the shares of time). */
struct cmp_server_figures {
    int processes;
    int model_threads;          /* a model server's threads inside the client */
    double cpu_cores, delay_cores;
};
void cmp_server_probe_result(const struct cmp_probe *p, struct cmp_server_figures *r);

/* ---- compare_bottleneck.c ---- */

/* What limited the point (wl, threads, target) of the loaded runs: a new
 * JSON object {verdict: "client-bound" | "machine saturated" |
 * "server-bound" | null, text, the figures}, owned by the caller, or NULL
 * when no run there has thread figures.  A client-bound or saturated point
 * adds one warning to warnings.  cpus: the machine's. */
json_object *cmp_bottleneck(const json_object *runs, const char *wl, int threads, const char *target, int cpus,
                            json_object *warnings);

/* ---- compare_evidence.c ---- */

/* The server's evidence of the point (wl, threads, target) of the loaded
 * runs: a new JSON object {runs, cause, cause_runs, top_waits [{name,
 * share}], hit_ratio, row_lock_waits_per_txn}, owned by the caller, or
 * NULL when none of its runs sampled the server (--server-metrics). */
/* Whether two causes the server sampler named say the same but for their
 * figures ("83%" and "80% of sampled backend time in lock waits"). */
int cmp_same_cause(const char *a, const char *b);
json_object *cmp_point_server(const json_object *runs, const char *wl, int threads, const char *target);
/* Adds to each verdict its server_difference: one sentence naming each
 * target's top wait and the cause its runs named (the points' "server"
 * objects), null when either target was not sampled. */
void cmp_server_differences(json_object *verdicts, const json_object *points);

/* ---- compare_knee.c ---- */

/* One point of a target's sweep: its thread count, its repeats'
 * throughput (borrowed) and their median. */
struct cmp_sweep_point {
    int threads;
    const double *tps;
    int n;
    double median;
};

/* The peak and the knee of one target's sweep over points p[0..n-1]
 * (sorted here by threads): a new JSON object {workload, target, peak,
 * knee, precision_pct, text} owned by the caller, or NULL when n < 2. */
json_object *cmp_sweep(const char *wl, const char *target, struct cmp_sweep_point *p, int n);

/* ---- compare_env.c ---- */

/* The summary's environment (a new reference owned by the caller): the
 * machine and drivers of DIR/info.json (else the first run's run.host),
 * the targets' versions and server settings (their first run's), and the
 * settings that differ between targets.  runs is the loaded runs' list;
 * a run whose settings differ from its target's first run adds a
 * "settings_changed" warning to warnings. */
json_object *cmp_environment(const struct cmp_spec *s, const json_object *runs, const char *dir,
                             json_object *warnings);

/* ---- compare_text.c / compare_html.c ---- */

/* The markdown summary of sum to f. */
void cmp_text_report(const json_object *sum, FILE *f);
/* Writes the HTML report of sum to path (charts drawn by gnuplot in
 * directory chart_dir, which is created).  Returns 0, or -1 with err (no
 * file at path then). */
/* compare_html_answer.c: the report's first section (targets ranked per
 * point, ratios to the fastest with their intervals and caveats), and the
 * HTML escaping of text */
void cmp_html_esc(FILE *f, const char *s);
void cmp_html_answer(const json_object *sum, FILE *f);
int cmp_html_report(const json_object *sum, const char *path, const char *chart_dir, char *err,
                    size_t errlen);

/* ---- compare_json.c ---- */

/* New values (owned by the caller, to hand to json_object_object_add or
 * json_object_array_add, which take them): a real, NULL (JSON null) when v
 * is not finite; the list [x, y]; a string, NULL (null) for NULL.  NULL
 * too when out of memory. */
json_object *cmp_real(double v);
json_object *cmp_pair(double x, double y);
json_object *cmp_string(const char *s);
/* Writes j to path (indented) through path.tmp and a rename.  Returns 0,
 * or -1 with one line in err (no file at path then, an older one stays). */
int cmp_write_json(const char *path, json_object *j, char *err, size_t errlen);
/* Appends to warnings a warning {kind, workload, threads, target, run,
 * text} about loaded run run. */
void cmp_warn(json_object *warnings, const json_object *run, const char *kind, const char *text);

/* ---- compare_cli.c (called by main.c) ---- */

/* `sbench compare ...` and `sbench report DIR ...`: argv[0] is the
 * command word.  Returns the exit status. */
int sb_compare_main(int argc, char **argv);
int sb_report_main(int argc, char **argv);
/* `sbench capacity ...` (capacity.c): the highest --rate at which every
 * --slo holds.  Returns the exit status. */
int sb_capacity_main(int argc, char **argv);

/* The run history's marks of the next run (compare_history.c): this
 * comparison's session, the run's target, point and repeat. */
void cmp_history_place(const struct cmp_spec *s, int w, int ti, int k, int rep);

/* ---- compare_saved.c ---- */

/* The runs of one target at one point: throughput and report files. */
struct cmp_point_runs {
    double tps[CMP_MAX_REPEATS];
    char *paths[CMP_MAX_REPEATS];   /* DIR/runs/ID.json, owned */
    int n;
};
struct cmp_shift;
struct hs_session_shift;
/*
 * b against a at a point where one of them (or both) is a saved target,
 * the session being the unit: the difference of the two sessions' medians
 * against the spread between the earlier sessions of the saved runs'
 * configuration in the run history (history_stats.h), this session's
 * runs left out.  sh gets the verdict (level 0.95 when achievable), ss
 * the details; why says why it cannot tell (too little history, the
 * history off or unreadable).  Returns 0, or -1 on a bad argument.
 */
int cmp_saved_shift(const struct cmp_spec *s, int ka, int kb, const struct cmp_point_runs *a,
                    const struct cmp_point_runs *b, struct cmp_shift *sh, struct hs_session_shift *ss, char *why,
                    size_t whylen);

#endif
