/*
 * Option registry and command-line validation (see options.h).  Values are
 * checked once, here, so the rest of sbench can read them without checks:
 * integers must be whole numbers within [min, max] (no "1e99", no "-5" for a
 * count), enumerations one of their choices, booleans a boolean word.
 */
#include "options.h"
#include "secret_mask.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_VALUE_LEN 4096

struct sb_options {
    struct sb_opt *opts;
    int nopts, cap;
    struct sb_arg *args;
    int nargs;
    const char **words;
    int nwords;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void normalize(char *name)
{
    for (char *p = name; *p; p++)
        if (*p == '_')
            *p = '-';
}

struct sb_options *sb_options_create(void)
{
    return calloc(1, sizeof(struct sb_options));
}

void sb_options_destroy(struct sb_options *o)
{
    if (o == NULL)
        return;
    for (int i = 0; i < o->nopts; i++) {
        free(o->opts[i].name);
        free(o->opts[i].def);
        free(o->opts[i].help);
        free(o->opts[i].value);
    }
    for (int i = 0; i < o->nargs; i++)
        free(o->args[i].name);
    free(o->opts);
    free(o->args);
    free(o->words);
    free(o);
}

/* sysbench 1.0's deprecated aliases (sysbench 0.5's names), which it
 * still takes with a warning: the name it stands for, or NULL. */
static const char *deprecated_alias(const char *name)
{
    static const char *const alias[][2] = {
        {"num-threads", "threads"}, {"max-requests", "events"},
        {"max-time", "time"}, {"tx-rate", "rate"},
    };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(name, alias[i][0]) == 0)
            return alias[i][1];
    return NULL;
}

int sb_options_parse_argv(struct sb_options *o, int argc, char **argv,
                          const char ***words, int *nwords, char *err,
                          size_t errlen)
{
    o->args = calloc((size_t)argc + 1, sizeof *o->args);
    o->words = calloc((size_t)argc + 1, sizeof *o->words);
    if (o->args == NULL || o->words == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int only_words = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!only_words && strcmp(a, "--") == 0) {
            only_words = 1;
            continue;
        }
        if (!only_words && a[0] == '-' && a[1] == '-' && a[2] != 0) {
            const char *eq = strchr(a, '=');
            size_t nlen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (nlen == 0) { /* "--=VALUE": never show VALUE, it may be a password */
                snprintf(err, errlen, "invalid option '--=...': an option needs a name");
                return -1;
            }
            if (nlen > 128) {
                snprintf(err, errlen, "invalid option '%.40s...': name longer than 128 characters", a);
                return -1;
            }
            if (eq && strlen(eq + 1) > MAX_VALUE_LEN) {
                snprintf(err, errlen, "value of --%.*s is too long (more than %d characters)",
                         (int)nlen, a + 2, MAX_VALUE_LEN);
                return -1;
            }
            struct sb_arg *g = &o->args[o->nargs++];
            g->name = strndup(a + 2, nlen);
            normalize(g->name);
            const char *now = deprecated_alias(g->name);
            if (now != NULL) { /* sysbench 1.0's words, on stderr */
                fprintf(stderr, "WARNING: --%s is deprecated, use --%s instead\n", g->name, now);
                free(g->name);
                g->name = strdup(now);
            }
            if (g->name == NULL) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            g->value = eq ? (char *)eq + 1 : "on";
            g->bare = eq == NULL;
            continue;
        }
        if (!only_words && a[0] == '-' && a[1] != 0) {
            if (strcmp(a, "-h") == 0) {
                struct sb_arg *g = &o->args[o->nargs++];
                g->name = strdup("help");
                g->value = "on";
                continue;
            }
            /* the name only: what follows '=' may be a password */
            size_t shown = strcspn(a, "=");
            snprintf(err, errlen, "invalid option '%.*s': options look like --name=value",
                     (int)(shown > 40 ? 40 : shown), a);
            return -1;
        }
        o->words[o->nwords++] = a;
    }
    *words = o->words;
    *nwords = o->nwords;
    return 0;
}

static struct sb_opt *find(const struct sb_options *o, const char *name)
{
    char norm[160];
    size_t n = strlen(name);
    if (n >= sizeof norm)
        return NULL;
    memcpy(norm, name, n + 1);
    normalize(norm);
    for (int i = 0; i < o->nopts; i++)
        if (strcmp(o->opts[i].name, norm) == 0)
            return &o->opts[i];
    return NULL;
}

void sb_options_add(struct sb_options *o, const char *name, int kind,
                    int source, const char *def, const char *help,
                    const char *choices, long long min, long long max)
{
    if (find(o, name) != NULL)
        return;
    if (o->nopts == o->cap) {
        int ncap = o->cap ? o->cap * 2 : 64;
        struct sb_opt *n = realloc(o->opts, (size_t)ncap * sizeof *n);
        if (n == NULL)
            return;
        o->opts = n;
        o->cap = ncap;
    }
    struct sb_opt *p = &o->opts[o->nopts++];
    memset(p, 0, sizeof *p);
    p->name = strdup(name);
    normalize(p->name);
    p->kind = kind;
    p->source = source;
    p->def = dup_or_null(def);
    p->help = strdup(help ? help : "");
    p->choices = choices;
    p->min = min;
    p->max = max;
}

