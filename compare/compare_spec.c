/*
 * compare_spec.c: the description of a comparison (struct cmp_spec):
 * read from a comparison file (Lua: the file returns a table, see
 * docs/compare.md), built from the command line (--target=NAME:OPTIONS),
 * checked, and written to / read from the results directory as JSON with
 * every password masked.  The identity (all but the title and the number
 * of repeats) is what a resumed comparison must share with the stored one.
 */
#include "compare.h"
#include "compare_seq.h"
#include "../lib/options.h"
#include "../lib/secret_mask.h"

#include <lauxlib.h>
#include <lualib.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Options compare sets on every run itself: a target or workload may not. */
static const char *const reserved[] = {
    "threads", "time", "events", "warmup-time", "report-interval", "report-format", "output",
    "hdr-log", "forever", "help", "version", NULL,
};

void cmp_strv_free(struct cmp_strv *v)
{
    if (v == NULL)
        return;
    for (int i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

int cmp_strv_push(struct cmp_strv *v, const char *str)
{
    char **nv = realloc(v->v, sizeof *nv * (size_t)(v->n + 1));
    if (nv == NULL)
        return -1;
    v->v = nv;
    if ((v->v[v->n] = strdup(str)) == NULL)
        return -1;
    v->n++;
    return 0;
}

int cmp_strv_split(struct cmp_strv *v, const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        size_t len = 0;
        while (p[len] && !isspace((unsigned char)p[len]))
            len++;
        if (len == 0)
            break;
        char *w = strndup(p, len);
        int rc = w ? cmp_strv_push(v, w) : -1;
        free(w);
        if (rc != 0)
            return -1;
        p += len;
    }
    return 0;
}

void cmp_spec_free(struct cmp_spec *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->ntargets; i++) {
        cmp_strv_free(&s->targets[i].opts);
        free(s->targets[i].from_dir);
    }
    for (int i = 0; i < s->nworkloads; i++) {
        cmp_strv_free(&s->workloads[i].opts);
        free(s->workloads[i].name);
    }
    cmp_strv_free(&s->opts);
    free(s->title);
    free(s->source);
    memset(s, 0, sizeof *s);
}

const char *cmp_mask_option(const char *opt, char *buf, size_t len)
{
    /* every password (also inside --target='NAME:... --x-password=V', a
     * connection string or a URI) becomes *** */
    return sb_secret_mask(opt, buf, len);
}

