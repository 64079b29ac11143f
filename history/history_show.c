/*
 * history_show.c: `sbench history show RUN` (one run whole) and `diff RUN
 * RUN` (two runs' figures with their intervals, then what changed between
 * them: labels, versions, options, server settings, host facts).
 */
#include "history_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../results/json_get.h"

/* Host facts that describe the machine, not the moment (load, free
 * memory and disk change from run to run). */
static const char *const host_facts[] = {"name", "os", "kernel", "arch", "cpu_model", "cpus",
                                         "memory_bytes", "clocksource", NULL};

static const char *str_or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* The statement kinds a run sent: count and rate of each one it used. */
static void show_kinds(FILE *f, json_object *kinds)
{
    if (kinds == NULL || !json_object_is_type(kinds, json_type_object))
        return;
    fprintf(f, "  statements:    ");
    json_object_object_foreach(kinds, name, k) {
        if (sb_json_num(k, "count") > 0)
            fprintf(f, " %s %.0f (%.2f/s)", name, sb_json_num(k, "count"), sb_json_num(k, "rate"));
    }
    fputc('\n', f);
}

int hist_cmd_show(struct hist_cmd *c)
{
    if (c->nargs != 1) {
        fprintf(stderr, "sbench history show: give one RUN (a number from list, or a run id)\n");
        return 2;
    }
    struct sb_hist_run r;
    if (hist_one_run(c->h, c->args[0], &r) != 0)
        return 1;
    char when[32], target[256];
    hist_time_text(r.time, when, sizeof when);
    hist_target_text(&r, target, sizeof target);
    FILE *f = c->out;
    fprintf(f, "run %lld (%s), %s UTC, %s\n", (long long)r.id, r.run_id, when, r.source);
    fprintf(f, "  command:        %s\n", str_or_dash(r.cmdline));
    fprintf(f, "  workload:       %s (options digest %s)\n", r.workload, r.options_digest);
    fprintf(f, "  target:         %s%s%s\n", target, r.target && *r.target ? ", compare target " : "",
            r.target ? r.target : "");
    if (r.point >= 0)
        fprintf(f, "  session:        %s, point %d, repeat %d\n", r.session, r.point, r.repeat + 1);
    fprintf(f, "  labels:         %s\n", str_or_dash(r.labels));
    fprintf(f, "  versions:       sbench %s, driver %s, server %s\n", str_or_dash(r.sbench_version),
            str_or_dash(r.driver_version), str_or_dash(r.server_version));
    fprintf(f, "  transactions:   %.0f in %.3f s, %.2f per sec.\n", r.transactions, r.seconds, r.tps);
    fprintf(f, "  queries:        %.2f per sec.\n", r.qps);
    fprintf(f, "  errors:         %.0f, reconnects %.0f\n", r.errors, r.reconnects);
    fprintf(f, "  latency (ms):   avg %.3f, p50 %.3f, p95 %.3f, p99 %.3f, max %.3f\n", r.lat_avg_ms,
            r.lat_p50_ms, r.lat_p95_ms, r.lat_p99_ms, r.lat_max_ms);
    if (isfinite(r.nopm))
        fprintf(f, "  NOPM:           %.0f\n", r.nopm);
    struct hist_windows w;
    hist_windows_of(&r, &w);
    if (w.n >= 2)
        fprintf(f, "  windows:        %d, tps %.2f +- %.2f (95%% interval of their mean)\n", w.n, w.mean, w.half);
    json_object *fin = hist_final_line(&r), *host = sb_json_at(fin, "run.host");
    show_kinds(f, sb_json_member(fin, "kinds"));
    for (int i = 0; host && host_facts[i]; i++) {
        json_object *v = sb_json_member(host, host_facts[i]);
        if (v)
            fprintf(f, "  host %-10s %s\n", host_facts[i], json_object_get_string(v));
    }
    json_object_put(fin);
    sb_hist_run_free(&r);
    return 0;
}

/* One figure of two runs and its change. */
static void diff_figure(FILE *f, const char *name, double a, double b, double ha, double hb)
{
    char ta[64] = "-", tb[64] = "-", ch[96] = "";
    if (isfinite(a))
        snprintf(ta, sizeof ta, ha > 0 ? "%.3f +- %.3f" : "%.3f", a, ha);
    if (isfinite(b))
        snprintf(tb, sizeof tb, hb > 0 ? "%.3f +- %.3f" : "%.3f", b, hb);
    if (isfinite(a) && isfinite(b) && a != 0) {
        int n = snprintf(ch, sizeof ch, "%+.2f%%", 100.0 * (b - a) / a);
        if (ha > 0 && hb > 0) /* the intervals overlap or not */
            snprintf(ch + n, sizeof ch - (size_t)n, "%s", fabs(b - a) > ha + hb ? " (intervals apart)"
                                                                               : " (intervals overlap)");
    }
    fprintf(f, "  %-16s %26s %26s  %s\n", name, ta, tb, ch);
}

