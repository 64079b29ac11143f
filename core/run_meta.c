/*
 * The run described as one JSON object, the "run" member of the final JSON
 * report: versions, driver, server, workload, every option (secrets
 * masked), seed, host, start and end time.
 */
#include "run_meta.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "options.h"

static void json_str(char *buf, size_t len, size_t *used, const char *s)
{
    size_t u = *used;
    if (u + 2 >= len)
        return;
    buf[u++] = '"';
    for (; s && *s && u + 8 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            buf[u++] = '\\';
            buf[u++] = (char)ch;
        } else if (ch < 0x20) {
            u += (size_t)snprintf(buf + u, len - u, "\\u%04x", ch);
        } else {
            buf[u++] = (char)ch;
        }
    }
    buf[u++] = '"';
    buf[u] = 0;
    *used = u;
}

void sb_iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sb_run_meta_json(const struct sb_run *run, const char *server_version, const char *start,
                      const char *end, char *b, size_t len)
{
    size_t u = 0;
#define LIT(s) do { u += (size_t)snprintf(b + u, u < len ? len - u : 0, "%s", s); } while (0)
    LIT("{\"sbench_version\":");
    json_str(b, len, &u, SB_VERSION);
    LIT(",\"driver\":");
    json_str(b, len, &u, run->drv->name);
    LIT(",\"client_version\":");
    json_str(b, len, &u, run->drv->client_version ? run->drv->client_version() : "");
    LIT(",\"server_version\":");
    json_str(b, len, &u, server_version ? server_version : "");
    LIT(",\"workload\":");
    json_str(b, len, &u, run->script_name);
    LIT(",\"script\":");
    json_str(b, len, &u, run->script);
    char tmp[128];
    snprintf(tmp, sizeof tmp, ",\"random_seed\":%llu", (unsigned long long)run->workers[0]->rand.seed);
    LIT(tmp);
    struct utsname un;
    uname(&un);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    snprintf(tmp, sizeof tmp, ",\"host\":{\"cpus\":%ld,\"memory_bytes\":%.0f,\"name\":", cpus, mem);
    LIT(tmp);
    json_str(b, len, &u, un.nodename);
    LIT(",\"kernel\":");
    json_str(b, len, &u, un.release);
    LIT("},\"start_time\":");
    json_str(b, len, &u, start);
    if (end) {
        LIT(",\"end_time\":");
        json_str(b, len, &u, end);
    }
    LIT(",\"options\":{");
    const struct sb_options *o = run->opts;
    int first = 1;
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *p = sb_options_at(o, i);
        const char *v = p->value ? p->value : p->def;
        if (v == NULL || strcmp(p->name, "help") == 0 || strcmp(p->name, "version") == 0)
            continue;
        if (!first)
            LIT(",");
        first = 0;
        json_str(b, len, &u, p->name);
        LIT(":");
        int secret = p->kind == SB_OPT_SECRET || strstr(p->name, "password") != NULL;
        json_str(b, len, &u, secret ? "***" : v);
    }
    LIT("}");
    if (run->shard.given) { /* core/shard.c */
        LIT(",\"shard\":");
        if (u < len)
            u += sb_shard_meta_json(&run->shard, b + u, len - u);
    }
    LIT("}");
#undef LIT
    if (u >= len) /* truncated: keep it valid */
        snprintf(b, len, "{\"truncated\":true}");
}
