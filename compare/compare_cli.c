/*
 * compare_cli.c: the command lines of `sbench compare` and `sbench report`
 * and the order of their steps (spec, runs, summary, reports).
 *
 *   sbench compare FILE.lua [compare options] [options of every run]
 *   sbench compare --target=NAME:OPTIONS... [compare options] [options of
 *                  every run] WORKLOAD [options of the workload]
 *   sbench report DIR [--baseline=NAME] [--fail-slower=PCT] [--html=F] [--json=F]
 *
 * Options compare does not know are passed to every run (before the
 * workload word) or to the workload (after it).  Exit status: 0 done, 1 a
 * failure or an interruption, 2 a usage error, 3 the regression gate
 * (--fail-slower) found a target slower than the baseline.
 */
#include "compare.h"
#include "compare_seq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_REGRESSION 3

struct copt {
    const char *name, *arg, *help;
};

static const struct copt compare_opts[] = {
    {"target", "NAME:OPTIONS", "a target: a name and the sbench options of its runs, e.g. "
                               "--target='pg:--db-driver=pgsql --pgsql-host=127.0.0.1'; NAME:@DIR/TARGET "
                               "takes the runs of TARGET saved in results directory DIR (a baseline); repeat "
                               "for each target"},
    {"threads", "LIST", "thread counts to sweep, e.g. 1,2,4,8 [file's threads, else 1]"},
    {"time", "S", "seconds of each run [file's time, else 10]"},
    {"events", "N", "events of each run, instead of or besides --time [0]"},
    {"warmup-time", "S", "seconds of warm-up before each run is measured [file's warmup, else 2]"},
    {"repeats", "N|auto[:MAX]", "runs of each point per target [file's repeats, else 5; at least 4 to show a "
                                "difference]; auto: each point stops when its verdicts are settled or its "
                                "intervals narrower than --auto-width, at most MAX [20] (5% error rate over "
                                "all looks, see docs/compare.md)"},
    {"auto-width", "PCT", "--repeats=auto: a point is settled when the interval of each difference is narrower "
                          "than PCT% [5]"},
    {"prepare", "on|off", "off: the targets' tables exist already (no cleanup and prepare before the runs) [on]"},
    {"results", "DIR", "results directory: the runs, the summary and the report; an interrupted comparison "
                       "resumes there [FILE-results, or compare-results]"},
    {"title", "TEXT", "title of the report"},
    {"baseline", "NAME", "the target the regression gate compares the others with [the first]"},
    {"fail-slower", "PCT", "exit with status 3 when a target is slower than the baseline by more than PCT%, "
                           "with 95% confidence (for CI pipelines) [off]"},
    {"html", "FILE", "the HTML report [DIR/report.html]"},
    {"json", "FILE", "the JSON summary [DIR/summary.json]"},
    {"quiet", NULL, "no progress lines on stderr"},
    {"help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: sbench compare FILE.lua [options]\n"
               "       sbench compare --target=NAME:OPTIONS --target=... [options] WORKLOAD [workload options]\n"
               "       sbench report DIR [--baseline=NAME] [--fail-slower=PCT] [--html=FILE] [--json=FILE]\n\n"
               "Runs a workload on several targets (databases, settings, poolers) at each thread count, "
               "repeatedly and interleaved,\nand reports the medians, latency percentiles and verdicts with 95%% "
               "confidence (markdown on stdout, DIR/summary.json,\nDIR/report.html). FILE.lua describes the "
               "comparison (see docs/compare.md); 'report' redraws a results directory.\n"
               "Options compare does not know go to every run (after WORKLOAD: to the workload).\n\n"
               "Options:\n");
    for (const struct copt *o = compare_opts; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
        fprintf(f, "  %-26s %s\n", left, o->help);
    }
    fprintf(f, "\nExit status: 0 done, 1 a run or check failed (or interrupted: run it again to resume), "
               "2 bad usage, 3 --fail-slower found a regression.\n");
}

struct cli {
    struct cmp_spec spec;
    struct cmp_request req;
    const char *words[4];
    int nwords;
    struct cmp_strv run_opts, wl_opts, targets;
    const char *threads, *file_results;
    long time, events, warmup, repeats;
    int have_time, have_events, have_warmup, have_repeats;
    int repeats_auto, have_width;
    double auto_width;
    const char *title;
    int no_prepare;
    char results_buf[4096], html_buf[4200], json_buf[4200], command[16384];
};

