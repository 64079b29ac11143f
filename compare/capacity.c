/*
 * capacity.c: `sbench capacity --slo='p99<20ms' [--slo=...] --rate-max=R
 * [options of every run] WORKLOAD`: the highest arrival rate (--rate) at
 * which every SLO holds, found by steps of repeated runs, each a child
 * sbench (compare_exec.c's runner), with its interval and the evidence of
 * every step.  The search and its stopping rule are in docs/capacity.md:
 *
 *   - a step runs the workload at one rate up to --repeats times; a run
 *     meets the SLOs when each percentile of its final report is below
 *     its limit and it delivered the rate (no "event queue is full");
 *     the step MEETS when all its runs do, MISSES when none does, and is
 *     MIXED (stopped at once) when both happened;
 *   - rates double from --rate-min until a step misses (or --rate-max);
 *     then the widest gap (by ratio) between the highest rate that met,
 *     the mixed ones and the lowest that missed is cut at its geometric
 *     middle, until every gap is within --precision or --max-steps ran;
 *   - the capacity lies between the highest rate that met and the lowest
 *     that missed: were it outside, the step at that bound would have had
 *     all its K runs on the wrong side of a coin that favours the other,
 *     which happens with probability at most 2^-K; with K = 6 each bound
 *     holds with 98.4%, both with at least 96.9%.
 */
#include "compare.h"
#include "compare_stats.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../results/readfile.h"

static volatile sig_atomic_t interrupted; /* SIGINT or SIGTERM came */

static void on_signal(int sig)
{
    interrupted = sig;
}

/* Ctrl-C reaches the running child too (its process group): it ends its
 * run, and no other starts; a SIGTERM to capacity alone lets the run end
 * (--step-time bounds it) and starts no other. */
static void catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

#define MAX_SLOS 8
#define MAX_STEPS 64
#define MAX_PASS 200
#define MAX_REPEATS 20

struct slo {
    char text[48];
    double pct;         /* the percentile, e.g. 99 */
    double limit_ms;
};

enum verdict { MEETS, MISSES, MIXED };

/* What limited a run: the figures compare_bottleneck.c's rules read. */
struct limits {
    double busiest_cpu, busiest_delay, mean_delay; /* the client's threads */
    double machine, steal, client_share;           /* the machine */
    int have;
};

struct step {
    double rate;
    int runs, met;
    double p[MAX_REPEATS][MAX_SLOS]; /* each run's percentiles, ms */
    double tps[MAX_REPEATS], cpu[MAX_REPEATS];
    struct limits lim[MAX_REPEATS];
    enum verdict v;
};

struct capacity {
    struct slo slo[MAX_SLOS];
    int nslo;
    double rate_min, rate_max, step_time, precision;
    int repeats, max_steps, quiet;
    const char *pass[MAX_PASS]; /* the options and words of every run */
    int npass;
    char dir[256];              /* the runs' files, removed at the end */
    struct step steps[MAX_STEPS];
    int nsteps;
};

/* "pNN<Xms" (also s, us): 0, or -1. */
static int parse_slo(const char *s, struct slo *o)
{
    char *e;
    if (s[0] != 'p' || strlen(s) >= sizeof o->text)
        return -1;
    o->pct = strtod(s + 1, &e);
    if (e == s + 1 || *e != '<' || !(o->pct > 0 && o->pct < 100))
        return -1;
    const char *v = e + 1;
    o->limit_ms = strtod(v, &e);
    if (e == v || !isfinite(o->limit_ms) || o->limit_ms <= 0)
        return -1;
    if (strcmp(e, "s") == 0)
        o->limit_ms *= 1000;
    else if (strcmp(e, "us") == 0)
        o->limit_ms /= 1000;
    else if (strcmp(e, "ms") != 0)
        return -1;
    snprintf(o->text, sizeof o->text, "%s", s);
    return 0;
}

static int number_opt(const char *arg, const char *name, double lo, double hi, double *out)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || arg[n] != '=')
        return 0;
    char *e;
    double v = strtod(arg + n + 1, &e);
    if (e == arg + n + 1 || *e || !(v >= lo && v <= hi)) {
        fprintf(stderr, "sbench capacity: invalid value '%.40s' for %s (from %g to %g)\n", arg + n + 1, name, lo, hi);
        return -1;
    }
    *out = v;
    return 1;
}