static int valid_name(const char *n)
{
    if (*n == 0 || strlen(n) >= CMP_NAME_LEN)
        return 0;
    for (const char *p = n; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
            return 0;
    return n[0] != '.' && n[0] != '-';
}

int cmp_spec_target(const struct cmp_spec *s, const char *name)
{
    for (int i = 0; i < s->ntargets; i++)
        if (strcmp(s->targets[i].name, name) == 0)
            return i;
    return -1;
}

/* "DIR/TARGET" of a saved target into t. */
static int set_from(struct cmp_target *t, const char *ref, char *err, size_t errlen)
{
    const char *slash = strrchr(ref, '/');
    if (slash == NULL || slash == ref || !valid_name(slash + 1)) {
        snprintf(err, errlen, "target '%s': a saved target is written DIR/TARGET (results directory and target name), not '%.200s'",
                 t->name, ref);
        return -1;
    }
    t->from_dir = strndup(ref, (size_t)(slash - ref));
    snprintf(t->from_target, sizeof t->from_target, "%s", slash + 1);
    return t->from_dir ? 0 : -1;
}

static struct cmp_target *new_target(struct cmp_spec *s, const char *name, size_t nlen, char *err,
                                     size_t errlen)
{
    if (s->ntargets == CMP_MAX_TARGETS) {
        snprintf(err, errlen, "too many targets (at most %d)", CMP_MAX_TARGETS);
        return NULL;
    }
    struct cmp_target *t = &s->targets[s->ntargets];
    if (nlen >= sizeof t->name)
        nlen = sizeof t->name - 1;
    memcpy(t->name, name, nlen);
    t->name[nlen] = 0;
    if (!valid_name(t->name)) {
        snprintf(err, errlen, "invalid target name '%.64s': letters, digits, '_', '-' and '.' only",
                 t->name);
        return NULL;
    }
    if (cmp_spec_target(s, t->name) >= 0) {
        snprintf(err, errlen, "two targets are named '%s'", t->name);
        return NULL;
    }
    t->prepare = 1;
    s->ntargets++;
    return t;
}

int cmp_spec_add_target(struct cmp_spec *s, const char *arg, char *err, size_t errlen)
{
    const char *colon = strchr(arg, ':');
    if (colon == NULL) {
        snprintf(err, errlen, "--target needs NAME:OPTIONS (e.g. --target='pg:--db-driver=pgsql --pgsql-host=127.0.0.1'), not '%.40s'",
                 arg);
        return -1;
    }
    struct cmp_target *t = new_target(s, arg, (size_t)(colon - arg), err, errlen);
    if (t == NULL)
        return -1;
    if (colon[1] == '@')
        return set_from(t, colon + 2, err, errlen);
    if (cmp_strv_split(&t->opts, colon + 1) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int cmp_spec_set_threads(struct cmp_spec *s, const char *list, char *err, size_t errlen)
{
    s->nthreads = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 100000 || (*end && *end != ',')) {
            snprintf(err, errlen, "invalid --threads list '%.100s': thread counts (1..100000) separated by commas",
                     list);
            return -1;
        }
        if (s->nthreads == CMP_MAX_THREADS) {
            snprintf(err, errlen, "too many thread counts (at most %d)", CMP_MAX_THREADS);
            return -1;
        }
        s->threads[s->nthreads++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (s->nthreads == 0) {
        snprintf(err, errlen, "empty --threads list");
        return -1;
    }
    return 0;
}

/* ---- the comparison file ---- */

/* The option list at the top of the Lua stack: a table name = value
 * (underscores become dashes; booleans on/off), or nil. */
static int lua_opts(lua_State *L, struct cmp_strv *v, const char *what, char *err, size_t errlen)
{
    if (lua_isnil(L, -1))
        return 0;
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: options must be a table of name = value", what);
        return -1;
    }
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 2);
            snprintf(err, errlen, "%s: options must be a table of name = value (a key is not a name)", what);
            return -1;
        }
        char name[160], opt[4400];
        snprintf(name, sizeof name, "%s", lua_tostring(L, -2));
        for (char *p = name; *p; p++)
            if (*p == '_')
                *p = '-';
        switch (lua_type(L, -1)) {
        case LUA_TBOOLEAN:
            snprintf(opt, sizeof opt, "--%s=%s", name, lua_toboolean(L, -1) ? "on" : "off");
            break;
        case LUA_TNUMBER:
        case LUA_TSTRING:
            snprintf(opt, sizeof opt, "--%s=%s", name, lua_tostring(L, -1));
            break;
        default:
            lua_pop(L, 2);
            snprintf(err, errlen, "%s: option '%s' must be a string, number or boolean", what, name);
            return -1;
        }
        lua_pop(L, 1);
        if (strchr(opt, ' ') || strchr(opt, '\n')) {
            lua_pop(L, 1);
            snprintf(err, errlen, "%s: option '%s' has a blank in its value", what, name);
            return -1;
        }
        if (cmp_strv_push(v, opt) != 0) {
            lua_pop(L, 1);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    /* a Lua table has no order: sort, so the same file gives the same
     * runs and the same identity */
    for (int i = 1; i < v->n; i++)
        for (int j = i; j > 0 && strcmp(v->v[j - 1], v->v[j]) > 0; j--) {
            char *x = v->v[j];
            v->v[j] = v->v[j - 1];
            v->v[j - 1] = x;
        }
    return 0;
}

/* The table at the top of L has only keys of allowed (a NULL-ended list):
 * else -1 with one line in err naming the key and the closest allowed one
 * ("did you mean"). */
static int known_keys(lua_State *L, const char *const allowed[], const char *what, char *err, size_t errlen)
{
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        lua_pop(L, 1); /* the value */
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 1);
            snprintf(err, errlen, "%s: an entry without a name (keys are %s, ...)", what, allowed[0]);
            return -1;
        }
        const char *key = lua_tostring(L, -1);
        int found = 0, best = -1, bestd = 4;
        for (int i = 0; allowed[i] && !found; i++) {
            found = strcmp(key, allowed[i]) == 0;
            int d = sb_edit_distance(key, allowed[i]);
            if (d < bestd) {
                bestd = d;
                best = i;
            }
        }
        if (!found) {
            if (best >= 0)
                snprintf(err, errlen, "%s: unknown key '%.60s'; did you mean '%s'?", what, key, allowed[best]);
            else
                snprintf(err, errlen, "%s: unknown key '%.60s'", what, key);
            lua_pop(L, 1);
            return -1;
        }
    }
    return 0;
}