int sb_parse_bool(const char *s)
{
    static const char *yes[] = {"on", "true", "yes", "1", NULL};
    static const char *no[] = {"off", "false", "no", "0", NULL};
    for (int i = 0; yes[i]; i++)
        if (strcasecmp(s, yes[i]) == 0)
            return 1;
    for (int i = 0; no[i]; i++)
        if (strcasecmp(s, no[i]) == 0)
            return 0;
    return -1;
}

int sb_parse_size(const char *s, long long *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0)
        return -1;
    static const char units[] = "bkmgt"; /* b: bytes; each next one x1024 */
    if (*end) {
        const char *u = end[1] == 0 ? strchr(units, tolower((unsigned char)*end)) : NULL;
        if (u == NULL)
            return -1;
        for (long i = 0; i < u - units; i++) {
            if (v > LLONG_MAX / 1024)
                return -1;
            v *= 1024;
        }
    }
    *out = v;
    return 0;
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    errno = 0;
    if (*s == 0 || isspace((unsigned char)*s)) /* strtoll skips leading blanks */
        return -1;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != 0)
        return -1;
    *out = v;
    return 0;
}

static int in_choices(const char *choices, const char *v)
{
    size_t n = strlen(v);
    const char *p = choices;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncasecmp(p, v, n) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

static int validate(const struct sb_opt *p, const char *v, char *err, size_t errlen)
{
    long long ll;
    char *end;
    switch (p->kind) {
    case SB_OPT_INT:
        if (parse_ll(v, &ll) != 0) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: expected a whole number",
                     v, p->name);
            return -1;
        }
        if (ll < p->min || ll > p->max) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: must be between %lld and %lld",
                     v, p->name, p->min, p->max);
            return -1;
        }
        return 0;
    case SB_OPT_NUMBER: {
        errno = 0;
        double d = strtod(v, &end);
        if (errno != 0 || *end != 0 || *v == 0 || isspace((unsigned char)*v) || !isfinite(d)) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: expected a number", v, p->name);
            return -1;
        }
        if (d < (double)p->min || d > (double)p->max) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: must be between %lld and %lld",
                     v, p->name, p->min, p->max);
            return -1;
        }
        return 0;
    }
    case SB_OPT_SIZE:
        if (sb_parse_size(v, &ll) != 0) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: expected a size (bytes, or N "
                     "with a K, M, G or T suffix)", v, p->name);
            return -1;
        }
        return 0;
    case SB_OPT_BOOL:
        if (sb_parse_bool(v) < 0) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: expected on or off", v, p->name);
            return -1;
        }
        return 0;
    default:
        if (p->choices && !in_choices(p->choices, v)) {
            snprintf(err, errlen, "invalid value '%.60s' for --%s: expected one of %s",
                     p->kind == SB_OPT_SECRET ? "***" : v, p->name, p->choices);
            return -1;
        }
        return 0;
    }
}

/* Edit distance for "did you mean"; small strings only. */
int sb_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    int prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < c)
                c = prev[j] + 1;
            if (cur[j - 1] + 1 < c)
                c = cur[j - 1] + 1;
            cur[j] = c;
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

/* For --oltp-NAME, the option of sysbench 0.5's legacy OLTP scripts, the
 * 1.0 workloads' name for it when this workload has it, else NULL. */
static const char *legacy_oltp_name(const struct sb_options *o, const char *name)
{
    if (strncmp(name, "oltp-", 5) != 0)
        return NULL;
    const char *rest = name + 5;
    if (strcmp(rest, "tables-count") == 0)
        rest = "tables";
    const struct sb_opt *p = find(o, rest);
    return p ? p->name : NULL;
}

int sb_options_resolve(struct sb_options *o, int final, char *err, size_t errlen)
{
    for (int i = 0; i < o->nargs; i++) {
        struct sb_arg *g = &o->args[i];
        struct sb_opt *p = find(o, g->name);
        if (p == NULL) {
            if (!final)
                continue;
            const char *now = legacy_oltp_name(o, g->name);
            if (now != NULL) {
                snprintf(err, errlen, "unknown option --%.60s: the name in sysbench 0.5's legacy "
                         "OLTP scripts; this workload calls it --%s", g->name, now);
                return -1;
            }
            const char *best = NULL;
            int bestd = 1000;
            for (int k = 0; k < o->nopts; k++) {
                int d = sb_edit_distance(g->name, o->opts[k].name);
                if (d < bestd) {
                    bestd = d;
                    best = o->opts[k].name;
                }
            }
            if (best && bestd <= 3 + (int)strlen(g->name) / 4)
                snprintf(err, errlen, "unknown option --%.60s; did you mean --%s?", g->name, best);
            else
                snprintf(err, errlen, "unknown option --%.60s; see 'sbench --help'", g->name);
            return -1;
        }
        if (g->used)
            continue;
        if (validate(p, g->value, err, errlen) != 0)
            return -1;
        free(p->value);
        p->value = strdup(g->value);
        g->used = 1;
    }
    return 0;
}

