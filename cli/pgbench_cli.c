/*
 * `sbench pgbench [pgbench options] [dbname]`: the command line of pgbench
 * 15 to 19 (pgbench 17's -d NAME/--dbname beside 15's -d/--debug: see
 * dash_d_dbname), rewritten into sbench's own (the pgbench workload,
 * workloads/pgbench.lua, and the core options) before sbench parses it, so
 * that a pgbench user's command line runs unchanged, on PostgreSQL by
 * default and on any driver with --db-driver=NAME.  pgbench's option checks
 * are pgbench_rules.c's.  Every option of pgbench that sbench does not
 * implement is refused by name; sbench's own --long=value options pass
 * through untouched.  The mapping is documented in docs/pgbench.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgbench_cli.h"
#include "pgbench_rules.h"

/* The words after `sbench pgbench` that make it sbench's own command line
 * (the workload's commands) instead of pgbench's. */
static const char *const workload_commands[] = {"prepare", "run", "cleanup", "help", NULL};

int sb_pgbench_is_command(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "pgbench") != 0)
        return 0;
    for (int i = 2; i < argc; i++)
        for (const char *const *c = workload_commands; *c; c++)
            if (strcmp(argv[i], *c) == 0)
                return 0;
    return 1;
}

/* One pgbench option: its short letter (0: none), long name, whether it
 * takes a value, and what it becomes: a sbench option prefix the value is
 * appended to ("--time="), a fixed word, or NULL for the cases that
 * translate() handles itself or refuses. */
struct pgopt {
    char letter;
    const char *name;
    int has_value;
    const char *to;
    const char *refused; /* non-NULL: not implemented, and why */
};

static const struct pgopt pgopts[] = {
    {'c', "client", 1, NULL, NULL},
    {'j', "jobs", 1, NULL, NULL},
    {'T', "time", 1, NULL, NULL},
    {'t', "transactions", 1, NULL, NULL},
    {'C', "connect", 0, "--reconnect=transaction", NULL},
    {'M', "protocol", 1, "--query-mode=", NULL},
    {'S', "select-only", 0, NULL, NULL},
    {'N', "skip-some-updates", 0, NULL, NULL},
    {'b', "builtin", 1, NULL, NULL},
    {'f', "file", 1, NULL, NULL},
    {'D', "define", 1, NULL, NULL},
    {'P', "progress", 1, "--report-interval=", NULL},
    {'R', "rate", 1, "--rate=", NULL},
    {'s', "scale", 1, "--scale=", NULL},
    {'i', "initialize", 0, NULL, NULL},
    {'I', "init-steps", 1, NULL, NULL},
    {'F', "fillfactor", 1, "--fillfactor=", NULL},
    {'n', "no-vacuum", 0, "--no-vacuum", NULL},
    {'h', "host", 1, NULL, NULL},
    {'p', "port", 1, NULL, NULL},
    {'U', "username", 1, NULL, NULL},
    {0, "random-seed", 1, "--random-seed=", NULL},
    /* the failure model (workloads/pgbench_fail.lua) */
    {0, "max-tries", 1, NULL, NULL}, /* read in apply(): pgbench's checks need it */
    {0, "continue-on-error", 0, "--continue-on-error=on", NULL},
    {0, "exit-on-abort", 0, "--exit-on-abort=on", NULL},
    {0, "verbose-errors", 0, "--verbose-errors=on", NULL},
    {0, "foreign-keys", 0, "--foreign-keys", NULL},
    {0, "unlogged-tables", 0, "--unlogged-tables", NULL},
    {0, "partitions", 1, "--partitions=", NULL},
    {0, "partition-method", 1, "--partition-method=", NULL},
    {'q', "quiet", 0, "", NULL},
    {'r', "report-per-command", 0, "--report-per-command=on", NULL},
    {'L', "latency-limit", 1, "--latency-limit=", NULL},
    {'l', "log", 0, "--log=on", NULL},
    {0, "log-prefix", 1, "--log-prefix=", NULL},
    {0, "aggregate-interval", 1, "--aggregate-interval=", NULL},
    {0, "sampling-rate", 1, "--sampling-rate=", NULL},
    {0, "failures-detailed", 0, "--failures-detailed=on", NULL},
    {'v', "vacuum-all", 0, "--vacuum-all", NULL},
    {0, "progress-timestamp", 0, NULL, "--progress-timestamp is not implemented"},
    {'d', "debug", 0, NULL, NULL},
    {0, "dbname", 1, NULL, NULL},
    {'V', "version", 0, NULL, NULL},
    {0, "show-script", 1, NULL, NULL}, /* the workload prints it: show_script_only() */
    {0, "tablespace", 1, NULL, "--tablespace is not implemented"},
    {0, "index-tablespace", 1, NULL, "--index-tablespace is not implemented"},
    {0, NULL, 0, NULL, NULL},
};

