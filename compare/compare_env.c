/*
 * compare_env.c: the environment of a comparison's summary (schema
 * docs/compare.schema.json, "environment"): the machine and the drivers
 * found, as `sbench info` wrote them to DIR/info.json before the first run
 * (a results directory of an older sbench has none: the machine is then
 * the first run's run.host, the same facts by the same code); each
 * target's driver, client, server versions and server settings (its first
 * run's report, run.server_settings); the settings two or more targets
 * have with values that are not all equal; and a warning for each run
 * whose settings differ from its target's first run (a setting changed
 * during the comparison).
 */
#include "compare.h"

#include <stdlib.h>
#include <string.h>

/* o[key] = a new reference to v (borrowed; NULL: null) */
static void add_ref(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, json_object_get(v));
}

/* The settings object {NAME: {value, unit}} of a loaded run, or NULL. */
static json_object *settings_of(const json_object *run)
{
    json_object *s = sb_json_at(run, "final.run.server_settings.settings");
    return json_object_is_type(s, json_type_object) ? s : NULL;
}

/* 1 when two settings entries ({value, unit}, or NULL) are equal. */
static int same_setting(const json_object *a, const json_object *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    const char *va = sb_json_str(a, "value"), *vb = sb_json_str(b, "value");
    const char *ua = sb_json_str(a, "unit"), *ub = sb_json_str(b, "unit");
    return strcmp(va ? va : "", vb ? vb : "") == 0 && strcmp(ua ? ua : "", ub ? ub : "") == 0;
}

/* "VALUE UNIT" (or "VALUE", or "absent") of a settings entry into buf. */
static const char *shown(const json_object *e, char *buf, size_t len)
{
    if (e == NULL)
        return "absent";
    const char *v = sb_json_str(e, "value"), *u = sb_json_str(e, "unit");
    snprintf(buf, len, "%s%s%s", v ? v : "", u && *u ? " " : "", u && *u ? u : "");
    return buf;
}

/* The target's run measured first (lowest record.order), or NULL. */
static const json_object *first_run(const json_object *runs, const char *target)
{
    const json_object *best = NULL;
    for (size_t i = 0; i < sb_json_len(runs); i++) {
        const json_object *r = sb_json_elem(runs, i);
        if (strcmp(sb_json_str(r, "target"), target) != 0)
            continue;
        if (best == NULL || sb_json_int(sb_json_member(r, "record"), "order") <
                                sb_json_int(sb_json_member(best, "record"), "order"))
            best = r;
    }
    return best;
}

