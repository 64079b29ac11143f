/*
 * prometheus.c: the Prometheus exporter thread (HTTP/1.0, GET /metrics) and
 * the text-format writer of sbench's metrics; see prometheus.h.
 */
#include "prometheus.h"
#include "../lib/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_MAX 8192          /* request head bytes read at most */
#define READ_DEADLINE_MS 2000 /* to receive the request head */
#define WRITE_DEADLINE_MS 5000

struct sb_prom {
    int lfd;          /* listening socket */
    int stop_pipe[2]; /* a byte on [1] (or its closing) stops the thread */
    int port;
    sb_prom_collect_fn fn;
    void *ctx;
    pthread_t thread;
};

/* ---- address parsing -------------------------------------------------------- */

static int parse_port(const char *s, int *port)
{
    if (!*s || strlen(s) > 5)
        return -1;
    long v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        v = v * 10 + (*c - '0');
    }
    if (v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

/* Fills sa from listen (see sb_prom_start); 0 or -1. */
static int parse_listen(const char *addr, struct sockaddr_storage *sa, socklen_t *salen)
{
    char host[64];
    const char *ports;
    memset(sa, 0, sizeof *sa);
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= sizeof host)
            return -1;
        memcpy(host, addr + 1, (size_t)(close - addr - 1));
        host[close - addr - 1] = '\0';
        ports = close + 2;
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
        int port;
        if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1 || parse_port(ports, &port) != 0)
            return -1;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *salen = sizeof *s6;
        return 0;
    }
    const char *colon = strrchr(addr, ':');
    if (colon) {
        if ((size_t)(colon - addr) >= sizeof host)
            return -1;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = '\0';
        ports = colon + 1;
    } else {
        strcpy(host, ""); /* "PORT" alone */
        ports = addr;
    }
    if (host[0] == '\0' || strcmp(host, "localhost") == 0)
        strcpy(host, "127.0.0.1");
    struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
    int port;
    if (inet_pton(AF_INET, host, &s4->sin_addr) != 1 || parse_port(ports, &port) != 0)
        return -1;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    *salen = sizeof *s4;
    return 0;
}

/* ---- HTTP ------------------------------------------------------------------------ */

/* Waits for `events` on fd until deadline, or for the stop pipe.
 * Returns 1 when fd is ready, 0 on timeout/stop/error. */
static int wait_fd(struct sb_prom *p, int fd, short events, int64_t deadline)
{
    return sb_sock_wait(fd, events, p->stop_pipe[0], deadline) == 0;
}

static void respond(struct sb_prom *p, int fd, const char *status, const char *ctype,
                    const char *body, size_t len, int head_only)
{
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr,
                     "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, ctype, len);
    int64_t deadline = sb_mono_ms() + WRITE_DEADLINE_MS;
    if (sb_send_all(fd, hdr, (size_t)n, p->stop_pipe[0], deadline) == 0 && !head_only)
        sb_send_all(fd, body, len, p->stop_pipe[0], deadline);
}

static void respond_text(struct sb_prom *p, int fd, const char *status, const char *msg)
{
    respond(p, fd, status, "text/plain; charset=utf-8", msg, strlen(msg), 0);
}

