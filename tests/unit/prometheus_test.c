/*
 * prometheus_test.c: unit tests for core/prometheus.c.  Checks listen
 * address parsing, the metrics text (histogram buckets from known values),
 * and the exporter over real sockets: two scrapes of a fake snapshot that
 * grows between them (HTTP 200, Content-Length, counters increased), 404,
 * 405, 400, a silent client that must not stall later scrapes, and a quick
 * stop with a client connected.
 *
 * usage: prometheus_test [BODY_FILE]   (writes the last /metrics body there,
 * for tests/integration/prometheus.sh to lint with promtool)
 * Prints "N passed, 0 failed"; exits 1 on the first failure.
 */
#include "../../core/prometheus.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- a fake run ---------------------------------------------------------------- */

struct fake {
    struct sb_snapshot snap;
    sb_histogram *lat;
    sb_histogram *kind[SB_Q_NKINDS];
    int scrapes;
};

static void fake_collect(void *ctx, FILE *out)
{
    struct fake *f = ctx;
    f->scrapes++;
    f->snap.time += 1.0;
    f->snap.events += 100;
    f->snap.queries[SB_Q_SELECT] += 1000;
    f->snap.queries[SB_Q_UPDATE] += 200;
    f->snap.queries[SB_Q_COMMIT] += 200;
    f->snap.ignored_errors += 1;
    f->snap.connects = 4;
    f->snap.busy_ns += 123456789;
    for (int i = 0; i < 100; i++)
        sb_histogram_record(f->lat, 300000 + i * 10000); /* 0.3 .. 1.29 ms */
    for (int i = 0; i < 1000; i++)
        sb_histogram_record(f->kind[SB_Q_SELECT], 20000 + i * 100);
    for (int i = 0; i < 200; i++)
        sb_histogram_record(f->kind[SB_Q_UPDATE], 50000 + i * 1000);
    sb_prom_format(out, &f->snap, f->lat, (const sb_histogram *const *)f->kind, "sqlite",
                   "oltp \"rw\"\\x");
}

/* Value of the first sample line starting with prefix, or -1. */
static double sample(const char *text, const char *prefix)
{
    const char *p = text;
    size_t n = strlen(prefix);
    while (p && *p) {
        if (strncmp(p, prefix, n) == 0) {
            const char *eol = strchr(p, '\n');
            const char *v = eol ? eol : p + strlen(p);
            while (v > p && v[-1] != ' ')
                v--;
            return atof(v);
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -1;
}

/* ---- a plain client ---------------------------------------------------------------- */

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0, "socket: %s", strerror(errno));
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s", strerror(errno));
    return fd;
}

/* Sends req, reads the whole response (malloc'd, NUL-terminated; caller frees). */
static char *http(int port, const char *req)
{
    int fd = connect_to(port);
    CHECK(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req), "send");
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n < 0 && errno == ECONNRESET && len > 0)
            break; /* server closed with our request unread (431) */
        CHECK(n >= 0, "recv: %s", strerror(errno));
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fd);
    return buf;
}

static const char *body_of(const char *resp)
{
    const char *b = strstr(resp, "\r\n\r\n");
    CHECK(b, "no header end in %.200s", resp);
    return b + 4;
}

/* ---- tests ------------------------------------------------------------------------- */

static void test_addresses(void)
{
    static const char *const bad[] = {"abc", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
                                      "127.0.0.1:80x", "1.2.3:80", "[::1", "[::1]80",
                                      "example.com:9273", "127.0.0.1:-1", "::1:9273"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        struct sb_prom *p = sb_prom_start(bad[i], fake_collect, NULL, err, sizeof err);
        CHECK(p == NULL, "'%s' accepted", bad[i]);
        CHECK(err[0] && !strchr(err, '\n') && strstr(err, bad[i]), "'%s': err '%s'", bad[i], err);
    }
    char err[256];
    struct sb_prom *p = sb_prom_start("[::1]:0", fake_collect, NULL, err, sizeof err);
    if (p) /* IPv6 loopback may be disabled on the machine */
        CHECK(sb_prom_port(p) > 0, "v6 port");
    sb_prom_stop(p);
    p = sb_prom_start("localhost:0", fake_collect, NULL, err, sizeof err);
    CHECK(p && sb_prom_port(p) > 0, "localhost:0: %s", err);
    int port = sb_prom_port(p);
    char again[32];
    snprintf(again, sizeof again, "127.0.0.1:%d", port);
    err[0] = '\0';
    CHECK(sb_prom_start(again, fake_collect, NULL, err, sizeof err) == NULL && strstr(err, "bind"),
          "double bind: %s", err);
    sb_prom_stop(p);
    sb_prom_stop(NULL);
    PASS("listen addresses");
}

