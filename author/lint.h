/*
 * `sbench lint WORKLOAD` and the lint before every run (--lint=off skips
 * it): the traps a workload's source shows without running it (a float
 * formatted into SQL, a global carried between events, a call that blocks
 * under --clients, con:prepare in event, an option declared and never
 * read or read and never declared, SQL of one database without a branch,
 * a syntax error), found by author/lint.lua in a Lua state of its own.
 */
#ifndef SB_AUTHOR_LINT_H
#define SB_AUTHOR_LINT_H

#include <stdio.h>

struct sb_options;

/* Registers --lint into o. */
void sb_lint_add_options(struct sb_options *o);

/* Lints the workload at path (and the modules it requires, found beside it
 * or on the workload path): each finding one line "file:line: rule:
 * message" on out, each line after `prefix`.  Options are checked against
 * the names o registers (sbench's and the drivers').  clients: the
 * blocking-call rule applies.  Returns the number of findings, or -1 with
 * one line on stderr when the file cannot be read. */
int sb_lint_file(const char *path, const struct sb_options *o, int clients, FILE *out, const char *prefix);

#endif
