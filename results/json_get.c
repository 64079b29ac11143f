/*
 * json_get.c: reading JSON with json-c (json_get.h): strict parsing of a
 * buffer or a bounded file, members by dotted path, typed getters that
 * read integers exactly.
 */
#include "json_get.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

json_object *sb_json_parse(struct json_tokener *tok, const char *buf, size_t len, char *err,
                           size_t errlen)
{
    if (len > INT_MAX) {
        snprintf(err, errlen, "larger than %d bytes", INT_MAX);
        return NULL;
    }
    struct json_tokener *own = tok ? NULL : json_tokener_new();
    if (!tok && !(tok = own)) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    json_tokener_reset(tok);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    if (o == NULL && je == json_tokener_continue && end == len) {
        /* a number, true, false or null at the very end: json-c waits for
         * the byte after it; its NUL says there is none (found by
         * fuzzing: "8" was refused as "the text ends inside the value") */
        json_object *last = json_tokener_parse_ex(tok, "", 1);
        if (json_tokener_get_error(tok) == json_tokener_success)
            o = last, je = json_tokener_success;
        else
            json_object_put(last);
    }
    if (own) /* json_tokener_free(NULL) crashes */
        json_tokener_free(own);
    size_t rest = end;
    while (rest < len && isspace((unsigned char)buf[rest]))
        rest++;
    if (o == NULL || je != json_tokener_success || rest != len) {
        json_object_put(o);
        if (o == NULL && je == json_tokener_success)
            snprintf(err, errlen, "not a JSON object or list");
        else
            snprintf(err, errlen, "%s at column %zu",
                     je == json_tokener_success ? "text after the value" :
                     je == json_tokener_continue ? "the text ends inside the value" : json_tokener_error_desc(je),
                     (je == json_tokener_success ? rest : end) + 1);
        return NULL;
    }
    return o;
}

json_object *sb_json_load_file(const char *path, char *err, size_t errlen)
{
    char msg[256];
    size_t len;
    char *buf = sb_read_file(path, SB_READ_FILE_MAX, &len, msg, sizeof msg);
    if (buf == NULL) {
        snprintf(err, errlen, "%s", msg);
        return NULL;
    }
    json_object *o = sb_json_parse(NULL, buf, len, msg, sizeof msg);
    free(buf);
    if (o == NULL)
        snprintf(err, errlen, "not JSON: %s", msg);
    return o;
}

int sb_json_lines_init(struct sb_json_lines *r, const char *buf, size_t len, char *err, size_t errlen)
{
    r->p = buf;
    r->end = buf + len;
    r->line = 0;
    r->tok = NULL;
    if (len > 0 && buf[len - 1] != '\n') {
        snprintf(err, errlen, "the last line does not end: the file is truncated");
        return -1;
    }
    if ((r->tok = json_tokener_new()) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int sb_json_lines_next(struct sb_json_lines *r, json_object **out, char *err, size_t errlen)
{
    *out = NULL;
    if (r->p >= r->end)
        return 0;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p)); /* found: init checked */
    r->line++;
    *out = sb_json_parse(r->tok, r->p, (size_t)(nl - r->p), err, errlen);
    r->p = nl + 1;
    return *out ? 1 : -1;
}

void sb_json_lines_close(struct sb_json_lines *r)
{
    if (r->tok)
        json_tokener_free(r->tok);
    r->tok = NULL;
}

json_object *sb_json_member(const json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v)) /* NULL or not an object: 0 */
        return NULL;
    return v;
}

json_object *sb_json_at(const json_object *o, const char *path)
{
    char key[64];
    json_object *v = (json_object *)o;
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        v = sb_json_member(v, key);
        path += n + (path[n] == '.');
    }
    return v;
}

size_t sb_json_len(const json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

json_object *sb_json_elem(const json_object *a, size_t i)
{
    return i < sb_json_len(a) ? json_object_array_get_idx(a, i) : NULL;
}

static int is_int(const json_object *v) { return json_object_is_type(v, json_type_int); }
static int is_num(const json_object *v) { return is_int(v) || json_object_is_type(v, json_type_double); }

const char *sb_json_str(const json_object *o, const char *key)
{
    json_object *v = sb_json_member(o, key);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

double sb_json_num_of(const json_object *v)
{
    return is_num(v) ? json_object_get_double(v) : 0;
}

int64_t sb_json_int_of(const json_object *v)
{
    return is_int(v) ? json_object_get_int64(v) : 0;
}

double sb_json_num(const json_object *o, const char *key)
{
    return sb_json_num_of(sb_json_member(o, key));
}

int64_t sb_json_int(const json_object *o, const char *key)
{
    return sb_json_int_of(sb_json_member(o, key));
}

int sb_json_true(const json_object *o, const char *key)
{
    json_object *v = sb_json_member(o, key);
    return json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

int sb_json_get_u64(const json_object *o, const char *path, uint64_t *out, char *err, size_t errlen)
{
    json_object *v = sb_json_at(o, path);
    /* a uint64 beyond INT64_MAX reads as INT64_MAX through _int64: not < 0 */
    if (!is_int(v) || json_object_get_int64(v) < 0) {
        snprintf(err, errlen, "\"%s\" is missing or not a count", path);
        return -1;
    }
    *out = json_object_get_uint64(v);
    return 0;
}

int sb_json_get_i64(const json_object *o, const char *path, int64_t *out, char *err, size_t errlen)
{
    json_object *v = sb_json_at(o, path);
    if (!is_int(v) || (json_object_get_int64(v) == INT64_MAX && json_object_get_uint64(v) > INT64_MAX)) {
        snprintf(err, errlen, "\"%s\" is missing or not an integer", path);
        return -1;
    }
    *out = json_object_get_int64(v);
    return 0;
}

int sb_json_get_num(const json_object *o, const char *path, double *out, char *err, size_t errlen)
{
    json_object *v = sb_json_at(o, path);
    if (!is_num(v) || !isfinite(json_object_get_double(v))) {
        snprintf(err, errlen, "\"%s\" is missing or not a number", path);
        return -1;
    }
    *out = json_object_get_double(v);
    return 0;
}

int sb_json_get_str(const json_object *o, const char *path, char *out, size_t len, char *err,
                    size_t errlen)
{
    json_object *v = sb_json_at(o, path);
    if (!json_object_is_type(v, json_type_string) || (size_t)json_object_get_string_len(v) >= len) {
        snprintf(err, errlen, "\"%s\" is missing or not a string", path);
        return -1;
    }
    memcpy(out, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
    return 0;
}
