/*
 * The report sections a shard's final line declares ("report_sections",
 * written by core/report_json.c from the workload's sbench.report_section
 * declarations): read back, checked as untrusted bytes with the same rules
 * as a declaration (core/report_sections.c), so the merged report prints
 * the section a single run prints.
 */
#include "merge_shard.h"

#include <stdio.h>
#include <string.h>

#include "../results/json_get.h"

/* member key of o into out (size len), "" when absent: 0, or -1 when it is
 * not a string or too long. */
static int opt_str(json_object *o, const char *key, char *out, size_t len)
{
    out[0] = 0;
    json_object *v = sb_json_member(o, key);
    if (v == NULL)
        return 0;
    if (!json_object_is_type(v, json_type_string) || (size_t)json_object_get_string_len(v) >= len)
        return -1;
    memcpy(out, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
    return 0;
}

static int read_row(json_object *o, struct sb_section_row *row)
{
    char kind[16];
    if (!json_object_is_type(o, json_type_object) || opt_str(o, "kind", kind, sizeof kind) ||
        sb_section_kind_of(kind, &row->kind) < 0 || opt_str(o, "label", row->label, sizeof row->label) ||
        opt_str(o, "types", row->types, sizeof row->types) || opt_str(o, "of", row->of, sizeof row->of))
        return -1;
    json_object *p = sb_json_member(o, "percentile"), *l = sb_json_member(o, "limit_ms");
    if (row->kind == SB_ROW_SHARE) {
        json_object *lp = sb_json_member(o, "limit_pct");
        if (!lp || !(json_object_is_type(lp, json_type_double) || json_object_is_type(lp, json_type_int)))
            return -1;
        row->limit_pct = json_object_get_double(lp);
        /* units, of_each and limit_count: absent from an older sbench's lines
         * (events, 1 each, no count) */
        json_object *u = sb_json_member(o, "units"), *e = sb_json_member(o, "of_each");
        json_object *lc = sb_json_member(o, "limit_count");
        if ((u && !json_object_is_type(u, json_type_boolean)) || (e && !json_object_is_type(e, json_type_int)) ||
            (lc && !json_object_is_type(lc, json_type_int)))
            return -1;
        int64_t count = lc ? json_object_get_int64(lc) : 0;
        row->limit_count = count >= 0 && count <= 1000000 ? (int)count : -1; /* -1: refused by the check */
        row->units = u ? json_object_get_boolean(u) : 0;
        row->of_each = e ? (int)(json_object_get_int64(e) >= 1 && json_object_get_int64(e) <= 1000
                                     ? json_object_get_int64(e) : -1)
                         : 1;
    }
    if (row->kind == SB_ROW_PERCENTILE) {
        if (!p || !l || !(json_object_is_type(p, json_type_double) || json_object_is_type(p, json_type_int)) ||
            !(json_object_is_type(l, json_type_double) || json_object_is_type(l, json_type_int)))
            return -1;
        row->percentile = json_object_get_double(p);
        row->limit_ms = json_object_get_double(l);
    }
    return 0;
}

int mg_sections_parse(json_object *fin, struct sb_report_sections *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_object *a = sb_json_member(fin, "report_sections");
    if (a == NULL)
        return 0;
    if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) > SB_SECTIONS_MAX) {
        snprintf(err, errlen, "report_sections is not a list of at most %d sections", SB_SECTIONS_MAX);
        return -1;
    }
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *o = json_object_array_get_idx(a, i), *rows = sb_json_member(o, "rows");
        struct sb_report_section sec;
        memset(&sec, 0, sizeof sec);
        if (!json_object_is_type(o, json_type_object) || opt_str(o, "title", sec.title, sizeof sec.title) ||
            !json_object_is_type(rows, json_type_array) || json_object_array_length(rows) > SB_SECTION_ROWS_MAX) {
            snprintf(err, errlen, "report_sections[%zu] is not a section (title, rows)", i);
            return -1;
        }
        sec.nrows = (int)json_object_array_length(rows);
        for (int k = 0; k < sec.nrows; k++)
            if (read_row(json_object_array_get_idx(rows, (size_t)k), &sec.rows[k]) < 0) {
                snprintf(err, errlen, "report_sections[%zu].rows[%d] is not a row", i, k);
                return -1;
            }
        char why[200];
        if (sb_report_sections_add(out, &sec, why, sizeof why) < 0) {
            snprintf(err, errlen, "report_sections[%zu]: %s", i, why);
            return -1;
        }
        if (out->n != (int)i + 1) {
            snprintf(err, errlen, "report_sections[%zu]: a title twice", i);
            return -1;
        }
    }
    return 0;
}

static int rows_equal(const struct sb_section_row *a, const struct sb_section_row *b)
{
    return a->kind == b->kind && strcmp(a->label, b->label) == 0 && strcmp(a->types, b->types) == 0 &&
           strcmp(a->of, b->of) == 0 && a->percentile == b->percentile && a->limit_ms == b->limit_ms &&
           a->limit_pct == b->limit_pct && a->limit_count == b->limit_count && a->units == b->units &&
           a->of_each == b->of_each;
}

int mg_sections_equal(const struct sb_report_sections *a, const struct sb_report_sections *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++) {
        if (strcmp(a->s[i].title, b->s[i].title) != 0 || a->s[i].nrows != b->s[i].nrows)
            return 0;
        for (int k = 0; k < a->s[i].nrows; k++)
            if (!rows_equal(&a->s[i].rows[k], &b->s[i].rows[k]))
                return 0;
    }
    return 1;
}
