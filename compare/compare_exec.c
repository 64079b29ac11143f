/*
 * compare_exec.c: executing a comparison.  In order: lock the results
 * directory, check it holds this comparison (or nothing), check that every
 * target answers (one connection each; stop before anything else when one
 * does not), prepare each target's tables once per workload, then every run
 * not yet done, one child sbench per run, in compare_rounds.c's order (the
 * repeats of a point spread over the whole comparison; with
 * --repeats=auto, a point stops once settled).  Each run gets its own --warmup-time.  Per run, the
 * directory keeps runs/ID.json (the final JSON report with interval lines),
 * runs/ID.hlog (HdrHistogram log), runs/ID.out (the text report and
 * messages) and runs/ID.record.json, written last: the client's CPU time
 * (wait4), the machine's busy share during the run and just before it
 * (/proc/stat), the load average, and the command with passwords masked.
 * A run is done when its record exists; an interrupted comparison resumes
 * by skipping those.  Before the first run, `sbench info` writes the
 * machine's facts and the drivers' versions to info.json.
 */
#include "compare.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/run_meta.h"

/* the machine's idle share is sampled this long before each run */
#define IDLE_PROBE_NS 200000000L

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the machine ---- */

int cmp_read_cpu(struct cmp_cpu_times *t)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[10] = {0};
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9])
              : 0;
    if (f)
        fclose(f);
    if (n < 5)
        return -1;
    /* user nice system idle iowait irq softirq steal (guest is in user) */
    t->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    t->total = t->busy + v[3] + v[4];
    t->steal = v[7];
    return 0;
}

double cmp_busy_share(const struct cmp_cpu_times *a, const struct cmp_cpu_times *b)
{
    unsigned long long dt = b->total - a->total;
    return dt ? (double)(b->busy - a->busy) / (double)dt : 0;
}

static double loadavg1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* ---- files ---- */

static int mkdir_p(const char *path)
{
    char buf[4300];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void path_of(char *buf, size_t len, const char *dir, const char *sub, const char *name,
                    const char *ext)
{
    snprintf(buf, len, "%s/%s/%s%s", dir, sub, name, ext);
}

/* Why a child failed, from its output: its first line with "FATAL:" (what
 * the run itself gave as the cause), else its last non-empty line, into
 * buf. */
static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[1024];
    int fatal = 0;
    while (!fatal && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        fatal = strstr(line, "FATAL:") != NULL;
        if (line[0])
            snprintf(buf, len, "%s", line);
    }
    fclose(f);
}

/* ---- one child ---- */

/*
 * Runs argv (argv[0] = sbench's own executable) with stdout to out_path
 * and stderr to err_path (NULL: out_path too); returns 0 and fills r, or
 * -1 when it could not be started.
 * A signal to compare is passed on as SIGINT (sbench then ends its run);
 * the child dies with compare (PR_SET_PDEATHSIG), so that a killed
 * comparison leaves no run writing behind it.  probe: NULL, or the
 * child's threads sampled while it runs (compare_probe.c).
 */
