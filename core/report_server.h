/*
 * The server's evidence in the reports (core/report_server.c): the
 * sampler's figures of a window or the run (struct sb_sampled) as a JSON
 * member, the text report's "Server" block, and the cause they point to,
 * each rule a threshold on the server's own figures.
 */
#ifndef SB_REPORT_SERVER_H
#define SB_REPORT_SERVER_H

#include <stddef.h>
#include <stdio.h>

#include "sampled.h"

/* The cause the evidence names, as one line into buf ("no single cause:
 * ..." when none dominates, "" when nothing was sampled); transactions:
 * the client's count over the same time. */
void sb_sampled_cause(const struct sb_sampled *s, double transactions, char *buf, size_t len);
/* ,"server_metrics":{...} (why: when s is NULL, why it was not sampled;
 * NULL or "": nothing is written). */
void sb_sampled_json(FILE *f, const struct sb_sampled *s, const char *why, double transactions,
                     double seconds);
/* The text report's "Server" block (nothing when s and why are both
 * empty). */
void sb_sampled_text(FILE *f, const struct sb_sampled *s, const char *why, double transactions,
                     double seconds);

/* The CSV report's columns for the evidence: the header's (after a
 * comma) and a row's, empty fields where s is not valid. */
void sb_sampled_csv_header(FILE *f);
void sb_sampled_csv_row(FILE *f, const struct sb_sampled *s, double seconds);

#endif