struct out {
    char **v;
    int n, cap;
};

static int push(struct out *o, const char *a, const char *b)
{
    if (o->n + 2 > o->cap) {
        int cap = o->cap ? o->cap * 2 : 32;
        char **v = realloc(o->v, sizeof *v * (size_t)cap);
        if (v == NULL)
            return -1;
        o->v = v;
        o->cap = cap;
    }
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    char *s = malloc(la + lb + 1);
    if (s == NULL)
        return -1;
    memcpy(s, a, la);
    if (lb)
        memcpy(s + la, b, lb);
    s[la + lb] = '\0';
    o->v[o->n++] = s;
    o->v[o->n] = NULL;
    return 0;
}

/* A list option collected over repeated -b/-f/-D: "a,b,c". */
struct list { char buf[4096]; size_t len; };

static int list_add(struct list *l, const char *v)
{
    size_t n = strlen(v);
    if (l->len + n + 2 > sizeof l->buf)
        return -1;
    if (l->len)
        l->buf[l->len++] = ',';
    memcpy(l->buf + l->len, v, n + 1);
    l->len += n;
    return 0;
}

/* The entry of pgopts for a short option letter, or NULL; a pointer into
 * the static table (not to be freed). */
static const struct pgopt *find_short(char c)
{
    for (const struct pgopt *p = pgopts; p->letter || p->name; p++)
        if (p->letter == c)
            return p;
    return NULL;
}

/* The entry of pgopts for a long option's name (len bytes of name), or
 * NULL; a pointer into the static table (not to be freed). */
static const struct pgopt *find_long(const char *name, size_t len)
{
    for (const struct pgopt *p = pgopts; p->letter || p->name; p++)
        if (p->name && strlen(p->name) == len && strncmp(p->name, name, len) == 0)
            return p;
    return NULL;
}

static int positive(const char *v, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1 || n > 100000000)
        return -1;
    *out = n;
    return 0;
}

/* -i with -n: the init steps without their vacuum ('v'), as pgbench. */
static int init_steps_no_vacuum(const struct sb_pgrules *r, struct out *o)
{
    char steps[64];
    size_t k = 0;
    for (const char *c = r->init_steps ? r->init_steps : "dtgvp"; *c && k + 1 < sizeof steps; c++)
        if (*c != 'v')
            steps[k++] = *c;
    steps[k] = '\0';
    return push(o, "--init-steps=", steps);
}

struct state {
    long clients, jobs, time, transactions, max_tries;
    int init, have_time, have_tx;
    struct sb_pgrules rules; /* what pgbench's option checks need (pgbench_rules.c) */
    struct list builtin, file, define;
    const char *dbname;
    const char *driver; /* --db-driver's value, "pgsql" by default */
    const char *show_script; /* --show-script's NAME */
};

/* -h, -p, -U and the database name as the chosen driver's options. */
static int connection_option(struct state *st, struct out *o, char what, const char *v,
                             char *err, size_t errlen)
{
    const char *d = st->driver;
    char name[64];
    const char *suffix = what == 'h' ? "host" : what == 'p' ? "port" : what == 'U' ? "user" : "db";
    if (strcmp(d, "pgsql") != 0 && strcmp(d, "mysql") != 0) {
        if (what == 'd' && strcmp(d, "sqlite") == 0) suffix = "db";
        else if (what == 'd' && strcmp(d, "odbc") == 0) suffix = "dsn";
        else if (what == 'U' && strcmp(d, "odbc") == 0) suffix = "user";
        else {
            if (what == 'd')
                snprintf(err, errlen, "a database name is not an option of the %s driver: "
                         "use its --%s-* options", d, d);
            else
                snprintf(err, errlen, "-%c is not an option of the %s driver: use its --%s-* "
                         "options", what, d, d);
            return -1;
        }
    }
    snprintf(name, sizeof name, "--%s-%s=", d, suffix);
    return push(o, name, v);
}

