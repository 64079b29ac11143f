/*
 * compare_check.c: a stored run of a comparison checked before it is read
 * back (compare_load.c), as untrusted bytes: its files are there and
 * readable (an unreadable one is an error, never "not done yet"), its
 * record holds what compare_exec.c writes (each value what the summary's
 * schema, docs/compare.schema.json, allows, and the derived share its
 * recomputation), and its report is the run the comparison planned: the
 * target's driver and the point's thread count.  The report's own lines
 * are checked by results/report_check.c, as sbench merge checks them.
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../results/json_get.h"

/* path exists: 1; does not (ENOENT): 0; cannot be told (a symlink loop,
 * no permission, a name too long): -1 with err. */
static int exists(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
    return -1;
}

/* The file name (no directory, no extension) of one run. */
void cmp_run_id(const struct cmp_spec *s, int w, int t, int k, int rep, char *buf, size_t len)
{
    snprintf(buf, len, "%s_t%d_%s_r%d", s->workloads[w].label, s->threads[t], s->targets[k].name,
             rep + 1);
}

int cmp_run_state(const char *dir, const char *id, char *err, size_t errlen)
{
    char rec[4300], json[4300];
    snprintf(rec, sizeof rec, "%s/runs/%s.record.json", dir, id);
    snprintf(json, sizeof json, "%s/runs/%s.json", dir, id);
    int r = exists(rec, err, errlen);
    if (r <= 0)
        return r; /* the record is written last: without it the run is not done */
    int j = exists(json, err, errlen);
    if (j == 0)
        snprintf(err, errlen, "%.400s: missing, but the run's record is there (the record is written last)",
                 json);
    return j > 0 ? 1 : -1;
}

enum { NEED = 1, INT = 2 };

/* rec's number key, when there (or with NEED): finite (with INT: an
 * integer, as the schema says) and in [lo, hi]. */
static int in_range(const json_object *rec, const char *key, int flags, double lo, double hi, double *out,
                    char *err, size_t errlen)
{
    double v = 0;
    json_object *m = sb_json_member(rec, key);
    if (!(flags & NEED) && m == NULL)
        return 0;
    if (sb_json_get_num(rec, key, &v, err, errlen))
        return -1;
    if ((flags & INT) && !json_object_is_type(m, json_type_int)) {
        snprintf(err, errlen, "\"%s\" is %.17g: not a whole number", key, v);
        return -1;
    }
    if (!(v >= lo && v <= hi)) {
        snprintf(err, errlen, "\"%s\" is %.17g: not from %g to %g", key, v, lo, hi);
        return -1;
    }
    if (out)
        *out = v;
    return 0;
}

/* rec's string key, when there (or when `need`). */
static const char *string_of(const json_object *rec, const char *key, int need, char *err, size_t errlen)
{
    json_object *v = sb_json_member(rec, key);
    if (v == NULL && !need)
        return "";
    if (!json_object_is_type(v, json_type_string)) {
        snprintf(err, errlen, "\"%s\" is %s", key, v ? "not a string" : "missing");
        return NULL;
    }
    return json_object_get_string(v);
}

/* The record's command: compare masks every password (cmp_mask). */
static int check_command(const char *cmd, char *err, size_t errlen)
{
    for (const char *p = strstr(cmd, "password="); p; p = strstr(p + 1, "password="))
        if (strncmp(p + 9, "***", 3) != 0) {
            snprintf(err, errlen, "\"command\" holds a password (compare writes them masked)");
            return -1;
        }
    return 0;
}

