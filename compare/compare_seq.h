/*
 * compare_seq.h: the sequential rule of `sbench compare --repeats=auto`,
 * pure functions of arrays of numbers (no I/O).
 *
 * A point is looked at after every round of repeats (one run of each
 * target), from the first look at which the test can reach its level up
 * to the maximum; it stops when every pair of targets is settled: the
 * difference is significant, or the interval of the shift is narrower than
 * the stated width.  Looking again and again at a test made for one look
 * calls differences that are not there far more often than its alpha (at
 * 95% per look and 17 looks, about 4 times as often: the unit test
 * measures it).  So each look tests at alpha / looks (Bonferroni over the
 * looks, the simplest alpha spending): by the union bound the chance that
 * any look of an A/A point calls a difference is at most alpha, whatever
 * the stopping rule, and every interval shown is one of a sequence whose
 * simultaneous coverage is at least 1 - alpha.  Conservative (the looks
 * are strongly correlated), exact in its claim; the test is the exact
 * Mann-Whitney rank test of compare_stats.c.
 */
#ifndef SB_COMPARE_SEQ_H
#define SB_COMPARE_SEQ_H

#include "compare_stats.h"

#define CMP_SEQ_ALPHA 0.05          /* the stated error rate of a point's verdict */
#define CMP_AUTO_MAX_DEFAULT 20     /* --repeats=auto: the maximum per point */
#define CMP_AUTO_WIDTH_DEFAULT 5.0  /* --auto-width: percent */

/* The first look (repeats per target) at which the per-look level can be
 * reached with at most max repeats; max when none (then one look). */
int cmp_seq_first_look(int max);
/* Looks of a sequence: max - first + 1. */
int cmp_seq_looks(int max);
/* The level of each look: 1 - CMP_SEQ_ALPHA / looks. */
double cmp_seq_conf(int max);

/*
 * One look at b[0..m-1] against a[0..n-1] in a sequence with at most max
 * repeats: the test at cmp_seq_conf(max) into sh, its p_value multiplied
 * by the looks (capped at 1: significant when <= CMP_SEQ_ALPHA).
 * Returns 1 when settled (significant, or the interval, in percent of a,
 * narrower than width_pct), 0 when not, -1 on bad input.
 */
int cmp_seq_look(const double *a, int n, const double *b, int m, int max, double width_pct, struct cmp_shift *sh);

#endif
