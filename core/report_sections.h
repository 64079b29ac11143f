/*
 * Report sections a workload declares as data (core/report_sections.c):
 * a title and rows computed from the report's event types (rates per
 * minute, shares, the mix with retries and failures, a type's percentile
 * against a limit), printed after sbench's own sections of the text report
 * and written into the final JSON line, so that `sbench merge`, which runs
 * no Lua, prints the same section from the merged counts.  The tpcc
 * workload declares its NOPM/TPM section this way (workloads/tpcc.lua); the
 * engine knows no workload's type names.
 */
#ifndef SB_REPORT_SECTIONS_H
#define SB_REPORT_SECTIONS_H

#include <stdio.h>

#include "event_types.h"

#define SB_SECTIONS_MAX 4
#define SB_SECTION_ROWS_MAX 16
#define SB_SECTION_TITLE_MAX 120
#define SB_SECTION_LABEL_MAX 80
#define SB_SECTION_TYPES_MAX 256   /* a comma-separated list of type names */

enum sb_section_row_kind {
    SB_ROW_PER_MINUTE,   /* label: the events of `types` per minute ("*": every type) */
    SB_ROW_SHARE,        /* label: N of M (P%): the events of `types` among those of `of`
                            (with `units`: the units those events counted, among
                            `of_each` per event of `of`), and whether P is within
                            `limit_pct` (0: no limit) or N within `limit_count` */
    SB_ROW_MIX,          /* label, then one line per entry of `types`: its share of
                            every event, retries and failures; an entry "a+b" is one
                            line, named a, of the types a and b together */
    SB_ROW_PERCENTILE,   /* label: the `percentile` of the latency of `types` (one
                            or several, together), and whether it is within
                            `limit_ms` (0: no limit) */
};

struct sb_section_row {
    enum sb_section_row_kind kind;
    char label[SB_SECTION_LABEL_MAX];
    char types[SB_SECTION_TYPES_MAX];
    char of[SB_SECTION_TYPES_MAX];
    double percentile, limit_ms;
    double limit_pct;    /* share: the most P may be (0: none) */
    int units;           /* share: N counts the units of `types`' events
                            (sbench.event_type's), not the events */
    int of_each;         /* share: M is `of`'s events times this (1 to 1000;
                            0 means 1) */
    int limit_count;     /* share: N up to this is within the limit whatever P is
                            (0 to 1000000; TPC-C's "1%, or one, whichever is
                            greater") */
};

struct sb_report_section {
    char title[SB_SECTION_TITLE_MAX];
    int nrows;
    struct sb_section_row rows[SB_SECTION_ROWS_MAX];
};

struct sb_report_sections {
    int n;
    struct sb_report_section s[SB_SECTIONS_MAX];
};

/* The names of the row kinds, as a declaration and the JSON spell them
 * ("per_minute", "share", "mix", "percentile"), and back: 0, or -1 for an
 * unknown name. */
const char *sb_section_kind_name(enum sb_section_row_kind k);
int sb_section_kind_of(const char *name, enum sb_section_row_kind *out);

/* Checks a section: title and labels printable, 1 to their size; type
 * lists of valid type names (groups "a+b") or "*"; share has `of`, a
 * limit_pct in [0, 100], a limit_count from 0 to 1000000 and of_each from
 * 1 to 1000; percentile in (0, 100], limit >= 0, finite.  Returns 0, or
 * -1 with one line in err. */
int sb_report_section_check(const struct sb_report_section *sec, char *err, size_t errlen);

/* Checks a section (title and labels printable, 1 to their size; type
 * lists of valid type names or "*"; share has `of`; percentile in (0, 100],
 * limit >= 0, finite) and adds it to all, replacing one of the same title.
 * Returns 0, or -1 with one line in err. */
int sb_report_sections_add(struct sb_report_sections *all, const struct sb_report_section *sec,
                           char *err, size_t errlen);

struct sb_report;
/* Prints every section of r->sections that r's event types can fill (a
 * run with no typed events or no time prints none).  The text report's. */
void sb_report_sections_text(FILE *f, const struct sb_report *r);
/* The sections as a JSON array, for the final line's "report_sections". */
void sb_report_sections_json(FILE *f, const struct sb_report_sections *all);

#endif
