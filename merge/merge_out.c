/*
 * merge_out.c: the merged run's outputs (see merge.h): the windows and the
 * final report through the run command's formats (core/report.c), the
 * table of shards (text, and run.merge in JSON), a note on every output
 * when shards are missing, and --hdr-log with the merged windows.  A file
 * output is written whole: FILE.tmp, renamed to FILE when complete.
 */
#include "merge_shard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/hdr_log.h"
#include "../core/partial.h"

static double opt_num(const struct mg_run *m, const char *name)
{
    const char *v = sb_json_str(m->total.options, name);
    return v ? strtod(v, NULL) : 0;
}

static double tps_of(const struct mg_shard *s)
{
    return s->seconds > 0 ? (double)s->d.events / s->seconds : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_tps(const struct mg_run *m)
{
    double *v = malloc((size_t)m->nsh * sizeof *v);
    if (!v)
        return 0;
    for (int s = 0; s < m->nsh; s++)
        v[s] = tps_of(m->sh[s]);
    qsort(v, (size_t)m->nsh, sizeof *v, cmp_double);
    double med = m->nsh % 2 ? v[m->nsh / 2] : (v[m->nsh / 2 - 1] + v[m->nsh / 2]) / 2;
    free(v);
    return med;
}

static double cpu_pct(const struct mg_shard *s)
{
    return s->seconds > 0 ? 100.0 * s->client_cpu_s / s->seconds / s->cpus : 0;
}

/* "1, 4, 7" (the first 64 missing shards). */
static void missing_list(const struct mg_run *m, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = 0;
    for (int i = 0; i < m->nmissing && u < len; i++)
        u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? ", " : "", m->missing[i]);
    if (m->nmissing_total > m->nmissing && u < len)
        snprintf(buf + u, len - u, " and %d more", m->nmissing_total - m->nmissing);
}

static void text_head(FILE *f, const struct mg_run *m)
{
    fprintf(f, "sbench merge: run %s, %d shard%s merged of %d\n", m->sh[0]->run_id, m->nsh,
            m->nsh > 1 ? "s" : "", m->count);
    if (m->nmissing_total) {
        char miss[512];
        missing_list(m, miss, sizeof miss);
        fprintf(f, "WARNING: shard%s %s missing (--allow-missing): the report covers %d of %d shards\n",
                m->nmissing_total > 1 ? "s" : "", miss, m->nsh, m->count);
    }
    if (m->interval > 0 && m->misaligned > 0.05 * m->interval)
        fprintf(f, "Note: the shards' windows are up to %.3f s apart (no --start-at): each window line "
                "adds the windows nearest to it\n", m->misaligned);
    fputc('\n', f);
}

static void text_shards(FILE *f, const struct mg_run *m)
{
    double med = median_tps(m);
    fprintf(f, "Shards (client machines):\n");
    fprintf(f, "    %5s  %-20s %7s %13s %12s %10s %8s %16s\n", "shard", "host", "threads",
            "transactions", "tps", "p99 (ms)", "errors", "client CPU");
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        char cpu[32];
        snprintf(cpu, sizeof cpu, "%.2fs (%.0f%%)", x->client_cpu_s, cpu_pct(x));
        fprintf(f, "    %5d  %-20.20s %7d %13llu %12.2f %10.2f %8llu %16s%s\n", x->index, x->host,
                x->threads, (unsigned long long)x->d.events, tps_of(x),
                (double)sb_histogram_percentile(x->lat, 99) / 1e6,
                (unsigned long long)(x->d.ignored_errors + x->d.failed_events), cpu,
                m->nsh > 1 && tps_of(x) < 0.8 * med ? "  <- below 80% of the median tps" : "");
    }
    if (m->nmissing_total) {
        char miss[512];
        missing_list(m, miss, sizeof miss);
        fprintf(f, "    missing: %s\n", miss);
    }
    fputc('\n', f);
    fflush(f);
}

/* 1 when every shard's run.io (checked on loading) is the same, or absent
 * from all of them. */
static int shards_agree_on_io(const struct mg_run *m)
{
    const char *first = json_object_get_string(sb_json_member(m->sh[0]->run, "io"));
    for (int s = 1; s < m->nsh; s++) {
        const char *io = json_object_get_string(sb_json_member(m->sh[s]->run, "io"));
        if ((first == NULL) != (io == NULL) || (first != NULL && strcmp(first, io) != 0))
            return 0;
    }
    return 1;
}

/* run.merge: the group, the shards merged and missing, the shards table.
 * run.io becomes "mixed" when the shards moved their bytes differently.
 * Returns the final line's "run" object as text (caller frees), or NULL. */