/* A member's value as text: a setting {"value", "unit"} as "VALUE UNIT". */
static const char *value_text(json_object *v, char *buf, size_t len)
{
    const char *value = sb_json_str(v, "value");
    if (value == NULL)
        return v ? json_object_get_string(v) : "";
    const char *unit = sb_json_str(v, "unit");
    snprintf(buf, len, "%s%s%s", value, unit && *unit ? " " : "", unit ? unit : "");
    return buf;
}

/* The members of a and b (objects) whose values differ, under a title. */
static int diff_members(FILE *f, const char *title, json_object *a, json_object *b,
                        const char *const *only)
{
    int n = 0;
    for (int side = 0; side < 2; side++) {
        json_object *x = side ? b : a, *y = side ? a : b;
        if (!x || !json_object_is_type(x, json_type_object))
            continue;
        json_object_object_foreach(x, key, vx) {
            /* the labels are said above; where the history went is no change */
            int wanted = only == NULL && strcmp(key, "label") != 0 && strcmp(key, "history") != 0;
            for (int i = 0; only && only[i]; i++)
                wanted |= strcmp(only[i], key) == 0;
            json_object *vy = sb_json_member(y, key);
            if (!wanted || (side == 1 && vy)) /* both there: said on the first side */
                continue;
            char bx[512], by[512];
            const char *sx = value_text(vx, bx, sizeof bx), *sy = vy ? value_text(vy, by, sizeof by) : "(none)";
            if (vy && strcmp(sx, sy) == 0)
                continue;
            if (n++ == 0)
                fprintf(f, "%s:\n", title);
            fprintf(f, "  %-32s %s -> %s\n", key, side ? "(none)" : sx, side ? sx : sy);
        }
    }
    return n;
}

/* What changed between a and b. */
void hist_diff_changes(FILE *f, const struct sb_hist_run *a, const struct sb_hist_run *b)
{
    json_object *fa = hist_final_line(a), *fb = hist_final_line(b);
    int n = 0;
    if (strcmp(a->labels, b->labels) != 0)
        n++, fprintf(f, "labels:\n  %s -> %s\n", str_or_dash(a->labels), str_or_dash(b->labels));
    const char *va[] = {a->sbench_version, a->driver_version, a->server_version},
               *vb[] = {b->sbench_version, b->driver_version, b->server_version};
    static const char *const vn[] = {"sbench", "driver", "server"};
    for (int i = 0; i < 3; i++)
        if (strcmp(va[i], vb[i]) != 0)
            n++, fprintf(f, "version of %s: %s -> %s\n", vn[i], str_or_dash(va[i]), str_or_dash(vb[i]));
    n += diff_members(f, "options", sb_json_at(fa, "run.options"), sb_json_at(fb, "run.options"), NULL);
    n += diff_members(f, "server settings", sb_json_at(fa, "run.server_settings.settings"),
                      sb_json_at(fb, "run.server_settings.settings"), NULL);
    n += diff_members(f, "host", sb_json_at(fa, "run.host"), sb_json_at(fb, "run.host"), host_facts);
    if (n == 0)
        fprintf(f, "nothing changed in options, server settings, versions, host facts or labels\n");
    json_object_put(fa);
    json_object_put(fb);
}

int hist_cmd_diff(struct hist_cmd *c)
{
    if (c->nargs != 2) {
        fprintf(stderr, "sbench history diff: give two RUNs (numbers from list, or run ids)\n");
        return 2;
    }
    struct sb_hist_run a, b;
    if (hist_one_run(c->h, c->args[0], &a) != 0)
        return 1;
    if (hist_one_run(c->h, c->args[1], &b) != 0) {
        sb_hist_run_free(&a);
        return 1;
    }
    struct hist_windows wa, wb;
    hist_windows_of(&a, &wa);
    hist_windows_of(&b, &wb);
    FILE *f = c->out;
    char ra[32], rb[32];
    snprintf(ra, sizeof ra, "run %lld", (long long)a.id);
    snprintf(rb, sizeof rb, "run %lld", (long long)b.id);
    fprintf(f, "  %-16s %26s %26s  %s\n", "", ra, rb, "change");
    diff_figure(f, "tps", a.tps, b.tps, wa.half, wb.half);
    diff_figure(f, "qps", a.qps, b.qps, 0, 0);
    diff_figure(f, "latency avg ms", a.lat_avg_ms, b.lat_avg_ms, 0, 0);
    diff_figure(f, "latency p95 ms", a.lat_p95_ms, b.lat_p95_ms, 0, 0);
    diff_figure(f, "latency p99 ms", a.lat_p99_ms, b.lat_p99_ms, 0, 0);
    diff_figure(f, "errors", a.errors, b.errors, 0, 0);
    diff_figure(f, "reconnects", a.reconnects, b.reconnects, 0, 0);
    if (isfinite(a.nopm) || isfinite(b.nopm))
        diff_figure(f, "NOPM", a.nopm, b.nopm, 0, 0);
    if (wa.n >= 2 || wb.n >= 2)
        fprintf(f, "  (tps +- : the 95%% interval of the mean of the run's 1-second windows)\n");
    hist_diff_changes(f, &a, &b);
    sb_hist_run_free(&a);
    sb_hist_run_free(&b);
    return 0;
}
