/*
 * json_get_test.c: unit tests for results/json_get.c, the JSON reader of
 * sbench merge and sbench compare (json-c).  The integers sbench writes
 * read back exactly: a uint64 random_seed up to 2^64-1 and nanosecond
 * sums past 2^53, where a double would round (2^53+1 is the first integer
 * a double cannot hold), checked against the decimal literals; members by
 * dotted path; the checked getters refuse what is not of their type with
 * one line naming the member; every broken input (truncated value, text
 * after it, a JSON lines file cut inside a line, a line that is not JSON,
 * a missing file) is NULL or -1 with a message, never a crash (this file
 * runs under the suite's ASan build too).  Prints "N passed, 0 failed".
 */
#include "../../results/json_get.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static json_object *parse(const char *text, char *err, size_t errlen)
{
    return sb_json_parse(NULL, text, strlen(text), err, errlen);
}

static void exact_integers(void)
{
    char err[200];
    const char *text = "{\"seed\": 18446744073709551615, \"sum_ns\": 9007199254740993,"
                       " \"min\": -9223372036854775808, \"max\": 9223372036854775807,"
                       " \"run\": {\"options\": {\"x\": {\"y\": 1.5}}}, \"s\": \"a/b\", \"n\": null}\n";
    json_object *o = parse(text, err, sizeof err);
    CHECK(o != NULL, "%s", err);
    uint64_t u = 0;
    int64_t i = 0;
    double d = 0;
    CHECK(sb_json_get_u64(o, "seed", &u, err, sizeof err) == 0 && u == UINT64_MAX, "seed %llu", (unsigned long long)u);
    CHECK(sb_json_get_i64(o, "sum_ns", &i, err, sizeof err) == 0 && i == 9007199254740993LL, "sum %lld", (long long)i);
    CHECK((int64_t)(double)9007199254740993LL != 9007199254740993LL, "a double holds 2^53+1?");
    CHECK(sb_json_get_i64(o, "min", &i, err, sizeof err) == 0 && i == INT64_MIN, "min %lld", (long long)i);
    CHECK(sb_json_get_i64(o, "max", &i, err, sizeof err) == 0 && i == INT64_MAX, "max %lld", (long long)i);
    CHECK(sb_json_get_u64(o, "max", &u, err, sizeof err) == 0 && u == (uint64_t)INT64_MAX, "max as u64");
    PASS("integers to 2^64-1 and past 2^53 read exactly");

    CHECK(sb_json_get_i64(o, "seed", &i, err, sizeof err) == -1 && strstr(err, "\"seed\" is missing or not an integer"),
          "%s", err);
    CHECK(sb_json_get_u64(o, "min", &u, err, sizeof err) == -1 && strstr(err, "\"min\" is missing or not a count"),
          "%s", err);
    CHECK(sb_json_get_u64(o, "s", &u, err, sizeof err) == -1, "a string as a count");
    CHECK(sb_json_get_num(o, "run.options.x", &d, err, sizeof err) == -1 &&
          strstr(err, "\"run.options.x\" is missing or not a number"), "%s", err);
    CHECK(sb_json_get_num(o, "run.options.x.y", &d, err, sizeof err) == 0 && d == 1.5, "x.y %g", d);
    CHECK(sb_json_get_num(o, "sum_ns", &d, err, sizeof err) == 0 && d == 9007199254740992.0, "an integer as a number");
    CHECK(sb_json_get_i64(o, "run.nothing.deeper", &i, err, sizeof err) == -1, "a missing path");
    char s[8];
    CHECK(sb_json_get_str(o, "s", s, sizeof s, err, sizeof err) == 0 && strcmp(s, "a/b") == 0, "s '%s'", s);
    CHECK(sb_json_get_str(o, "s", s, 3, err, sizeof err) == -1, "a string longer than the buffer");
    CHECK(sb_json_get_str(o, "max", s, sizeof s, err, sizeof err) == -1, "a number as a string");
    PASS("checked getters refuse other types, with the member named");

    CHECK(sb_json_str(o, "max") == NULL && sb_json_str(o, "s") && strcmp(sb_json_str(o, "s"), "a/b") == 0, "str");
    CHECK(sb_json_num(o, "s") == 0 && sb_json_num(o, "nothing") == 0 && sb_json_num(NULL, "x") == 0, "num");
    CHECK(sb_json_int(o, "max") == INT64_MAX && sb_json_int(o, "run") == 0, "int");
    CHECK(sb_json_member(o, "n") == NULL && sb_json_member(sb_json_member(o, "s"), "x") == NULL, "member");
    CHECK(sb_json_len(o) == 0 && sb_json_len(NULL) == 0 && sb_json_elem(o, 0) == NULL, "a list that is none");
    CHECK(sb_json_true(o, "s") == 0, "a string is not true");
    json_object_put(o);
    o = parse("[1, 2.5, true]", err, sizeof err);
    CHECK(o && sb_json_len(o) == 3 && sb_json_int_of(sb_json_elem(o, 0)) == 1 &&
          sb_json_num_of(sb_json_elem(o, 1)) == 2.5 && sb_json_elem(o, 3) == NULL, "list");
    json_object_put(o);
    PASS("lax getters answer a default for anything else");
}

