/*
 * shard_id.c: the pure parts of a shard (see shard.h): its options, its
 * identity from the command line or the launcher's environment, the
 * digest of the options that must agree, the seed, --start-at's syntax
 * and the tags its files carry.  No clock, no global state: unit-tested
 * by tests/unit/shard_test.c.
 */
#include "shard.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/options.h"

#define MAX_SHARDS 100000

void sb_shard_add_options(struct sb_options *o)
{
    sb_options_add(o, "shard", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "run as shard I of N (0-based), e.g. 2/8; by default taken from the launcher's "
                   "environment (JOB_COMPLETION_INDEX with --shard-count, OMPI_COMM_WORLD_RANK/SIZE, "
                   "PMI_RANK/SIZE, SLURM_PROCID/NTASKS); --rate and --events are split over the shards, "
                   "--threads and --clients are per shard", NULL, 0, 0);
    sb_options_add(o, "shard-count", SB_OPT_INT, SB_SRC_CORE, "0",
                   "number of shards when the index comes from JOB_COMPLETION_INDEX (a Kubernetes "
                   "Indexed Job's completions)", NULL, 0, MAX_SHARDS);
    sb_options_add(o, "run-id", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "the id every shard of one run shares (letters, digits, . _ : -); by default the "
                   "launcher's job id, else taken from --start-at", NULL, 0, 0);
    sb_options_add(o, "start-at", SB_OPT_STRING, SB_SRC_CORE, NULL,
                   "start the workers at this wall-clock time (seconds since the epoch, or "
                   "YYYY-MM-DDTHH:MM:SSZ), so that the shards' warm-up and reporting windows line up",
                   NULL, 0, 0);
}

/* ---- identity ---- */

/* A whole number in [lo, hi] filling all of s; 0, or -1. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (s == NULL || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int run_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > SB_RUN_ID_MAX)
        return 0;
    for (const char *c = id; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("._:-", *c))
            return 0;
    return 1;
}

/* The launchers' index/size variables, in the order they are looked for. */
static const struct { const char *rank, *size; } launchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
};

static int identity(struct sb_shard *s, const struct sb_options *o,
                    const char *(*env)(const char *), char *err, size_t errlen)
{
    const char *given = sb_opt_str(o, "shard");
    long count_opt = (long)sb_opt_int(o, "shard-count");
    long i, n;
    if (given && *given) {
        const char *slash = strchr(given, '/');
        char idx[32];
        if (!slash || (size_t)(slash - given) >= sizeof idx) {
            snprintf(err, errlen, "invalid value '%.40s' for --shard: expected I/N, e.g. 0/4", given);
            return -1;
        }
        memcpy(idx, given, (size_t)(slash - given));
        idx[slash - given] = 0;
        if (parse_int(slash + 1, 1, MAX_SHARDS, &n) || parse_int(idx, 0, n - 1, &i)) {
            snprintf(err, errlen, "invalid value '%.40s' for --shard: expected I/N with 0 <= I < N <= %d",
                     given, MAX_SHARDS);
            return -1;
        }
        if (count_opt && count_opt != n) {
            snprintf(err, errlen, "--shard=%s and --shard-count=%ld disagree", given, count_opt);
            return -1;
        }
        s->source = "--shard";
    } else if (env("JOB_COMPLETION_INDEX")) {
        const char *v = env("JOB_COMPLETION_INDEX");
        if (count_opt == 0) {
            snprintf(err, errlen, "JOB_COMPLETION_INDEX=%.20s is set (a Kubernetes Indexed Job): give "
                     "--shard-count=N, the Job's completions", v);
            return -1;
        }
        n = count_opt;
        if (parse_int(v, 0, n - 1, &i)) {
            snprintf(err, errlen, "JOB_COMPLETION_INDEX='%.20s' is not a shard index below --shard-count=%ld",
                     v, n);
            return -1;
        }
        s->source = "JOB_COMPLETION_INDEX";
    } else {
        size_t k;
        for (k = 0; k < sizeof launchers / sizeof launchers[0]; k++)
            if (env(launchers[k].rank))
                break;
        if (k == sizeof launchers / sizeof launchers[0]) {
            if (count_opt) {
                snprintf(err, errlen, "--shard-count=%ld needs JOB_COMPLETION_INDEX in the environment "
                         "(or give --shard=I/N)", count_opt);
                return -1;
            }
            return 0; /* not a shard */
        }
        const char *rv = env(launchers[k].rank), *sv = env(launchers[k].size);
        if (parse_int(sv, 1, MAX_SHARDS, &n) || parse_int(rv, 0, n - 1, &i)) {
            snprintf(err, errlen, "%s='%.20s' and %s='%.20s' are not a shard index and count",
                     launchers[k].rank, rv, launchers[k].size, sv ? sv : "");
            return -1;
        }
        if (count_opt && count_opt != n) {
            snprintf(err, errlen, "--shard-count=%ld and %s=%ld disagree", count_opt, launchers[k].size, n);
            return -1;
        }
        if (n == 1 && !count_opt) /* a batch step, mpirun -n 1: a single process */
            return 0;
        s->source = launchers[k].rank;
    }
    s->given = 1;
    s->index = (int)i;
    s->count = (int)n;
    return 0;
}

