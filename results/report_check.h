/*
 * report_check.h: one line of an sbench JSON report (an "interval" or the
 * "final" line, docs/report-json.md) checked as untrusted: its times are
 * times, its counts add up, and every rate it states is its count over its
 * seconds to the rounding the writer uses (core/report_json.c: %.15g), so
 * a reader that prints or compares rates (sbench merge, compare, report)
 * never shows a lie.  Used by merge/merge_load.c and compare/compare_load.c.
 */
#ifndef SB_REPORT_CHECK_H
#define SB_REPORT_CHECK_H

#include <stddef.h>

#include <json-c/json.h>

/* The longest time a report line may cover, in seconds (about 31 years). */
#define SB_REPORT_MAX_SECONDS 1e9

/*
 * Checks line o: "seconds" (and "time" when present) finite, in
 * [0, SB_REPORT_MAX_SECONDS], above 0 when transactions were counted;
 * "queries" read + write + other = total, each the sum of its statement
 * kinds' counts (when "kinds" is there); "tps", "qps" and each statement
 * kind's and named statement's "rate" finite, >= 0 and equal to count /
 * seconds (relative 1e-9); "latency_ms" (and each kind's) count, min <=
 * max (a window's are its buckets' bounds), sum = avg * count,
 * non-decreasing non-negative percentiles; "transactions" =
 * "latency_ms.count" + "script_transactions" (0 when absent).  Returns 0,
 * or -1 with one line in err naming the field ("\"tps\" is -1000: ...").
 */
int sb_report_line_check(const json_object *o, char *err, size_t errlen);

/*
 * The interval lines against the final line: sb_report_windows_add each
 * interval line (checked by sb_report_line_check first) into a zeroed
 * struct, then sb_report_windows_check the final line.  Their
 * transactions, latency_ms.count and queries.total add up to the final
 * line's, their seconds to its seconds (within 1 ms, the last window
 * dropped when empty); after --report-checkpoints the windows may hold
 * more, with workers cut off by --forced-shutdown less; no interval lines:
 * nothing to check.  0, or -1 with one line in err.
 */
struct sb_report_windows {
    uint64_t n, transactions, latencies, queries;
    double seconds;
};
void sb_report_windows_add(struct sb_report_windows *w, const json_object *o);
int sb_report_windows_check(const struct sb_report_windows *w, const json_object *fin, char *err,
                            size_t errlen);

#endif