static void serve_conn(struct sb_prom *p, int fd)
{
    char req[REQ_MAX + 1];
    size_t got = 0;
    int64_t deadline = sb_mono_ms() + READ_DEADLINE_MS;
    for (;;) {
        if (got == REQ_MAX) {
            respond_text(p, fd, "431 Request Header Fields Too Large", "request too large\n");
            return;
        }
        ssize_t n = recv(fd, req + got, REQ_MAX - got, 0);
        if (n > 0) {
            got += (size_t)n;
            req[got] = '\0';
            if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
                break;
        } else if (n == 0) {
            break; /* peer closed its side: answer what we have */
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_fd(p, fd, POLLIN, deadline))
                return; /* slow client or stopping: drop it */
        } else {
            return;
        }
    }
    req[got] = '\0';

    /* request line: METHOD SP TARGET SP HTTP/x.y */
    char method[16], target[1024], version[16];
    if (sscanf(req, "%15s %1023s %15s", method, target, version) != 3 ||
        strncmp(version, "HTTP/", 5) != 0) {
        respond_text(p, fd, "400 Bad Request", "bad request\n");
        return;
    }
    int head = strcmp(method, "HEAD") == 0;
    if (!head && strcmp(method, "GET") != 0) {
        respond_text(p, fd, "405 Method Not Allowed", "only GET /metrics\n");
        return;
    }
    char *q = strchr(target, '?');
    if (q)
        *q = '\0';
    if (strcmp(target, "/metrics") != 0) {
        respond_text(p, fd, "404 Not Found", "metrics are at /metrics\n");
        return;
    }

    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out) {
        respond_text(p, fd, "500 Internal Server Error", "out of memory\n");
        return;
    }
    p->fn(p->ctx, out);
    if (fclose(out) != 0 || !body) {
        free(body);
        respond_text(p, fd, "500 Internal Server Error", "out of memory\n");
        return;
    }
    respond(p, fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body, len, head);
    free(body);
}

static void *prom_thread(void *arg)
{
    struct sb_prom *p = arg;
    for (;;) {
        struct pollfd pf[2] = {{p->lfd, POLLIN, 0}, {p->stop_pipe[0], POLLIN, 0}};
        int n = poll(pf, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || pf[1].revents)
            break;
        if (!(pf[0].revents & POLLIN))
            continue;
        int fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            continue; /* EAGAIN (raced), ECONNABORTED, EMFILE...: next poll */
        serve_conn(p, fd);
        close(fd);
    }
    return NULL;
}

/* ---- start / stop ------------------------------------------------------------ */

static void set_err(char *err, size_t errlen, const char *what, const char *addr, int e)
{
    if (err && errlen > 0)
        snprintf(err, errlen, "prometheus exporter %s %s: %s", what, addr, strerror(e));
}

static void bad_addr(const char *addr, char *err, size_t errlen)
{
    if (err && errlen > 0)
        snprintf(err, errlen, "invalid prometheus addr address '%s' (want IP:PORT, e.g. %s)", addr,
                 SB_PROM_DEFAULT_LISTEN);
}

int sb_prom_check_addr(const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage sa;
    socklen_t salen;
    if (!addr || !*addr || parse_listen(addr, &sa, &salen) == 0)
        return 0;
    bad_addr(addr, err, errlen);
    return -1;
}

