/*
 * history_import.c: `sbench history import FILE|DIR...`: existing results
 * join the history.  A file is an sbench JSON report (a run's
 * --report-format=json --output, or a merged shard set's, sbench merge's);
 * a directory is a compare results directory (its runs/ID.json, each a
 * repeat of target TARGET in ID = WORKLOAD_tTHREADS_TARGET_rREPEAT, one
 * session per directory) or a folder of reports.  Every file is untrusted:
 * read bounded (results/readfile.c) and checked line by line
 * (history_record.c); a bad one is named with why on stderr, and the
 * others are still imported.
 */
#include "history_cli.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../results/json_get.h"
#include "../results/readfile.h"

/* Where a compare run came from: its session, target and repeat. */
struct place {
    const char *session;
    char target[128];
    int repeat;
};

/* The target and repeat of compare run file name (".../ID.json"). */
static void place_of(const char *name, struct place *p)
{
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    char id[512];
    snprintf(id, sizeof id, "%s", base);
    char *dot = strstr(id, ".json"), *r = NULL, *t = NULL;
    if (dot)
        *dot = '\0';
    for (char *s = strstr(id, "_r"); s; s = strstr(s + 1, "_r"))
        r = s; /* the last "_rN" */
    for (char *s = strstr(id, "_t"); s && !t; s = strstr(s + 1, "_t")) {
        size_t d = strspn(s + 2, "0123456789");
        if (d > 0 && s[2 + d] == '_')
            t = s + 2 + d + 1;
    }
    p->repeat = r ? atoi(r + 2) - 1 : 0;
    if (t && r && r > t)
        snprintf(p->target, sizeof p->target, "%.*s", (int)(r - t), t);
}

/* Imports one report file; 0 imported or already there, -1 after one line
 * on stderr. */
static int import_file(struct hist_cmd *c, const char *path, const struct place *p)
{
    char err[1024];
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, sizeof err);
    struct sb_hist_run r;
    if (buf == NULL || sb_hist_run_from_report(buf, len, "import", NULL, c->f.labels, c->f.nlabels, &r, err,
                                               sizeof err) != 0) {
        fprintf(stderr, "sbench history import: %s: %s\n", path, err);
        free(buf);
        return -1;
    }
    free(buf);
    json_object *fin = hist_final_line(&r);
    int shard = sb_json_at(fin, "run.shard") != NULL && sb_json_at(fin, "run.merge") == NULL;
    json_object_put(fin);
    if (shard) {
        fprintf(stderr, "sbench history import: %s: one shard's report: import the merged set "
                "(sbench merge DIR --report-format=json --output=FILE)\n", path);
        sb_hist_run_free(&r);
        return -1;
    }
    if (p && p->target[0]) {
        char *s = strdup(p->session), *t = strdup(p->target), *src = strdup("compare");
        free(r.session), free(r.target), free(r.source);
        r.session = s, r.target = t, r.source = src;
        r.repeat = p->repeat;
    }
    int64_t id = 0;
    int rc = r.session && r.target && r.source ? sb_history_append(c->h, &r, &id, err, sizeof err) : -1;
    if (rc < 0)
        fprintf(stderr, "sbench history import: %s: %s\n", path, r.source ? err : "out of memory");
    else
        fprintf(c->out, "%s: %s run %" PRId64 "\n", path, rc == 0 ? "imported as" : "already in the history as",
                id);
    sb_hist_run_free(&r);
    return rc < 0 ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reports in folder dir (*.json but compare's *.record.json), in name
 * order; each imported.  Returns the count that failed. */
static int import_folder(struct hist_cmd *c, const char *dir, const struct place *compare)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "sbench history import: %s: cannot read the directory\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 || (l > 12 && strcmp(e->d_name + l - 12, ".record.json") == 0))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (grown == NULL || (grown[n] = malloc(strlen(dir) + l + 2)) == NULL) {
            names = grown ? grown : names;
            break;
        }
        names = grown;
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        struct place p = {0};
        if (compare) {
            p = *compare;
            place_of(names[i], &p);
        }
        failed += import_file(c, names[i], compare ? &p : NULL) != 0;
        free(names[i]);
    }
    free(names);
    if (n == 0)
        fprintf(stderr, "sbench history import: %s: no report (*.json) in it\n", dir), failed++;
    return failed;
}

/* A compare results directory's session: its path, made absolute. */
static void session_of(const char *dir, char *buf, size_t len)
{
    char abs[PATH_MAX];
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *s = realpath(dir, abs) ? abs : dir; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    snprintf(buf, len, "compare-dir-%016" PRIx64, h);
}

int hist_cmd_import(struct hist_cmd *c)
{
    if (c->nargs == 0) {
        fprintf(stderr, "sbench history import: give the reports' files or directories\n");
        return 2;
    }
    int failed = 0;
    for (int i = 0; i < c->nargs; i++) {
        const char *path = c->args[i];
        struct stat st;
        char runs[PATH_MAX], session[64];
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            failed += import_file(c, path, NULL) != 0; /* readfile says what it is not */
            continue;
        }
        snprintf(runs, sizeof runs, "%s/runs", path);
        if (stat(runs, &st) == 0 && S_ISDIR(st.st_mode)) { /* a compare results directory */
            session_of(path, session, sizeof session);
            struct place p = {.session = session};
            failed += import_folder(c, runs, &p);
        } else
            failed += import_folder(c, path, NULL);
    }
    return failed ? 1 : 0;
}
