/*
 * compare_history.c: a comparison's runs marked for the run history
 * (history/, docs/history.md): the environment the next child run gets,
 * which its record reads (history/history_run.c).
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The run history's marks of the next run (history/history_run.c reads
 * them in the child): this comparison's session, set once, and the run's
 * target, point and repeat. */
void cmp_history_place(const struct cmp_spec *s, int w, int ti, int k, int rep)
{
    char v[64];
    if (getenv("SBENCH_HISTORY_SESSION") == NULL) {
        snprintf(v, sizeof v, "compare-%lx-%ld", (unsigned long)time(NULL), (long)getpid());
        setenv("SBENCH_HISTORY_SESSION", v, 1);
    }
    setenv("SBENCH_HISTORY_TARGET", s->targets[k].name, 1);
    snprintf(v, sizeof v, "%d", w * s->nthreads + ti);
    setenv("SBENCH_HISTORY_POINT", v, 1);
    snprintf(v, sizeof v, "%d", rep);
    setenv("SBENCH_HISTORY_REPEAT", v, 1);
}
