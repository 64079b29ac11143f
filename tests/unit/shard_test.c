/*
 * shard_test.c: unit tests for core/shard_id.c: a shard's identity from
 * --shard and from each launcher's environment (a fake environment here),
 * the run id, the errors a user sees, --start-at's syntax, the per-shard
 * seeds, the log tag, and the settings digest (the same whatever order
 * the options were registered in).  Prints "N passed, 0 failed".
 */
#include "../../lib/options.h"
#include "../../core/shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* the fake environment: "NAME=value" entries */
static const char *fake_env[16];

static const char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; fake_env[i]; i++)
        if (strncmp(fake_env[i], name, n) == 0 && fake_env[i][n] == '=')
            return fake_env[i] + n + 1;
    return NULL;
}

/* identity for argv words (options) and the fake environment; returns
 * the rc, fills s and err */
static int ident(struct sb_shard *s, char *err, size_t errlen, const char *const *args)
{
    struct sb_options *o = sb_options_create();
    sb_shard_add_options(o);
    char *argv[16] = {"sbench"};
    int argc = 1;
    for (int i = 0; args[i]; i++)
        argv[argc++] = (char *)args[i];
    const char **words;
    int nwords;
    int rc = sb_options_parse_argv(o, argc, argv, &words, &nwords, err, errlen);
    if (rc == 0)
        rc = sb_options_resolve(o, 1, err, errlen);
    if (rc == 0)
        rc = sb_shard_identify(s, o, fake_getenv, err, errlen);
    sb_options_destroy(o);
    return rc;
}

#define ENV(...) do { const char *e_[] = {__VA_ARGS__, NULL}; memcpy(fake_env, e_, sizeof e_); } while (0)
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_sources(void)
{
    struct sb_shard s;
    char err[512];
    ENV(NULL);
    CHECK(ident(&s, err, sizeof err, ARGS(NULL)) == 0 && !s.given && s.count == 1 && s.index == 0, "none");
    CHECK(ident(&s, err, sizeof err, ARGS("--shard=2/5", "--run-id=r1")) == 0 && s.given &&
          s.index == 2 && s.count == 5 && strcmp(s.source, "--shard") == 0 && strcmp(s.run_id, "r1") == 0,
          "--shard: %s", err);
    ENV("JOB_COMPLETION_INDEX=3");
    CHECK(ident(&s, err, sizeof err, ARGS("--shard-count=4", "--run-id=k")) == 0 && s.index == 3 &&
          s.count == 4 && strcmp(s.source, "JOB_COMPLETION_INDEX") == 0, "k8s: %s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--run-id=k")) == -1 && strstr(err, "--shard-count"), "%s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--shard-count=3", "--run-id=k")) == -1 &&
          strstr(err, "JOB_COMPLETION_INDEX='3'"), "%s", err);
    ENV("OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=3", "PMIX_NAMESPACE=12345", "SLURM_PROCID=0",
        "SLURM_NTASKS=1");
    CHECK(ident(&s, err, sizeof err, ARGS(NULL)) == 0 && s.index == 1 && s.count == 3 &&
          strcmp(s.source, "OMPI_COMM_WORLD_RANK") == 0 && strcmp(s.run_id, "12345") == 0, "ompi: %s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--shard-count=4")) == -1 && strstr(err, "disagree"), "%s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--shard=0/2", "--run-id=x")) == 0 && s.index == 0 && s.count == 2,
          "--shard wins: %s", err);
    ENV("PMI_RANK=4", "PMI_SIZE=8");
    CHECK(ident(&s, err, sizeof err, ARGS("--run-id=p")) == 0 && s.index == 4 && s.count == 8, "pmi: %s", err);
    CHECK(ident(&s, err, sizeof err, ARGS(NULL)) == -1 && strstr(err, "--run-id"), "no run id: %s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--start-at=1700000000")) == 0 &&
          strcmp(s.run_id, "start-1700000000") == 0, "run id from --start-at: %s", s.run_id);
    ENV("SLURM_PROCID=2", "SLURM_NTASKS=3", "SLURM_JOB_ID=77", "SLURM_STEP_ID=1");
    CHECK(ident(&s, err, sizeof err, ARGS(NULL)) == 0 && s.index == 2 && s.count == 3 &&
          strcmp(s.run_id, "slurm-77.1") == 0, "slurm: %s %s", err, s.run_id);
    ENV("SLURM_PROCID=0", "SLURM_NTASKS=1", "SLURM_JOB_ID=77");
    CHECK(ident(&s, err, sizeof err, ARGS(NULL)) == 0 && !s.given && s.count == 1,
          "a single task (an sbatch script's step) is not a shard: %s", err);
    ENV("OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=3");
    CHECK(ident(&s, err, sizeof err, ARGS("--run-id=x")) == -1 && strstr(err, "OMPI_COMM_WORLD_RANK='3'"),
          "rank out of range: %s", err);
    ENV(NULL);
    static const char *const bad[] = {"--shard=3/3", "--shard=1", "--shard=-1/2", "--shard=a/b",
                                      "--shard=0/0", "--shard=1/2x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(ident(&s, err, sizeof err, ARGS(bad[i], "--run-id=x")) == -1 && strstr(err, "--shard"),
              "%s: %s", bad[i], err);
    CHECK(ident(&s, err, sizeof err, ARGS("--shard=0/2", "--run-id=a b")) == -1 && strstr(err, "run id"),
          "bad run id: %s", err);
    CHECK(ident(&s, err, sizeof err, ARGS("--shard-count=2")) == -1 && strstr(err, "JOB_COMPLETION_INDEX"),
          "count alone: %s", err);
    PASS("identity from --shard, JOB_COMPLETION_INDEX, OMPI, PMI, SLURM; run ids; errors");
}

