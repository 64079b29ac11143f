/*
 * sysbench's cpu test, one event (see builtin.h): primality by trial
 * division, as its documentation describes the work ("verifying prime
 * numbers by doing standard division of the number by all numbers between
 * 2 and the square root of the number").
 */
#include "builtin.h"

#include <math.h>

uint64_t sb_cpu_event(uint64_t max_prime)
{
    uint64_t found = 0;
    for (uint64_t c = 3; c <= max_prime; c++) {
        uint64_t limit = (uint64_t)sqrt((double)c), d = 2;
        while (d <= limit && c % d != 0)
            d++;
        if (d > limit)
            found++;
    }
    return found;
}
