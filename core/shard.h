/*
 * shard.h: one sbench process as one shard of a group started by a
 * launcher people already run (Kubernetes Indexed Jobs, Open MPI's mpirun,
 * other MPI launchers, Slurm's srun), so that `sbench merge` can add the
 * shards' reports up exactly.  No MPI library: the launcher starts the
 * processes, sbench reads who it is from the command line (--shard=I/N) or
 * the launcher's environment.
 *
 * What a shard changes in its run: --rate and --events are totals, split
 * over the shards (shard i runs rate/N and its share of the events, the
 * shares adding up to the total exactly); --threads and --clients are per
 * shard (each client machine runs that many, as two sysbench processes
 * would); random seeds are derived from --rand-seed and the shard index;
 * {shard} in --output and --hdr-log is replaced by the index; only shard 0
 * reads the server's counters.  --start-at=TIME starts every shard's
 * workers at one absolute time, so warm-up and reporting windows line up
 * on the wall clock.
 *
 * Nothing here runs on the measured path.
 */
#ifndef SB_SHARD_H
#define SB_SHARD_H

#include <stddef.h>
#include <stdint.h>

struct sb_options;
struct sb_run;

#define SB_RUN_ID_MAX 100

struct sb_shard {
    int given;                /* the run is a shard (identity found) */
    int index, count;         /* 0-based index and group size; 0 and 1 when not given */
    const char *source;       /* where the identity came from ("--shard",
                                 "JOB_COMPLETION_INDEX", "OMPI_COMM_WORLD_RANK",
                                 "PMI_RANK", "SLURM_PROCID"), static; NULL if none */
    char run_id[SB_RUN_ID_MAX + 1];
    uint64_t run_seed;        /* --rand-seed as given, before the per-shard derivation */
    double total_rate;        /* --rate as given: the whole group's */
    uint64_t total_events;    /* --events as given */
    int64_t start_at_ns;      /* --start-at, ns since the epoch; 0 = none */
    char settings[17];        /* hex digest of the options that must agree */
    char output[1400], hdr_log[1400]; /* --output / --hdr-log with {shard} replaced */
    /* measured during the run (bench.c) */
    double measure_start;     /* epoch seconds where measuring started */
    double cpu_start, cpu_s;  /* process CPU (user + system) seconds: at that
                                 start, and over the measured run */
};

/* Registers --shard, --shard-count, --run-id and --start-at (core options). */
void sb_shard_add_options(struct sb_options *o);

/*
 * Finds the shard's identity: --shard=I/N, else JOB_COMPLETION_INDEX (with
 * N from --shard-count), OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE,
 * SLURM_PROCID/SLURM_NTASKS, read through getenv_fn (getenv, or a test's;
 * a launcher's group of one, such as an sbatch script's own step, is not
 * a shard);
 * the run id from --run-id, else the launcher's job (PMIX_NAMESPACE,
 * OMPI_MCA_ess_base_jobid, SLURM_JOB_ID.SLURM_STEP_ID), else from
 * --start-at.  Fills s (zeroed first; count 1 when no identity is found).
 * Returns 0, or -1 with one line in err (a bad value, an index out of
 * range, a group without a run id, sources that disagree).
 */
int sb_shard_identify(struct sb_shard *s, const struct sb_options *o,
                      const char *(*getenv_fn)(const char *), char *err, size_t errlen);

/*
 * Applies the identity to a parsed run (main.c, after the options are
 * resolved and read): splits --rate and --events, derives the seed,
 * replaces {shard} in the output paths, checks that a sharded run writes
 * what `sbench merge` reads (--report-format=json --output and --hdr-log),
 * turns the server counters off on shards other than 0, and parses
 * --start-at.  Returns 0, or -1 with one line in err (a usage error).
 */
int sb_shard_apply(struct sb_run *run, char *err, size_t errlen);

/* --start-at's value: seconds since the epoch (as `date +%s` prints them,
 * fractions allowed) or UTC time as YYYY-MM-DDTHH:MM:SSZ.  0 with *ns set,
 * or -1. */
int sb_parse_start_at(const char *s, int64_t *ns);

/* The random seed of shard index of count for run seed seed: seed itself
 * for a single process (count 1) or when drawn from the clock (0). */
uint64_t sb_shard_seed(uint64_t seed, int index, int count);

/* The seconds since the epoch of monotonic time mono (sb_now_ns()). */
double sb_epoch_of_mono(int64_t mono);

/*
 * Sleeps until --start-at.  Returns its monotonic time (the run's clock
 * starts there exactly, so windows line up across machines), or -1 when
 * it had already passed by more than 1 s (message printed) or the process
 * was interrupted while waiting.
 */
int64_t sb_shard_wait_start(const struct sb_shard *s);

/* Notes where measuring started (monotonic ns) and the process CPU then;
 * sb_shard_mark_end takes the CPU used since. */
void sb_shard_mark_start(struct sb_shard *s, int64_t mono);
void sb_shard_mark_end(struct sb_shard *s);

/* 1 when option `name` must have the same value in every shard (the
 * merge's check); 0 for where outputs go, reporting and identity. */
int sb_shard_option_must_agree(const char *name);
/* A digest (16 hex digits) of the values of every option that must
 * agree, in name order.  0, or -1 when out of memory. */
int sb_shard_settings_digest(const struct sb_options *o, char out[17]);

/* The shard as the JSON object of the final report's run.shard, into
 * buf[0..len-1]; returns the length it needed (like snprintf). */
size_t sb_shard_meta_json(const struct sb_shard *s, char *buf, size_t len);

/* The comment the shard's HdrHistogram log carries (without "#[" "]"):
 * "sbench shard I of N, run ID, settings HEX". */
void sb_shard_hlog_tag(const struct sb_shard *s, char *buf, size_t len);
/* Parses such a comment's text; 0, or -1 when it is not one. */
int sb_shard_parse_hlog_tag(const char *text, int *index, int *count, char *run_id,
                            size_t run_id_len, char *settings, size_t settings_len);

#endif