static const char *const file_keys[] = {"title", "targets", "workloads", "threads", "time", "events", "warmup",
                                        "repeats", "options", "auto_width", NULL};
static const char *const target_keys[] = {"name", "options", "prepare", "from", NULL};
static const char *const workload_keys[] = {"name", "label", "options", NULL};

static long field_int(lua_State *L, const char *key, long def, long lo, long hi, int *bad)
{
    lua_getfield(L, -1, key);
    long v = def;
    if (!lua_isnil(L, -1)) {
        int isnum;
        lua_Integer i = lua_tointegerx(L, -1, &isnum);
        if (!isnum || i < lo || i > hi)
            *bad = 1;
        else
            v = (long)i;
    }
    lua_pop(L, 1);
    return v;
}

/* repeats = "auto" or "auto:MAX", auto_width = PCT (compare_seq.h);
 * 0 when set or absent, -1 when bad. */
static int file_auto(lua_State *L, struct cmp_spec *s)
{
    int rc = 0;
    lua_getfield(L, -1, "repeats");
    if (lua_type(L, -1) == LUA_TSTRING && strncmp(lua_tostring(L, -1), "auto", 4) == 0) {
        const char *v = lua_tostring(L, -1) + 4;
        char *end = NULL;
        long max = *v == 0 ? CMP_AUTO_MAX_DEFAULT : *v == ':' ? strtol(v + 1, &end, 10) : -1;
        s->repeats_auto = 1;
        s->repeats = (int)max;
        rc = (end && (*end || end == v + 1)) || max < 4 || max > CMP_MAX_REPEATS ? -1 : 0;
        lua_pushnil(L);
        lua_setfield(L, -3, "repeats"); /* read: not field_int's */
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "auto_width");
    if (!lua_isnil(L, -1)) {
        int isnum;
        s->auto_width = lua_tonumberx(L, -1, &isnum);
        rc = !isnum || !s->repeats_auto || !(s->auto_width > 0 && s->auto_width <= 1000) ? -1 : rc;
    }
    lua_pop(L, 1);
    return rc;
}

static int load_targets(lua_State *L, struct cmp_spec *s, char *err, size_t errlen)
{
    lua_getfield(L, -1, "targets");
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: 'targets' must be a list of {name = ..., options = {...}}", s->source);
        return -1;
    }
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        lua_getfield(L, -1, "name");
        const char *name = lua_tostring(L, -1);
        if (!lua_istable(L, -2) || name == NULL) {
            snprintf(err, errlen, "%s: target %lld has no name", s->source, (long long)i);
            return -1;
        }
        struct cmp_target *t = new_target(s, name, strlen(name), err, errlen);
        lua_pop(L, 1);
        if (t == NULL)
            return -1;
        char where[200];
        snprintf(where, sizeof where, "%s: target '%s'", s->source, t->name);
        if (known_keys(L, target_keys, where, err, errlen) != 0)
            return -1;
        lua_getfield(L, -1, "options");
        char what[200];
        snprintf(what, sizeof what, "%s: target '%s'", s->source, t->name);
        if (lua_opts(L, &t->opts, what, err, errlen) != 0)
            return -1;
        lua_pop(L, 1);
        lua_getfield(L, -1, "prepare");
        if (lua_isboolean(L, -1))
            t->prepare = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "from");
        if (lua_isstring(L, -1) && set_from(t, lua_tostring(L, -1), err, errlen) != 0)
            return -1;
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    return 0;
}