static void test_format(void)
{
    sb_histogram *h = sb_histogram_create(1000, (int64_t)3600e9, 0.01);
    sb_histogram_record_n(h, 400000, 300);      /* 0.4 ms */
    sb_histogram_record_n(h, 1500000, 200);     /* 1.5 ms */
    sb_histogram_record_n(h, 30000000, 100);    /* 30 ms */
    sb_histogram_record(h, 10000000000);        /* 10 s */
    struct sb_snapshot s = {0};
    s.events = 601;
    s.queries[SB_Q_SELECT] = 7;
    s.queries[SB_Q_INSERT] = 1;
    s.queries[SB_Q_DELETE] = 2;
    s.queries[SB_Q_OTHER] = 3;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    /* statement kinds: select 1 .. 1000 us, insert nothing */
    sb_histogram *kinds[SB_Q_NKINDS] = {0};
    for (int k = 0; k < SB_Q_NKINDS; k++)
        kinds[k] = sb_histogram_create(1000, (int64_t)3600e9, 0.01);
    for (int i = 1; i <= 1000; i++)
        sb_histogram_record(kinds[SB_Q_SELECT], (int64_t)i * 1000);
    sb_prom_format(f, &s, h, (const sb_histogram *const *)kinds, "pgsql", "w");
    fclose(f);
    const char *L = "{driver=\"pgsql\",workload=\"w\"";
    char key[256];
#define VAL(name, extra) (snprintf(key, sizeof key, "%s%s%s", name, L, extra), sample(text, key))
    CHECK(VAL("sbench_events_total", "}") == 601, "events");
    CHECK(VAL("sbench_queries_total", ",kind=\"read\"}") == 7, "read");
    CHECK(VAL("sbench_queries_total", ",kind=\"write\"}") == 3, "write");
    CHECK(VAL("sbench_queries_total", ",kind=\"other\"}") == 3, "other");
    CHECK(VAL("sbench_statements_total", ",stmt=\"delete\"}") == 2, "delete");
    const char *b = "sbench_event_latency_seconds_bucket";
    static const struct { const char *le; double want; } exp[] = {
        {"0.0005", 300}, {"0.001", 300}, {"0.002", 500}, {"0.005", 500}, {"0.01", 500},
        {"0.02", 500},   {"0.05", 600},  {"0.1", 600},   {"0.2", 600},   {"0.5", 600},
        {"1", 600},      {"2", 600},     {"5", 600},     {"+Inf", 601}};
    for (size_t i = 0; i < sizeof exp / sizeof exp[0]; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, ",le=\"%s\"}", exp[i].le);
        CHECK(VAL(b, extra) == exp[i].want, "le=%s: %g", exp[i].le, VAL(b, extra));
    }
    CHECK(VAL("sbench_event_latency_seconds_count", "}") == 601, "count");
    double sum = VAL("sbench_event_latency_seconds_sum", "}");
    CHECK(sum > 13.419 && sum < 13.421, "sum %g", sum); /* .12+.3+3+10 */
    CHECK(strstr(text, "# TYPE sbench_event_latency_seconds histogram\n"), "TYPE");
    CHECK(strstr(text, "# TYPE sbench_statement_latency_seconds summary\n"), "summary TYPE");
    static const double qs[] = {0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, ",stmt=\"select\",quantile=\"%g\"}", qs[i]);
        /* the exact value at rank ceil(q n) of the sorted 1 .. 1000 us,
         * within the histogram's 1% */
        double exact = ceil(qs[i] * 1000 - 1e-9) * 1e-6, got = VAL("sbench_statement_latency_seconds", extra);
        CHECK(fabs(got - exact) <= 0.01 * exact, "select q=%g: %g, exact %g", qs[i], got, exact);
    }
    CHECK(VAL("sbench_statement_latency_seconds_count", ",stmt=\"select\"}") == 1000, "select count");
    sum = VAL("sbench_statement_latency_seconds_sum", ",stmt=\"select\"}");
    CHECK(fabs(sum - 0.5005) < 1e-9, "select sum %.9f", sum); /* 1 + ... + 1000 us */
    CHECK(!strstr(text, "stmt=\"insert\",quantile"), "a kind that did not run has no quantiles");
    CHECK(strstr(text, "# HELP sbench_events_total "), "HELP");
    CHECK(len > 0 && text[len - 1] == '\n', "ends with newline");
    free(text);

    /* no histogram, label escaping */
    text = NULL;
    f = open_memstream(&text, &len);
    sb_prom_format(f, &s, NULL, NULL, NULL, "a\"b\\c\nd");
    fclose(f);
    CHECK(!strstr(text, "latency"), "no histogram");
    CHECK(strstr(text, "sbench_events_total{driver=\"\",workload=\"a\\\"b\\\\c\\nd\"} 601\n"),
          "escaping: %s", text);
    free(text);
    sb_histogram_destroy(h);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(kinds[k]);