struct sb_prom *sb_prom_start(const char *addr, sb_prom_collect_fn fn, void *ctx, char *err,
                              size_t errlen)
{
    if (!addr || !*addr)
        addr = SB_PROM_DEFAULT_LISTEN;
    struct sockaddr_storage sa;
    socklen_t salen;
    if (parse_listen(addr, &sa, &salen) != 0) {
        bad_addr(addr, err, errlen);
        return NULL;
    }
    if (!fn) {
        if (err && errlen > 0)
            snprintf(err, errlen, "prometheus exporter: no collect function");
        return NULL;
    }
    struct sb_prom *p = calloc(1, sizeof *p);
    if (!p) {
        set_err(err, errlen, "on", addr, ENOMEM);
        return NULL;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->stop_pipe[0] = p->stop_pipe[1] = -1;
    p->lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->lfd < 0) {
        set_err(err, errlen, "socket for", addr, errno);
        free(p);
        return NULL;
    }
    int one = 1;
    setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(p->lfd, (struct sockaddr *)&sa, salen) != 0) {
        set_err(err, errlen, "cannot bind", addr, errno);
        goto fail;
    }
    if (listen(p->lfd, 16) != 0) {
        set_err(err, errlen, "cannot addr on", addr, errno);
        goto fail;
    }
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    if (getsockname(p->lfd, (struct sockaddr *)&bound, &blen) == 0)
        p->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                    : ((struct sockaddr_in *)&bound)->sin_port);
    if (pipe2(p->stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        set_err(err, errlen, "pipe for", addr, errno);
        goto fail;
    }
    /* The thread gets no signals: SIGINT/SIGTERM stay with the main thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&p->thread, NULL, prom_thread, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        set_err(err, errlen, "thread for", addr, rc);
        goto fail;
    }
    return p;

fail:
    close(p->lfd);
    if (p->stop_pipe[0] >= 0) {
        close(p->stop_pipe[0]);
        close(p->stop_pipe[1]);
    }
    free(p);
    return NULL;
}

int sb_prom_port(const struct sb_prom *p)
{
    return p ? p->port : 0;
}

void sb_prom_stop(struct sb_prom *p)
{
    if (!p)
        return;
    char b = 1;
    while (write(p->stop_pipe[1], &b, 1) < 0 && errno == EINTR)
        ;
    pthread_join(p->thread, NULL);
    close(p->lfd);
    close(p->stop_pipe[0]);
    close(p->stop_pipe[1]);
    free(p);
}

/* ---- the metrics text ---------------------------------------------------------- */

/* Writes a label value with \\, \" and \n escaped. */
static void put_label_value(FILE *out, const char *v)
{
    for (; v && *v; v++) {
        if (*v == '\\')
            fputs("\\\\", out);
        else if (*v == '"')
            fputs("\\\"", out);
        else if (*v == '\n')
            fputs("\\n", out);
        else
            fputc(*v, out);
    }
}

struct labels {
    const char *driver, *workload;
};

/* name{driver="..",workload=".."[,extra]} */
static void put_series(FILE *out, const char *name, const struct labels *l, const char *extra)
{
    fprintf(out, "%s{driver=\"", name);
    put_label_value(out, l->driver);
    fputs("\",workload=\"", out);
    put_label_value(out, l->workload);
    fputc('"', out);
    if (extra)
        fprintf(out, ",%s", extra);
    fputs("} ", out);
}

static void put_meta(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_counter(FILE *out, const struct labels *l, const char *name, const char *help,
                        uint64_t v)
{
    put_meta(out, name, "counter", help);
    put_series(out, name, l, NULL);
    fprintf(out, "%llu\n", (unsigned long long)v);
}

/* The summary sbench_statement_latency_seconds: each kind that ran, its
 * percentiles, sum and count. */
static void put_kind_summary(FILE *out, const struct labels *l, const sb_histogram *const *kind_ns,
                             const char *const *stmt)
{
    static const double q[] = {0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999};
    const char *name = "sbench_statement_latency_seconds";
    put_meta(out, name, "summary",
             "Statement latency by kind since the start of the run, in seconds (sbench's own "
             "percentiles).");
    char extra[96];
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        const sb_histogram *h = kind_ns[k];
        uint64_t n = h ? sb_histogram_count(h) : 0;
        if (n == 0)
            continue;
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
            snprintf(extra, sizeof extra, "%s,quantile=\"%g\"", stmt[k], q[i]);
            put_series(out, name, l, extra);
            fprintf(out, "%.9f\n", (double)sb_histogram_percentile(h, q[i] * 100) / 1e9);
        }
        put_series(out, "sbench_statement_latency_seconds_sum", l, stmt[k]);
        fprintf(out, "%.9f\n", (double)sb_histogram_sum(h) / 1e9);
        put_series(out, "sbench_statement_latency_seconds_count", l, stmt[k]);
        fprintf(out, "%llu\n", (unsigned long long)n);
    }
}