/* A warning for each run of target whose settings differ from first's. */
static void settings_changed(const json_object *runs, const char *target, const json_object *first,
                             json_object *warnings)
{
    const json_object *a = settings_of(first);
    for (size_t i = 0; i < sb_json_len(runs); i++) {
        const json_object *r = sb_json_elem(runs, i);
        const json_object *b = settings_of(r);
        if (r == first || strcmp(sb_json_str(r, "target"), target) != 0 || (a == NULL && b == NULL))
            continue;
        char text[1024], x[200], y[200];
        int n = 0;
        size_t used = (size_t)snprintf(text, sizeof text,
                                       "server settings differ from the target's first run %s (changed during the "
                                       "comparison):", sb_json_str(first, "id"));
        /* names of either side: a's, then those only b has */
        for (int side = 0; side < 2; side++) {
            const json_object *from = side ? b : a, *other = side ? a : b;
            if (from == NULL)
                continue;
            json_object_object_foreach((json_object *)from, name, e) {
                json_object *o = sb_json_member(other, name);
                if ((side && o) || same_setting(e, o))
                    continue;
                if (used < sizeof text)
                    used += (size_t)snprintf(text + used, sizeof text - used, "%s %s %s -> %s",
                                             n ? ";" : "", name, shown(side ? o : e, x, sizeof x),
                                             shown(side ? e : o, y, sizeof y));
                n++;
            }
        }
        if (a == NULL || b == NULL)
            snprintf(text, sizeof text, "server settings %s in this run but %s in the target's first run %s",
                     b ? "read" : "not read", a ? "read" : "not read", sb_json_str(first, "id"));
        if (n > 0 || a == NULL || b == NULL)
            cmp_warn(warnings, r, "settings_changed", text);
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* environment.settings_differ: every setting name two or more targets
 * have whose entries are not all equal, sorted by name, with each
 * target's value and unit (null for a target without it). */
static json_object *settings_differ(const struct cmp_spec *s, json_object *const settings[])
{
    json_object *out = json_object_new_array();
    size_t cap = 0, n = 0;
    const char **names = NULL;
    for (int k = 0; k < s->ntargets; k++)
        if (settings[k]) {
            json_object_object_foreach(settings[k], name, e) {
                (void)e;
                if (n == cap) {
                    cap = cap ? cap * 2 : 256;
                    const char **grown = realloc(names, cap * sizeof *names);
                    if (grown == NULL) {
                        free(names);
                        return out;
                    }
                    names = grown;
                }
                names[n++] = name;
            }
        }
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
            continue;
        int have = 0, differ = 0;
        const json_object *ref = NULL;
        for (int k = 0; k < s->ntargets; k++) {
            const json_object *e = sb_json_member(settings[k], names[i]);
            if (e == NULL)
                continue;
            differ |= have++ && !same_setting(ref, e);
            ref = ref ? ref : e;
        }
        if (have < 2 || !differ)
            continue;
        json_object *d = json_object_new_object(), *values = json_object_new_object();
        json_object *units = json_object_new_object();
        for (int k = 0; k < s->ntargets; k++) {
            const json_object *e = sb_json_member(settings[k], names[i]);
            json_object_object_add(values, s->targets[k].name, e ? cmp_string(sb_json_str(e, "value")) : NULL);
            json_object_object_add(units, s->targets[k].name, e ? cmp_string(sb_json_str(e, "unit")) : NULL);
        }
        json_object_object_add(d, "name", json_object_new_string(names[i]));
        json_object_object_add(d, "values", values);
        json_object_object_add(d, "units", units);
        json_object_array_add(out, d);
    }
    free(names);
    return out;
}

json_object *cmp_environment(const struct cmp_spec *s, const json_object *runs, const char *dir,
                             json_object *warnings)
{
    char path[4300], msg[300];
    json_object *env = json_object_new_object(), *targets = json_object_new_array();
    json_object *settings[CMP_MAX_TARGETS] = {0};
    const char *version = NULL;
    for (int k = 0; k < s->ntargets; k++) {
        const struct cmp_target *t = &s->targets[k];
        const char *tdir = t->from_dir ? t->from_dir : dir;
        const char *tname = t->from_dir ? t->from_target : t->name;
        const json_object *first = first_run(runs, t->name);
        json_object *run = sb_json_at(first, "final.run");
        json_object *e = json_object_new_object();
        json_object_object_add(e, "name", json_object_new_string(t->name));
        if (run) {
            static const char *const keys[] = {"driver", "client_version", "server_version", "io", "sbench_version", "host", NULL};
            for (int q = 0; keys[q]; q++)
                if (sb_json_member(run, keys[q]))
                    add_ref(e, keys[q], sb_json_member(run, keys[q]));
            if (version == NULL)
                version = sb_json_str(run, "sbench_version");
        }
        if (t->from_dir) {
            snprintf(path, sizeof path, "%s/%s", t->from_dir, t->from_target);
            json_object_object_add(e, "from", json_object_new_string(path));
        }
        /* null when the runs did not read them (--db-server-settings=off) */
        add_ref(e, "server_settings", sb_json_member(run, "server_settings"));
        if (first)
            add_ref(e, "server_settings_run", sb_json_member(first, "id"));
        settings[k] = settings_of(first);
        settings_changed(runs, t->name, first, warnings);
        /* optional: none, or one that does not parse or is no object, is null */
        snprintf(path, sizeof path, "%s/targets/%s.facts.json", tdir, tname);
        json_object *facts = sb_json_load_file(path, msg, sizeof msg);
        if (!json_object_is_type(facts, json_type_object)) {
            json_object_put(facts);
            facts = NULL;
        }
        json_object_object_add(e, "facts", facts);
        json_object_array_add(targets, e);
    }
    /* the machine: info.json, else (an older results directory) the
     * first run's run.host */
    snprintf(path, sizeof path, "%s/info.json", dir);
    json_object *info = sb_json_load_file(path, msg, sizeof msg);
    json_object *machine = sb_json_member(info, "host");
    const char *from = "info.json";
    if (!json_object_is_type(machine, json_type_object)) {
        const json_object *r = NULL;
        for (size_t i = 0; i < sb_json_len(runs); i++) {
            const json_object *x = sb_json_elem(runs, i);
            int k = cmp_spec_target(s, sb_json_str(x, "target"));
            if (k >= 0 && s->targets[k].from_dir == NULL &&
                json_object_is_type(sb_json_at(x, "final.run.host"), json_type_object) &&
                (r == NULL || sb_json_int(sb_json_member(x, "record"), "order") <
                                  sb_json_int(sb_json_member(r, "record"), "order")))
                r = x;
        }
        machine = sb_json_at(r, "final.run.host");
        from = r ? sb_json_str(r, "id") : NULL;
    }
    snprintf(path, sizeof path, "%s/comparison.json", dir);
    json_object *spec = sb_json_load_file(path, msg, sizeof msg);
    json_object_object_add(env, "sbench_version", json_object_new_string(version ? version : SB_VERSION));
    json_object_object_add(env, "machine", machine ? json_object_get(machine) : json_object_new_object());
    json_object_object_add(env, "machine_from", cmp_string(machine ? from : NULL));
    add_ref(env, "drivers", sb_json_member(info, "drivers"));
    json_object_object_add(env, "targets", targets);
    int with = 0;
    for (int k = 0; k < s->ntargets; k++)
        with += settings[k] && json_object_object_length(settings[k]) > 0;
    json_object_object_add(env, "settings_targets", json_object_new_int(with));
    json_object_object_add(env, "settings_differ", settings_differ(s, settings));
    json_object *command = sb_json_member(spec, "command"); /* a string, or null */
    add_ref(env, "command", json_object_is_type(command, json_type_string) ? command : NULL);
    json_object_put(spec);
    json_object_put(info);
    return env;
}