int cmp_record_check(const json_object *rec, const char *id, char *err, size_t errlen)
{
    static const char *const shares[] = {"machine_busy_share", "busy_share_before", "machine_steal_share"};
    static const char *const thread_shares[] = {"client_busiest_thread_cpu_share",
                                                "client_busiest_thread_delay_share", "client_mean_run_delay_share"};
    double wall, cpu, cpus, share;
    const char *rid, *cmd;
    if (!json_object_is_type(rec, json_type_object)) {
        snprintf(err, errlen, "not a JSON object");
        return -1;
    }
    if ((rid = string_of(rec, "id", 1, err, errlen)) == NULL || (cmd = string_of(rec, "command", 1, err, errlen)) == NULL ||
        string_of(rec, "start_time", 0, err, errlen) == NULL || check_command(cmd, err, errlen))
        return -1;
    if (strcmp(rid, id) != 0) {
        snprintf(err, errlen, "\"id\" is \"%.100s\": the record of another run", rid);
        return -1;
    }
    /* a record is written only after its run exited with status 0; the
     * client's CPU time (wait4) is at most its wall time on every CPU, but
     * for the kernel's accounting (1%, and 0.1 s) */
    if (in_range(rec, "order", NEED | INT, 0, 1e9, NULL, err, errlen) ||
        in_range(rec, "exit_status", NEED | INT, 0, 0, NULL, err, errlen) ||
        in_range(rec, "wall_s", NEED, 1e-9, 1e9, &wall, err, errlen) ||
        in_range(rec, "cpus", NEED | INT, 1, 1 << 20, &cpus, err, errlen) ||
        in_range(rec, "client_cpu_s", NEED, 0, wall * cpus * 1.01 + 0.1, &cpu, err, errlen) ||
        in_range(rec, "client_cpu_share", NEED, 0, 1e9, &share, err, errlen) ||
        in_range(rec, "loadavg_1m", 0, 0, 1e7, NULL, err, errlen) ||
        in_range(rec, "client_threads_measured", INT, 1, CMP_PROBE_TASKS, NULL, err, errlen) ||
        in_range(rec, "server_processes", INT, 1, CMP_SERVER_PIDS, NULL, err, errlen) ||
        in_range(rec, "server_model_threads", INT, 1, CMP_PROBE_TASKS, NULL, err, errlen) ||
        in_range(rec, "server_cpu_cores", 0, 0, cpus * 1.5 + 1, NULL, err, errlen) ||
        in_range(rec, "server_run_delay_cores", 0, 0, CMP_PROBE_TASKS * 1.5, NULL, err, errlen))
        return -1;
    if (fabs(share - cpu / (wall * cpus)) > 1e-9 * fmax(1, share)) {
        snprintf(err, errlen, "\"client_cpu_share\" is %.17g, but %.9g s of CPU in %.9g s on %.0f CPUs is %.17g",
                 share, cpu, wall, cpus, cpu / (wall * cpus));
        return -1;
    }
    for (size_t k = 0; k < sizeof shares / sizeof shares[0]; k++)
        if (in_range(rec, shares[k], 0, 0, 1, NULL, err, errlen))
            return -1;
    /* one thread's shares of its own life (compare_probe.c): at most 1 but
     * for the sampler's own delays between reading the clock and the
     * thread's counters, which a loaded machine stretches (a span is 0.2 s
     * or more): bounded loosely */
    for (size_t k = 0; k < sizeof thread_shares / sizeof thread_shares[0]; k++)
        if (in_range(rec, thread_shares[k], 0, 0, 100, NULL, err, errlen))
            return -1;
    return 0;
}

/* The last --db-driver=X of opts (NULL when none) into *drv; as sbench's
 * option parser reads names, '_' is '-' (--db_driver=X). */
static void driver_of(const struct cmp_strv *opts, const char **drv)
{
    static const char name[] = "--db-driver=";
    for (int i = 0; i < opts->n; i++) {
        const char *o = opts->v[i];
        size_t k = 0;
        while (k < sizeof name - 1 && (o[k] == name[k] || (o[k] == '_' && name[k] == '-')))
            k++;
        if (k == sizeof name - 1)
            *drv = o + k;
    }
}

int cmp_run_matches(const struct cmp_spec *s, int w, int t, int k, const json_object *final, char *err,
                    size_t errlen)
{
    const char *want = NULL; /* compare gives the spec's, the target's, the workload's options in order */
    driver_of(&s->opts, &want);
    driver_of(&s->targets[k].opts, &want);
    driver_of(&s->workloads[w].opts, &want);
    const char *got = sb_json_str(sb_json_at(final, "run.options"), "db-driver");
    if (strcmp(got ? got : CMP_DEFAULT_DRIVER, want ? want : CMP_DEFAULT_DRIVER) != 0) {
        snprintf(err, errlen, "\"run.options.db-driver\" is %.60s, but target '%s' runs %.60s: another target's run",
                 got ? got : "absent (" CMP_DEFAULT_DRIVER ")", s->targets[k].name, want ? want : CMP_DEFAULT_DRIVER);
        return -1;
    }
    int64_t threads = 0;
    if (sb_json_get_i64(final, "threads", &threads, err, errlen))
        return -1;
    if (threads != s->threads[t]) {
        snprintf(err, errlen, "\"threads\" is %lld, but the point runs %ld threads: another point's run",
                 (long long)threads, (long)s->threads[t]);
        return -1;
    }
    return 0;
}

/* ---- the shapes of what the summary copies (docs/compare.schema.json) ---- */

enum shape { S_STR, S_INT, S_COUNT, S_LOAD3, S_FS, S_SETTINGS };
struct field {
    const char *key;
    enum shape shape;
};

/* the host object of sbench info (core/sysinfo.c): every field optional */
static const struct field host_fields[] = {
    {"name", S_STR}, {"os", S_STR}, {"sysname", S_STR}, {"kernel", S_STR}, {"kernel_version", S_STR},
    {"arch", S_STR}, {"cpu_model", S_STR}, {"cpus", S_INT}, {"cpus_configured", S_INT},
    {"memory_bytes", S_COUNT}, {"memory_available_bytes", S_COUNT}, {"clocksource", S_STR},
    {"clocksources_available", S_STR}, {"loadavg", S_LOAD3}, {"cwd", S_STR}, {"fs", S_FS}, {NULL, 0}};
static const struct field run_fields[] = {
    {"driver", S_STR}, {"client_version", S_STR}, {"server_version", S_STR}, {"sbench_version", S_STR},
    {"io", S_STR}, {NULL, 0}};
