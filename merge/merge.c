/*
 * merge.c: the `sbench merge` command (see merge.h): its options, the
 * inputs (files, or every *.json and *.hlog of a directory, told apart by
 * their first bytes), and the checks that they belong together: one run
 * id and group size, one shard per index, the options that must agree
 * (core/shard.c), a log for every report and a report for every log, no
 * shard missing unless --allow-missing.  Then merge_sum.c adds them up and
 * merge_out.c writes the reports.
 */
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge_shard.h"
#include "../lib/options.h"
#include "../results/readfile.h"

struct input {
    char *path;
    int is_hlog;
    int index, count;                /* hlogs: from their comment */
    char run_id[SB_RUN_ID_MAX + 1], settings[17];
};

struct inputs {
    struct input *v;
    int n, cap;
};

int sb_merge_is_command(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            return strcmp(argv[i], "merge") == 0;
    return 0;
}

static void add_options(struct sb_options *o)
{
    static struct sb_report_format_names fmt;
    static char help[256];
    sb_report_format_names(&fmt);
    snprintf(help, sizeof help, "format of the merged report; %s go%s to --output or stdout", fmt.files,
             fmt.plural ? "" : "es");
#define ADD(name, kind, def, help, ch) sb_options_add(o, name, kind, SB_SRC_CORE, def, help, ch, 0, 0)
    ADD("report-format", SB_OPT_STRING, sb_report_formats[0]->name, help, fmt.choices);
    ADD("output", SB_OPT_STRING, NULL, "write the merged report in --report-format to this file "
        "(written whole at the end)", NULL);
    ADD("hdr-log", SB_OPT_STRING, NULL, "write the merged windows' latency histograms to this "
        "HdrHistogram interval log", NULL);
    ADD("percentile", SB_OPT_NUMBER, NULL, "latency percentile of the window lines (default: the shards')", NULL);
    ADD("percentiles", SB_OPT_LIST, NULL, "percentiles of the final report (default: the shards')", NULL);
    ADD("histogram", SB_OPT_BOOL, "off", "print the merged latency histogram", NULL);
    ADD("allow-missing", SB_OPT_BOOL, "off", "merge the shards that are there when some are missing "
        "(every output says which)", NULL);
    ADD("history", SB_OPT_STRING, NULL, "the run history the merged set is recorded in (sbench run --help), or off", NULL);
    ADD("label", SB_OPT_STRING, NULL, "KEY=VALUE recorded with the merged set in the history (repeatable)", NULL);
    ADD("help", SB_OPT_BOOL, "off", "print this help and exit", NULL);
#undef ADD
}

static void usage(const struct sb_options *o)
{
    printf("Usage: sbench merge [options] FILES|DIR...\n\n"
           "The report of a run made of shards (sbench run with --shard=I/N or under a launcher): "
           "reads each\nshard's final JSON report (--report-format=json --output) and HdrHistogram "
           "log (--hdr-log), given\nas files or as directories (their *.json and *.hlog files), "
           "checks that they are one run's,\nand adds them up: counts summed, latency histograms "
           "added bucket for bucket, windows lined\nup on the wall clock, and a table of the shards.\n\n"
           "Options:\n");
    sb_options_print_help(o, SB_SRC_CORE, stdout);
}

/* ---- the inputs ---- */

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n > k && strcmp(s + n - k, suf) == 0;
}

/* 1 JSON report, 2 HdrHistogram log, 0 neither, -1 unreadable (err). */
static int sniff(const char *path, char *err, size_t errlen)
{
    char msg[200];
    int fd = sb_open_regular(path, msg, sizeof msg); /* no FIFO, device or directory */
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        return -1;
    }
    char head[2] = {0, 0};
    ssize_t n = read(fd, head, 2);
    close(fd);
    if (n >= 1 && head[0] == '{')
        return 1;
    if (n == 2 && head[0] == '#' && head[1] == '[')
        return 2;
    return 0;
}

