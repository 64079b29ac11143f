/*
 * Comma-separated option values (--pgsql-host=a,b, --mysql-host,
 * --mysql-port): split once at init, then picked round-robin by thread
 * number at connect.  One behaviour for every driver: items are separated
 * by commas, blanks around an item are dropped, and an empty item (",,",
 * a leading or trailing comma, a value of only blanks) is an error that
 * names the option.
 */
#ifndef SBENCH_DRIVERS_LIST_H
#define SBENCH_DRIVERS_LIST_H

#include <stddef.h>

/* A split list.  Zero-initialised is a valid empty list (n == 0). */
struct sbc_list {
    char *text;          /* the copy items[] point into, owned */
    const char **items;  /* n pointers, owned; each item NUL-terminated */
    int n;
};

/* Splits `value` into l->items (l is freed first, so a list can be parsed
 * again).  `option` ("--pgsql-host") and `what` ("host name") name the
 * value in the error.  0, or -1 with one line in errbuf and l empty. */
int sbc_list_parse(struct sbc_list *l, const char *value, const char *option,
                   const char *what, char *errbuf, size_t errlen);

/* The item for worker `thread_id` (round-robin; a negative id counts as
 * 0); owned by l.  NULL when l is empty. */
const char *sbc_list_pick(const struct sbc_list *l, int thread_id);

/* Frees what l owns and leaves it empty; an empty list is a no-op. */
void sbc_list_free(struct sbc_list *l);

#endif /* SBENCH_DRIVERS_LIST_H */
