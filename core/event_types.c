/*
 * The registry of event type names (see event_types.h).
 */
#include "event_types.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static char names[SB_MAX_TYPES][SB_TYPE_NAME_MAX];
static _Atomic int ntypes;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int lookup(const char *name, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int sb_event_type_find(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= SB_TYPE_NAME_MAX)
        return -1;
    int i = lookup(name, atomic_load_explicit(&ntypes, memory_order_acquire));
    if (i >= 0)
        return i;
    pthread_mutex_lock(&mu);
    int n = atomic_load_explicit(&ntypes, memory_order_relaxed);
    i = lookup(name, n);
    if (i < 0 && n < SB_MAX_TYPES) {
        memcpy(names[n], name, len + 1);
        atomic_store_explicit(&ntypes, n + 1, memory_order_release);
        i = n;
    }
    pthread_mutex_unlock(&mu);
    return i;
}

int sb_event_type_count(void)
{
    return atomic_load_explicit(&ntypes, memory_order_acquire);
}

const char *sb_event_type_name(int i)
{
    return names[i];
}
