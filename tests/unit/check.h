/*
 * check.h: the unit tests' two checks.  CHECK(cond, fmt, ...) stops the
 * test at the first failure, naming the file, line and condition, and
 * prints the "N passed, 1 failed" line scripts/test.sh reads; PASS(name)
 * counts and prints one passed check.  One copy per test program (the
 * counter is static).
 */
#ifndef SB_TEST_CHECK_H
#define SB_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int passed;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n%d passed, 1 failed\n", passed);              \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define PASS(name) do { passed++; printf("ok %s\n", name); } while (0)

#endif
