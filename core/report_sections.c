/*
 * Report sections declared as data (report_sections.h): checked once when
 * declared or read back, then printed from any report's event types.
 */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "report.h"

static const char *const kind_names[] = {"per_minute", "share", "mix", "percentile"};

const char *sb_section_kind_name(enum sb_section_row_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

int sb_section_kind_of(const char *name, enum sb_section_row_kind *out)
{
    for (unsigned i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
        if (strcmp(kind_names[i], name) == 0) {
            *out = (enum sb_section_row_kind)i;
            return 0;
        }
    return -1;
}

/* Printable ASCII without '"' and '\\', 1 to max - 1 bytes: safe in a
 * terminal and in JSON as it is. */
static int plain_text(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (n == 0 || n == max)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
            return 0;
    return 1;
}

/* "*" or event type names separated by commas, or by '+' within a group
 * (no empty one). */
static int type_list(const char *s)
{
    if (strcmp(s, "*") == 0)
        return 1;
    if (!plain_text(s, SB_SECTION_TYPES_MAX))
        return 0;
    for (const char *p = s;;) {
        size_t l = strcspn(p, ",+");
        if (l == 0 || l >= SB_TYPE_NAME_MAX)
            return 0;
        if (p[l] == 0)
            return 1;
        p += l + 1;
    }
}

static int check_row(const struct sb_section_row *row, int i, char *err, size_t errlen)
{
    const char *why = NULL;
    if ((unsigned)row->kind > SB_ROW_PERCENTILE)
        why = "an unknown kind";
    else if (!plain_text(row->label, sizeof row->label))
        why = "a label of 1 to 79 printable characters (no quotes or backslashes) is needed";
    else if (!type_list(row->types))
        why = "'types' must be \"*\" or event type names separated by commas (or '+' in a group)";
    else if (row->kind == SB_ROW_SHARE && !type_list(row->of))
        why = "a share needs 'of': \"*\" or event type names separated by commas";
    else if (row->kind == SB_ROW_SHARE && !(row->limit_pct >= 0 && row->limit_pct <= 100))
        why = "a share's limit_pct is a percentage from 0 to 100";
    else if (row->kind == SB_ROW_SHARE && !(row->of_each >= 0 && row->of_each <= 1000))
        why = "a share's of_each is a whole number from 1 to 1000";
    else if (row->kind == SB_ROW_SHARE && !(row->limit_count >= 0 && row->limit_count <= 1000000))
        why = "a share's limit_count is a whole number from 0 to 1000000";
    else if (row->kind == SB_ROW_PERCENTILE &&
             (!(row->percentile > 0 && row->percentile <= 100) ||
              !(row->limit_ms >= 0 && isfinite(row->limit_ms))))
        why = "a percentile row needs a percentile in (0, 100] and a limit_ms >= 0";
    if (why)
        snprintf(err, errlen, "report section row %d (%s): %s", i + 1, sb_section_kind_name(row->kind), why);
    return why ? -1 : 0;
}

int sb_report_section_check(const struct sb_report_section *sec, char *err, size_t errlen)
{
    if (!plain_text(sec->title, sizeof sec->title)) {
        snprintf(err, errlen, "a report section needs a title of 1 to %d printable characters "
                 "(no quotes or backslashes)", SB_SECTION_TITLE_MAX - 1);
        return -1;
    }
    if (sec->nrows < 1 || sec->nrows > SB_SECTION_ROWS_MAX) {
        snprintf(err, errlen, "report section '%s': 1 to %d rows", sec->title, SB_SECTION_ROWS_MAX);
        return -1;
    }
    for (int i = 0; i < sec->nrows; i++)
        if (check_row(&sec->rows[i], i, err, errlen) < 0)
            return -1;
    return 0;
}

int sb_report_sections_add(struct sb_report_sections *all, const struct sb_report_section *sec,
                           char *err, size_t errlen)
{
    if (sb_report_section_check(sec, err, errlen) < 0)
        return -1;
    int at = 0;
    while (at < all->n && strcmp(all->s[at].title, sec->title) != 0)
        at++;
    if (at == SB_SECTIONS_MAX) {
        snprintf(err, errlen, "at most %d report sections", SB_SECTIONS_MAX);
        return -1;
    }
    all->s[at] = *sec;
    if (at == all->n)
        all->n++;
    return 0;
}

/* ---- printing ---- */

/* Whether type name is in list ("*": every type; groups "a+b" count as
 * their members). */
static int in_list(const char *list, const char *name)
{
    if (strcmp(list, "*") == 0)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list;;) {
        size_t l = strcspn(p, ",+");
        if (l == n && strncmp(p, name, n) == 0)
            return 1;
        if (p[l] == 0)
            return 0;
        p += l + 1;
    }
}

/* The events of r's types in list. */
static uint64_t count_of(const struct sb_report *r, const char *list)
{
    uint64_t n = 0;
    for (int ty = 0; ty < r->ntypes; ty++)
        if (in_list(list, r->type_name[ty]))
            n += r->d.type_count[ty];
    return n;
}

/* The units (sbench.event_type's) of r's types in list. */
static uint64_t units_of(const struct sb_report *r, const char *list)
{
    uint64_t n = 0;
    for (int ty = 0; ty < r->ntypes; ty++)
        if (in_list(list, r->type_name[ty]))
            n += r->d.type_units[ty];
    return n;
}

/* r's index of type name, or -1. */
static int type_index(const struct sb_report *r, const char *name, size_t len)
{
    for (int ty = 0; ty < r->ntypes; ty++)
        if (strlen(r->type_name[ty]) == len && strncmp(r->type_name[ty], name, len) == 0)
            return ty;
    return -1;
}

/* Adds type ty's events, retries and failures to c[0..2]. */
static void type_counts(const struct sb_report *r, int ty, uint64_t c[3])
{
    c[0] += r->d.type_count[ty];
    c[1] += r->d.type_retries[ty];
    c[2] += r->d.type_failed[ty];
}

/* Adds the counts of the types of group g (names separated by '+', glen
 * bytes) to c[0..2]. */
static void group_counts(const struct sb_report *r, const char *g, size_t glen, uint64_t c[3])
{
    for (size_t at = 0; at < glen;) {
        size_t len = strcspn(g + at, ",+");
        int ty = type_index(r, g + at, len);
        if (ty >= 0)
            type_counts(r, ty, c);
        at += len + 1;
    }
}

/* One line per entry of the list, in its order (every type of r for
 * "*"); a group "a+b" is one line named a. */
static void mix_lines(FILE *f, const struct sb_report *r, const char *list, uint64_t total)
{
    int all = strcmp(list, "*") == 0;
    const char *p = list;
    for (int k = 0; all ? k < r->ntypes : p != NULL; k++) {
        const char *g = all ? r->type_name[k] : p;
        size_t glen = all ? strlen(g) : strcspn(p, ",");
        uint64_t c[3] = {0, 0, 0};
        if (all)
            type_counts(r, k, c);
        else
            group_counts(r, g, glen, c);
        int shown = all ? (int)glen : (int)strcspn(g, ",+");
        if (!all)
            p = p[glen] == ',' ? p + glen + 1 : NULL;
        fprintf(f, "        %-20.*s %6.2f%%  retries: %llu (%.2f%%)  failed: %llu\n", shown, g,
                total > 0 ? 100.0 * (double)c[0] / (double)total : 0.0, (unsigned long long)c[1],
                c[0] > 0 ? 100.0 * (double)c[1] / (double)c[0] : 0.0, (unsigned long long)c[2]);
    }
}

/* The latencies of r's types in list together: a histogram to destroy, or
 * NULL when none of them has an event. */
static sb_histogram *latency_of(const struct sb_report *r, const char *list)
{
    sb_histogram *sum = NULL;
    for (int ty = 0; ty < r->ntypes; ty++) {
        const sb_histogram *h = r->type_latency[ty];
        if (h == NULL || sb_histogram_count(h) == 0 || !in_list(list, r->type_name[ty]))
            continue;
        if (sum == NULL && (sum = sb_histogram_clone_empty(h)) == NULL)
            return NULL;
        if (sb_histogram_add(sum, h) < 0) {
            sb_histogram_destroy(sum);
            return NULL;
        }
    }
    return sum;
}

static void row_text(FILE *f, const struct sb_report *r, const struct sb_section_row *row,
                     double minutes, uint64_t total)
{
    switch (row->kind) {
    case SB_ROW_PER_MINUTE:
        fprintf(f, "    %-40s %.1f\n", row->label, (double)count_of(r, row->types) / minutes);
        break;
    case SB_ROW_SHARE: {
        uint64_t part = row->units ? units_of(r, row->types) : count_of(r, row->types);
        uint64_t whole = count_of(r, row->of) * (uint64_t)(row->of_each > 0 ? row->of_each : 1);
        double pct = whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
        fprintf(f, "    %-40s %llu of %llu (%.2f%%)", row->label, (unsigned long long)part,
                (unsigned long long)whole, pct);
        const char *verdict = pct <= row->limit_pct || part <= (uint64_t)row->limit_count ? "met" : "OVER THE LIMIT";
        if (row->limit_pct > 0 && row->limit_count > 0)
            fprintf(f, " (limit %g%% or %d, whichever is greater: %s)", row->limit_pct, row->limit_count, verdict);
        else if (row->limit_pct > 0)
            fprintf(f, " (limit %g%%: %s)", row->limit_pct, verdict);
        fputc('\n', f);
        break;
    }
    case SB_ROW_MIX:
        fprintf(f, "    %s\n", row->label);
        mix_lines(f, r, row->types, total);
        break;
    case SB_ROW_PERCENTILE: {
        sb_histogram *h = latency_of(r, row->types);
        if (h == NULL) {
            fprintf(f, "    %-40s no events\n", row->label);
            break;
        }
        double ms = (double)sb_histogram_percentile(h, row->percentile) / 1e6;
        sb_histogram_destroy(h);
        if (row->limit_ms > 0)
            fprintf(f, "    %-40s %.2f ms (limit %.0f ms: %s)\n", row->label, ms, row->limit_ms,
                    ms <= row->limit_ms ? "met" : "OVER THE LIMIT");
        else
            fprintf(f, "    %-40s %.2f ms\n", row->label, ms);
        break;
    }
    }
}

void sb_report_sections_text(FILE *f, const struct sb_report *r)
{
    double minutes = r->elapsed / 60;
    if (r->sections == NULL || r->ntypes == 0 || !(minutes > 0))
        return;
    uint64_t total = count_of(r, "*");
    for (int i = 0; i < r->sections->n; i++) {
        const struct sb_report_section *sec = &r->sections->s[i];
        fprintf(f, "%s\n", sec->title);
        for (int k = 0; k < sec->nrows; k++)
            row_text(f, r, &sec->rows[k], minutes, total);
        fputc('\n', f);
    }
    fflush(f);
}

void sb_report_sections_json(FILE *f, const struct sb_report_sections *all)
{
    fputc('[', f);
    for (int i = 0; i < all->n; i++) {
        const struct sb_report_section *sec = &all->s[i];
        fprintf(f, "%s{\"title\":\"%s\",\"rows\":[", i ? "," : "", sec->title);
        for (int k = 0; k < sec->nrows; k++) {
            const struct sb_section_row *row = &sec->rows[k];
            fprintf(f, "%s{\"kind\":\"%s\",\"label\":\"%s\",\"types\":\"%s\"", k ? "," : "",
                    sb_section_kind_name(row->kind), row->label, row->types);
            if (row->kind == SB_ROW_SHARE)
                fprintf(f, ",\"of\":\"%s\",\"limit_pct\":%.17g,\"limit_count\":%d,\"units\":%s,\"of_each\":%d",
                        row->of, row->limit_pct, row->limit_count, row->units ? "true" : "false",
                        row->of_each > 0 ? row->of_each : 1);
            if (row->kind == SB_ROW_PERCENTILE)
                fprintf(f, ",\"percentile\":%.17g,\"limit_ms\":%.17g", row->percentile, row->limit_ms);
            fputc('}', f);
        }
        fprintf(f, "]}");
    }
    fputc(']', f);
}
