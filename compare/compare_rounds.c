/*
 * compare_rounds.c: the order of a comparison's runs, and when a point
 * has had enough of them.
 *
 *   for each workload:  for each repeat:  for each thread count:
 *       the targets in order, reversed on every other (repeat, thread count)
 *
 * so that the repeats of a point are spread over the whole comparison and
 * each target runs first as often as last.  With --repeats=auto the repeat
 * rounds go on to the maximum, but a point whose runs so far settle every
 * pair of its targets (compare_seq.c: a significant difference, or an
 * interval narrower than --auto-width, at the level that accounts for the
 * looks) gets no more runs.  Whether a point is settled is read from the
 * runs on disk, so a resumed comparison decides as the first one did.
 */
#include "compare.h"
#include "compare_seq.h"

#include <stdlib.h>
#include <string.h>

#include "../results/readfile.h"

/* The throughput of run id's report in dir into *tps; -1 when unreadable. */
static int run_tps(const char *dir, const char *id, double *tps)
{
    char path[4300], err[512];
    size_t len;
    snprintf(path, sizeof path, "%s/runs/%s.json", dir, id);
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, err, sizeof err);
    if (buf == NULL)
        return -1;
    json_object *final = NULL, *intervals = json_object_new_array();
    int rc = cmp_report_parse(path, buf, len, &final, intervals, err, sizeof err);
    free(buf);
    *tps = rc == 0 ? sb_json_num(final, "tps") : 0;
    json_object_put(final);
    json_object_put(intervals);
    return rc == 0 && *tps > 0 ? 0 : -1;
}

/* 1 when the first n repeats of every target at point (w, t) settle every
 * pair of targets; 0 when not, or when a run is missing or unreadable (it
 * is then run, or said by the summary). */
static int point_settled(const struct cmp_spec *s, const char *dir, int w, int t, int n)
{
    static double tps[CMP_MAX_TARGETS][CMP_MAX_REPEATS];
    for (int k = 0; k < s->ntargets; k++)
        for (int r = 0; r < n; r++) {
            char id[300];
            cmp_run_id(s, w, t, k, r, id, sizeof id);
            char msg[512];
            if (cmp_run_state(dir, id, msg, sizeof msg) != 1 || run_tps(dir, id, &tps[k][r]) != 0)
                return 0;
        }
    for (int a = 0; a < s->ntargets; a++)
        for (int b = a + 1; b < s->ntargets; b++) {
            struct cmp_shift sh;
            if (cmp_seq_look(tps[a], n, tps[b], n, s->repeats, s->auto_width, &sh) != 1)
                return 0;
        }
    return 1;
}

int cmp_rounds_planned(const struct cmp_spec *s, const char *dir)
{
    int planned = 0, live = 0, first = s->repeats_auto ? cmp_seq_first_look(s->repeats) : s->repeats;
    for (int k = 0; k < s->ntargets; k++)
        live += !s->targets[k].from_dir;
    for (int w = 0; w < s->nworkloads; w++)
        for (int t = 0; t < s->nthreads; t++) {
            int n = first;
            while (n < s->repeats && !point_settled(s, dir, w, t, n))
                n++;
            planned += n * live;
        }
    return planned;
}

int cmp_rounds_count(const struct cmp_spec *s, const char *dir, int *planned, int *done)
{
    *planned = *done = 0;
    for (int w = 0; w < s->nworkloads; w++)
        for (int r = 0; r < s->repeats; r++)
            for (int t = 0; t < s->nthreads; t++)
                for (int k = 0; k < s->ntargets; k++) {
                    if (s->targets[k].from_dir)
                        continue;
                    char id[300];
                    cmp_run_id(s, w, t, k, r, id, sizeof id);
                    char msg[1024];
                    int st = cmp_run_state(dir, id, msg, sizeof msg);
                    if (st < 0) { /* unreadable: not "not done", which would run it again */
                        fprintf(stderr, "compare: run %s: %s\n", id, msg);
                        return -1;
                    }
                    (*planned)++;
                    *done += st;
                }
    return 0;
}

int cmp_rounds_run(const struct cmp_spec *s, const char *dir, cmp_round_fn run, void *ctx)
{
    int first = s->repeats_auto ? cmp_seq_first_look(s->repeats) : s->repeats;
    for (int w = 0; w < s->nworkloads; w++) {
        int settled[CMP_MAX_THREADS] = {0};
        for (int r = 0; r < s->repeats; r++)
            for (int t = 0; t < s->nthreads; t++) {
                if (s->repeats_auto && r >= first && !settled[t])
                    settled[t] = point_settled(s, dir, w, t, r);
                if (settled[t])
                    continue;
                for (int i = 0; i < s->ntargets; i++) {
                    int k = (r + t) % 2 ? s->ntargets - 1 - i : i;
                    char id[300], msg[1024];
                    cmp_run_id(s, w, t, k, r, id, sizeof id);
                    if (s->targets[k].from_dir || cmp_run_state(dir, id, msg, sizeof msg) == 1)
                        continue;
                    if (run(ctx, w, t, k, r) != 0)
                        return -1;
                }
            }
    }
    return 0;
}