/* Applies one pgbench option with its value (NULL for a flag). */
static int apply(struct state *st, struct out *o, const struct pgopt *p, const char *v,
                 char *err, size_t errlen)
{
    const char *what = p->name;
    if (p->refused) {
        snprintf(err, errlen, "%s; see docs/pgbench.md", p->refused);
        return -1;
    }
    if (sb_pgrules_note(&st->rules, p->name, v, err, errlen) != 0)
        return -1;
    if (p->letter == 'd' || p->letter == 'V' || p->letter == 'I')
        return 0; /* -d: --debug (see read_args); -V, -I: sb_pgbench_translate */
    if (strcmp(what, "show-script") == 0) {
        st->show_script = v;
        return 0;
    }
    if (strcmp(what, "dbname") == 0) {
        if (st->dbname) {
            snprintf(err, errlen, "too many command-line arguments (first is \"%s\")", v);
            return -1;
        }
        st->dbname = v;
        return 0;
    }
    if (p->to)
        return *p->to ? push(o, p->to, v) : 0;
    switch (p->letter) {
    case 'c': case 'j': case 'T': case 't': {
        long n;
        if (positive(v, &n) != 0) {
            snprintf(err, errlen, "invalid value \"%s\" for option -%c/--%s", v, p->letter,
                     p->letter == 'c' ? "clients" : what);
            return -1;
        }
        if (p->letter == 'c') st->clients = n;
        else if (p->letter == 'j') st->jobs = n;
        else if (p->letter == 'T') { st->time = n; st->have_time = 1; }
        else { st->transactions = n; st->have_tx = 1; }
        return 0;
    }
    case 'S': return list_add(&st->builtin, "select-only");
    case 'N': return list_add(&st->builtin, "simple-update");
    case 'b': return list_add(&st->builtin, v);
    case 'f': return list_add(&st->file, v);
    case 'D': {
        /* the workload joins a piece without '=' to the value before it,
         * so a comma in a value is kept unless an '=' follows it */
        const char *eq = strchr(v, '='), *comma = eq ? strchr(eq, ',') : NULL;
        if (eq == NULL || eq == v) {
            snprintf(err, errlen, "invalid variable definition: \"%s\" (expected NAME=VALUE)", v);
            return -1;
        }
        if (comma && strchr(comma, '=')) {
            snprintf(err, errlen, "-D %s: a value with a comma followed by '=' is not supported", v);
            return -1;
        }
        return list_add(&st->define, v);
    }
    case 'i': st->init = 1; return 0;
    case 'h': case 'p': case 'U': return connection_option(st, o, p->letter, v, err, errlen);
    default: break;
    }
    if (strcmp(what, "max-tries") == 0) { /* tries = 1 + retries; 0: unlimited */
        long n;
        char *end;
        n = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0' || n < 0 || n > 2147483647L) {
            snprintf(err, errlen, "invalid number of maximum tries: \"%s\"", v);
            return -1;
        }
        st->max_tries = n;
        return 0;
    }
    snprintf(err, errlen, "internal: unmapped option %s", what);
    return -1;
}

/* Whether -d at c (inside argv[i]) is pgbench 17+'s -d DBNAME rather than
 * pgbench 15's -d (--debug): a value follows it, glued ("-dmydb") or as
 * the next word when that is not an option.  Both versions then connect
 * to that database; 15 would also print its debug trace, which sbench does
 * not (docs/pgbench.md). */
static int dash_d_dbname(const char *c, int i, int argc, char **argv)
{
    if (c[1])
        return 1;
    return i + 1 < argc && argv[i + 1][0] != '-';
}

/* Reads argv[2..] into st and o (pass-through options and the mapped
 * ones); returns 0 or -1 with err. */