static int add_input(struct inputs *in, const char *path, char *err, size_t errlen)
{
    int kind = sniff(path, err, errlen);
    if (kind < 0)
        return -1;
    if (kind == 0) {
        snprintf(err, errlen, "%s: neither an sbench JSON report nor an HdrHistogram log%s", path,
                 has_suffix(path, ".json") || has_suffix(path, ".hlog") ? " (empty or corrupt)" : "");
        return -1;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? in->cap * 2 : 64;
        struct input *v = realloc(in->v, (size_t)cap * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        in->v = v;
        in->cap = cap;
    }
    struct input *x = &in->v[in->n];
    memset(x, 0, sizeof *x);
    if ((x->path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    in->n++;
    x->is_hlog = kind == 2;
    if (x->is_hlog)
        return mg_hlog_identity(path, &x->index, &x->count, x->run_id, sizeof x->run_id, x->settings,
                                sizeof x->settings, err, errlen);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's *.json and *.hlog files, in name order (a shard's
 * unfinished FILE.tmp is not one of them). */
static int add_dir(struct inputs *in, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot read the directory: %s", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    int n = 0, cap = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !(has_suffix(e->d_name, ".json") || has_suffix(e->d_name, ".hlog")))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) == NULL) {
            rc = -1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (rc)
        snprintf(err, errlen, "out of memory");
    if (names)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n && rc == 0; i++)
        rc = add_input(in, names[i], err, errlen);
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "%s: no *.json or *.hlog file in the directory", dir);
        rc = -1;
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int collect(struct inputs *in, const char *const *words, int nwords, char *err, size_t errlen)
{
    for (int i = 0; i < nwords; i++) {
        struct stat st;
        if (stat(words[i], &st) != 0) {
            snprintf(err, errlen, "%s: %s", words[i], strerror(errno));
            return -1;
        }
        int rc = S_ISDIR(st.st_mode) ? add_dir(in, words[i], err, errlen)
                                     : add_input(in, words[i], err, errlen);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- belonging together ---- */

/* The first option that must agree and differs between a and b. */
static int options_agree(const struct mg_shard *a, const struct mg_shard *b, char *err, size_t errlen)
{
    const struct mg_shard *pair[2] = {a, b};
    for (int side = 0; side < 2; side++) {
        json_object_object_foreach(pair[side]->options, key, v) {
            (void)v;
            if (!sb_shard_option_must_agree(key))
                continue;
            const char *va = sb_json_str(a->options, key), *vb = sb_json_str(b->options, key);
            if (va && vb && strcmp(va, vb) == 0)
                continue;
            snprintf(err, errlen, "shard %d (%s) has --%s=%.60s, shard %d (%s) --%s=%.60s: the shards "
                     "of one run must agree", b->index, b->json_path, key, vb ? vb : "(unset)",
                     a->index, a->json_path, key, va ? va : "(unset)");
            return -1;
        }
    }
    static const char *const meta[] = {"workload", "sbench_version", NULL};
    for (int i = 0; meta[i]; i++) {
        const char *va = sb_json_str(a->run, meta[i]), *vb = sb_json_str(b->run, meta[i]);
        if (!va || !vb || strcmp(va, vb) != 0) {
            snprintf(err, errlen, "shard %d (%s) ran %s '%.60s', shard %d (%s) '%.60s': not one run",
                     b->index, b->json_path, meta[i], vb ? vb : "", a->index, a->json_path, va ? va : "");
            return -1;
        }
    }
    if (!mg_sections_equal(&a->sections, &b->sections)) {
        snprintf(err, errlen, "shard %d (%s) and shard %d (%s) declare different report sections: not one run",
                 b->index, b->json_path, a->index, a->json_path);
        return -1;
    }
    if (strcmp(a->settings, b->settings) != 0) {
        snprintf(err, errlen, "shard %d (%s) and shard %d (%s) have different settings digests: not one run",
                 b->index, b->json_path, a->index, a->json_path);
        return -1;
    }
    return 0;
}

static int same_run(const char *path, const char *id, int count, const struct mg_shard *first,
                    char *err, size_t errlen)
{
    if (strcmp(id, first->run_id) != 0) {
        snprintf(err, errlen, "%s is from run %s, %s from run %s: inputs of different runs", path, id,
                 first->json_path, first->run_id);
        return -1;
    }
    if (count != first->count) {
        snprintf(err, errlen, "%s is a shard of %d, %s of %d: not one run", path, count,
                 first->json_path, first->count);
        return -1;
    }
    return 0;
}

/* Pairs each shard's HdrHistogram log among the inputs with its report
 * (logs[index]) and counts the shards missing into m (an error unless
 * allow_missing).  0, or -1 with one line in err. */
static int pair_logs(struct mg_run *m, const struct inputs *in, const struct mg_shard *first,
                     struct mg_shard *const *by_index, const struct input **logs, int count,
                     int allow_missing, char *err, size_t errlen)
{
    for (int i = 0; i < in->n; i++) {
        const struct input *x = &in->v[i];
        if (!x->is_hlog)
            continue;
        if (same_run(x->path, x->run_id, x->count, first, err, errlen))
            return -1;
        if (logs[x->index]) {
            snprintf(err, errlen, "shard %d twice: %s and %s", x->index, logs[x->index]->path, x->path);
            return -1;
        }
        logs[x->index] = x;
    }
    m->count = count;
    for (int i = 0; i < count; i++) {
        if (by_index[i] && !logs[i]) {
            snprintf(err, errlen, "shard %d of %d (%s) has no HdrHistogram log among the inputs (the "
                     "shard's --hdr-log)", i, count, by_index[i]->json_path);
            return -1;
        }
        if (by_index[i])
            continue;
        if (!allow_missing) {
            if (logs[i])
                snprintf(err, errlen, "shard %d of %d is missing: %s has no final report beside it (the "
                         "shard did not finish?); --allow-missing merges the others", i, count, logs[i]->path);
            else
                snprintf(err, errlen, "shard %d of %d is missing: no report or log of it among the "
                         "inputs; --allow-missing merges the others", i, count);
            return -1;
        }
        if (m->nmissing < (int)(sizeof m->missing / sizeof m->missing[0]))
            m->missing[m->nmissing++] = i;
        m->nmissing_total++;
    }
    return 0;
}

/* Loads the reports and their logs into m->sh (by index) after every check. */
static int assemble(struct mg_run *m, const struct inputs *in, int allow_missing, char *err,
                    size_t errlen)
{
    struct mg_shard **by_index = NULL;
    const struct input **logs = NULL;
    struct mg_shard *first = NULL;
    int count = 0;
    for (int i = 0; i < in->n; i++) {
        if (in->v[i].is_hlog)
            continue;
        struct mg_shard *s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        if (mg_shard_load_json(s, in->v[i].path, err, errlen) != 0) {
            mg_shard_free(s);
            free(s);
            goto fail;
        }
        if (!first) {
            first = s;
            count = s->count;
            by_index = calloc((size_t)count, sizeof *by_index);
            logs = calloc((size_t)count, sizeof *logs);
            if (!by_index || !logs) {
                mg_shard_free(s);
                free(s);
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
        } else if (same_run(s->json_path, s->run_id, s->count, first, err, errlen) ||
                   options_agree(first, s, err, errlen)) {
            mg_shard_free(s);
            free(s);
            goto fail;
        }
        if (by_index[s->index]) {
            snprintf(err, errlen, "shard %d twice: %s and %s", s->index, by_index[s->index]->json_path,
                     s->json_path);
            mg_shard_free(s);
            free(s);
            goto fail;
        }
        by_index[s->index] = s;
    }
    if (!first) {
        snprintf(err, errlen, "no shard's final JSON report among the inputs (--report-format=json "
                 "--output of each shard)");
        goto fail;
    }
    if (pair_logs(m, in, first, by_index, logs, count, allow_missing, err, errlen) != 0)
        goto fail;
    if (m->nmissing_total)
        fprintf(stderr, "sbench merge: %d of %d shards missing (--allow-missing): merging the %d there\n",
                m->nmissing_total, count, count - m->nmissing_total);
    m->sh = calloc((size_t)(count - m->nmissing_total), sizeof *m->sh);
    if (!m->sh) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (int i = 0; i < count; i++) {
        if (by_index[i])
            m->sh[m->nsh++] = by_index[i];
        by_index[i] = NULL;
    }
    mg_begin(m);
    for (int s = 0; s < m->nsh; s++)
        if (mg_shard_load_hlog(m->sh[s], logs[m->sh[s]->index]->path, m, err, errlen) != 0)
            goto fail;
    free(by_index);
    free(logs);
    return 0;
fail:
    for (int i = 0; by_index && i < count; i++) {
        mg_shard_free(by_index[i]);
        free(by_index[i]);
    }
    free(by_index);
    free(logs);
    return -1;
}

/* ---- the command ---- */

static int out_options(const struct sb_options *o, const struct mg_run *m, struct mg_out_opts *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->fmt = sb_report_format_find(sb_opt_str(o, "report-format"));
    out->output = sb_opt_str(o, "output");
    out->hdr_log = sb_opt_str(o, "hdr-log");
    out->histogram = sb_opt_bool(o, "histogram");
    json_object *so = m->sh[0]->options;
    const char *pct = sb_opt_is_set(o, "percentile") ? sb_opt_str(o, "percentile") : sb_json_str(so, "percentile");
    const char *list = sb_opt_is_set(o, "percentiles") ? sb_opt_str(o, "percentiles")
                                                       : sb_json_str(so, "percentiles");
    out->percentile = pct ? strtod(pct, NULL) : 95;
    out->npercentiles = sb_report_parse_percentiles(list ? list : "", out->percentiles, 32);
    if (out->npercentiles < 0) {
        snprintf(err, errlen, "invalid --percentiles list '%.100s': numbers in (0, 100] separated by "
                 "commas, at most 32", list);
        return -1;
    }
    if (out->output && !*out->output)
        out->output = NULL;
    if (out->hdr_log && !*out->hdr_log)
        out->hdr_log = NULL;
    return 0;
}

int sb_merge_command(int argc, char **argv, FILE *history_json)
{
    char err[1024];
    struct sb_options *o = sb_options_create();
    const char **words;
    int nwords, rc = 2;
    struct inputs in = {0};
    struct mg_run m;
    memset(&m, 0, sizeof m);
    if (!o) {
        fprintf(stderr, "sbench merge: out of memory\n");
        return 1;
    }
    add_options(o);
    if (sb_options_parse_argv(o, argc, argv, &words, &nwords, err, sizeof err) != 0 ||
        sb_options_resolve(o, 1, err, sizeof err) != 0) {
        fprintf(stderr, "sbench merge: %s\n", err);
        goto out;
    }
    if (sb_opt_bool(o, "help")) {
        usage(o);
        rc = 0;
        goto out;
    }
    if (nwords < 2) {
        fprintf(stderr, "sbench merge: no input: give the shards' files or their directory "
                "(sbench merge --help)\n");
        goto out;
    }
    rc = 1;
    if (collect(&in, words + 1, nwords - 1, err, sizeof err) != 0 ||
        assemble(&m, &in, sb_opt_bool(o, "allow-missing"), err, sizeof err) != 0) {
        fprintf(stderr, "sbench merge: %s\n", err);
        goto out;
    }
    struct mg_out_opts oo;
    if (out_options(o, &m, &oo, err, sizeof err) != 0) {
        fprintf(stderr, "sbench merge: %s\n", err);
        rc = 2;
        goto out;
    }
    if (mg_sum(&m, err, sizeof err) != 0) {
        fprintf(stderr, "sbench merge: %s\n", err);
        goto out;
    }
    oo.history_json = strcmp(sb_opt_str(o, "history") ? sb_opt_str(o, "history") : "", "off") ? history_json : NULL;
    rc = mg_write(&m, &oo);
out:
    mg_run_free(&m);
    for (int i = 0; i < in.n; i++)
        free(in.v[i].path);
    free(in.v);
    sb_options_destroy(o);
    return rc;
}