int cmp_run_child(char *const argv[], const char *out_path, const char *err_path, struct cmp_child_result *r,
                     struct cmp_probe *probe)
{
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    int efd = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : fd;
    if (efd < 0) {
        close(fd);
        return -1;
    }
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        if (efd != fd)
            close(efd);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(fd, 1);
        dup2(efd, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd);
    if (efd != fd)
        close(efd);
    int status = 0, forwarded = 0;
    struct rusage ru;
    for (;;) {
        pid_t w = wait4(pid, &status, probe ? WNOHANG : 0, &ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (probe) { /* the child's threads, every CMP_PROBE_PERIOD_MS */
            cmp_probe_sample(probe, pid);
            cmp_server_probe_sample(probe, pid); /* compare_server_probe.c */
            struct timespec period = {0, CMP_PROBE_PERIOD_MS * 1000000L};
            nanosleep(&period, NULL);
        }
        if (interrupted && !forwarded) {
            kill(pid, SIGINT);
            forwarded = 1;
        }
    }
    r->wall_s = now_s() - t0;
    r->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}

/* The argument vector of a child: self, the options of every run, the
 * target's, the workload's, then extra (NULL-terminated), then the
 * words.  Owned by the caller (free the array only: strings are borrowed
 * or from `scratch`). */
struct argv_buf {
    char *v[512];
    int n;
    char scratch[8][4400];
    int ns;
};

static void av_add(struct argv_buf *a, const char *s)
{
    if (a->n < (int)(sizeof a->v / sizeof a->v[0]) - 1)
        a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
}

static void av_addf(struct argv_buf *a, const char *fmt, const char *x, long y)
{
    if (a->ns == 8)
        return;
    char *s = a->scratch[a->ns++];
    if (x)
        snprintf(s, sizeof a->scratch[0], fmt, x);
    else
        snprintf(s, sizeof a->scratch[0], fmt, y);
    av_add(a, s);
}

static void av_strv(struct argv_buf *a, const struct cmp_strv *v)
{
    for (int i = 0; i < v->n; i++)
        av_add(a, v->v[i]);
}

/* The command line with passwords masked, as a user would type it. */
static void av_echo(const struct argv_buf *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < a->n && used < len; i++) {
        char m[4400];
        const char *w = i == 0 ? "sbench" : cmp_mask_option(a->v[i], m, sizeof m);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", w);
    }
}

/* ---- steps ---- */

struct exec {
    const struct cmp_spec *s;
    const struct cmp_request *req;
    char self[1024];
    const char *dir;
    int planned, done_before, done_now;
    double started, run_wall_sum;
    int quiet;
    int order;                  /* runs started, this session and before */
    int prepared;               /* the workload whose tables are prepared, -1: none */
};

static void progress(struct exec *x, const char *what)
{
    if (x->quiet)
        return;
    int done = x->done_before + x->done_now;
    double per = x->done_now ? x->run_wall_sum / x->done_now
                             : (double)x->s->warmup + (double)x->s->time + 1.5;
    double eta = per * (x->planned - done);
    fprintf(stderr, "compare: [%3d/%d] %s  (elapsed %.0fs, ETA %dm%02ds)\n", done + 1, x->planned, what,
            now_s() - x->started, (int)eta / 60, (int)eta % 60);
}

static const char check_script[] =
    "-- written by sbench compare: opens one connection, runs nothing\n"
    "function thread_init() con = sbench.sql.driver():connect() end\n"
    "function event() end\n"
    "function thread_done() con:disconnect() end\n";

/* The check script declares every option of the runs, so that a workload
 * option given to every run is no unknown option to it. */
static int write_check_script(const struct cmp_spec *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(check_script, f);
    fputs("sbench.cmdline.options = {\n", f);
    const struct cmp_strv *lists[CMP_MAX_TARGETS + 1];
    int nl = 0;
    lists[nl++] = &s->opts;
    for (int i = 0; i < s->ntargets; i++)
        lists[nl++] = &s->targets[i].opts;
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < lists[l]->n; i++) {
            const char *o = lists[l]->v[i] + 2;
            fprintf(f, "  [\"%.*s\"] = {\"(compare)\", \"\"},\n", (int)strcspn(o, "=\""), o);
        }
    fputs("}\n", f);
    return fclose(f);
}

/* The options of target k's runs of workload w, parsed by sbench
 * against the driver's and the workload's own (`WORKLOAD help` refuses an
 * unknown option, with a did-you-mean, and connects nowhere).  Returns 0,
 * or -1 with one line on stderr. */
static int check_options(struct exec *x, int k, int w)
{
    const struct cmp_spec *s = x->s;
    const struct cmp_target *t = &s->targets[k];
    char out[4200], msg[1024];
    path_of(out, sizeof out, x->dir, "targets", t->name, ".options.out");
    struct argv_buf a = {.n = 0};
    av_add(&a, x->self);
    av_strv(&a, &s->opts);
    av_strv(&a, &t->opts);
    av_strv(&a, &s->workloads[w].opts);
    av_add(&a, s->workloads[w].name);
    av_add(&a, "help");
    struct cmp_child_result r;
    if (cmp_run_child(a.v, out, NULL, &r, NULL) != 0 || r.status == 0)
        return 0; /* not started: the runs will say why */
    last_line(out, msg, sizeof msg);
    if (strstr(msg, "has no 'help' command"))
        return 0; /* the options passed; a script without options has no help */
    fprintf(stderr, "compare: target '%s' cannot run workload '%s': %s\n", t->name, s->workloads[w].label,
            msg[0] ? msg : "(no message)");
    return -1;
}