static void broken_text(void)
{
    static const struct { const char *text, *msg; } bad[] = {
        {"{\"a\": 1", "the text ends inside the value at column 8"},
        {"{\"a\": 1} x", "at column 10"},
        {"{\"a\": 1}{}", "at column 9"},
        {"", "the text ends inside the value"},
        {"   ", "the text ends inside the value"},
        {"null", "not a JSON object or list"},
        {"-", "the text ends inside the value"},
        {"[1", "the text ends inside the value"},
        {"null\n", "not a JSON object or list"},
        {"{\"a\": nan}", "at column"},
        {"{\"a\": [1, 2,]}", "at column"},
    };
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        json_object *o = parse(bad[i].text, err, sizeof err);
        CHECK(o == NULL && strstr(err, bad[i].msg), "'%s': got '%s', want '%s'", bad[i].text, err, bad[i].msg);
    }
    /* a NUL inside the buffer is not the end of the text */
    char nul[] = "{\"a\": 1}\0{}";
    CHECK(sb_json_parse(NULL, nul, sizeof nul - 1, err, sizeof err) == NULL, "a NUL in the text");
    json_object *o = parse("{\"a\": 1}\n\t ", err, sizeof err);
    CHECK(o != NULL, "blanks after the value: %s", err);
    json_object_put(o);
    /* a value that ends with the buffer, where json-c waits for one more
     * byte (found by fuzzing: "8" was "the text ends inside the value") */
    static const char *const whole[] = {"8", "-1.5", "1e5", "true", "false"};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        o = sb_json_parse(NULL, whole[i], strlen(whole[i]), err, sizeof err); /* no NUL given */
        CHECK(o != NULL && strcmp(json_object_to_json_string(o), whole[i]) == 0, "'%s' at the end: %s",
              whole[i], o ? json_object_to_json_string(o) : err);
        json_object_put(o);
    }
    PASS("broken text: NULL and a message with the column");
}

static void json_lines(void)
{
    char err[200];
    struct sb_json_lines r;
    json_object *o;
    const char *good = "{\"type\": \"interval\", \"n\": 1}\n{\"type\": \"final\", \"n\": 2}\n";
    CHECK(sb_json_lines_init(&r, good, strlen(good), err, sizeof err) == 0, "%s", err);
    int64_t want = 1;
    int got;
    while ((got = sb_json_lines_next(&r, &o, err, sizeof err)) == 1) {
        CHECK(sb_json_int(o, "n") == want && r.line == want, "line %d", r.line);
        want++;
        json_object_put(o);
    }
    CHECK(got == 0 && want == 3 && o == NULL, "end: %d after %lld", got, (long long)want);
    sb_json_lines_close(&r);

    const char *cut = "{\"type\": \"interval\"}\n{\"type\": \"fin";
    CHECK(sb_json_lines_init(&r, cut, strlen(cut), err, sizeof err) == -1 && strstr(err, "truncated"), "%s", err);
    sb_json_lines_close(&r);

    const char *badline = "{\"a\": 1}\n{\"a\": 2}\nnot json\n{\"a\": 4}\n";
    CHECK(sb_json_lines_init(&r, badline, strlen(badline), err, sizeof err) == 0, "%s", err);
    int n = 0;
    while ((got = sb_json_lines_next(&r, &o, err, sizeof err)) == 1) {
        n++;
        json_object_put(o);
    }
    CHECK(got == -1 && n == 2 && r.line == 3 && strstr(err, "at column"), "%d %d %d %s", got, n, r.line, err);
    sb_json_lines_close(&r);

    const char *empty_line = "{\"a\": 1}\n\n";
    CHECK(sb_json_lines_init(&r, empty_line, strlen(empty_line), err, sizeof err) == 0, "%s", err);
    CHECK(sb_json_lines_next(&r, &o, err, sizeof err) == 1, "%s", err);
    json_object_put(o);
    CHECK(sb_json_lines_next(&r, &o, err, sizeof err) == -1 && r.line == 2, "an empty line");
    sb_json_lines_close(&r);
    CHECK(sb_json_lines_init(&r, "", 0, err, sizeof err) == 0 && sb_json_lines_next(&r, &o, err, sizeof err) == 0,
          "an empty file has no line");
    sb_json_lines_close(&r);
    PASS("JSON lines: each line, a truncated file, a bad line named by number");
}

static void files(const char *dir)
{
    char path[4096], err[400];
    snprintf(path, sizeof path, "%s/json_get_test.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    fputs("{\"random_seed\": 18446744073709551615}\n", f);
    fclose(f);
    json_object *o = sb_json_load_file(path, err, sizeof err);
    uint64_t u = 0;
    CHECK(o && sb_json_get_u64(o, "random_seed", &u, err, sizeof err) == 0 && u == UINT64_MAX, "%s", err);
    json_object_put(o);
    f = fopen(path, "w");
    fputs("{\"random_seed\": 1", f);
    fclose(f);
    CHECK(sb_json_load_file(path, err, sizeof err) == NULL && strstr(err, "not JSON: the text ends inside"), "%s", err);
    remove(path);
    CHECK(sb_json_load_file(path, err, sizeof err) == NULL && strstr(err, "cannot read: No such file"), "%s", err);
    PASS("files: read whole, a truncated one and a missing one refused");
}

int main(int argc, char **argv)
{
    exact_integers();
    broken_text();
    json_lines();
    files(argc > 1 ? argv[1] : ".");
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
