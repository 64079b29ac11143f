/*
 * compare_seq.c: the sequential rule of `sbench compare --repeats=auto`
 * (compare_seq.h): Bonferroni over the looks of a point.
 */
#include "compare_seq.h"

#include <math.h>

int cmp_seq_first_look(int max)
{
    for (int n = 2; n < max; n++)
        if (cmp_min_repeats(1 - CMP_SEQ_ALPHA / (max - n + 1)) <= n)
            return n;
    return max;
}

int cmp_seq_looks(int max)
{
    return max - cmp_seq_first_look(max) + 1;
}

double cmp_seq_conf(int max)
{
    return 1 - CMP_SEQ_ALPHA / cmp_seq_looks(max);
}

int cmp_seq_look(const double *a, int n, const double *b, int m, int max, double width_pct, struct cmp_shift *sh)
{
    if (cmp_compare(a, n, b, m, cmp_seq_conf(max), sh) != 0)
        return -1;
    double p = sh->p_value * cmp_seq_looks(max);
    sh->p_value = p < 1 ? p : 1;
    double width = (exp(sh->high) - exp(sh->low)) * 100;
    return sh->significant || (sh->achievable && width < width_pct);
}
