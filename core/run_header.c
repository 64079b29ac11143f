/*
 * run_header.c: the lines a command prints before its work (see run.h):
 * sbench's version line, and the run command's "Running the test with
 * following options:" block in sysbench's words.  Printed by cli/main.c,
 * commands.c and bench.c; calls nothing of theirs.
 */
#include "run.h"

#include <stdio.h>

#include "script.h"
#include "rate_profile.h"
#include "../lib/options.h"

void sb_print_version(const struct sb_run *run)
{
    const struct sbd_driver *d = run->drv;
    const char *v = d && d->client_version ? d->client_version() : NULL;
    if (d)
        printf("sbench %s (%s, driver %s%s%s)\n\n", SB_VERSION, run->script_ops->language, d->name,
               v && *v ? ": " : "", v && *v ? v : "");
    else
        printf("sbench %s (%s)\n\n", SB_VERSION, run->script_ops->language);
    fflush(stdout);
}

void sb_print_run_header(const struct sb_run *run)
{
    printf("Running the test with following options:\n");
    if (run->clients_given)
        printf("Number of threads: %d, clients: %d\n", run->threads, run->clients);
    else
        printf("Number of threads: %d\n", run->threads);
    if (run->rate_profile)
        printf("Target transaction rate: profile %s (peak %.15g/sec, %g s)\n",
               sb_opt_str(run->opts, "rate-profile"), run->rate, run->rate_profile->length);
    else if (run->rate > 0) /* sysbench's line (the total; a shard's share below) */
        printf("Target transaction rate: %.15g/sec\n", run->rate);
    if (run->report_interval > 0)
        printf("Report intermediate results every %g second(s)\n", run->report_interval);
    if (run->ncheckpoints > 0) {
        printf("Report checkpoint(s) at ");
        for (int i = 0; i < run->ncheckpoints; i++)
            printf("%s%g", i ? ", " : "", run->checkpoints[i]);
        printf(" seconds\n");
    }
    if (run->warmup > 0)
        printf("Warmup time: %g second(s)\n", run->warmup);
    if (run->rand.seed)
        printf("Initializing random number generator from seed (%llu).\n",
               (unsigned long long)run->rand.seed);
    else
        printf("Initializing random number generator from current time\n");
    if (run->ps_disabled)
        printf("Prepared statements: disabled (--db-ps-mode=disable)\n");
    if (run->pipeline > 0)
        printf("Pipelining: up to %d statements in flight per connection (--pipeline)\n", run->pipeline);
    if (run->io == SB_IO_URING)
        printf("Clients' I/O: io_uring, one system call per pass over a thread's clients (--io)\n");
    if (run->shard.given)
        printf("Shard %d of %d (from %s), run id %s: --threads/--clients per shard, this shard's share of "
               "--rate/--events\n", run->shard.index, run->shard.count, run->shard.source, run->shard.run_id);
    printf("\n\n");
    fflush(stdout);
}
