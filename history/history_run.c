/*
 * history_run.c: a benchmark command's record in the run history
 * (history_run.h): options, the report's copy, the record appended after
 * the report is written.
 */
#include "history_run.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/options.h"
#include "../lib/secret_mask.h"
#include "history.h"

void sb_history_add_options(struct sb_options *o)
{
    /* a URI's or DSN's password is masked wherever options are shown
     * (lib/options.c's sb_opt_shown) */
    sb_options_add(o, "history", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "the run history this run is recorded in: a SQLite file, postgresql://... or a "
                   "libpq DSN (several machines share one), or off (default: $SBENCH_HISTORY, else "
                   "$XDG_DATA_HOME/sbench/history.db; sbench history --help)", NULL, 0, 0);
    sb_options_add(o, "label", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "KEY=VALUE recorded with the run in the history (repeatable, e.g. build=$GIT_SHA)",
                   NULL, 0, 0);
}

/* The history spec in force: --history, else $SBENCH_HISTORY, else NULL. */
static const char *history_spec(const struct sb_options *o)
{
    const char *spec = sb_opt_str(o, "history");
    if (spec && *spec)
        return spec;
    spec = getenv("SBENCH_HISTORY");
    return spec && *spec ? spec : NULL;
}

/* Every --label given, in order; returns how many (at most max). */
static int labels_given(const struct sb_options *o, const char **out, int max)
{
    int n = 0;
    for (int i = 0; sb_options_arg_at(o, i) != NULL; i++) {
        const struct sb_arg *a = sb_options_arg_at(o, i);
        if (strcmp(a->name, "label") == 0 && n < max)
            out[n++] = a->value;
    }
    return n;
}

int sb_history_capture_start(const struct sb_options *o, struct sb_history_capture *c, char *err,
                             size_t errlen)
{
    const char *labels[SB_HIST_MAX_LABELS + 1];
    memset(c, 0, sizeof *c);
    int n = labels_given(o, labels, SB_HIST_MAX_LABELS + 1);
    if (n > SB_HIST_MAX_LABELS) {
        snprintf(err, errlen, "more than %d --label options", SB_HIST_MAX_LABELS);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (sb_hist_label_check(labels[i], err, errlen) != 0)
            return -1;
    const char *spec = history_spec(o);
    if (spec && strcmp(spec, "off") == 0)
        return 0;
    c->f = open_memstream(&c->buf, &c->len); /* NULL: no record, the run goes on */
    return 0;
}

/* The run's command line, words joined by blanks, each word's passwords
 * masked (lib/secret_mask.c reads a word as one option's value). */
static char *joined(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += 2 * strlen(argv[i]) + 5;
    char *s = malloc(len), *p = s;
    if (s == NULL)
        return NULL;
    for (int i = 0; i < argc; i++) {
        if (i)
            *p++ = ' ';
        sb_secret_mask(argv[i], p, len - (size_t)(p - s));
        p += strlen(p);
    }
    *p = '\0';
    return s;
}

/* A compare run's place, from what its parent set in the environment. */
static int compare_place(struct sb_hist_run *r)
{
    const char *session = getenv("SBENCH_HISTORY_SESSION");
    if (session == NULL || *session == '\0')
        return 0;
    const char *target = getenv("SBENCH_HISTORY_TARGET"), *point = getenv("SBENCH_HISTORY_POINT"),
               *repeat = getenv("SBENCH_HISTORY_REPEAT");
    char *s = strdup(session), *t = strdup(target ? target : "");
    char *src = strdup("compare");
    if (!s || !t || !src) {
        free(s), free(t), free(src);
        return -1;
    }
    free(r->session), free(r->target), free(r->source);
    r->session = s, r->target = t, r->source = src;
    r->point = point ? atoi(point) : 0;
    r->repeat = repeat ? atoi(repeat) : 0;
    return 0;
}

/* The record of the report in buf appended; one line on stderr if not. */
static void record(const struct sb_options *o, const char *buf, size_t len, const char *source,
                   int argc, char **argv)
{
    char err[1024];
    const char *labels[SB_HIST_MAX_LABELS];
    int n = labels_given(o, labels, SB_HIST_MAX_LABELS);
    char *cmdline = joined(argc, argv);
    struct sb_hist_run r;
    struct sb_history *h = NULL;
    int rc = sb_hist_run_from_report(buf, len, source, cmdline, labels, n, &r, err, sizeof err);
    free(cmdline);
    if (rc == 0 && compare_place(&r) != 0)
        rc = -1, snprintf(err, sizeof err, "out of memory");
    if (rc == 0) {
        rc = sb_history_open(history_spec(o), &h, err, sizeof err);
        char why[512];
        if (rc == 0 && sb_history_append(h, &r, NULL, why, sizeof why) < 0) {
            snprintf(err, sizeof err, "history store '%.400s': %s", sb_history_where(h), why);
            rc = -1;
        }
        sb_history_close(h);
        sb_hist_run_free(&r);
    }
    if (rc < 0)
        fprintf(stderr, "sbench: the run is not recorded in the history: %s\n", err);
}

void sb_history_capture_end(const struct sb_options *o, struct sb_history_capture *c, int rc,
                            const char *source, int argc, char **argv)
{
    if (c->f == NULL)
        return;
    int bad = ferror(c->f);
    if (fclose(c->f) != 0 || bad)
        fprintf(stderr, "sbench: the run is not recorded in the history: its report's copy failed\n");
    else if (rc == 0 && c->len > 0)
        record(o, c->buf, c->len, source, argc, argv);
    free(c->buf);
    memset(c, 0, sizeof *c);
}
