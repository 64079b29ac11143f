/* fuzz_db_literal.c: libFuzzer target for core/db.c's placeholder scanner
 * (sb_count_placeholders) and literal emulation of prepared statements
 * (--db-ps-mode=disable): a statement is prepared on a fake driver that
 * records the SQL it is sent, its placeholders get values from the input
 * (NULL, integers, doubles, arbitrary strings), and the SQL sent must
 *  - have no '?' left outside quotes (every placeholder was filled),
 *  - end in the same quoting state as the template (a value can never open
 *    or close a quote: no injection through a bound string),
 *  - give back each bound string when its literal is decoded ('' -> ', and
 *    \\ -> \ for a backslash-escaping driver).
 * Input: byte 0 = flags (bit 0: driver escapes backslashes), the SQL up to
 * the first NUL, then per placeholder a type byte and (strings) bytes up to
 * the next NUL.  Build and run: tests/fuzz/fuzz.sh. */
#include "../../core/db.h"
#include "../../core/stats.h"
#include "../../lib/text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* db.c is linked with stats.c and histogram.c (fuzz.sh): real counting */

static char *sent;
static size_t sent_len;
static struct sbd_error ferr;
static int fake_conn;

static int f_connect(int tid, sbd_conn **out, struct sbd_error *e)
{
    (void)tid; (void)e;
    *out = (sbd_conn *)&fake_conn;
    return SBD_OK;
}
static void f_disconnect(sbd_conn *c) { (void)c; }
static const struct sbd_error *f_last_error(sbd_conn *c) { (void)c; return &ferr; }
static int f_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    (void)c; (void)info;
    free(sent);
    sent = malloc(len + 1);
    if (len > 0) /* db.c sends sql == NULL for an empty emulated statement */
        memcpy(sent, sql, len);
    sent[len] = 0;
    sent_len = len;
    return SBD_OK;
}
static void f_free_result(sbd_conn *c) { (void)c; }

static struct sbd_driver fake = {
    .struct_size = sizeof(struct sbd_driver),
    .name = "fake",
    .connect = f_connect,
    .disconnect = f_disconnect,
    .last_error = f_last_error,
    .query = f_query,
    .free_result = f_free_result,
};