/* Every target that runs here opens one connection: the failing ones are
 * named (all of them), and nothing else is done.  Saved targets: their
 * directory must hold that target for the same workloads. */
static int check_targets(struct exec *x)
{
    const struct cmp_spec *s = x->s;
    char script[4200], out[4200], json[4200], msg[1024];
    snprintf(script, sizeof script, "%s/targets/check.lua", x->dir);
    if (write_check_script(s, script) != 0) {
        fprintf(stderr, "compare: cannot write %s: %s\n", script, strerror(errno));
        return -1;
    }
    int bad = 0;
    for (int k = 0; k < s->ntargets && !interrupted; k++) {
        const struct cmp_target *t = &s->targets[k];
        if (t->from_dir)
            continue;
        if (!x->quiet)
            fprintf(stderr, "compare: checking target '%s'\n", t->name);
        path_of(out, sizeof out, x->dir, "targets", t->name, ".out");
        path_of(json, sizeof json, x->dir, "targets", t->name, ".json");
        struct argv_buf a = {.n = 0};
        av_add(&a, x->self);
        av_strv(&a, &s->opts);
        av_strv(&a, &t->opts);
        av_add(&a, "--threads=1");
        av_add(&a, "--time=0");
        av_add(&a, "--events=1");
        av_add(&a, "--db-server-counters=off");
        av_add(&a, "--history=off"); /* a check, not a measurement */
        av_add(&a, "--report-format=json");
        av_addf(&a, "--output=%s", json, 0);
        av_add(&a, script);
        av_add(&a, "run");
        struct cmp_child_result r;
        if (cmp_run_child(a.v, out, NULL, &r, NULL) != 0) {
            fprintf(stderr, "compare: cannot start %s: %s\n", x->self, strerror(errno));
            return -1;
        }
        if (r.status != 0) {
            last_line(out, msg, sizeof msg);
            fprintf(stderr, "compare: target '%s' cannot be used: %s\n", t->name,
                    msg[0] ? msg : "(no message)");
            bad++;
            continue;
        }
        int opts_bad = 0;
        for (int w = 0; w < s->nworkloads && !interrupted && !opts_bad; w++)
            opts_bad = check_options(x, k, w) != 0;
        bad += opts_bad;
    }
    if (bad) {
        fprintf(stderr, "compare: %d target%s failed the connection or options check; nothing was run\n", bad,
                bad > 1 ? "s" : "");
        return -1;
    }
    return interrupted ? -1 : 0;
}

/* An option of opts that is --NAME=..., for NAME in the list, onto a. */
static void av_pick(struct argv_buf *a, const struct cmp_strv *opts, const char *const names[])
{
    for (int i = 0; i < opts->n; i++)
        for (int q = 0; names[q]; q++)
            if (strncmp(opts->v[i], names[q], strlen(names[q])) == 0)
                av_add(a, opts->v[i]);
}

/*
 * The machine and the drivers found with their client versions, written
 * by `sbench info --report-format=json` itself (cli/info.c, one code for
 * both) into DIR/info.json, once, before the first run: a resumed
 * comparison keeps the first session's facts (each run's report has its
 * own run.host).  The child gets the runs' --driver-path and
 * --workload-path.  A failure is one warning: the summary then takes the
 * machine from the first run's report.
 */
