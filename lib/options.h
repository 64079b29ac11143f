/*
 * Option registry: every --name=value that sbench accepts, from three
 * sources registered in turn (core, the chosen driver, the workload script),
 * the values the user gave, and their validation.  Names are stored with '-'
 * and looked up with '-' or '_' alike (--table_size == --table-size).
 * Nothing here is used on the measured path.
 */
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

#include <stddef.h>

enum sb_opt_kind {
    SB_OPT_STRING = 0,
    SB_OPT_INT,      /* 64-bit integer, validated */
    SB_OPT_NUMBER,   /* double */
    SB_OPT_BOOL,     /* on/off, true/false, yes/no, 1/0 */
    SB_OPT_SECRET,   /* string that is never printed */
    SB_OPT_LIST,     /* comma-separated */
    SB_OPT_SIZE,     /* bytes: a whole number with an optional b, K, M, G or T
                        suffix (x1024 each, sysbench's SIZE): "64K" = 65536 */
    SB_OPT_FILE,     /* a file name (a string that scripts see as nil when not given) */
};

/* Where an option comes from.  OTHER_DRIVER: the options of a driver that
 * was not chosen (a wrapper passes --mysql-* and --pgsql-* alike, sysbench
 * accepts both); UNDECLARED: options a script that declares none was given
 * (sysbench passes them to such a script as strings). */
enum sb_opt_source { SB_SRC_CORE = 0, SB_SRC_DRIVER, SB_SRC_WORKLOAD, SB_SRC_OTHER_DRIVER,
                     SB_SRC_UNDECLARED };

struct sb_opt {
    char *name;            /* owned; '-' separated */
    int kind;              /* enum sb_opt_kind */
    int source;            /* enum sb_opt_source */
    char *def;             /* owned default text, NULL if none */
    char *help;            /* owned */
    const char *choices;   /* "a|b|c" for enumerations, or NULL (static) */
    long long min, max;    /* for SB_OPT_INT */
    char *value;           /* owned value the user gave, NULL if not given */
};

/* One --name[=value] from the command line, in order. */
struct sb_arg {
    char *name;      /* normalized to '-' ; owned by the option set */
    char *value;     /* "on" for a bare --flag */
    int used;        /* matched a registered option */
    int bare;        /* given as --name, without '=' */
};

struct sb_options;

/* Creates an empty registry.  Returns NULL when out of memory; free with
 * sb_options_destroy. */
struct sb_options *sb_options_create(void);
void sb_options_destroy(struct sb_options *o);

/* Splits argv into --options and positional words.  sysbench 1.0's
 * deprecated aliases (--num-threads, --max-requests, --max-time,
 * --tx-rate) become the names they stand for, with sysbench's one-line
 * WARNING on stderr.  The positional words
 * are returned in order through *words (pointers into argv; the array is
 * owned by the registry).  Returns 0, or -1 with a message in err. */
int sb_options_parse_argv(struct sb_options *o, int argc, char **argv,
                          const char ***words, int *nwords,
                          char *err, size_t errlen);

/* --config-file=FILE (sysbench's: one option=value, or a bare option, a
 * line; blank lines and lines starting with '#' skipped; a leading "--"
 * allowed): a new argument vector of argv[0], FILE's options, then the
 * rest of argv, so that the command line wins over the file.  Without
 * --config-file, *out_argv = argv.  Returns 0, or -1 with one line in err
 * (a file that cannot be read, a line that is no option).  The vector and
 * its strings are allocated and live as long as the process (the option
 * registry points into them). */
int sb_options_config_file(int argc, char **argv, int *out_argc, char ***out_argv,
                           char *err, size_t errlen);

/* Registers an option; a later registration of an existing name is
 * ignored (the first source wins).  choices may be NULL. */
void sb_options_add(struct sb_options *o, const char *name, int kind,
                    int source, const char *def, const char *help,
                    const char *choices, long long min, long long max);

/* Matches the given arguments with the options registered so far, stores
 * their values and validates them.  With final != 0, an argument matching
 * no option is an error naming the closest valid option.  Returns 0, or -1
 * with one line in err (exit status 2 for the caller). */
int sb_options_resolve(struct sb_options *o, int final, char *err, size_t errlen);

/* Replaces the default of registered option `name` (def may be NULL);
 * returns -1 when there is no such option or no memory. */
int sb_opt_set_default(struct sb_options *o, const char *name, const char *def);

/* The arguments given (in order), for a caller that registers options
 * on demand; NULL past the end.  Owned by the registry. */
const struct sb_arg *sb_options_arg_at(const struct sb_options *o, int i);

/* Registers every argument that matches no option as a string option of
 * `source` with the value given ("" for a bare --name, as sysbench gives a
 * script that declares no options).  Returns how many it registered. */
int sb_options_take_unknown(struct sb_options *o, int source);

/* The value given or defaulted; NULL if neither.  Owned by the registry. */
const char *sb_opt_str(const struct sb_options *o, const char *name);
long long sb_opt_int(const struct sb_options *o, const char *name);
double sb_opt_num(const struct sb_options *o, const char *name);
int sb_opt_bool(const struct sb_options *o, const char *name);
int sb_opt_is_set(const struct sb_options *o, const char *name);
/* The option's record, NULL if unknown.  Owned by the registry. */
const struct sb_opt *sb_opt_find(const struct sb_options *o, const char *name);

/* Iteration over registered options in registration order. */
int sb_options_count(const struct sb_options *o);
const struct sb_opt *sb_options_at(const struct sb_options *o, int i);

/* Parses a boolean word; returns 0/1, or -1 if not a boolean. */
int sb_parse_bool(const char *s);
/* Levenshtein distance of a and b, for "did you mean" (99 when either is
 * longer than 64 bytes). */
int sb_edit_distance(const char *a, const char *b);
/* Parses an SB_OPT_SIZE value into bytes; 0, or -1 if it is not one. */
int sb_parse_size(const char *s, long long *out);

/* Prints "  --name=VALUE  help [default]" lines for one source, in
 * registration order, the help text aligned after the longest name (as
 * sysbench prints them; at most 34 columns, longer names run past it). */
void sb_options_print_help(const struct sb_options *o, int source, void *file);

/* The value v of option p (NULL: an option not registered, named name) as
 * it may be shown: "***" for a secret or an option whose name says
 * password, else v with the passwords inside it masked (a connection
 * string, a URI: lib/secret_mask.h).  Returns buf or a static string. */
const char *sb_opt_shown(const struct sb_opt *p, const char *name, const char *v,
                         char *buf, size_t len);

/* Writes the command line with secrets masked into buf (for reports). */
void sb_options_echo(const struct sb_options *o, char *buf, size_t len);

#endif
