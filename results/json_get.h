/*
 * json_get.h: reading JSON with json-c, sbench's one JSON library, for the
 * readers of result files (sbench merge, sbench compare and report): a
 * buffer or a file parsed strictly with one line of error, members by name
 * or dotted path, and typed getters.  Integers are read exactly: a count
 * up to UINT64_MAX (random_seed), a signed nanosecond sum beyond 2^53.
 *
 * Two kinds of getters.  The lax ones (sb_json_str, _num, _int, _true)
 * answer a default (NULL, 0) when the member is missing or of another
 * type: for files sbench wrote itself and has checked.  The checked ones
 * (sb_json_get_*) return -1 with one line naming the member: for
 * untrusted files.  Every object returned is borrowed from its parent
 * unless said otherwise; a JSON null reads as NULL (json-c's null).
 */
#ifndef SB_JSON_GET_H
#define SB_JSON_GET_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * Parses buf[0 .. len-1] (no NUL needed) as exactly one JSON value, with
 * nothing but blanks after it.  tok is reset and reused (NULL: one is
 * made for the call).  Returns a new reference the caller puts, or NULL
 * with one line in err ("... at column N", "out of memory").  A JSON null
 * as the whole text is refused ("not a JSON object or list").
 */
json_object *sb_json_parse(struct json_tokener *tok, const char *buf, size_t len, char *err,
                           size_t errlen);

/* The whole file at path parsed as one JSON value (bounded read,
 * results/readfile.c).  Returns a new reference the caller puts, or NULL
 * with one line in err ("cannot read: ...", "not JSON: ..."). */
json_object *sb_json_load_file(const char *path, char *err, size_t errlen);

/*
 * A JSON lines file held in memory (buf[0 .. len-1], owned by the caller
 * and kept while the reader is used; an sbench JSON report): each line
 * one JSON value.  sb_json_lines_init: 0, or -1 with err (the last line
 * does not end: truncated; out of memory).  sb_json_lines_next: 1 with
 * the next line's value in *out (a new reference the caller puts), 0 at
 * the end, -1 with one line in err ("... at column M"); r->line is
 * the line last read (1 for the first).  sb_json_lines_close frees what the
 * reader holds (also after a failed init).
 */
struct sb_json_lines {
    const char *p, *end;
    int line;
    struct json_tokener *tok;
};
int sb_json_lines_init(struct sb_json_lines *r, const char *buf, size_t len, char *err, size_t errlen);
int sb_json_lines_next(struct sb_json_lines *r, json_object **out, char *err, size_t errlen);
void sb_json_lines_close(struct sb_json_lines *r);

/* o's member key, or NULL (o not an object, no such member, or null). */
json_object *sb_json_member(const json_object *o, const char *key);
/* o's member at a dotted path ("latency_ms.sum"), or NULL. */
json_object *sb_json_at(const json_object *o, const char *path);

/* The length of list a (0: a is not a list), and its element i (NULL: not
 * a list, or i past its end).  json-c's own array functions assert that
 * they get a list. */
size_t sb_json_len(const json_object *a);
json_object *sb_json_elem(const json_object *a, size_t i);

/* Lax getters of member key of o (NULL o: the default). */
const char *sb_json_str(const json_object *o, const char *key); /* a string, or NULL */
double sb_json_num(const json_object *o, const char *key);      /* a number, or 0 */
int64_t sb_json_int(const json_object *o, const char *key);     /* an integer, or 0 */
int sb_json_true(const json_object *o, const char *key);        /* 1 for true, else 0 */
/* The same of a value itself (an element of a list). */
double sb_json_num_of(const json_object *v);
int64_t sb_json_int_of(const json_object *v);

/*
 * Checked getters of the member at dotted path in o: 0, or -1 with one
 * line in err ("\"PATH\" is missing or not a count").  _u64: a
 * non-negative integer (to UINT64_MAX); _i64: an integer; _num: a finite
 * number; _str: a string shorter than len, copied into out.
 */
int sb_json_get_u64(const json_object *o, const char *path, uint64_t *out, char *err, size_t errlen);
int sb_json_get_i64(const json_object *o, const char *path, int64_t *out, char *err, size_t errlen);
int sb_json_get_num(const json_object *o, const char *path, double *out, char *err, size_t errlen);
int sb_json_get_str(const json_object *o, const char *path, char *out, size_t len, char *err,
                    size_t errlen);

#endif