static void write_info(struct exec *x)
{
    char path[4200], tmp[4300], errs[4200], msg[1024];
    snprintf(path, sizeof path, "%s/info.json", x->dir);
    if (access(path, F_OK) == 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    snprintf(errs, sizeof errs, "%s/logs/info.err", x->dir);
    static const char *const paths[] = {"--driver-path=", "--workload-path=", NULL};
    struct argv_buf a = {.n = 0};
    av_add(&a, x->self);
    av_pick(&a, &x->s->opts, paths);
    for (int k = 0; k < x->s->ntargets; k++)
        av_pick(&a, &x->s->targets[k].opts, paths);
    av_add(&a, "--report-format=json");
    av_add(&a, "info");
    struct cmp_child_result r;
    json_object *j = NULL;
    if (cmp_run_child(a.v, tmp, errs, &r, NULL) != 0)
        snprintf(msg, sizeof msg, "cannot start %.200s: %.200s", x->self, strerror(errno));
    else if (r.status != 0)
        snprintf(msg, sizeof msg, "sbench info exited with status %d (see %.900s)", r.status, errs);
    else if ((j = sb_json_load_file(tmp, msg, sizeof msg)) != NULL && rename(tmp, path) != 0)
        snprintf(msg, sizeof msg, "cannot write %.800s: %.150s", path, strerror(errno));
    else if (j != NULL)
        msg[0] = 0;
    if (msg[0]) {
        fprintf(stderr, "compare: warning: no machine facts (%s): the summary takes them from the first run\n", msg);
        unlink(tmp);
    }
    json_object_put(j);
}

/* cleanup + prepare of workload w on every target that prepares, once:
 * a marker in prepared/ says it was done (a resumed comparison skips it). */
static int prepare_tables(struct exec *x, int w)
{
    const struct cmp_spec *s = x->s;
    const struct cmp_workload *wl = &s->workloads[w];
    for (int k = 0; k < s->ntargets && !interrupted; k++) {
        const struct cmp_target *t = &s->targets[k];
        if (t->from_dir || !t->prepare)
            continue;
        char name[200], marker[4200], out[4200], msg[1024];
        snprintf(name, sizeof name, "%s.%s", wl->label, t->name);
        path_of(marker, sizeof marker, x->dir, "prepared", name, "");
        if (access(marker, F_OK) == 0)
            continue;
        static const char *const cmds[] = {"cleanup", "prepare"};
        for (int c = 0; c < 2; c++) {
            if (!x->quiet)
                fprintf(stderr, "compare: %s %s on '%s'\n", wl->name, cmds[c], t->name);
            char logname[300];
            snprintf(logname, sizeof logname, "%s-%s", cmds[c], name);
            path_of(out, sizeof out, x->dir, "logs", logname, ".out");
            struct argv_buf a = {.n = 0};
            av_add(&a, x->self);
            av_strv(&a, &s->opts);
            av_strv(&a, &t->opts);
            av_strv(&a, &wl->opts);
            av_add(&a, wl->name);
            av_add(&a, cmds[c]);
            struct cmp_child_result r;
            if (cmp_run_child(a.v, out, NULL, &r, NULL) != 0 || (r.status != 0 && !interrupted)) {
                last_line(out, msg, sizeof msg);
                fprintf(stderr, "compare: %s of workload '%s' on target '%s' failed: %s (see %s)\n", cmds[c],
                        wl->label, t->name, msg[0] ? msg : strerror(errno), out);
                return -1;
            }
        }
        if (interrupted)
            return -1;
        FILE *f = fopen(marker, "w");
        if (f == NULL || fclose(f) != 0) {
            fprintf(stderr, "compare: cannot write %s: %s\n", marker, strerror(errno));
            return -1;
        }
    }
    return interrupted ? -1 : 0;
}

/* The client's threads (compare_probe.c) and a local server's processes
 * (compare_server_probe.c) as the record's fields. */
static void add_probe_figures(json_object *j, const struct cmp_probe *probe)
{
    struct cmp_probe_result pr;
    cmp_probe_result(probe, &pr);
    if (pr.threads > 0) {
        json_object_object_add(j, "client_threads_measured", json_object_new_int(pr.threads));
        json_object_object_add(j, "client_busiest_thread_cpu_share", cmp_real(pr.busiest_cpu));
        json_object_object_add(j, "client_busiest_thread_delay_share", cmp_real(pr.busiest_delay));
        json_object_object_add(j, "client_mean_run_delay_share", cmp_real(pr.mean_delay));
    }
    struct cmp_server_figures sf;
    cmp_server_probe_result(probe, &sf);
    if (sf.model_threads > 0) /* a model server inside the client (the null driver's) */
        json_object_object_add(j, "server_model_threads", json_object_new_int(sf.model_threads));
    if (sf.processes > 0 || sf.model_threads > 0) {
        if (sf.processes > 0)
            json_object_object_add(j, "server_processes", json_object_new_int(sf.processes));
        json_object_object_add(j, "server_cpu_cores", cmp_real(sf.cpu_cores));
        json_object_object_add(j, "server_run_delay_cores", cmp_real(sf.delay_cores));
    }
}

static int one_run(struct exec *x, int w, int ti, int k, int rep, int order)
{
    const struct cmp_spec *s = x->s;
    char id[300], json[4200], hlog[4200], out[4200], rec[4200], msg[1024];
    cmp_run_id(s, w, ti, k, rep, id, sizeof id);
    path_of(json, sizeof json, x->dir, "runs", id, ".json");
    path_of(hlog, sizeof hlog, x->dir, "runs", id, ".hlog");
    path_of(out, sizeof out, x->dir, "runs", id, ".out");
    path_of(rec, sizeof rec, x->dir, "runs", id, ".record.json");
    char what[400];
    snprintf(what, sizeof what, "%s threads=%d %s (repeat %d/%s%d)", s->workloads[w].label,
             s->threads[ti], s->targets[k].name, rep + 1, s->repeats_auto ? "at most " : "", s->repeats);
    progress(x, what);

    struct argv_buf a = {.n = 0};
    av_add(&a, x->self);
    av_strv(&a, &s->opts);
    av_strv(&a, &s->targets[k].opts);
    av_strv(&a, &s->workloads[w].opts);
    av_addf(&a, "--threads=%ld", NULL, s->threads[ti]);
    av_addf(&a, "--time=%ld", NULL, s->time);
    av_addf(&a, "--events=%ld", NULL, s->events);
    av_addf(&a, "--warmup-time=%ld", NULL, s->warmup);
    av_add(&a, "--report-interval=1");
    av_add(&a, "--report-format=json");
    av_addf(&a, "--output=%s", json, 0);
    av_addf(&a, "--hdr-log=%s", hlog, 0);
    av_add(&a, s->workloads[w].name);
    av_add(&a, "run");
    char cmdline[16384];
    av_echo(&a, cmdline, sizeof cmdline);

    /* the machine just before: is something else busy? */
    struct cmp_cpu_times c0, c1, c2;
    int have_cpu = cmp_read_cpu(&c0) == 0;
    struct timespec probe = {0, IDLE_PROBE_NS};
    nanosleep(&probe, NULL);
    have_cpu = have_cpu && cmp_read_cpu(&c1) == 0;
    double load = loadavg1();
    char start_iso[40];
    sb_iso_now(start_iso, sizeof start_iso);
    struct cmp_child_result r;
    static struct cmp_probe threads; /* big: not on the stack */
    memset(&threads, 0, sizeof threads);
    if (cmp_run_child(a.v, out, NULL, &r, &threads) != 0) {
        fprintf(stderr, "compare: cannot start %s: %s\n", x->self, strerror(errno));
        return -1;
    }
    have_cpu = have_cpu && cmp_read_cpu(&c2) == 0;
    if (interrupted) {
        /* a cut-short run is no repeat: keep its report aside */
        char aside[4300];
        snprintf(aside, sizeof aside, "%s.interrupted", json);
        rename(json, aside);
        return -1;
    }
    if (r.status != 0 || access(json, F_OK) != 0) {
        last_line(out, msg, sizeof msg);
        fprintf(stderr, "compare: run %s failed (exit status %d): %s (see %s)\n", id, r.status,
                msg[0] ? msg : "no report", out);
        return -1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    json_object *j = json_object_new_object();
    json_object_object_add(j, "id", json_object_new_string(id));
    json_object_object_add(j, "exit_status", json_object_new_int(r.status));
    json_object_object_add(j, "wall_s", cmp_real(r.wall_s));
    json_object_object_add(j, "client_cpu_s", cmp_real(r.cpu_s));
    json_object_object_add(j, "order", json_object_new_int(order));
    json_object_object_add(j, "start_time", json_object_new_string(start_iso));
    json_object_object_add(j, "command", json_object_new_string(cmdline));
    json_object_object_add(j, "cpus", json_object_new_int((int)cpus));
    json_object_object_add(j, "client_cpu_share",
                           cmp_real(r.wall_s > 0 && cpus > 0 ? r.cpu_s / (r.wall_s * (double)cpus) : 0));
    if (have_cpu) {
        json_object_object_add(j, "machine_busy_share", cmp_real(cmp_busy_share(&c1, &c2)));
        json_object_object_add(j, "busy_share_before", cmp_real(cmp_busy_share(&c0, &c1)));
        json_object_object_add(j, "machine_steal_share", /* what the hypervisor gave to others */
                               cmp_real(c2.total > c1.total ? (double)(c2.steal - c1.steal) / (double)(c2.total - c1.total) : 0));
    }
    add_probe_figures(j, &threads);
    if (load >= 0)
        json_object_object_add(j, "loadavg_1m", cmp_real(load));
    int rc = cmp_write_json(rec, j, msg, sizeof msg);
    json_object_put(j);
    if (rc != 0) {
        fprintf(stderr, "compare: %s\n", msg);
        return -1;
    }
    x->done_now++;
    x->run_wall_sum += r.wall_s + IDLE_PROBE_NS / 1e9;
    return 0;
}

/* Run (w, t, k, rep), its workload's tables prepared first
 * (compare_rounds.c calls it in order). */
static int next_run(void *ctx, int w, int t, int k, int rep)
{
    struct exec *x = ctx;
    if (x->prepared != w && prepare_tables(x, w) != 0)
        return -1;
    x->prepared = w;
    cmp_history_place(x->s, w, t, k, rep); /* compare_history.c */
    return one_run(x, w, t, k, rep, x->order++);
}

/* The results directory holds this comparison, or none yet (then it is
 * written); another one is an error. */
static int claim_dir(struct exec *x)
{
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/comparison.json", x->dir);
    json_object *mine = cmp_spec_to_json(x->s);
    if (mine == NULL)
        return -1;
    if (x->s->source)
        json_object_object_add(mine, "source", json_object_new_string(x->s->source));
    if (x->req->command)
        json_object_object_add(mine, "command", json_object_new_string(x->req->command));
    /* absent: a new comparison; anything else (a symlink loop) is read and said */
    int absent = access(path, F_OK) != 0 && errno == ENOENT;
    json_object *old = absent ? NULL : sb_json_load_file(path, err, sizeof err);
    int rc = 0;
    if (old == NULL && !absent) {
        fprintf(stderr, "compare: %s is damaged (%s); remove the directory or use another --results\n", path, err);
        rc = -1;
    } else if (old) {
        json_object *a = cmp_spec_identity(old), *b = cmp_spec_identity(mine);
        if (!json_object_equal(a, b)) {
            const char *what = "options";
            static const char *const keys[] = {"targets", "workloads", "threads", "time", "events", "warmup", NULL};
            for (int i = 0; keys[i]; i++)
                if (!json_object_equal(sb_json_member(a, keys[i]), sb_json_member(b, keys[i]))) {
                    what = keys[i];
                    break;
                }
            fprintf(stderr, "compare: results directory %s holds a different comparison (its %s differ); use another --results directory\n",
                    x->dir, what);
            rc = -1;
        }
        json_object_put(a);
        json_object_put(b);
    }
    if (rc == 0 && cmp_write_json(path, mine, err, sizeof err) != 0) {
        fprintf(stderr, "compare: %s\n", err);
        rc = -1;
    }
    json_object_put(old);
    json_object_put(mine);
    return rc;
}

/* A saved target's directory holds that target and the same workloads
 * and run length. */
static int check_saved(const struct cmp_spec *s)
{
    for (int k = 0; k < s->ntargets; k++) {
        const struct cmp_target *t = &s->targets[k];
        if (t->from_dir == NULL)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/comparison.json", t->from_dir);
        struct cmp_spec old = {0};
        char err[512];
        json_object *j = sb_json_load_file(path, err, sizeof err);
        if (j == NULL || cmp_spec_from_json(&old, j, err, sizeof err) != 0) {
            fprintf(stderr, "compare: target '%s': %s is not a results directory of sbench compare\n", t->name,
                    t->from_dir);
            json_object_put(j);
            cmp_spec_free(&old);
            return -1;
        }
        int rc = 0;
        if (cmp_spec_target(&old, t->from_target) < 0) {
            char names[1024] = "";
            for (int i = 0; i < old.ntargets; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                         old.targets[i].name);
            fprintf(stderr, "compare: target '%s': no target '%s' in %s (its targets: %s)\n", t->name,
                    t->from_target, t->from_dir, names);
            rc = -1;
        }
        json_object *a = cmp_spec_to_json(s), *b = cmp_spec_to_json(&old);
        static const char *const keys[] = {"workloads", "time", "events", "warmup", NULL};
        for (int i = 0; keys[i] && rc == 0; i++)
            if (!json_object_equal(sb_json_member(a, keys[i]), sb_json_member(b, keys[i]))) {
                fprintf(stderr, "compare: target '%s': %s was measured with different %s\n", t->name,
                        t->from_dir, keys[i]);
                rc = -1;
            }
        json_object_put(a);
        json_object_put(b);
        json_object_put(j);
        cmp_spec_free(&old);
        if (rc)
            return -1;
    }
    return 0;
}

int cmp_execute(const struct cmp_spec *s, const struct cmp_request *req)
{
    struct exec x = {.s = s, .req = req, .dir = req->results, .quiet = req->quiet};
    x.started = now_s();
    /* every run execs this very executable, even when a rebuild replaces
     * the file meanwhile (/proc/self/exe is the running inode) */
    if (access("/proc/self/exe", X_OK) != 0) {
        fprintf(stderr, "compare: cannot find sbench's own executable (/proc/self/exe): %s\n", strerror(errno));
        return 1;
    }
    snprintf(x.self, sizeof x.self, "/proc/self/exe");
    static const char *const subs[] = {"", "runs", "targets", "prepared", "logs", NULL};
    for (int i = 0; subs[i]; i++) {
        char d[4200];
        snprintf(d, sizeof d, "%s/%s", x.dir, subs[i]);
        if (mkdir_p(d) != 0) {
            fprintf(stderr, "compare: cannot create directory %s: %s\n", d, strerror(errno));
            return 1;
        }
    }
    char lock[4200];
    snprintf(lock, sizeof lock, "%s/.lock", x.dir);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "compare: results directory %s is in use by another sbench compare\n", x.dir);
        if (lfd >= 0)
            close(lfd);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    interrupted = 0;

    int rc = 1;
    if (claim_dir(&x) != 0 || check_saved(s) != 0)
        goto out;
    if (cmp_rounds_count(s, x.dir, &x.planned, &x.done_before) != 0)
        goto out;
    if (x.done_before == x.planned) {
        rc = 0;
        goto out;
    }
    if (x.done_before && !x.quiet)
        fprintf(stderr, "compare: resuming in %s: %d of %d runs done\n", x.dir, x.done_before, x.planned);
    if (check_targets(&x) != 0)
        goto out;
    write_info(&x);
    x.order = x.done_before;
    x.prepared = -1;
    if (cmp_rounds_run(s, x.dir, next_run, &x) != 0)
        goto out;
    rc = 0;
out:
    if (interrupted)
        fprintf(stderr, "compare: interrupted; %d of %d runs done, run the same command again to resume\n",
                x.done_before + x.done_now, x.planned);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    close(lfd);
    return interrupted ? 1 : rc;
}
