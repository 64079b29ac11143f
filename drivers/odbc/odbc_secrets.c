/*
 * odbc driver: the passwords to keep out of every message.  The ones
 * odbc_connstr_build (odbc_conn.c) records, PWD= values masked in a
 * connection string, and a message scrubbed of both (odbc_scrub, called by
 * odbc_errors.c on every diagnostic).  The lowest file of the driver with
 * odbc_types.c: it calls no other.
 */
#include "odbc_int.h"
#include "../common/error.h"
#include "../common/password.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Passwords to scrub from messages: copies, set by init, wiped by done. */
static char *secrets[4];
static int nsecrets;

/* Writes `in` to out (outlen bytes, always terminated) with the value of
 * every PWD= / PASSWORD= keyword replaced by ***. */
void odbc_mask_pwd(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    if (outlen == 0)
        return;
    while (*in && o + 1 < outlen) {
        size_t klen = 0;
        if (strncasecmp(in, "pwd=", 4) == 0)
            klen = 4;
        else if (strncasecmp(in, "password=", 9) == 0)
            klen = 9;
        if (klen == 0) {
            out[o++] = *in++;
            continue;
        }
        for (size_t k = 0; k < klen && o + 1 < outlen; k++)
            out[o++] = *in++;
        if (*in == '{') {             /* braced value, '}}' is a brace */
            in++;
            while (*in) {
                if (*in == '}' && in[1] == '}')
                    in += 2;
                else if (*in == '}') {
                    in++;
                    break;
                } else
                    in++;
            }
        } else {
            while (*in && *in != ';' && !isspace((unsigned char)*in))
                in++;
        }
        for (const char *m = "***"; *m && o + 1 < outlen; m++)
            out[o++] = *m;
    }
    out[o] = 0;
}

/* Masks msg (NUL-terminated, cap bytes) in place: PWD= values and every
 * known password become ***. */
void odbc_scrub(char *msg, size_t cap)
{
    char tmp[1024];
    if (cap > sizeof tmp)
        cap = sizeof tmp;
    odbc_mask_pwd(msg, tmp, cap);
    for (int k = 0; k < nsecrets; k++)
        sbc_mask(tmp, cap, secrets[k]);
    memcpy(msg, tmp, strlen(tmp) + 1);
}

/* Passwords: odbc_secret_add for the ones init knows, the connection
 * string's own, forgotten (wiped) by done. */

void odbc_secret_add(const char *s)
{
    if (s && *s && nsecrets < (int)(sizeof secrets / sizeof secrets[0]))
        secrets[nsecrets++] = strdup(s);
}

void odbc_forget_secrets(void)
{
    for (int k = 0; k < nsecrets; k++) {
        sbc_password_free(secrets[k]);
        secrets[k] = NULL;
    }
    nsecrets = 0;
}