static int find_run_id(struct sb_shard *s, const struct sb_options *o,
                       const char *(*env)(const char *), char *err, size_t errlen)
{
    const char *id = sb_opt_str(o, "run-id");
    const char *start = sb_opt_str(o, "start-at");
    if (id && *id) {
        snprintf(s->run_id, sizeof s->run_id, "%s", id);
    } else if (env("PMIX_NAMESPACE") || env("OMPI_MCA_ess_base_jobid")) {
        snprintf(s->run_id, sizeof s->run_id, "%.90s",
                 env("PMIX_NAMESPACE") ? env("PMIX_NAMESPACE") : env("OMPI_MCA_ess_base_jobid"));
    } else if (env("SLURM_JOB_ID")) {
        snprintf(s->run_id, sizeof s->run_id, "slurm-%.40s.%.40s", env("SLURM_JOB_ID"),
                 env("SLURM_STEP_ID") ? env("SLURM_STEP_ID") : "0");
    } else if (start && *start) {
        snprintf(s->run_id, sizeof s->run_id, "start-%.80s", start);
        for (char *c = s->run_id; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("._:-", *c))
                *c = '-';
    } else if (s->given) {
        snprintf(err, errlen, "shard %d of %d (from %s) has no run id to share with the other shards: "
                 "give --run-id=ID or --start-at=TIME", s->index, s->count, s->source);
        return -1;
    }
    if (s->run_id[0] && !run_id_ok(s->run_id)) {
        snprintf(err, errlen, "invalid run id '%.100s': 1 to %d letters, digits, '.', '_', ':' or '-'",
                 s->run_id, SB_RUN_ID_MAX);
        return -1;
    }
    return 0;
}

int sb_shard_identify(struct sb_shard *s, const struct sb_options *o,
                      const char *(*getenv_fn)(const char *), char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->count = 1;
    if (identity(s, o, getenv_fn, err, errlen) != 0)
        return -1;
    return find_run_id(s, o, getenv_fn, err, errlen);
}

/* ---- settings that must agree ---- */

int sb_shard_option_must_agree(const char *name)
{
    static const char *const local[] = {
        "shard", "shard-count", "run-id", "output", "hdr-log", "prometheus", "report-format",
        "percentile", "percentiles", "histogram", "verbosity", "db-debug", "driver-path",
        "workload-path", "help", "version", NULL};
    for (int i = 0; local[i]; i++)
        if (strcmp(name, local[i]) == 0)
            return 0;
    return strstr(name, "password") == NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const struct sb_opt *const *)a)->name, (*(const struct sb_opt *const *)b)->name);
}

