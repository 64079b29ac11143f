/*
 * verdict.h: whether a run's numbers mean anything, decided after its
 * final report: a run in which no event succeeded while attempts failed,
 * or in which more than --max-failed-share percent of the event attempts
 * failed (restarted after an ignored error, or failed for good), exits
 * non-zero, saying so in one line.  The report itself is written first:
 * it tells what happened.
 */
#ifndef SB_VERDICT_H
#define SB_VERDICT_H

#include "stats.h"

/* 0 when the run stands; else 1, with one line on stderr.  d: the final
 * report's counts; max_failed_pct: --max-failed-share (100: only the run
 * in which nothing succeeded fails). */
int sb_verdict(const struct sb_snapshot *d, double max_failed_pct);

#endif /* SB_VERDICT_H */