static void test_start_at_seed_tag(void)
{
    int64_t ns;
    CHECK(sb_parse_start_at("1700000000", &ns) == 0 && ns == 1700000000LL * 1000000000LL, "epoch");
    CHECK(sb_parse_start_at("1700000000.5", &ns) == 0 && ns == 1700000000500000000LL, "fraction");
    CHECK(sb_parse_start_at("2023-11-14T22:13:20Z", &ns) == 0 && ns == 1700000000LL * 1000000000LL, "iso");
    static const char *const bad[] = {"", "x", "-5", "2023-11-14 22:13:20", "2023-11-14T22:13:20",
                                      "1e99", "17000000001x", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(sb_parse_start_at(bad[i], &ns) == -1, "'%s' accepted", bad[i]);
    CHECK(sb_shard_seed(42, 0, 1) == 42 && sb_shard_seed(0, 3, 8) == 0, "unchanged");
    uint64_t seen[64];
    for (int i = 0; i < 64; i++) {
        seen[i] = sb_shard_seed(42, i, 64);
        CHECK(seen[i] != 0 && seen[i] == sb_shard_seed(42, i, 64), "seed %d", i);
        for (int k = 0; k < i; k++)
            CHECK(seen[k] != seen[i], "seeds %d and %d equal", k, i);
    }
    struct sb_shard s = {.given = 1, .index = 5, .count = 9, .run_id = "job-1.2:x"};
    strcpy(s.settings, "00112233aabbccdd");
    char tag[256], rid[101], set[17];
    int i, n;
    sb_shard_hlog_tag(&s, tag, sizeof tag);
    CHECK(sb_shard_parse_hlog_tag(tag, &i, &n, rid, sizeof rid, set, sizeof set) == 0 && i == 5 && n == 9 &&
          strcmp(rid, "job-1.2:x") == 0 && strcmp(set, s.settings) == 0, "tag '%s'", tag);
    CHECK(sb_shard_parse_hlog_tag("sbench shard 9 of 9, run a, settings 00112233aabbccdd", &i, &n, rid,
                                  sizeof rid, set, sizeof set) == -1, "index out of range");
    CHECK(sb_shard_parse_hlog_tag("sbench shard 1 of 9, run a, settings 0011", &i, &n, rid, sizeof rid,
                                  set, sizeof set) == -1, "short digest");
    PASS("--start-at syntax, per-shard seeds distinct and stable, log tag round trip");
}

static void digest_of(const char *const *names, int n, const char *threads, char out[17])
{
    struct sb_options *o = sb_options_create();
    for (int i = 0; i < n; i++)
        sb_options_add(o, names[i], SB_OPT_STRING, SB_SRC_WORKLOAD, "v", "h", NULL, 0, 0);
    sb_options_add(o, "threads", SB_OPT_INT, SB_SRC_CORE, threads, "h", NULL, 1, 100);
    sb_options_add(o, "output", SB_OPT_STRING, SB_SRC_CORE, threads, "h", NULL, 0, 0);
    sb_options_add(o, "pgsql-password", SB_OPT_SECRET, SB_SRC_DRIVER, threads, "h", NULL, 0, 0);
    CHECK(sb_shard_settings_digest(o, out) == 0, "digest");
    sb_options_destroy(o);
}

static void test_digest(void)
{
    const char *a[] = {"table-size", "tables", "range-size"}, *b[] = {"range-size", "table-size", "tables"};
    char d1[17], d2[17], d3[17];
    digest_of(a, 3, "4", d1);
    digest_of(b, 3, "4", d2);
    CHECK(strcmp(d1, d2) == 0, "order changes the digest: %s %s", d1, d2);
    digest_of(a, 3, "5", d3);
    CHECK(strcmp(d1, d3) != 0, "threads does not change the digest");
    CHECK(sb_shard_option_must_agree("threads") && sb_shard_option_must_agree("rate") &&
          !sb_shard_option_must_agree("output") && !sb_shard_option_must_agree("shard") &&
          !sb_shard_option_must_agree("mysql-password"), "must agree");
    PASS("settings digest: registration order does not matter, values do");
}

int main(void)
{
    test_sources();
    test_start_at_seed_tag();
    test_digest();
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
