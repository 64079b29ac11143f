/*
 * sqlite driver: the per-connection cache of statements run as text
 * (query), keyed by the SQL bytes, so that repeated texts (BEGIN, COMMIT,
 * ...) are not compiled again.  SQLITE_DRV_CACHE_SIZE entries, least
 * recently used evicted; a key's buffer is reused across evictions.
 */
#include "sqlite_int.h"

#include <stdlib.h>
#include <string.h>

uint64_t sqlite_hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

sqlite3_stmt *sqlite_cache_lookup(sbd_conn *c, const char *sql, size_t len,
                                  uint64_t h)
{
    for (int i = 0; i < SQLITE_DRV_CACHE_SIZE; i++) {
        struct sqlite_cache_entry *e = &c->cache[i];
        if (e->last_used != 0 && e->hash == h && e->len == len &&
            memcmp(e->sql, sql, len) == 0) {
            e->last_used = ++c->tick;
            return e->st;
        }
    }
    return NULL;
}

/* Puts st in the cache, evicting the least recently used entry.  On memory
 * shortage st is simply not cached: returns 0 and the caller owns st. */
int sqlite_cache_insert(sbd_conn *c, const char *sql, size_t len, uint64_t h,
                        sqlite3_stmt *st)
{
    struct sqlite_cache_entry *victim = &c->cache[0];
    for (int i = 0; i < SQLITE_DRV_CACHE_SIZE; i++) {
        if (c->cache[i].last_used < victim->last_used)
            victim = &c->cache[i];
        if (victim->last_used == 0)
            break;
    }
    if (victim->cap < len || victim->sql == NULL) {
        char *p = realloc(victim->sql, len ? len : 1);
        if (p == NULL)
            return 0;
        victim->sql = p;
        victim->cap = len ? len : 1;
    }
    if (victim->last_used != 0)
        sqlite3_finalize(victim->st);
    memcpy(victim->sql, sql, len);
    victim->len = len;
    victim->hash = h;
    victim->st = st;
    victim->last_used = ++c->tick;
    return 1;
}

