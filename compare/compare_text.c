/*
 * compare_text.c: the summary of a comparison as markdown on stdout: per
 * workload a table of median throughput (with its interval) and p95/p99
 * latency per thread count and target, then the verdicts, the knees, the
 * warnings, the server settings that differ between targets and the
 * regression gate.  A pure function of the summary.
 */
#include "compare.h"

#include <string.h>

static const char *str(const json_object *o, const char *key)
{
    const char *s = sb_json_str(o, key);
    return s ? s : "";
}

static void point_cell(const json_object *p, FILE *f)
{
    const json_object *t = sb_json_member(p, "tps"), *l = sb_json_at(p, "latency_ms.percentiles");
    fprintf(f, " %.1f [%.1f, %.1f] | %.3f / %.3f |", sb_json_num(t, "median"), sb_json_num(t, "low"),
            sb_json_num(t, "high"), sb_json_num(l, "95"), sb_json_num(l, "99"));
}

/* "Server settings that differ": a table of the settings two or more
 * targets have with unequal values, or a line saying there are none. */
static void settings_section(const json_object *env, FILE *f)
{
    const json_object *targets = sb_json_member(env, "targets"), *differ = sb_json_member(env, "settings_differ");
    int with = (int)sb_json_int(env, "settings_targets");
    fprintf(f, "Server settings that differ:");
    if (with < 2) {
        fprintf(f, " %s\n\n", with ? "only one target's server settings were read" : "no server settings were read");
        return;
    }
    if (sb_json_len(differ) == 0) {
        fprintf(f, " none (between the %d targets whose settings were read)\n\n", with);
        return;
    }
    fprintf(f, "\n\n| setting |");
    for (size_t i = 0; i < sb_json_len(targets); i++)
        fprintf(f, " %s |", str(sb_json_elem(targets, i), "name"));
    fprintf(f, "\n|---|");
    for (size_t i = 0; i < sb_json_len(targets); i++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (size_t q = 0; q < sb_json_len(differ); q++) {
        const json_object *d = sb_json_elem(differ, q);
        fprintf(f, "| %s |", str(d, "name"));
        for (size_t i = 0; i < sb_json_len(targets); i++) {
            const char *name = str(sb_json_elem(targets, i), "name");
            const char *v = sb_json_str(sb_json_member(d, "values"), name);
            const char *u = sb_json_str(sb_json_member(d, "units"), name);
            fprintf(f, " %s%s%s |", v ? v : "-", u && *u ? " " : "", u && *u ? u : "");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* Each point's server evidence (compare_evidence.c), beside the client's
 * figures above: top waits, hit ratio, the cause its runs named. */
static void server_section(const json_object *points, const char *wl, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < sb_json_len(points); i++) {
        const json_object *x = sb_json_elem(points, i), *srv = sb_json_member(x, "server");
        if (strcmp(str(x, "workload"), wl) || srv == NULL)
            continue;
        fprintf(f, "%s- %lld threads, %s:", any++ ? "" : "\nServer's own evidence (--server-metrics):\n\n",
                (long long)sb_json_int(x, "threads"), str(x, "target"));
        const json_object *top = sb_json_member(srv, "top_waits");
        for (size_t k = 0; k < sb_json_len(top); k++)
            fprintf(f, "%s %s %.0f%%", k ? "," : " sampled session time", str(sb_json_elem(top, k), "name"),
                    sb_json_num(sb_json_elem(top, k), "share") * 100);
        if (sb_json_member(srv, "hit_ratio"))
            fprintf(f, "; hit ratio %.1f%%", sb_json_num(srv, "hit_ratio") * 100);
        if (sb_json_member(srv, "row_lock_waits_per_txn"))
            fprintf(f, "; row lock waits per transaction %.3g", sb_json_num(srv, "row_lock_waits_per_txn"));
        fprintf(f, "; cause: %s (%lld of %lld runs)\n", sb_json_str(srv, "cause") ? str(srv, "cause") : "none named",
                (long long)sb_json_int(srv, "cause_runs"), (long long)sb_json_int(srv, "runs"));
    }
}

void cmp_text_report(const json_object *sum, FILE *f)
{
    const json_object *spec = sb_json_member(sum, "spec");
    const json_object *targets = sb_json_member(spec, "targets"), *threads = sb_json_member(spec, "threads");
    const json_object *points = sb_json_member(sum, "points"), *workloads = sb_json_member(spec, "workloads");
    fprintf(f, "# %s\n\n", str(sum, "title"));
    fprintf(f, "%lld of %lld runs done; %s%lld repeats of %llds (+%llds warm-up) per point; results in %s\n\n",
            (long long)sb_json_int(sum, "runs_done"), (long long)sb_json_int(sum, "runs_planned"),
            sb_json_true(spec, "repeats_auto") ? "until settled, at most " : "", (long long)sb_json_int(spec, "repeats"), (long long)sb_json_int(spec, "time"),
            (long long)sb_json_int(spec, "warmup"), str(sum, "results_dir"));
    for (size_t wi = 0; wi < sb_json_len(workloads); wi++) {
        const char *wl = str(sb_json_elem(workloads, wi), "label");
        fprintf(f, "## %s\n\nMedian tps [interval of the median], p95 / p99 latency (ms) of the merged repeats\n\n| threads |", wl);
        for (size_t ti = 0; ti < sb_json_len(targets); ti++)
            fprintf(f, " %s tps | %s p95 / p99 |", str(sb_json_elem(targets, ti), "name"),
                    str(sb_json_elem(targets, ti), "name"));
        fprintf(f, "\n|---:|");
        for (size_t ti = 0; ti < sb_json_len(targets); ti++)
            fprintf(f, "---:|---:|");
        fprintf(f, "\n");
        for (size_t hi = 0; hi < sb_json_len(threads); hi++) {
            int64_t th = sb_json_int_of(sb_json_elem(threads, hi));
            fprintf(f, "| %lld |", (long long)th);
            for (size_t ti = 0; ti < sb_json_len(targets); ti++) {
                const char *name = str(sb_json_elem(targets, ti), "name");
                const json_object *found = NULL;
                for (size_t i = 0; i < sb_json_len(points); i++) {
                    const json_object *x = sb_json_elem(points, i);
                    if (!strcmp(str(x, "workload"), wl) && !strcmp(str(x, "target"), name) &&
                        sb_json_int(x, "threads") == th)
                        found = x;
                }
                if (found)
                    point_cell(found, f);
                else
                    fprintf(f, " - | - |");
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\nVerdicts:\n\n");
        const json_object *verdicts = sb_json_member(sum, "verdicts"), *sweeps = sb_json_member(sum, "sweeps");
        for (size_t i = 0; i < sb_json_len(verdicts); i++) {
            const json_object *x = sb_json_elem(verdicts, i);
            if (strcmp(str(x, "workload"), wl))
                continue;
            fprintf(f, "- %lld threads: %s\n", (long long)sb_json_int(x, "threads"), str(x, "text"));
            if (sb_json_str(x, "server_difference")) /* compare_evidence.c */
                fprintf(f, "  - the servers' own evidence: %s\n", sb_json_str(x, "server_difference"));
        }
        int any = 0;
        for (size_t i = 0; i < sb_json_len(sweeps); i++) {
            const json_object *x = sb_json_elem(sweeps, i);
            if (!strcmp(str(x, "workload"), wl))
                fprintf(f, "%s- %s\n", any++ ? "" : "\nScaling:\n\n", str(x, "text"));
        }
        /* what limited each point (compare_bottleneck.c) */
        const json_object *points = sb_json_member(sum, "points");
        any = 0;
        for (size_t i = 0; i < sb_json_len(points); i++) {
            const json_object *x = sb_json_elem(points, i);
            const char *why = sb_json_str(sb_json_member(x, "bottleneck"), "text");
            if (!strcmp(str(x, "workload"), wl) && why)
                fprintf(f, "%s- %lld threads, %s: %s\n", any++ ? "" : "\nLimits:\n\n",
                        (long long)sb_json_int(x, "threads"), str(x, "target"), why);
        }
        server_section(points, wl, f);
        fprintf(f, "\n");
    }
    const json_object *warnings = sb_json_member(sum, "warnings");
    size_t nw = sb_json_len(warnings);
    if (nw) {
        fprintf(f, "Warnings (%zu):\n\n", nw);
        for (size_t i = 0; i < nw; i++) {
            if (i == 10) {
                fprintf(f, "- ... %zu more in the HTML report and summary.json\n", nw - 10);
                break;
            }
            fprintf(f, "- %s: %s\n", str(sb_json_elem(warnings, i), "run"), str(sb_json_elem(warnings, i), "text"));
        }
        fprintf(f, "\n");
    }
    settings_section(sb_json_member(sum, "environment"), f);
    const json_object *g = sb_json_member(sum, "regression");
    if (strcmp(str(g, "status"), "off") != 0) {
        fprintf(f, "Regression gate (slower than '%s' by more than %.1f%%, whole 95%% CI): %s\n", str(g, "baseline"),
                sb_json_num(g, "threshold_pct"), strcmp(str(g, "status"), "fail") == 0 ? "FAIL" : "pass");
        const json_object *regs = sb_json_member(g, "regressions");
        for (size_t i = 0; i < sb_json_len(regs); i++) {
            const json_object *x = sb_json_elem(regs, i);
            fprintf(f, "- %s, %lld threads: %s\n", str(x, "workload"), (long long)sb_json_int(x, "threads"),
                    str(x, "text"));
        }
        fprintf(f, "\n");
    }
    if (!sb_json_true(sum, "complete"))
        fprintf(f, "The comparison is incomplete: run it again to finish the missing runs.\n\n");
}
