/*
 * merge.h: `sbench merge [options] FILES|DIR`, the report of a run made of
 * shards (core/shard.h): reads each shard's final JSON report and
 * HdrHistogram interval log, checks that they belong together, adds them
 * up exactly (counts summed, histograms added bucket for bucket, windows
 * lined up on the wall clock) and writes the report of the whole run in
 * the run command's formats, with a table of the shards.
 *
 *   merge.c        the command: options, inputs, the checks across shards
 *   merge_load.c   one shard's files into a struct mg_shard
 *   merge_sum.c    the shards added up into the whole run's reports
 *   merge_out.c    the outputs: report formats, the shards table, --hdr-log
 */
#ifndef SB_MERGE_H
#define SB_MERGE_H

#include <stdio.h>

/* 1 when the command line's first word that is not an option is "merge". */
int sb_merge_is_command(int argc, char **argv);

/* Runs the merge command; returns the exit status (0, 1 for inputs that
 * cannot be merged or an output that cannot be written, 2 for a usage
 * error).  Prints to stdout/stderr; called from main().  history_json
 * (NULL: none) receives the merged report as JSON lines for the run
 * history, unless --history=off. */
int sb_merge_command(int argc, char **argv, FILE *history_json);

#endif