static int load_workloads(lua_State *L, struct cmp_spec *s, char *err, size_t errlen)
{
    lua_getfield(L, -1, "workloads");
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: 'workloads' must be a list of {name = ..., options = {...}}", s->source);
        return -1;
    }
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        if (s->nworkloads == CMP_MAX_WORKLOADS) {
            snprintf(err, errlen, "%s: too many workloads (at most %d)", s->source, CMP_MAX_WORKLOADS);
            return -1;
        }
        struct cmp_workload *w = &s->workloads[s->nworkloads++];
        lua_geti(L, -1, i);
        if (lua_isstring(L, -1)) {
            w->name = strdup(lua_tostring(L, -1));
        } else if (lua_istable(L, -1)) {
            char where[200];
            snprintf(where, sizeof where, "%s: workload %lld", s->source, (long long)i);
            if (known_keys(L, workload_keys, where, err, errlen) != 0)
                return -1;
            lua_getfield(L, -1, "name");
            if (lua_isstring(L, -1))
                w->name = strdup(lua_tostring(L, -1));
            lua_pop(L, 1);
            lua_getfield(L, -1, "label");
            if (lua_isstring(L, -1))
                snprintf(w->label, sizeof w->label, "%s", lua_tostring(L, -1));
            lua_pop(L, 1);
            lua_getfield(L, -1, "options");
            char what[200];
            snprintf(what, sizeof what, "%s: workload %lld", s->source, (long long)i);
            if (lua_opts(L, &w->opts, what, err, errlen) != 0)
                return -1;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (w->name == NULL) {
            snprintf(err, errlen, "%s: workload %lld has no name", s->source, (long long)i);
            return -1;
        }
    }
    lua_pop(L, 1);
    return 0;
}