/* FNV-1a 64 over "name=value\n" of every option that must agree, in name
 * order (a workload registers its options in its table's order, which
 * differs from one process to the next). */
int sb_shard_settings_digest(const struct sb_options *o, char out[17])
{
    int n = sb_options_count(o);
    const struct sb_opt **v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        v[i] = sb_options_at(o, i);
    qsort(v, (size_t)n, sizeof *v, by_name);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < n; i++) {
        const char *val = v[i]->value ? v[i]->value : v[i]->def;
        if (val == NULL || v[i]->kind == SB_OPT_SECRET || !sb_shard_option_must_agree(v[i]->name))
            continue;
        for (int part = 0; part < 4; part++) {
            const char *t = part == 0 ? v[i]->name : part == 1 ? "=" : part == 2 ? val : "\n";
            for (; *t; t++) {
                h ^= (unsigned char)*t;
                h *= UINT64_C(0x100000001b3);
            }
        }
    }
    free(v);
    snprintf(out, 17, "%016" PRIx64, h);
    return 0;
}

uint64_t sb_shard_seed(uint64_t seed, int index, int count)
{
    if (count <= 1 || seed == 0)
        return seed;
    /* splitmix64 of the seed and the index: unrelated streams per shard */
    uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(index + 1);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    z ^= z >> 31;
    return z ? z : 1;
}

int sb_parse_start_at(const char *s, int64_t *ns)
{
    if (s == NULL || *s == 0)
        return -1;
    if (strchr(s, 'T')) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
        if (end == NULL || *end)
            return -1;
        time_t t = timegm(&tm);
        if (t == (time_t)-1 || t < 0)
            return -1;
        *ns = (int64_t)t * 1000000000LL;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isdigit((unsigned char)*s) || !(v >= 1.0 && v < 1e11))
        return -1;
    *ns = (int64_t)llround(v * 1e9);
    return 0;
}

/* ---- tags ---- */

size_t sb_shard_meta_json(const struct sb_shard *s, char *buf, size_t len)
{
    char start_at[48] = "null";
    if (s->start_at_ns)
        snprintf(start_at, sizeof start_at, "%.3f", (double)s->start_at_ns / 1e9);
    int n = snprintf(buf, len,
                     "{\"index\":%d,\"count\":%d,\"source\":\"%s\",\"run_id\":\"%s\","
                     "\"settings\":\"%s\",\"run_seed\":%llu,\"start_at\":%s,"
                     "\"measure_start\":%.6f,\"client_cpu_s\":%.3f}",
                     s->index, s->count, s->source ? s->source : "", s->run_id, s->settings,
                     (unsigned long long)s->run_seed, start_at, s->measure_start, s->cpu_s);
    return n < 0 ? 0 : (size_t)n;
}

void sb_shard_hlog_tag(const struct sb_shard *s, char *buf, size_t len)
{
    snprintf(buf, len, "sbench shard %d of %d, run %s, settings %s", s->index, s->count,
             s->run_id, s->settings);
}

int sb_shard_parse_hlog_tag(const char *text, int *index, int *count, char *run_id,
                            size_t run_id_len, char *settings, size_t settings_len)
{
    int i, n, used = 0;
    if (sscanf(text, "sbench shard %d of %d, run %n", &i, &n, &used) != 2 || used == 0)
        return -1;
    const char *id = text + used;
    const char *comma = strstr(id, ", settings ");
    if (!comma || (size_t)(comma - id) >= run_id_len || comma == id)
        return -1;
    const char *hex = comma + strlen(", settings ");
    size_t hl = strspn(hex, "0123456789abcdef");
    if (hl != 16 || hex[hl] != 0 || settings_len < 17 || i < 0 || n < 1 || i >= n)
        return -1;
    memcpy(run_id, id, (size_t)(comma - id));
    run_id[comma - id] = 0;
    memcpy(settings, hex, 17);
    *index = i;
    *count = n;
    return 0;
}