/* quoting state after scanning s, as db.c's scanner sees it */
static char end_quote(const char *s, size_t len)
{
    char q = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (q) {
            if (ch == q)
                q = 0;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            q = ch;
        }
    }
    return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 4096)
        return 0;
    int bs = data[0] & 1;
    fake.caps = bs ? SBD_CAP_BACKSLASH_ESC : 0;
    sb_db_setup(&fake, 1, 1 << 20);
    const char *sql = (const char *)data + 1;
    const char *end = (const char *)data + size;
    const char *z = memchr(sql, 0, (size_t)(end - sql));
    size_t sql_len = z ? (size_t)(z - sql) : (size_t)(end - sql);
    const char *p = z ? z + 1 : end;

    /* "??" or "'x'?" is not valid SQL and its literals run together
     * ('a''b' is one string): the decoding below cannot check those */
    {
        char q = 0;
        for (size_t i = 0; i < sql_len; i++) {
            char ch = sql[i];
            if (q) {
                if (ch == q)
                    q = 0;
            } else if (ch == '\'' || ch == '"' || ch == '`') {
                q = ch;
            } else if (ch == '?' && ((i + 1 < sql_len && (sql[i + 1] == '?' || sql[i + 1] == '\'')) ||
                                     (i > 0 && sql[i - 1] == '\''))) {
                return 0;
            }
        }
    }
    int n = sb_count_placeholders(sql, sql_len);
    if (n < 0 || (size_t)n > sql_len)
        abort();
    static struct sb_thread_stats st;
    static int st_ready;
    if (!st_ready && sb_stats_init(&st, 0.01) != 0)
        abort();
    st_ready = 1;
    struct sbd_error err;
    struct sb_conn *c = sb_conn_open(0, &st, &err);
    if (!c)
        abort();
    struct sb_stmt *s = sb_stmt_prepare(c, sql, sql_len);
    if (!s)
        goto out;
    if (sb_stmt_nparams(s) != n)
        abort();
    /* values */
    const char *str[256];
    size_t slen[256];
    int type[256];
    if (n > 256)
        goto out;
    for (int i = 0; i < n; i++) {
        int t = p < end ? (unsigned char)*p++ % 4 : 0;
        type[i] = t == 0 ? SBD_TYPE_NULL : t == 1 ? SBD_TYPE_INT : t == 2 ? SBD_TYPE_DOUBLE : SBD_TYPE_STRING;
        int k = sb_stmt_param_create(s, type[i] == SBD_TYPE_NULL ? SBD_TYPE_INT : type[i], 0);
        if (k != i)
            abort();
        if (type[i] == SBD_TYPE_STRING) {
            const char *q = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
            size_t l = q ? (size_t)(q - p) : (size_t)(end - p);
            str[i] = p;
            slen[i] = l;
            if (sb_stmt_set_str(s, k, p, l) != 0)
                abort();
            p += l + (q ? 1 : 0);
        } else if (type[i] == SBD_TYPE_INT) {
            uint64_t v = 0;
            for (int b = 0; b < 8 && p < end; b++)
                v = (v << 8) | (unsigned char)*p++;
            sb_stmt_param(s, k)->i = (int64_t)v;
            sb_stmt_param(s, k)->is_null = 0;
        } else if (type[i] == SBD_TYPE_DOUBLE) {
            sb_stmt_param(s, k)->d = (double)(p < end ? (signed char)*p++ : 0) / 7.0;
            sb_stmt_param(s, k)->is_null = 0;
        }
    }
    if (sb_conn_run(c, sb_stmt_request(s)) != SBD_OK || !sent)
        abort();
    if (sb_count_placeholders(sent, sent_len) != 0)
        abort(); /* a placeholder left, or a value opened a quote */
    if (end_quote(sent, sent_len) != end_quote(sql, sql_len))
        abort();
    /* decode the literals: walk template and output together */
    size_t o = 0;
    int pi = 0;
    char q = 0;
    for (size_t i = 0; i < sql_len; i++) {
        char ch = sql[i];
        if (!q && ch == '?' && pi < n) {
            if (type[pi] == SBD_TYPE_STRING) {
                if (o >= sent_len || sent[o] != '\'')
                    abort();
                o++;
                size_t k = 0;
                for (;;) {
                    if (o >= sent_len)
                        abort();
                    char c2 = sent[o];
                    if (c2 == '\'' && o + 1 < sent_len && sent[o + 1] == '\'') {
                        c2 = '\'';
                        o += 2;
                    } else if (c2 == '\'') {
                        o++;
                        break;
                    } else if (bs && c2 == '\\') {
                        if (o + 1 >= sent_len || sent[o + 1] != '\\')
                            abort(); /* a lone backslash escapes what follows */
                        o += 2;
                    } else {
                        o++;
                    }
                    if (k >= slen[pi] || str[pi][k] != c2)
                        abort();
                    k++;
                }
                if (k != slen[pi])
                    abort();
            } else {
                char want[64];
                size_t wl;
                if (type[pi] == SBD_TYPE_NULL)
                    wl = (size_t)snprintf(want, sizeof want, "NULL");
                else if (type[pi] == SBD_TYPE_INT)
                    wl = (int)sbc_i64_to_text(sb_stmt_param(s, pi)->i, want);
                else
                    wl = (size_t)snprintf(want, sizeof want, "%.17g", sb_stmt_param(s, pi)->d);
                if (o + wl > sent_len || memcmp(sent + o, want, wl) != 0)
                    abort();
                o += wl;
            }
            pi++;
            continue;
        }
        if (q) {
            if (ch == q)
                q = 0;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            q = ch;
        }
        if (o >= sent_len || sent[o] != ch)
            abort();
        o++;
    }
    if (o != sent_len)
        abort();
out:
    sb_conn_close(c);
    return 0;
}