static int read_args(int argc, char **argv, struct state *st, struct out *o, char *err,
                     size_t errlen)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const struct pgopt *p = NULL;
        const char *v = NULL;
        if (a[0] == '-' && a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            p = find_long(a + 2, len);
            if (p == NULL) { /* sbench's own option: as given */
                if (push(o, a, NULL) != 0) goto oom;
                continue;
            }
            if (p->has_value) {
                if (eq) v = eq + 1;
                else if (i + 1 < argc) v = argv[++i];
                else { snprintf(err, errlen, "option --%s needs a value", p->name); return -1; }
            } else if (eq) {
                snprintf(err, errlen, "option --%s takes no value", p->name);
                return -1;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            for (const char *c = a + 1; *c; c++) {
                p = find_short(*c);
                if (p == NULL) {
                    snprintf(err, errlen, "invalid option -%c (sbench pgbench --help lists "
                             "what it accepts)", *c);
                    return -1;
                }
                if (*c == 'd' && dash_d_dbname(c, i, argc, argv)) { /* pgbench 17+ */
                    p = find_long("dbname", 6);
                    v = c[1] ? c + 1 : argv[++i];
                    break;
                }
                if (!p->has_value) {
                    if (apply(st, o, p, NULL, err, errlen) != 0) return -1;
                    continue;
                }
                if (c[1]) v = c + 1;
                else if (i + 1 < argc) v = argv[++i];
                else { snprintf(err, errlen, "option -%c needs a value", *c); return -1; }
                break;
            }
            if (!p->has_value) continue;
        } else {
            if (st->dbname) {
                snprintf(err, errlen, "too many command-line arguments (first is \"%s\")", a);
                return -1;
            }
            st->dbname = a;
            continue;
        }
        if (apply(st, o, p, v, err, errlen) != 0) return -1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

void sb_pgbench_usage(FILE *out)
{
    fprintf(out, "Usage: sbench pgbench [pgbench options] [dbname]\n"
            "pgbench 15-19's command line, run by sbench's pgbench workload (docs/pgbench.md); "
            "PostgreSQL\nunless --db-driver=NAME; sbench's own --name=value options pass through.\n\n"
            "Accepted:\n");
    for (const struct pgopt *p = pgopts; p->letter || p->name; p++) {
        if (p->refused)
            continue;
        char shortname[8] = "";
        if (p->letter)
            snprintf(shortname, sizeof shortname, "-%c, ", p->letter);
        fprintf(out, "  %s--%s%s\n", shortname, p->name, p->has_value ? "=VALUE" : "");
    }
    fprintf(out, "\nRefused (not implemented):\n");
    for (const struct pgopt *p = pgopts; p->letter || p->name; p++) {
        if (!p->refused)
            continue;
        char shortname[8] = "";
        if (p->letter)
            snprintf(shortname, sizeof shortname, "-%c, ", p->letter);
        fprintf(out, "  %s--%s: %s\n", shortname, p->name, p->refused);
    }
    fprintf(out, "\nsbench's own form: sbench [options] pgbench prepare|run|cleanup|help\n");
}

/* pgbench prints no banner nor run header: --verbosity=2 keeps sbench's
 * off stdout (pgbench's report and errors still print), unless the
 * command line sets --verbosity itself. */
static int quiet_banner(int argc, char **argv, struct out *o)
{
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], "--verbosity", 11) == 0)
            return 0;
    return push(o, "--verbosity=2", NULL);
}

/* --show-script=NAME: pgbench prints the built-in and exits 0 whatever
 * else the command line says; the workload has the scripts' text, so the
 * command is only "pgbench run --show-script=NAME" on the chosen driver
 * (it connects to nothing). */
static int show_script_only(const struct state *st, struct out *o)
{
    for (int i = 1; i < o->n; i++)
        free(o->v[i]);
    o->n = 1;
    return push(o, "--db-driver=", st->driver) != 0 || push(o, "--verbosity=2", NULL) != 0 ||
                   push(o, "--show-script=", st->show_script) != 0 || push(o, "pgbench", NULL) != 0 ||
                   push(o, "run", NULL) != 0 ? -1 : 0;
}