int cmp_spec_load_lua(struct cmp_spec *s, const char *path, char *err, size_t errlen)
{
    s->source = strdup(path);
    lua_State *L = luaL_newstate();
    if (L == NULL || s->source == NULL) {
        snprintf(err, errlen, "out of memory");
        if (L)
            lua_close(L);
        return -1;
    }
    luaL_openlibs(L); /* os.getenv for passwords and hosts */
    int rc = -1;
    if (luaL_dofile(L, path) != LUA_OK) {
        snprintf(err, errlen, "comparison file %s", lua_tostring(L, -1));
        goto out;
    }
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: the file must return a table (return { targets = ..., workloads = ... })", path);
        goto out;
    }
    if (known_keys(L, file_keys, path, err, errlen) != 0)
        goto out;
    lua_getfield(L, -1, "title");
    if (lua_isstring(L, -1))
        s->title = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    if (load_targets(L, s, err, errlen) != 0 || load_workloads(L, s, err, errlen) != 0)
        goto out;
    lua_getfield(L, -1, "threads");
    if (lua_isinteger(L, -1)) {
        s->threads[0] = (int)lua_tointeger(L, -1);
        s->nthreads = 1;
    } else if (lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n && s->nthreads < CMP_MAX_THREADS; i++) {
            lua_geti(L, -1, i);
            s->threads[s->nthreads++] = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (file_auto(L, s) != 0) {
        snprintf(err, errlen, "%s: repeats must be a whole number, \"auto\" or \"auto:MAX\" (MAX 4..%d); "
                              "auto_width a percentage above 0, at most 1000, with repeats = \"auto\"",
                 path, CMP_MAX_REPEATS);
        goto out;
    }
    int bad = 0;
    s->time = field_int(L, "time", s->time, 0, 100000000, &bad);
    s->events = field_int(L, "events", s->events, 0, 1000000000000L, &bad);
    s->warmup = field_int(L, "warmup", s->warmup, 0, 100000000, &bad);
    s->repeats = (int)field_int(L, "repeats", s->repeats, 1, CMP_MAX_REPEATS, &bad);
    if (bad) {
        snprintf(err, errlen, "%s: time, events, warmup and repeats must be whole numbers (repeats 1..%d)",
                 path, CMP_MAX_REPEATS);
        goto out;
    }
    lua_getfield(L, -1, "options");
    char what[1100];
    snprintf(what, sizeof what, "%s: options", path);
    if (lua_opts(L, &s->opts, what, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    lua_close(L);
    return rc;
}

/* ---- checks ---- */

static int check_opts(const struct cmp_strv *v, const char *what, char *err, size_t errlen)
{
    for (int i = 0; i < v->n; i++) {
        const char *o = v->v[i];
        if (strncmp(o, "--", 2) != 0 || o[2] == 0 || o[2] == '=') {
            snprintf(err, errlen, "%s: '%.40s' is not an option (options look like --name=value)", what, o);
            return -1;
        }
        size_t nlen = strcspn(o + 2, "=");
        for (int r = 0; reserved[r]; r++)
            if (strlen(reserved[r]) == nlen && strncmp(o + 2, reserved[r], nlen) == 0) {
                snprintf(err, errlen, "%s: --%s is set by compare itself (use the comparison's threads, time, events, warmup)",
                         what, reserved[r]);
                return -1;
            }
    }
    return 0;
}

int cmp_spec_check(struct cmp_spec *s, char *err, size_t errlen)
{
    if (s->ntargets == 0) {
        snprintf(err, errlen, "no targets to compare (a comparison file, or --target=NAME:OPTIONS)");
        return -1;
    }
    if (s->nworkloads == 0) {
        snprintf(err, errlen, "no workload to run");
        return -1;
    }
    if (s->nthreads == 0) {
        snprintf(err, errlen, "no thread counts (threads = {1, 2, 4} or --threads=1,2,4)");
        return -1;
    }
    for (int i = 0; i < s->nthreads; i++)
        if (s->threads[i] < 1 || s->threads[i] > 100000) {
            snprintf(err, errlen, "thread counts must be 1..100000");
            return -1;
        }
    if (s->time == 0 && s->events == 0) {
        snprintf(err, errlen, "each run needs a length: time (seconds) or events");
        return -1;
    }
    if (s->repeats < 1 || s->repeats > CMP_MAX_REPEATS) {
        snprintf(err, errlen, "repeats must be 1..%d", CMP_MAX_REPEATS);
        return -1;
    }
    if (check_opts(&s->opts, "options of every run", err, errlen) != 0)
        return -1;
    for (int i = 0; i < s->ntargets; i++) {
        char what[100];
        snprintf(what, sizeof what, "target '%s'", s->targets[i].name);
        if (check_opts(&s->targets[i].opts, what, err, errlen) != 0)
            return -1;
        if (s->targets[i].from_dir == NULL && s->targets[i].opts.n == 0 && s->opts.n == 0) {
            snprintf(err, errlen, "target '%s' has no options (at least --db-driver=...)", s->targets[i].name);
            return -1;
        }
    }
    for (int i = 0; i < s->nworkloads; i++) {
        struct cmp_workload *w = &s->workloads[i];
        if (w->label[0] == 0) {
            const char *b = strrchr(w->name, '/');
            b = b ? b + 1 : w->name;
            size_t len = strlen(b);
            if (len > 4 && strcmp(b + len - 4, ".lua") == 0)
                len -= 4;
            snprintf(w->label, sizeof w->label, "%.*s", (int)len, b);
        }
        if (!valid_name(w->label)) {
            snprintf(err, errlen, "invalid workload label '%.64s': letters, digits, '_', '-' and '.' only", w->label);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(s->workloads[j].label, w->label) == 0) {
                snprintf(err, errlen, "two workloads are labelled '%s' (give each a label = ...)", w->label);
                return -1;
            }
        char what[100];
        snprintf(what, sizeof what, "workload '%s'", w->label);
        if (check_opts(&w->opts, what, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* ---- JSON ---- */

static json_object *strv_json(const struct cmp_strv *v)
{
    json_object *a = json_object_new_array();
    for (int i = 0; a && i < v->n; i++) {
        char buf[4400];
        json_object_array_add(a, json_object_new_string(cmp_mask_option(v->v[i], buf, sizeof buf)));
    }
    return a;
}

json_object *cmp_spec_to_json(const struct cmp_spec *s)
{
    json_object *targets = json_object_new_array(), *workloads = json_object_new_array();
    json_object *threads = json_object_new_array(), *o = json_object_new_object();
    for (int i = 0; i < s->ntargets; i++) {
        const struct cmp_target *t = &s->targets[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(t->name));
        json_object_object_add(e, "options", strv_json(&t->opts));
        json_object_object_add(e, "prepare", json_object_new_boolean(t->prepare));
        if (t->from_dir) {
            char ref[1200];
            snprintf(ref, sizeof ref, "%s/%s", t->from_dir, t->from_target);
            json_object_object_add(e, "from", json_object_new_string(ref));
        }
        json_object_array_add(targets, e);
    }
    for (int i = 0; i < s->nworkloads; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "label", json_object_new_string(s->workloads[i].label));
        json_object_object_add(e, "name", json_object_new_string(s->workloads[i].name));
        json_object_object_add(e, "options", strv_json(&s->workloads[i].opts));
        json_object_array_add(workloads, e);
    }
    for (int i = 0; i < s->nthreads; i++)
        json_object_array_add(threads, json_object_new_int(s->threads[i]));
    json_object_object_add(o, "format", json_object_new_string("sbench-compare/1"));
    json_object_object_add(o, "title", cmp_string(s->title));
    json_object_object_add(o, "targets", targets);
    json_object_object_add(o, "workloads", workloads);
    json_object_object_add(o, "threads", threads);
    json_object_object_add(o, "time", json_object_new_int64(s->time));
    json_object_object_add(o, "events", json_object_new_int64(s->events));
    json_object_object_add(o, "warmup", json_object_new_int64(s->warmup));
    json_object_object_add(o, "repeats", json_object_new_int(s->repeats));
    if (s->repeats_auto) { /* repeats is then the maximum (compare_seq.h) */
        json_object_object_add(o, "repeats_auto", json_object_new_boolean(1));
        json_object_object_add(o, "auto_width_pct", cmp_real(s->auto_width));
    }
    json_object_object_add(o, "options", strv_json(&s->opts));
    return o;
}

json_object *cmp_spec_identity(const json_object *spec_json)
{
    json_object *id = NULL;
    if (json_object_deep_copy((json_object *)spec_json, &id, NULL) != 0)
        return NULL;
    json_object_object_del(id, "title");
    json_object_object_del(id, "repeats");
    json_object_object_del(id, "repeats_auto");
    json_object_object_del(id, "auto_width_pct");
    json_object_object_del(id, "source");
    json_object_object_del(id, "command");
    return id;
}

static int strv_from_json(struct cmp_strv *v, const json_object *a)
{
    for (size_t i = 0; i < sb_json_len(a); i++) {
        json_object *x = sb_json_elem(a, i);
        if (!json_object_is_type(x, json_type_string) || cmp_strv_push(v, json_object_get_string(x)) != 0)
            return -1;
    }
    return 0;
}

int cmp_spec_from_json(struct cmp_spec *s, const json_object *j, char *err, size_t errlen)
{
    err[0] = 0;
    const char *fmt = sb_json_str(j, "format");
    if (fmt == NULL || strcmp(fmt, "sbench-compare/1") != 0) {
        snprintf(err, errlen, "not a comparison written by sbench compare (format '%s')", fmt ? fmt : "none");
        return -1;
    }
    const char *title = sb_json_str(j, "title");
    s->title = title ? strdup(title) : NULL;
    json_object *a = sb_json_member(j, "targets");
    for (size_t i = 0; i < sb_json_len(a); i++) {
        json_object *x = sb_json_elem(a, i);
        const char *name = sb_json_str(x, "name");
        struct cmp_target *t = name ? new_target(s, name, strlen(name), err, errlen) : NULL;
        if (t == NULL || strv_from_json(&t->opts, sb_json_member(x, "options")) != 0)
            goto bad;
        t->prepare = sb_json_true(x, "prepare");
        const char *from = sb_json_str(x, "from");
        if (from && set_from(t, from, err, errlen) != 0)
            goto bad;
    }
    a = sb_json_member(j, "workloads");
    for (size_t i = 0; i < sb_json_len(a); i++) {
        json_object *x = sb_json_elem(a, i);
        if (s->nworkloads == CMP_MAX_WORKLOADS)
            goto bad;
        struct cmp_workload *w = &s->workloads[s->nworkloads++];
        const char *label = sb_json_str(x, "label");
        const char *name = sb_json_str(x, "name");
        if (label == NULL || name == NULL || (w->name = strdup(name)) == NULL ||
            strv_from_json(&w->opts, sb_json_member(x, "options")) != 0)
            goto bad;
        snprintf(w->label, sizeof w->label, "%s", label);
    }
    a = sb_json_member(j, "threads");
    for (size_t i = 0; i < sb_json_len(a); i++) {
        if (s->nthreads == CMP_MAX_THREADS)
            goto bad;
        s->threads[s->nthreads++] = (int)sb_json_int_of(sb_json_elem(a, i));
    }
    /* the stored file is untrusted: each length a whole number in the
     * range a comparison file (field_int above) allows */
    static const struct { const char *key; long lo, hi; } lengths[] = {
        {"time", 0, 100000000}, {"events", 0, 1000000000000L}, {"warmup", 0, 100000000},
        {"repeats", 1, CMP_MAX_REPEATS},
    };
    long got[4];
    for (int k = 0; k < 4; k++) {
        json_object *v = sb_json_member(j, lengths[k].key);
        int64_t x = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
        if (!json_object_is_type(v, json_type_int) || x < lengths[k].lo || x > lengths[k].hi) {
            snprintf(err, errlen, "\"%s\" is %s: not a whole number from %ld to %ld", lengths[k].key,
                     v ? json_object_to_json_string(v) : "missing", lengths[k].lo, lengths[k].hi);
            goto bad;
        }
        got[k] = (long)x;
    }
    s->time = got[0];
    s->events = got[1];
    s->warmup = got[2];
    s->repeats = (int)got[3];
    s->repeats_auto = sb_json_true(j, "repeats_auto");
    s->auto_width = s->repeats_auto ? sb_json_num(j, "auto_width_pct") : 0;
    if (s->repeats_auto && !(s->auto_width > 0 && s->auto_width <= 1000 && s->repeats >= 4)) {
        snprintf(err, errlen, "\"auto_width_pct\" is not a percentage above 0 and at most 1000, or repeats below 4");
        goto bad;
    }
    for (int i = 0; i < s->nthreads; i++)
        if (s->threads[i] < 1 || s->threads[i] > 100000) {
            snprintf(err, errlen, "\"threads\" holds %d: not a thread count (1..100000)", s->threads[i]);
            goto bad;
        }
    if (strv_from_json(&s->opts, sb_json_member(j, "options")) != 0)
        goto bad;
    return 0;
bad:
    if (err[0] == 0)
        snprintf(err, errlen, "the stored comparison is incomplete or damaged");
    return -1;
}
