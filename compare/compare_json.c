/*
 * compare_json.c: the JSON compare writes (json-c, read back through
 * results/json_get.c): numbers that stay valid JSON, [x, y] pairs, and files
 * written whole (through FILE.tmp and a rename) so that a results
 * directory never holds half a file; the warning objects of a summary.
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

json_object *cmp_real(double v)
{
    /* json-c would print NaN or Infinity, which JSON has not */
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *cmp_pair(double x, double y)
{
    json_object *a = json_object_new_array_ext(2);
    if (a) {
        json_object_array_add(a, cmp_real(x));
        json_object_array_add(a, cmp_real(y));
    }
    return a;
}

json_object *cmp_string(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

void cmp_warn(json_object *warnings, const json_object *run, const char *kind, const char *text)
{
    json_object *w = json_object_new_object();
    json_object_object_add(w, "kind", json_object_new_string(kind));
    static const char *const keys[] = {"workload", "threads", "target", NULL};
    for (int i = 0; keys[i]; i++)
        json_object_object_add(w, keys[i], json_object_get(sb_json_member(run, keys[i])));
    json_object_object_add(w, "run", json_object_get(sb_json_member(run, "id")));
    json_object_object_add(w, "text", json_object_new_string(text));
    json_object_array_add(warnings, w);
}

int cmp_write_json(const char *path, json_object *j, char *err, size_t errlen)
{
    char tmp[4300];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "cannot write %.200s: the path is too long", path);
        return -1;
    }
    /* the text first: json_object_to_file_ext gives no reason on failure */
    const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %.200s: %s", path, text ? strerror(errno) : "out of memory");
        unlink(tmp);
        return -1;
    }
    return 0;
}