int sb_pgbench_translate(int argc, char **argv, int *out_argc, char ***out_argv, char *err,
                         size_t errlen)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-?") == 0)
            return 1;
    struct state st = {.clients = 1, .jobs = 1, .max_tries = 1};
    struct out o = {0};
    char num[64];
    if (push(&o, argv[0], NULL) != 0) goto oom;
    st.driver = "pgsql";
    int driver_given = 0;
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], "--db-driver=", 12) == 0) {
            driver_given = 1;
            st.driver = argv[i] + 12;
        }
    if (!driver_given && push(&o, "--db-driver=pgsql", NULL) != 0) goto oom;
    if (read_args(argc, argv, &st, &o, err, errlen) != 0)
        goto fail;
    if (st.show_script) {
        if (show_script_only(&st, &o) != 0) goto oom;
        *out_argc = o.n;
        *out_argv = o.v;
        return 0;
    }
    if (sb_pgrules_info(&st.rules)) {
        for (int i = 0; i < o.n; i++)
            free(o.v[i]);
        free(o.v);
        return 2;
    }

    if (st.rules.debug)
        fprintf(stderr, "sbench pgbench: -d/--debug: pgbench's debug trace is not printed by sbench\n");
    if (st.init && (st.rules.init_steps || st.rules.no_vacuum) &&
        (st.rules.no_vacuum ? init_steps_no_vacuum(&st.rules, &o) :
                              push(&o, "--init-steps=", st.rules.init_steps)) != 0)
        goto oom;
    if (st.have_time && st.have_tx) {
        snprintf(err, errlen, "specify either a number of transactions (-t) or a duration (-T), not both");
        goto fail;
    }
    if (sb_pgrules_check(&st.rules, st.init, st.have_time ? st.time : 0, st.max_tries, err,
                         errlen) != 0)
        goto fail;
    if (st.dbname && connection_option(&st, &o, 'd', st.dbname, err, errlen) != 0) goto fail;
    if (st.jobs > st.clients) st.jobs = st.clients; /* as pgbench */
    snprintf(num, sizeof num, "%ld", st.jobs);
    if (push(&o, "--threads=", num) != 0) goto oom;
    if (st.clients > st.jobs) {
        snprintf(num, sizeof num, "%ld", st.clients);
        if (push(&o, "--clients=", num) != 0) goto oom;
    }
    if (!st.init) {
        if (st.have_time) {
            snprintf(num, sizeof num, "%ld", st.time);
            if (push(&o, "--time=", num) != 0) goto oom;
        } else {
            snprintf(num, sizeof num, "%ld", st.have_tx ? st.transactions : 10L);
            if (push(&o, "--time=0", NULL) != 0 || push(&o, "--forever", NULL) != 0 ||
                push(&o, "--transactions=", num) != 0) goto oom;
        }
        snprintf(num, sizeof num, "%ld", st.max_tries);
        if (push(&o, "--max-tries=", num) != 0) goto oom;
    }
    if (push(&o, "--pgbench-report=on", NULL) != 0 || quiet_banner(argc, argv, &o) != 0)
        goto oom;
    if (st.builtin.len && push(&o, "--builtin=", st.builtin.buf) != 0) goto oom;
    if (st.file.len && push(&o, "--file=", st.file.buf) != 0) goto oom;
    if (st.define.len && push(&o, "--define=", st.define.buf) != 0) goto oom;
    /* pgbench -R keeps going however far behind it falls (its lag shows it) */
    if (push(&o, "--rate-backlog-max=0", NULL) != 0) goto oom;
    /* no lint: the workload is sbench's own pgbench.lua (CI lints it), a
     * user's pgbench script is not Lua, and the lint's Lua state cost
     * ~0.6 G instructions (0.15 s of client CPU) before every run */
    if (push(&o, "--lint=off", NULL) != 0) goto oom;
    if (push(&o, "pgbench", NULL) != 0 || push(&o, st.init ? "prepare" : "run", NULL) != 0)
        goto oom;
    *out_argc = o.n;
    *out_argv = o.v;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    for (int i = 0; i < o.n; i++)
        free(o.v[i]);
    free(o.v);
    return -1;
}