static int parse_long(const char *name, const char *v, long lo, long hi, long *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) {
        snprintf(err, errlen, "invalid value '%.40s' for --%s: a whole number in %ld..%ld", v, name, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* One --name=value of compare's own; 1 when it is not compare's. */
static int own_option(struct cli *c, const char *name, const char *v, char *err, size_t errlen)
{
    if (!strcmp(name, "target"))
        return cmp_strv_push(&c->targets, v) ? -1 : 0;
    if (!strcmp(name, "threads"))
        return c->threads = v, 0;
    if (!strcmp(name, "time"))
        return c->have_time = 1, parse_long(name, v, 0, 100000000, &c->time, err, errlen);
    if (!strcmp(name, "events"))
        return c->have_events = 1, parse_long(name, v, 0, 1000000000000L, &c->events, err, errlen);
    if (!strcmp(name, "warmup-time") || !strcmp(name, "warmup_time"))
        return c->have_warmup = 1, parse_long(name, v, 0, 100000000, &c->warmup, err, errlen);
    if (!strcmp(name, "repeats") && !strncmp(v, "auto", 4)) {
        c->have_repeats = c->repeats_auto = 1;
        c->repeats = CMP_AUTO_MAX_DEFAULT;
        if (v[4] == 0)
            return 0;
        if (v[4] == ':' && parse_long(name, v + 5, 4, CMP_MAX_REPEATS, &c->repeats, err, errlen) == 0)
            return 0;
        snprintf(err, errlen, "invalid value '%.40s' for --repeats: N, auto or auto:MAX (MAX in 4..%d)", v,
                 CMP_MAX_REPEATS);
        return -1;
    }
    if (!strcmp(name, "repeats"))
        return c->have_repeats = 1, c->repeats_auto = 0,
               parse_long(name, v, 1, CMP_MAX_REPEATS, &c->repeats, err, errlen);
    if (!strcmp(name, "auto-width")) {
        char *end;
        errno = 0;
        c->auto_width = strtod(v, &end);
        if (end == v || *end || errno || !(c->auto_width > 0 && c->auto_width <= 1000)) {
            snprintf(err, errlen, "invalid value '%.40s' for --auto-width: a percentage above 0, at most 1000", v);
            return -1;
        }
        return c->have_width = 1, 0;
    }
    if (!strcmp(name, "results"))
        return c->req.results = v, 0;
    if (!strcmp(name, "title"))
        return c->title = v, 0;
    if (!strcmp(name, "baseline"))
        return c->req.baseline = v, 0;
    if (!strcmp(name, "html"))
        return c->req.html = v, 0;
    if (!strcmp(name, "json"))
        return c->req.json = v, 0;
    if (!strcmp(name, "prepare")) {
        if (strcmp(v, "on") && strcmp(v, "off")) {
            snprintf(err, errlen, "invalid value '%.40s' for --prepare: on or off", v);
            return -1;
        }
        c->no_prepare = strcmp(v, "off") == 0;
        return 0;
    }
    if (!strcmp(name, "quiet"))
        return c->req.quiet = 1, 0;
    if (!strcmp(name, "fail-slower") || !strcmp(name, "fail_slower")) {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end || !(x >= 0 && x < 100)) {
            snprintf(err, errlen, "invalid value '%.40s' for --fail-slower: a percentage in [0, 100)", v);
            return -1;
        }
        c->req.fail_slower = x;
        return 0;
    }
    return 1;
}

/* Splits argv: compare's options, the words, and the options passed on
 * (before the first word: every run; after it: the workload).  Returns 0,
 * 1 for --help, or -1 with err. */
static int parse_args(struct cli *c, int argc, char **argv, int report, char *err, size_t errlen)
{
    size_t used = (size_t)snprintf(c->command, sizeof c->command, "sbench %s", argv[0]);
    for (int i = 1; i < argc; i++) {
        char m[4400];
        const char *q = strchr(argv[i], ' ') ? "'" : ""; /* as a shell would need it */
        if (used < sizeof c->command)
            used += (size_t)snprintf(c->command + used, sizeof c->command - used, " %s%s%s", q,
                                     cmp_mask_option(argv[i], m, sizeof m), q);
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return 1;
        if (strncmp(a, "--", 2) == 0 && a[2]) {
            const char *eq = strchr(a, '=');
            char name[130];
            size_t nlen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            snprintf(name, sizeof name, "%.*s", (int)(nlen < 128 ? nlen : 128), a + 2);
            int rc = own_option(c, name, eq ? eq + 1 : "on", err, errlen);
            if (rc < 0)
                return -1;
            if (rc == 0) {
                if (!eq && strcmp(name, "quiet") != 0) {
                    snprintf(err, errlen, "--%s needs a value (--%s=...)", name, name);
                    return -1;
                }
                continue;
            }
            if (report) {
                snprintf(err, errlen, "unknown option '--%s' for sbench report (see sbench report --help)", name);
                return -1;
            }
            if (cmp_strv_push(c->nwords ? &c->wl_opts : &c->run_opts, a) != 0)
                return -1;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            snprintf(err, errlen, "invalid option '%.*s': options look like --name=value", (int)strcspn(a, "="), a);
            return -1;
        }
        if (c->nwords == 4) {
            snprintf(err, errlen, "too many words: '%.60s'", a);
            return -1;
        }
        c->words[c->nwords++] = a;
    }
    return 0;
}

/* The spec from the file or the --target shorthand, with the command
 * line's settings over the file's. */
static int build_spec(struct cli *c, char *err, size_t errlen)
{
    struct cmp_spec *s = &c->spec;
    s->time = 10;
    s->warmup = 2;
    s->repeats = 5;
    if (c->targets.n == 0) {
        if (c->nwords != 1) {
            snprintf(err, errlen, c->nwords ? "one comparison file, not %d words (or give --target=... and a WORKLOAD)"
                                            : "missing comparison file or --target=... (see sbench compare --help)",
                     c->nwords);
            return -1;
        }
        if (access(c->words[0], R_OK) != 0) {
            snprintf(err, errlen, "comparison file '%.200s' cannot be read: %s", c->words[0], strerror(errno));
            return -1;
        }
        if (cmp_spec_load_lua(s, c->words[0], err, errlen) != 0)
            return -1;
        for (int i = 0; i < c->wl_opts.n; i++)
            if (cmp_strv_push(&c->run_opts, c->wl_opts.v[i]) != 0)
                return -1;
        if (c->req.results == NULL) {
            const char *b = strrchr(c->words[0], '/');
            b = b ? b + 1 : c->words[0];
            size_t len = strlen(b);
            if (len > 4 && strcmp(b + len - 4, ".lua") == 0)
                len -= 4;
            snprintf(c->results_buf, sizeof c->results_buf, "%.*s-results", (int)len, b);
            c->req.results = c->results_buf;
        }
    } else {
        if (c->nwords != 1) {
            snprintf(err, errlen, c->nwords ? "one WORKLOAD after the --target options, not %d words"
                                            : "missing WORKLOAD (e.g. oltp_read_only) after the --target options",
                     c->nwords);
            return -1;
        }
        for (int i = 0; i < c->targets.n; i++)
            if (cmp_spec_add_target(s, c->targets.v[i], err, errlen) != 0)
                return -1;
        struct cmp_workload *w = &s->workloads[s->nworkloads++];
        w->name = strdup(c->words[0]);
        for (int i = 0; i < c->wl_opts.n; i++)
            if (cmp_strv_push(&w->opts, c->wl_opts.v[i]) != 0)
                return -1;
        if (c->req.results == NULL)
            c->req.results = "compare-results";
    }
    for (int i = 0; i < c->run_opts.n; i++)
        if (cmp_strv_push(&s->opts, c->run_opts.v[i]) != 0)
            return -1;
    if (c->threads && cmp_spec_set_threads(s, c->threads, err, errlen) != 0)
        return -1;
    if (s->nthreads == 0)
        cmp_spec_set_threads(s, "1", err, errlen);
    if (c->have_time)
        s->time = c->time;
    if (c->have_events)
        s->events = c->events;
    if (c->have_warmup)
        s->warmup = c->warmup;
    if (c->have_repeats)
        s->repeats = (int)c->repeats;
    if (c->have_repeats)
        s->repeats_auto = c->repeats_auto;
    if (c->have_width)
        s->auto_width = c->auto_width;
    else if (s->auto_width <= 0)
        s->auto_width = CMP_AUTO_WIDTH_DEFAULT;
    if (c->have_width && !s->repeats_auto) {
        snprintf(err, errlen, "--auto-width needs --repeats=auto");
        return -1;
    }
    for (int i = 0; s->repeats_auto && i < s->ntargets; i++)
        if (s->targets[i].from_dir) {
            snprintf(err, errlen, "--repeats=auto cannot compare with a saved target ('%s'): its repeats are "
                                  "fixed; give --repeats=N", s->targets[i].name);
            return -1;
        }
    for (int i = 0; c->no_prepare && i < s->ntargets; i++)
        s->targets[i].prepare = 0;
    if (c->title) {
        free(s->title);
        s->title = strdup(c->title);
    }
    return cmp_spec_check(s, err, errlen);
}

/* Loads the runs, writes summary.json and the HTML report, prints the
 * markdown.  Returns the exit status. */
static int report(struct cli *c, const json_object *spec_json)
{
    char err[1024];
    struct cmp_request *req = &c->req;
    json_object *loaded = cmp_load_runs(&c->spec, req->results, err, sizeof err);
    if (loaded == NULL) {
        fprintf(stderr, "compare: %s\n", err);
        return 1;
    }
    json_object *sum = cmp_summary(&c->spec, spec_json, loaded, req, err, sizeof err);
    json_object_put(loaded);
    if (sum == NULL) {
        fprintf(stderr, "compare: %s\n", err);
        return 1;
    }
    if (req->json == NULL) {
        snprintf(c->json_buf, sizeof c->json_buf, "%s/summary.json", req->results);
        req->json = c->json_buf;
    }
    if (req->html == NULL) {
        snprintf(c->html_buf, sizeof c->html_buf, "%s/report.html", req->results);
        req->html = c->html_buf;
    }
    int rc = 0;
    char charts[4300];
    if (cmp_write_json(req->json, sum, err, sizeof err) != 0) {
        fprintf(stderr, "compare: %s\n", err);
        rc = 1;
    }
    snprintf(charts, sizeof charts, "%s/charts", req->results);
    if (cmp_html_report(sum, req->html, charts, err, sizeof err) != 0) {
        fprintf(stderr, "compare: %s\n", err);
        rc = 1;
    }
    cmp_text_report(sum, stdout);
    printf("Report: %s  Summary: %s\n", req->html, req->json);
    const char *gate = sb_json_str(sb_json_member(sum, "regression"), "status");
    if (rc == 0 && gate && strcmp(gate, "fail") == 0)
        rc = EXIT_REGRESSION;
    json_object_put(sum);
    return rc;
}

static void cli_free(struct cli *c)
{
    cmp_spec_free(&c->spec);
    cmp_strv_free(&c->run_opts);
    cmp_strv_free(&c->wl_opts);
    cmp_strv_free(&c->targets);
}

int sb_compare_main(int argc, char **argv)
{
    static struct cli c;
    char err[1024] = "";
    c.req.fail_slower = -1;
    int rc = parse_args(&c, argc, argv, 0, err, sizeof err);
    if (rc == 1) {
        usage(stdout);
        cli_free(&c);
        return 0;
    }
    if (rc != 0 || build_spec(&c, err, sizeof err) != 0) {
        fprintf(stderr, "sbench compare: %s\n", err[0] ? err : "out of memory");
        cli_free(&c);
        return 2;
    }
    if (c.req.baseline && cmp_spec_target(&c.spec, c.req.baseline) < 0) {
        fprintf(stderr, "sbench compare: unknown target '%s' for --baseline\n", c.req.baseline);
        cli_free(&c);
        return 2;
    }
    c.req.command = c.command;
    rc = cmp_execute(&c.spec, &c.req);
    if (rc == 0) {
        json_object *sj = cmp_spec_to_json(&c.spec);
        rc = report(&c, sj);
        json_object_put(sj);
    }
    cli_free(&c);
    return rc;
}

int sb_report_main(int argc, char **argv)
{
    static struct cli c;
    char err[1024] = "";
    c.req.fail_slower = -1;
    int rc = parse_args(&c, argc, argv, 1, err, sizeof err);
    if (rc == 1) {
        usage(stdout);
        return 0;
    }
    if (rc == 0 && c.nwords != 1)
        snprintf(err, sizeof err, "sbench report needs one results directory (sbench report DIR)");
    if (rc != 0 || c.nwords != 1) {
        fprintf(stderr, "sbench report: %s\n", err);
        cli_free(&c);
        return 2;
    }
    c.req.results = c.words[0];
    char path[4200];
    snprintf(path, sizeof path, "%s/comparison.json", c.req.results);
    json_object *sj = sb_json_load_file(path, err, sizeof err);
    if (sj == NULL || cmp_spec_from_json(&c.spec, sj, err, sizeof err) != 0 ||
        cmp_spec_check(&c.spec, err, sizeof err) != 0) {
        fprintf(stderr, "sbench report: %s is not a results directory of sbench compare (%s: %s)\n", c.req.results,
                path, err);
        json_object_put(sj);
        cli_free(&c);
        return 1;
    }
    if (c.req.baseline && cmp_spec_target(&c.spec, c.req.baseline) < 0) {
        fprintf(stderr, "sbench report: unknown target '%s' for --baseline\n", c.req.baseline);
        json_object_put(sj);
        cli_free(&c);
        return 2;
    }
    json_object_object_del(sj, "source");
    json_object_object_del(sj, "command");
    rc = report(&c, sj);
    json_object_put(sj);
    cli_free(&c);
    return rc;
}