static const struct field settings_fields[] = {{"version", S_STR}, {"error", S_STR}, {"settings", S_SETTINGS},
                                               {NULL, 0}};
static const struct field driver_fields[] = {{"client_version", S_STR}, {"description", S_STR}, {"error", S_STR},
                                             {NULL, 0}};

static int is_type(const json_object *v, json_type t) { return json_object_is_type(v, t); }

/* v, o's member what.key, has shape sh: 0, or -1 with err. */
static int check_shape(const json_object *v, const char *what, const char *key, enum shape sh, char *err,
                       size_t errlen)
{
    int ok = 1;
    switch (sh) {
    case S_STR: ok = is_type(v, json_type_string); break;
    case S_INT: ok = is_type(v, json_type_int); break;
    case S_COUNT: ok = is_type(v, json_type_int) && json_object_get_int64(v) >= 0; break;
    case S_LOAD3:
        ok = is_type(v, json_type_array) && json_object_array_length(v) == 3;
        for (size_t i = 0; ok && i < 3; i++) {
            json_object *x = json_object_array_get_idx(v, i);
            ok = is_type(x, json_type_int) || is_type(x, json_type_double);
        }
        break;
    case S_FS: {
        static const char *const need[] = {"type", "device", "mount", "total_bytes", "free_bytes", "available_bytes"};
        ok = is_type(v, json_type_object);
        for (size_t i = 0; ok && i < sizeof need / sizeof need[0]; i++)
            ok = sb_json_member(v, need[i]) != NULL;
        break;
    }
    case S_SETTINGS:
        ok = is_type(v, json_type_object);
        if (ok) {
            json_object_object_foreach((json_object *)v, name, e) {
                (void)name;
                ok = ok && is_type(e, json_type_object) && is_type(sb_json_member(e, "value"), json_type_string) &&
                     is_type(sb_json_member(e, "unit"), json_type_string);
            }
        }
        break;
    }
    if (!ok)
        snprintf(err, errlen, "\"%s%s%s\" is not %s", what, *what ? "." : "", key,
                 sh == S_STR ? "a string" : sh == S_INT ? "an integer" : sh == S_COUNT ? "a count"
                 : sh == S_LOAD3 ? "three load averages" : sh == S_FS ? "a file system's facts"
                                 : "settings of {value, unit} strings");
    return ok ? 0 : -1;
}

/* Each field of f that o has, of its shape. */
static int check_fields(const json_object *o, const char *what, const struct field *f, char *err, size_t errlen)
{
    for (; f->key; f++) {
        json_object *v = sb_json_member(o, f->key);
        if (v && check_shape(v, what, f->key, f->shape, err, errlen))
            return -1;
    }
    return 0;
}

int cmp_host_check(const json_object *host, const char *what, char *err, size_t errlen)
{
    if (!is_type(host, json_type_object)) {
        snprintf(err, errlen, "\"%s\" is not an object", what);
        return -1;
    }
    return check_fields(host, what, host_fields, err, errlen);
}

int cmp_run_meta_check(const json_object *final, char *err, size_t errlen)
{
    if (!is_type(sb_json_at(final, "latency_ms.percentiles"), json_type_object)) {
        snprintf(err, errlen, "\"latency_ms.percentiles\" is missing or not an object");
        return -1;
    }
    json_object *run = sb_json_member(final, "run");
    if (run == NULL)
        return 0;
    if (!is_type(run, json_type_object)) {
        snprintf(err, errlen, "\"run\" is not an object");
        return -1;
    }
    if (check_fields(run, "run", run_fields, err, errlen) ||
        (sb_json_member(run, "host") && cmp_host_check(sb_json_member(run, "host"), "run.host", err, errlen)))
        return -1;
    json_object *set = sb_json_member(run, "server_settings");
    if (set == NULL || is_type(set, json_type_null))
        return 0;
    if (!is_type(set, json_type_object)) {
        snprintf(err, errlen, "\"run.server_settings\" is not an object");
        return -1;
    }
    return check_fields(set, "run.server_settings", settings_fields, err, errlen);
}

int cmp_drivers_check(const json_object *drivers, char *err, size_t errlen)
{
    if (!is_type(drivers, json_type_array)) {
        snprintf(err, errlen, "\"drivers\" is missing or not a list");
        return -1;
    }
    for (size_t i = 0; i < json_object_array_length(drivers); i++) {
        json_object *d = json_object_array_get_idx(drivers, i);
        char what[40];
        snprintf(what, sizeof what, "drivers[%zu]", i);
        if (!is_type(d, json_type_object) || check_shape(sb_json_member(d, "name"), what, "name", S_STR, err, errlen) ||
            check_shape(sb_json_member(d, "path"), what, "path", S_STR, err, errlen) ||
            check_fields(d, what, driver_fields, err, errlen)) {
            if (!is_type(d, json_type_object))
                snprintf(err, errlen, "\"%s\" is not a driver's object", what);
            return -1;
        }
    }
    return 0;
}