/* The options capacity sets on every run itself. */
static int reserved(const char *arg)
{
    static const char *const own[] = {"--rate=", "--rate-profile=", "--time=", "--events=", "--report-format=",
                                      "--output=", "--percentiles=", "--clients-profile=", NULL};
    for (int i = 0; own[i]; i++)
        if (strncmp(arg, own[i], strlen(own[i])) == 0)
            return 1;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: sbench capacity --slo='p99<20ms' [--slo=...] --rate-max=R [options] [run options] WORKLOAD\n\n"
               "The highest --rate at which every SLO holds, by steps of repeated runs, with its interval\n"
               "(docs/capacity.md).  Options:\n"
               "  --slo=pNN<X{ms|s|us}   a latency percentile and its limit (repeat for more, up to %d)\n"
               "  --rate-max=R           the highest rate tried (events a second)\n"
               "  --rate-min=R           the first rate tried [rate-max / 64]\n"
               "  --repeats=K            runs of a step, at most [6: each bound wrong with at most 2^-6]\n"
               "  --step-time=S          seconds of each run [5]\n"
               "  --precision=P          stop when the bounds are within P%% [10]\n"
               "  --max-steps=N          steps at most [16]\n"
               "  --quiet                no progress lines on stderr\n"
               "Other options go to every run (not --rate, --time, --events, --report-format, --output,\n"
               "--percentiles, which capacity sets).\n", MAX_SLOS);
}

/* 0, 1 (help printed) or 2 (usage error, said). */
static int parse_args(struct capacity *c, int argc, char **argv)
{
    c->repeats = 6;
    c->step_time = 5;
    c->precision = 10;
    c->max_steps = 16;
    double d;
    int r;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 1;
        }
        if (strncmp(a, "--slo=", 6) == 0) {
            if (c->nslo == MAX_SLOS || parse_slo(a + 6, &c->slo[c->nslo]) != 0) {
                fprintf(stderr, "sbench capacity: invalid --slo '%.60s': pNN<X with a unit ms, s or us, "
                                "e.g. --slo='p99<20ms' (at most %d)\n", a + 6, MAX_SLOS);
                return 2;
            }
            c->nslo++;
        } else if ((r = number_opt(a, "--rate-max", 0.001, 1e8, &c->rate_max)) ||
                   (r = number_opt(a, "--rate-min", 0.001, 1e8, &c->rate_min)) ||
                   (r = number_opt(a, "--step-time", 1, 86400, &c->step_time)) ||
                   (r = number_opt(a, "--precision", 1, 100, &c->precision))) {
            if (r < 0)
                return 2;
        } else if ((r = number_opt(a, "--repeats", 1, MAX_REPEATS, &d)) || (r = number_opt(a, "--max-steps", 1, MAX_STEPS, &d))) {
            if (r < 0)
                return 2;
            *(a[2] == 'r' ? &c->repeats : &c->max_steps) = (int)d;
        } else if (strcmp(a, "--quiet") == 0) {
            c->quiet = 1;
        } else if (reserved(a)) {
            fprintf(stderr, "sbench capacity: %.60s is set by capacity on every run\n", a);
            return 2;
        } else if (c->npass == MAX_PASS) {
            fprintf(stderr, "sbench capacity: too many options\n");
            return 2;
        } else {
            c->pass[c->npass++] = a;
        }
    }
    if (c->nslo == 0 || c->rate_max <= 0) {
        fprintf(stderr, "sbench capacity: --slo and --rate-max are needed (sbench capacity --help)\n");
        return 2;
    }
    if (c->rate_min <= 0)
        c->rate_min = c->rate_max / 64;
    if (c->rate_min > c->rate_max) {
        fprintf(stderr, "sbench capacity: --rate-min is above --rate-max\n");
        return 2;
    }
    return 0;
}

/* The final line of a run's JSON lines: a new reference, or NULL. */
static json_object *final_line(const char *path)
{
    char err[256];
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, sizeof err);
    if (buf == NULL)
        return NULL;
    struct sb_json_lines lines;
    json_object *j, *fin = NULL;
    if (sb_json_lines_init(&lines, buf, len, err, sizeof err) == 0)
        while (sb_json_lines_next(&lines, &j, err, sizeof err) == 1) {
            const char *type = sb_json_str(j, "type");
            if (type && strcmp(type, "final") == 0 && fin == NULL)
                fin = j;
            else
                json_object_put(j);
        }
    free(buf);
    return fin;
}

