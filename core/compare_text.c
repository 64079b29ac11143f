/*
 * compare_text.c: the summary of a comparison as markdown on stdout: per
 * workload a table of median throughput (with its interval) and p95/p99
 * latency per thread count and target, then the verdicts, the knees, the
 * warnings and the regression gate.  A pure function of the summary.
 */
#include "compare.h"

#include <string.h>

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static void point_cell(const json_t *p, FILE *f)
{
    const json_t *t = json_object_get(p, "tps"), *l = json_object_get(json_object_get(p, "latency_ms"), "percentiles");
    fprintf(f, " %.1f [%.1f, %.1f] | %.3f / %.3f |", num(t, "median"), num(t, "low"), num(t, "high"), num(l, "95"),
            num(l, "99"));
}

void cmp_text_report(const json_t *sum, FILE *f)
{
    const json_t *spec = json_object_get(sum, "spec");
    fprintf(f, "# %s\n\n", str(sum, "title"));
    fprintf(f, "%lld of %lld runs done; %lld repeats of %llds (+%llds warm-up) per point; results in %s\n\n",
            (long long)json_integer_value(json_object_get(sum, "runs_done")),
            (long long)json_integer_value(json_object_get(sum, "runs_planned")),
            (long long)json_integer_value(json_object_get(spec, "repeats")),
            (long long)json_integer_value(json_object_get(spec, "time")),
            (long long)json_integer_value(json_object_get(spec, "warmup")), str(sum, "results_dir"));
    size_t wi, ti, i;
    json_t *w, *t, *x;
    json_array_foreach(json_object_get(spec, "workloads"), wi, w) {
        const char *wl = str(w, "label");
        fprintf(f, "## %s\n\nMedian tps [interval of the median], p95 / p99 latency (ms) of the merged repeats\n\n| threads |", wl);
        json_array_foreach(json_object_get(spec, "targets"), ti, t)
            fprintf(f, " %s tps | %s p95 / p99 |", str(t, "name"), str(t, "name"));
        fprintf(f, "\n|---:|");
        json_array_foreach(json_object_get(spec, "targets"), ti, t)
            fprintf(f, "---:|---:|");
        fprintf(f, "\n");
        json_t *th;
        size_t hi;
        json_array_foreach(json_object_get(spec, "threads"), hi, th) {
            fprintf(f, "| %lld |", (long long)json_integer_value(th));
            json_array_foreach(json_object_get(spec, "targets"), ti, t) {
                const json_t *found = NULL;
                json_array_foreach(json_object_get(sum, "points"), i, x)
                    if (!strcmp(str(x, "workload"), wl) && !strcmp(str(x, "target"), str(t, "name")) &&
                        json_integer_value(json_object_get(x, "threads")) == json_integer_value(th))
                        found = x;
                if (found)
                    point_cell(found, f);
                else
                    fprintf(f, " - | - |");
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\nVerdicts:\n\n");
        json_array_foreach(json_object_get(sum, "verdicts"), i, x)
            if (!strcmp(str(x, "workload"), wl))
                fprintf(f, "- %lld threads: %s\n", (long long)json_integer_value(json_object_get(x, "threads")),
                        str(x, "text"));
        int any = 0;
        json_array_foreach(json_object_get(sum, "sweeps"), i, x)
            if (!strcmp(str(x, "workload"), wl))
                fprintf(f, "%s- %s\n", any++ ? "" : "\nScaling:\n\n", str(x, "text"));
        fprintf(f, "\n");
    }
    size_t nw = json_array_size(json_object_get(sum, "warnings"));
    if (nw) {
        fprintf(f, "Warnings (%zu):\n\n", nw);
        json_array_foreach(json_object_get(sum, "warnings"), i, x) {
            if (i == 10) {
                fprintf(f, "- ... %zu more in the HTML report and summary.json\n", nw - 10);
                break;
            }
            fprintf(f, "- %s: %s\n", str(x, "run"), str(x, "text"));
        }
        fprintf(f, "\n");
    }
    const json_t *g = json_object_get(sum, "regression");
    if (strcmp(str(g, "status"), "off") != 0) {
        fprintf(f, "Regression gate (slower than '%s' by more than %.1f%%, whole 95%% CI): %s\n", str(g, "baseline"),
                num(g, "threshold_pct"), strcmp(str(g, "status"), "fail") == 0 ? "FAIL" : "pass");
        json_array_foreach(json_object_get(g, "regressions"), i, x)
            fprintf(f, "- %s, %lld threads: %s\n", str(x, "workload"),
                    (long long)json_integer_value(json_object_get(x, "threads")), str(x, "text"));
        fprintf(f, "\n");
    }
    if (!json_is_true(json_object_get(sum, "complete")))
        fprintf(f, "The comparison is incomplete: run it again to finish the missing runs.\n\n");
}