void sb_prom_format(FILE *out, const struct sb_snapshot *s, const sb_histogram *latency_ns,
                    const sb_histogram *const *kind_ns, const char *driver, const char *workload)
{
    const struct labels l = {driver, workload};

    put_counter(out, &l, "sbench_events_total", "Events (transactions) completed.", s->events);
    put_counter(out, &l, "sbench_failed_events_total", "Events that failed for good.",
                s->failed_events);

    put_meta(out, "sbench_queries_total", "counter",
             "Statements executed, by class (read: SELECT; write: INSERT, UPDATE, DELETE; "
             "other: the rest).");
    put_series(out, "sbench_queries_total", &l, "kind=\"read\"");
    fprintf(out, "%llu\n", (unsigned long long)sb_snap_reads(s));
    put_series(out, "sbench_queries_total", &l, "kind=\"write\"");
    fprintf(out, "%llu\n", (unsigned long long)sb_snap_writes(s));
    put_series(out, "sbench_queries_total", &l, "kind=\"other\"");
    fprintf(out, "%llu\n", (unsigned long long)sb_snap_other(s));

    static const char *const stmt[SB_Q_NKINDS] = {
        [SB_Q_SELECT] = "stmt=\"select\"", [SB_Q_INSERT] = "stmt=\"insert\"",
        [SB_Q_UPDATE] = "stmt=\"update\"", [SB_Q_DELETE] = "stmt=\"delete\"",
        [SB_Q_BEGIN] = "stmt=\"begin\"",   [SB_Q_COMMIT] = "stmt=\"commit\"",
        [SB_Q_ROLLBACK] = "stmt=\"rollback\"", [SB_Q_OTHER] = "stmt=\"other\"",
    };
    put_meta(out, "sbench_statements_total", "counter",
             "Statements executed, by statement kind (begin: BEGIN/START, commit: COMMIT/END).");
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        put_series(out, "sbench_statements_total", &l, stmt[k]);
        fprintf(out, "%llu\n", (unsigned long long)s->queries[k]);
    }

    put_counter(out, &l, "sbench_ignored_errors_total",
                "Events restarted after an ignored (retryable) error.", s->ignored_errors);
    put_counter(out, &l, "sbench_reconnects_total", "Reconnections after a lost connection.",
                s->reconnects);
    put_counter(out, &l, "sbench_connections_total", "Database connections opened.",
                s->connects);

    put_meta(out, "sbench_busy_seconds_total", "counter", "Sum of event latencies, in seconds.");
    put_series(out, "sbench_busy_seconds_total", &l, NULL);
    fprintf(out, "%.9f\n", (double)s->busy_ns / 1e9);

    put_meta(out, "sbench_elapsed_seconds", "gauge", "Seconds since the run started.");
    put_series(out, "sbench_elapsed_seconds", &l, NULL);
    fprintf(out, "%.3f\n", s->time);

    if (kind_ns)
        put_kind_summary(out, &l, kind_ns, stmt);

    if (!latency_ns)
        return;

    static const char *const le_txt[] = {"0.0005", "0.001", "0.002", "0.005", "0.01",
                                         "0.02",   "0.05",  "0.1",   "0.2",   "0.5",
                                         "1",      "2",     "5"};
    static const int64_t le_ns[] = {500000,    1000000,   2000000,    5000000,    10000000,
                                    20000000,  50000000,  100000000,  200000000,  500000000,
                                    1000000000, 2000000000, 5000000000};
    enum { NLE = sizeof le_ns / sizeof le_ns[0] };
    uint64_t cum[NLE];
    uint64_t total = 0;
    int j = 0;
    int nb = sb_histogram_bucket_count(latency_ns);
    for (int i = 0; i < nb; i++) {
        uint64_t c = sb_histogram_count_at(latency_ns, i);
        if (c == 0)
            continue;
        int64_t hi = sb_histogram_bucket_highest(latency_ns, i);
        while (j < NLE && hi > le_ns[j])
            cum[j++] = total;
        total += c;
    }
    while (j < NLE)
        cum[j++] = total;

    const char *name = "sbench_event_latency_seconds";
    put_meta(out, name, "histogram", "Event latency, in seconds.");
    char extra[48];
    for (int k = 0; k < NLE; k++) {
        snprintf(extra, sizeof extra, "le=\"%s\"", le_txt[k]);
        put_series(out, "sbench_event_latency_seconds_bucket", &l, extra);
        fprintf(out, "%llu\n", (unsigned long long)cum[k]);
    }
    put_series(out, "sbench_event_latency_seconds_bucket", &l, "le=\"+Inf\"");
    fprintf(out, "%llu\n", (unsigned long long)total);
    put_series(out, "sbench_event_latency_seconds_sum", &l, NULL);
    fprintf(out, "%.9f\n", total ? (double)sb_histogram_sum(latency_ns) / 1e9 : 0.0);
    put_series(out, "sbench_event_latency_seconds_count", &l, NULL);
    fprintf(out, "%llu\n", (unsigned long long)total);
}