/* The child of one run, with its threads and the machine watched. */
static int watched_child(char **av, const char *log, struct cmp_child_result *res, struct limits *lim)
{
    static struct cmp_probe probe;
    memset(&probe, 0, sizeof probe);
    struct cmp_cpu_times c1, c2;
    int have = cmp_read_cpu(&c1) == 0;
    if (cmp_run_child(av, log, NULL, res, &probe) != 0)
        return -1;
    have = have && cmp_read_cpu(&c2) == 0;
    struct cmp_probe_result pr;
    cmp_probe_result(&probe, &pr);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    *lim = (struct limits){
        .busiest_cpu = pr.busiest_cpu, .busiest_delay = pr.busiest_delay, .mean_delay = pr.mean_delay,
        .machine = have ? cmp_busy_share(&c1, &c2) : 0,
        .steal = have && c2.total > c1.total ? (double)(c2.steal - c1.steal) / (double)(c2.total - c1.total) : 0,
        .client_share = res->wall_s > 0 && cpus > 0 ? res->cpu_s / (res->wall_s * (double)cpus) : 0,
        .have = pr.threads > 0 && have,
    };
    return 0;
}

/* One run at rate: its percentiles into p, 1 when it met every SLO, 0
 * when not, -1 when it failed (said). */
static int one_run(struct capacity *c, double rate, double *p, double *tps, double *cpu, struct limits *lim)
{
    char *av[MAX_PASS + 16], r[64], t[64], out[320], err[320], pct[256] = "--percentiles=";
    int n = 0;
    av[n++] = "/proc/self/exe";
    for (int i = 0; i < c->npass; i++)
        av[n++] = (char *)c->pass[i];
    snprintf(r, sizeof r, "--rate=%.6g", rate);
    snprintf(t, sizeof t, "--time=%.0f", c->step_time);
    snprintf(out, sizeof out, "--output=%s/run.json", c->dir);
    for (int i = 0; i < c->nslo; i++)
        snprintf(pct + strlen(pct), sizeof pct - strlen(pct), "%s%g", i ? "," : "", c->slo[i].pct);
    av[n++] = r;
    av[n++] = t;
    av[n++] = out;
    av[n++] = pct;
    av[n++] = "--report-format=json";
    av[n++] = "run";
    av[n] = NULL;
    char log[320];
    snprintf(log, sizeof log, "%s/run.log", c->dir);
    snprintf(err, sizeof err, "%s/run.json", c->dir);
    unlink(err);
    struct cmp_child_result res;
    if (watched_child(av, log, &res, lim) != 0) {
        fprintf(stderr, "sbench capacity: cannot start a run: %s\n", strerror(errno));
        return -1;
    }
    if (interrupted)
        return -1; /* run_step says it */
    json_object *fin = final_line(err);
    size_t len;
    char *text = sb_read_file(log, SB_READ_LINE_MAX, &len, err, sizeof err);
    int queue_full = text && strstr(text, "The event queue is full") != NULL;
    free(text);
    if (fin == NULL || (res.status != 0 && !queue_full)) {
        fprintf(stderr, "sbench capacity: a run at --rate=%.6g failed (exit status %d; its output: %s/run.log)\n",
                rate, res.status, c->dir);
        if (fin)
            json_object_put(fin);
        return -1;
    }
    *tps = sb_json_num(fin, "tps");
    *cpu = res.wall_s > 0 ? res.cpu_s / res.wall_s : 0;
    int met = !queue_full;
    json_object *pcts = sb_json_at(fin, "latency_ms.percentiles");
    for (int i = 0; i < c->nslo; i++) {
        char key[64]; /* as the report spells it: 99, 99.9 */
        snprintf(key, sizeof key, "%g", c->slo[i].pct);
        json_object *v = pcts ? sb_json_member(pcts, key) : NULL;
        p[i] = v ? sb_json_num_of(v) : INFINITY;
        met &= p[i] < c->slo[i].limit_ms;
    }
    json_object_put(fin);
    return met;
}

/* A step at rate: runs until they disagree or --repeats all agree. */
static int run_step(struct capacity *c, double rate)
{
    struct step *s = &c->steps[c->nsteps++];
    memset(s, 0, sizeof *s);
    s->rate = rate;
    while (s->runs < c->repeats && !interrupted) {
        int m = one_run(c, rate, s->p[s->runs], &s->tps[s->runs], &s->cpu[s->runs], &s->lim[s->runs]);
        if (m < 0 && !interrupted)
            return -1;
        if (m < 0)
            break;
        s->runs++;
        s->met += m;
        if (s->met > 0 && s->met < s->runs)
            break; /* mixed: near the capacity */
    }
    if (interrupted) {
        fprintf(stderr, "sbench capacity: interrupted\n");
        return -1;
    }
    s->v = s->met == s->runs ? MEETS : s->met == 0 ? MISSES : MIXED;
    if (!c->quiet)
        fprintf(stderr, "capacity: step %d at %.6g/s: %d of %d runs met the SLO%s\n", c->nsteps, rate, s->met,
                s->runs, c->nslo > 1 ? "s" : "");
    return 0;
}