#undef VAL
    PASS("metrics text");
}

static void test_server(const char *body_file)
{
    struct fake fk = {0};
    fk.lat = sb_histogram_create(1000, (int64_t)3600e9, 0.01);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        fk.kind[k] = sb_histogram_create(1000, (int64_t)3600e9, 0.01);
    char err[256];
    struct sb_prom *p = sb_prom_start("127.0.0.1:0", fake_collect, &fk, err, sizeof err);
    CHECK(p, "start: %s", err);
    int port = sb_prom_port(p);
    CHECK(port > 0, "port");

    const char *key = "sbench_events_total{driver=\"sqlite\",workload=\"oltp \\\"rw\\\"\\\\x\"}";
    char *r1 = http(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strncmp(r1, "HTTP/1.0 200 OK\r\n", 17) == 0, "status: %.100s", r1);
    CHECK(strstr(r1, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), "ctype");
    const char *cl = strstr(r1, "Content-Length: ");
    CHECK(cl && (size_t)atol(cl + 16) == strlen(body_of(r1)), "content-length");
    double e1 = sample(body_of(r1), key);
    CHECK(e1 == 100, "events 1: %g in\n%s", e1, body_of(r1));

    /* a silent client: the server drops it after its deadline, the next
     * scrape is served (queued behind it), and nothing crashes */
    int idle = connect_to(port);
    double t0 = now_s();
    char *r2 = http(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
    double waited = now_s() - t0;
    close(idle);
    CHECK(strncmp(r2, "HTTP/1.0 200 OK\r\n", 17) == 0, "status 2");
    CHECK(waited < 4.5, "second scrape waited %.1fs", waited);
    const char *b2 = body_of(r2);
    double e2 = sample(b2, key);
    CHECK(e2 == 200, "events 2: %g", e2);
    CHECK(sample(b2, "sbench_event_latency_seconds_count") == 200, "latency count 2");
    CHECK(sample(b2, "sbench_queries_total{driver=\"sqlite\",workload=\"oltp \\\"rw\\\"\\\\x\",kind=\"read\"}") == 2000,
          "reads 2");
    if (body_file) {
        FILE *f = fopen(body_file, "w");
        CHECK(f && fputs(b2, f) >= 0 && fclose(f) == 0, "write %s", body_file);
    }
    PASS("two scrapes, counters increase");

    char *r = http(port, "GET /other HTTP/1.0\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.0 404 ", 13) == 0, "404: %.40s", r);
    free(r);
    r = http(port, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.0 405 ", 13) == 0, "405: %.40s", r);
    free(r);
    r = http(port, "hello\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.0 400 ", 13) == 0, "400: %.40s", r);
    free(r);
    r = http(port, "HEAD /metrics HTTP/1.0\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.0 200 ", 13) == 0 && body_of(r)[0] == '\0', "HEAD: %.40s", r);
    free(r);
    char big[20000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "GET /", 5);
    r = http(port, big);
    CHECK(strncmp(r, "HTTP/1.0 431 ", 13) == 0, "431: %.40s", r);
    free(r);
    PASS("404, 405, 400, HEAD, oversized request");

    /* stop while a client is connected and silent: returns promptly */
    idle = connect_to(port);
    usleep(100000); /* let the server accept it */
    t0 = now_s();
    sb_prom_stop(p);
    double took = now_s() - t0;
    close(idle);
    CHECK(took < 1.0, "stop took %.2fs", took);
    PASS("stop with a client connected");

    free(r1);
    free(r2);
    sb_histogram_destroy(fk.lat);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(fk.kind[k]);
}

int main(int argc, char **argv)
{
    test_addresses();
    test_format();
    test_server(argc > 1 ? argv[1] : NULL);
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