int sb_opt_set_default(struct sb_options *o, const char *name, const char *def)
{
    struct sb_opt *p = find(o, name);
    char *d = def ? strdup(def) : NULL;
    if (p == NULL || (def && d == NULL)) {
        free(d);
        return -1;
    }
    free(p->def);
    p->def = d;
    return 0;
}

const struct sb_arg *sb_options_arg_at(const struct sb_options *o, int i)
{
    return i >= 0 && i < o->nargs ? &o->args[i] : NULL;
}

int sb_options_take_unknown(struct sb_options *o, int source)
{
    int n = 0;
    for (int i = 0; i < o->nargs; i++) {
        struct sb_arg *g = &o->args[i];
        if (g->used || find(o, g->name) != NULL)
            continue;
        sb_options_add(o, g->name, SB_OPT_STRING, source, NULL, "", NULL, 0, 0);
        struct sb_opt *p = find(o, g->name);
        if (p == NULL) /* out of memory: resolve reports it as unknown */
            continue;
        p->value = strdup(g->bare ? "" : g->value);
        g->used = 1;
        n++;
    }
    return n;
}

const struct sb_opt *sb_opt_find(const struct sb_options *o, const char *name)
{
    return find(o, name);
}

const char *sb_opt_str(const struct sb_options *o, const char *name)
{
    const struct sb_opt *p = find(o, name);
    if (p == NULL)
        return NULL;
    return p->value ? p->value : p->def;
}

long long sb_opt_int(const struct sb_options *o, const char *name)
{
    const char *v = sb_opt_str(o, name);
    return v ? strtoll(v, NULL, 10) : 0;
}

double sb_opt_num(const struct sb_options *o, const char *name)
{
    const char *v = sb_opt_str(o, name);
    return v ? strtod(v, NULL) : 0.0;
}

int sb_opt_bool(const struct sb_options *o, const char *name)
{
    const char *v = sb_opt_str(o, name);
    return v ? sb_parse_bool(v) == 1 : 0;
}

int sb_opt_is_set(const struct sb_options *o, const char *name)
{
    const struct sb_opt *p = find(o, name);
    return p && p->value != NULL;
}

int sb_options_count(const struct sb_options *o) { return o->nopts; }

const struct sb_opt *sb_options_at(const struct sb_options *o, int i)
{
    return (i >= 0 && i < o->nopts) ? &o->opts[i] : NULL;
}

/* The left column of an option's help line: "--name=N", "--flag[=on|off]". */
static void help_left(const struct sb_opt *p, char *buf, size_t len)
{
    static const char *const forms[] = {
        [SB_OPT_STRING] = "=STRING", [SB_OPT_INT] = "=N", [SB_OPT_NUMBER] = "=N",
        [SB_OPT_BOOL] = "[=on|off]", [SB_OPT_SECRET] = "=STRING", [SB_OPT_LIST] = "=[LIST,...]",
        [SB_OPT_SIZE] = "=SIZE", [SB_OPT_FILE] = "=FILENAME"};
    if (p->choices)
        snprintf(buf, len, "--%s=[%s]", p->name, p->choices);
    else
        snprintf(buf, len, "--%s%s", p->name, forms[p->kind]);
}

void sb_options_print_help(const struct sb_options *o, int source, void *file)
{
    FILE *f = file;
    char left[160];
    int width = 0;
    for (int i = 0; i < o->nopts; i++) {
        if (o->opts[i].source != source)
            continue;
        help_left(&o->opts[i], left, sizeof left);
        if ((int)strlen(left) > width)
            width = (int)strlen(left);
    }
    if (width > 34) /* a long enumeration runs past the column instead */
        width = 34;
    for (int i = 0; i < o->nopts; i++) {
        const struct sb_opt *p = &o->opts[i];
        if (p->source != source)
            continue;
        help_left(p, left, sizeof left);
        fprintf(f, "  %-*s %s", width, left, p->help);
        if (p->def && p->kind != SB_OPT_SECRET)
            fprintf(f, " [%s]", p->def);
        fputc('\n', f);
    }
}

const char *sb_opt_shown(const struct sb_opt *p, const char *name, const char *v,
                         char *buf, size_t len)
{
    if ((p && p->kind == SB_OPT_SECRET) || strstr(name, "password"))
        return "***";
    return sb_secret_mask(v, buf, len);
}

void sb_options_echo(const struct sb_options *o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < o->nargs && used + 1 < len; i++) {
        const struct sb_arg *g = &o->args[i];
        const struct sb_opt *p = find(o, g->name);
        char shown[1024];
        int n = snprintf(buf + used, len - used, "%s--%s=%s", used ? " " : "", g->name,
                         sb_opt_shown(p, g->name, g->value, shown, sizeof shown));
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