/* ---- the search ---- */

/* The highest rate that met (0: none) and the lowest that missed (0:
 * none). */
static void bounds(const struct capacity *c, double *lo, double *hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < c->nsteps; i++) {
        const struct step *s = &c->steps[i];
        if (s->v == MEETS && s->rate > *lo)
            *lo = s->rate;
        if (s->v == MISSES && (*hi == 0 || s->rate < *hi))
            *hi = s->rate;
    }
}

static int by_rate(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The geometric middle of the widest gap (by ratio) between the bounds
 * and the mixed rates between them; 0 when every gap is within
 * --precision. */
static double next_rate(const struct capacity *c, double lo, double hi)
{
    double pts[MAX_STEPS + 2];
    int n = 0;
    pts[n++] = lo;
    for (int i = 0; i < c->nsteps; i++)
        if (c->steps[i].v == MIXED && c->steps[i].rate > lo && c->steps[i].rate < hi)
            pts[n++] = c->steps[i].rate;
    pts[n++] = hi;
    qsort(pts, (size_t)n, sizeof pts[0], by_rate);
    double best = 1 + c->precision / 100, at = 0;
    for (int i = 0; i + 1 < n; i++)
        if (pts[i + 1] / pts[i] > best) {
            best = pts[i + 1] / pts[i];
            at = sqrt(pts[i] * pts[i + 1]);
        }
    return at;
}

/* Doubling from --rate-min until a step misses or --rate-max, then the
 * gaps cut.  0, or -1 (said). */
static int search(struct capacity *c)
{
    double r = c->rate_min;
    for (;;) {
        if (run_step(c, r) != 0)
            return -1;
        enum verdict v = c->steps[c->nsteps - 1].v;
        if (v == MISSES || r >= c->rate_max || c->nsteps == c->max_steps)
            break;
        r = r * 2 < c->rate_max ? r * 2 : c->rate_max;
    }
    double lo, hi;
    bounds(c, &lo, &hi);
    while (lo > 0 && hi > 0 && c->nsteps < c->max_steps && (r = next_rate(c, lo, hi)) > 0) {
        if (run_step(c, r) != 0)
            return -1;
        bounds(c, &lo, &hi);
    }
    return 0;
}

/* ---- the report ---- */

static void print_steps(const struct capacity *c)
{
    printf("%-5s %12s %5s %5s", "step", "rate/s", "runs", "met");
    for (int k = 0; k < c->nslo; k++)
        printf(" %14s", c->slo[k].text);
    printf(" %12s %10s  %s\n", "tps", "client CPU", "verdict");
    for (int i = 0; i < c->nsteps; i++) {
        const struct step *s = &c->steps[i];
        double col[MAX_REPEATS];
        printf("%-5d %12.6g %5d %5d", i + 1, s->rate, s->runs, s->met);
        for (int k = 0; k < c->nslo; k++) {
            for (int j = 0; j < s->runs; j++)
                col[j] = s->p[j][k];
            printf(" %11.3f ms", cmp_median(col, s->runs));
        }
        printf(" %12.2f %10.2f  %s\n", cmp_median(s->tps, s->runs), cmp_median(s->cpu, s->runs),
               s->v == MEETS ? "meets" : s->v == MISSES ? "misses" : "mixed");
    }
    printf("(latency and tps: medians of the step's runs; client CPU: CPU seconds a second of the sbench run)\n");
}

static void print_answer(const struct capacity *c)
{
    double lo, hi;
    bounds(c, &lo, &hi);
    double level = 100 * (1 - 2 * pow(0.5, c->repeats));
    printf("\n");
    if (lo == 0 && hi > 0 && hi <= c->rate_min) {
        printf("Capacity: no rate meets the SLO: every run at --rate-min=%.6g/s missed it\n", c->rate_min);
    } else if (hi == 0) {
        printf("Capacity: not reached within the search range: ");
        if (lo >= c->rate_max)
            printf("every SLO holds at --rate-max=%.6g/s\n", c->rate_max);
        else
            printf("no rate up to --rate-max=%.6g/s missed the SLO in all its runs (highest met: %.6g/s)\n",
                   c->rate_max, lo);
    } else if (lo == 0) {
        printf("Capacity: below %.6g/s, not bracketed: no rate from --rate-min=%.6g/s met the SLO in all its "
               "runs\n", hi, c->rate_min);
    } else {
        printf("Capacity: %.6g/s (%.1f%% interval %.6g to %.6g/s): every SLO held in all %d runs at %.6g/s "
               "and in none at %.6g/s\n", sqrt(lo * hi), level, lo, hi, c->repeats, lo, hi);
    }
    if (c->repeats < 6)
        printf("(with %d runs a step each bound is wrong with probability up to %.1f%%: 6 runs reach 95%%)\n",
               c->repeats, 100 * pow(0.5, c->repeats));
}

/* What limited the runs where the SLOs stopped holding (the lowest step
 * that missed, else the highest mixed one): compare's bottleneck rules
 * (compare_bottleneck.c) on their figures. */
static void print_limit(const struct capacity *c)
{
    const struct step *at = NULL;
    for (int i = 0; i < c->nsteps; i++) {
        const struct step *s = &c->steps[i];
        if (s->v == MISSES && (!at || at->v != MISSES || s->rate < at->rate))
            at = s;
        else if (s->v == MIXED && (!at || (at->v == MIXED && s->rate > at->rate)))
            at = s;
    }
    if (at == NULL)
        return;
    json_object *runs = json_object_new_array(), *warnings = json_object_new_array();
    for (int j = 0; j < at->runs; j++) {
        const struct limits *l = &at->lim[j];
        if (!l->have)
            continue;
        json_object *r = json_object_new_object(), *rec = json_object_new_object();
        json_object_object_add(r, "workload", json_object_new_string("capacity"));
        json_object_object_add(r, "threads", json_object_new_int(0));
        json_object_object_add(r, "target", json_object_new_string("capacity"));
        json_object_object_add(rec, "client_busiest_thread_cpu_share", json_object_new_double(l->busiest_cpu));
        json_object_object_add(rec, "client_busiest_thread_delay_share", json_object_new_double(l->busiest_delay));
        json_object_object_add(rec, "client_mean_run_delay_share", json_object_new_double(l->mean_delay));
        json_object_object_add(rec, "machine_busy_share", json_object_new_double(l->machine));
        json_object_object_add(rec, "machine_steal_share", json_object_new_double(l->steal));
        json_object_object_add(rec, "client_cpu_share", json_object_new_double(l->client_share));
        json_object_object_add(r, "record", rec);
        json_object_array_add(runs, r);
    }
    json_object *b = cmp_bottleneck(runs, "capacity", 0, "capacity", (int)sysconf(_SC_NPROCESSORS_ONLN), warnings);
    const char *text = b ? sb_json_str(b, "text") : NULL;
    printf("What limited it (the runs at %.6g/s, compare's bottleneck rules): %s\n", at->rate,
           text ? text : b ? "no single part shown to be the limit (client, server or machine)"
                           : "not measured (the client's threads could not be followed)");
    if (b)
        json_object_put(b);
    json_object_put(runs);
    json_object_put(warnings);
}

int sb_capacity_main(int argc, char **argv)
{
    static struct capacity c;
    int rc = parse_args(&c, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    const char *tmp = getenv("TMPDIR");
    snprintf(c.dir, sizeof c.dir, "%s/sbench-capacity.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(c.dir) == NULL) {
        fprintf(stderr, "sbench capacity: cannot create a directory for the runs: %s\n", strerror(errno));
        return 1;
    }
    catch_signals();
    printf("sbench capacity: ");
    for (int k = 0; k < c.nslo; k++)
        printf("%s%s", k ? ", " : "", c.slo[k].text);
    printf("; rates %.6g to %.6g/s, up to %d runs of %g s a step\n\n", c.rate_min, c.rate_max, c.repeats,
           c.step_time);
    rc = search(&c);
    if (rc == 0) {
        print_steps(&c);
        print_answer(&c);
        print_limit(&c);
    }
    char f[400];
    snprintf(f, sizeof f, "%s/run.json", c.dir);
    unlink(f);
    if (rc == 0) { /* a failed run's log stays, its path said */
        snprintf(f, sizeof f, "%s/run.log", c.dir);
        unlink(f);
        rmdir(c.dir);
    }
    return rc == 0 ? 0 : 1;
}
