/*
 * The run's verdict from its final counts (verdict.h).
 */
#include "verdict.h"

#include <stdio.h>

int sb_verdict(const struct sb_snapshot *d, double max_failed_pct)
{
    uint64_t failed = d->ignored_errors + d->failed_events;
    uint64_t attempts = d->events + failed;
    if (failed == 0)
        return 0;
    if (d->events == 0) {
        fprintf(stderr, "sbench: no event succeeded: %llu attempts failed (%llu restarted after "
                "an error, %llu failed for good, %llu reconnects): the numbers above measure "
                "nothing\n", (unsigned long long)failed, (unsigned long long)d->ignored_errors,
                (unsigned long long)d->failed_events, (unsigned long long)d->reconnects);
        return 1;
    }
    double pct = 100.0 * (double)failed / (double)attempts;
    if (pct > max_failed_pct) {
        fprintf(stderr, "sbench: %.2f%% of the event attempts failed (%llu of %llu), more than "
                "--max-failed-share=%g\n", pct, (unsigned long long)failed,
                (unsigned long long)attempts, max_failed_pct);
        return 1;
    }
    return 0;
}