static char *meta_json(const struct mg_run *m)
{
    json_object *run = NULL, *merge = json_object_new_object();
    json_object *merged = json_object_new_array(), *missing = json_object_new_array();
    json_object *table = json_object_new_array();
    char *out = NULL;
    if (json_object_deep_copy(m->total.run, &run, NULL) != 0 || !merge || !merged || !missing || !table)
        goto done;
    json_object_object_del(run, "shard");
    if (!shards_agree_on_io(m))
        json_object_object_add(run, "io", json_object_new_string("mixed"));
    for (int s = 0; s < m->nsh; s++) {
        const struct mg_shard *x = m->sh[s];
        json_object *row = json_object_new_object();
        if (!row)
            goto done;
        json_object_array_add(merged, json_object_new_int(x->index));
        json_object_object_add(row, "index", json_object_new_int(x->index));
        json_object_object_add(row, "host", json_object_new_string(x->host));
        json_object_object_add(row, "threads", json_object_new_int(x->threads));
        json_object_object_add(row, "transactions", json_object_new_int64((int64_t)x->d.events));
        json_object_object_add(row, "tps", json_object_new_double(tps_of(x)));
        json_object_object_add(row, "p99_ms", json_object_new_double(
                                                  (double)sb_histogram_percentile(x->lat, 99) / 1e6));
        json_object_object_add(row, "errors",
                               json_object_new_int64((int64_t)(x->d.ignored_errors + x->d.failed_events)));
        json_object_object_add(row, "client_cpu_s", json_object_new_double(x->client_cpu_s));
        json_object_object_add(row, "client_cpu_pct", json_object_new_double(cpu_pct(x)));
        json_object_object_add(row, "json", json_object_new_string(x->json_path));
        json_object_object_add(row, "hlog", json_object_new_string(x->hlog_path));
        json_object_array_add(table, row);
    }
    for (int i = 0; i < m->nmissing; i++)
        json_object_array_add(missing, json_object_new_int(m->missing[i]));
    json_object_object_add(merge, "run_id", json_object_new_string(m->sh[0]->run_id));
    json_object_object_add(merge, "shards", json_object_new_int(m->count));
    json_object_object_add(merge, "merged", merged);
    json_object_object_add(merge, "missing", missing);
    json_object_object_add(merge, "missing_count", json_object_new_int(m->nmissing_total));
    json_object_object_add(merge, "max_window_offset_s", json_object_new_double(m->misaligned));
    json_object_object_add(merge, "per_shard", table);
    merged = missing = table = NULL; /* owned by merge now */
    json_object_object_add(run, "merge", merge);
    merge = NULL;
    const char *txt = json_object_to_json_string_ext(run, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    out = txt ? strdup(txt) : NULL;
done:
    json_object_put(run);
    json_object_put(merge);
    json_object_put(merged);
    json_object_put(missing);
    json_object_put(table);
    return out;
}

static void report_common(struct sb_report *r, const struct mg_out_opts *o)
{
    memset(r, 0, sizeof *r);
    r->percentile = o->percentile;
    r->percentiles = o->percentiles;
    r->npercentiles = o->npercentiles;
}

static void window_report(const struct mg_run *m, int k, const struct mg_out_opts *o,
                          struct sb_report *r)
{
    const struct mg_window *w = &m->w[k];
    report_common(r, o);
    r->d = w->d;
    r->latency = w->lat;
    r->elapsed = floor(w->end - m->t0 + 0.5);
    r->seconds = w->seconds;
    r->threads = w->threads;
    r->last_window = k == m->nw - 1;
    r->phase = w->phase[0] ? w->phase : NULL;
}

static void final_report(const struct mg_run *m, const struct mg_out_opts *o, struct sb_report *r)
{
    const struct mg_shard *t = &m->total;
    report_common(r, o);
    r->d = t->d;
    r->latency = t->lat;
    r->elapsed = r->seconds = t->seconds;
    r->threads = t->threads;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        r->kind[k] = t->kind[k];
    r->connect = t->connect;
    r->lag = opt_num(m, "rate") > 0 ? t->lag : NULL;
    r->thread_events = t->thread_events;
    r->thread_busy_ns = t->thread_busy_ns;
    if (t->nclients > 0) {
        r->client_events = t->client_events;
        r->clients = t->nclients;
    }
    r->unfinished = t->unfinished;
    r->histogram = o->histogram;
    r->latency_limit_ms = opt_num(m, "latency-limit");
    r->pipeline = t->pipeline_depth;
    r->nnamed = t->nnamed;
    for (int i = 0; i < t->nnamed; i++) {
        r->named_name[i] = t->named_name[i];
        r->named_count[i] = t->named_count[i];
        r->named_latency[i] = t->named_lat[i];
    }
    r->ntypes = t->ntypes;
    for (int ty = 0; ty < t->ntypes; ty++) {
        r->type_name[ty] = t->type_name[ty];
        r->type_latency[ty] = t->type_lat[ty];
    }
    /* the shards declare the same sections (merge.c checks) */
    r->sections = m->nsh > 0 && m->sh[0]->sections.n > 0 ? &m->sh[0]->sections : NULL;
    r->server_counters_valid = t->server_valid;
    r->server = t->server;
    r->server_reset = t->server_reset;
    r->sampled = t->sampled.valid ? &t->sampled : NULL;
    r->merge_data = 1;
    r->phases = t->has_phases ? &t->phases : NULL;
}

static int write_hdr_log(const struct mg_run *m, const char *path)
{
    char err[512], tag[256];
    struct sb_hdr_log *log = sb_hdr_log_open(path, m->t0, err, sizeof err);
    if (!log) {
        fprintf(stderr, "sbench merge: --hdr-log: %s\n", err);
        return 1;
    }
    snprintf(tag, sizeof tag, "sbench merge of run %s: %d of %d shards", m->sh[0]->run_id, m->nsh,
             m->count);
    sb_hdr_log_comment(log, tag);
    if (m->nw == 0)
        sb_hdr_log_write(log, 0, m->total.seconds, m->total.lat);
    for (int k = 0; k < m->nw; k++)
        sb_hdr_log_write(log, m->w[k].start - m->t0, m->w[k].seconds, m->w[k].lat);
    if (sb_hdr_log_close(log) != 0) {
        sb_partial_said("--hdr-log", path, errno);
        return 1;
    }
    return 0;
}

int mg_write(const struct mg_run *m, const struct mg_out_opts *o)
{
    const struct sb_report_format *text = sb_report_formats[0], *json = sb_report_format_find("json");
    FILE *out = stdout;
    char *tmp = NULL;
    int failed = 0;
    if (o->output) {
        size_t n = strlen(o->output) + 5;
        tmp = malloc(n);
        if (!tmp) {
            fprintf(stderr, "sbench merge: out of memory\n");
            return 1;
        }
        snprintf(tmp, n, "%s.tmp", o->output);
        if ((out = fopen(tmp, "w")) == NULL) {
            fprintf(stderr, "sbench merge: cannot write --output file '%s': %s\n", o->output, strerror(errno));
            free(tmp);
            return 1;
        }
    }
    /* the text report goes where the chosen format goes when it is text,
     * else to stdout unless the chosen format takes stdout */
    FILE *human = o->fmt == text ? out : out != stdout ? stdout : NULL;
    const struct sb_report_format *fmt = o->fmt == text ? NULL : o->fmt;
    char *meta = meta_json(m);
    if (!meta) {
        fprintf(stderr, "sbench merge: out of memory\n");
        failed = 1;
        goto close;
    }
    if (human)
        text_head(human, m);
    if (fmt && strcmp(fmt->name, "csv") == 0 && m->nmissing_total) {
        char miss[512];
        missing_list(m, miss, sizeof miss);
        fprintf(out, "# sbench merge: %d of %d shards, missing: %s\n", m->nsh, m->count, miss);
    }
    struct sb_report r;
    for (int k = 0; k < m->nw; k++) {
        window_report(m, k, o, &r);
        if (human)
            text->interval(human, &r, k);
        if (fmt)
            fmt->interval(out, &r, k);
        if (o->history_json)
            json->interval(o->history_json, &r, k);
    }
    final_report(m, o, &r);
    if (human) {
        text->final(human, &r, meta, 0);
        text_shards(human, m);
    }
    if (fmt)
        fmt->final(out, &r, meta, m->nw);
    if (o->history_json) { /* with what merge reads: the encoded histograms */
        struct sb_report full = r;
        full.merge_data = 1;
        json->final(o->history_json, &full, meta, m->nw);
    }
    if (o->hdr_log)
        failed |= write_hdr_log(m, o->hdr_log);
close:
    free(meta);
    if (tmp) {
        int bad = ferror(out);
        if (fclose(out) != 0 || bad) {
            fprintf(stderr, "sbench merge: writing --output file '%s' failed\n", o->output);
            failed = 1;
        }
        if (!failed && rename(tmp, o->output) != 0) {
            fprintf(stderr, "sbench merge: writing --output file '%s' failed: %s\n", o->output,
                    strerror(errno));
            failed = 1;
        }
        if (failed)
            unlink(tmp);
        free(tmp);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sbench merge: the report could not be written to standard output\n");
        failed = 1;
    }
    return failed;
}
