/*
 * netdelay: a TCP relay that delays every byte by a fixed time each way, so
 * that a server on this machine answers as a remote one would (issue #46:
 * "remote-like conditions on one machine").  The kernel's own tool for this,
 * tc netem, needs the sch_netem module, which the kernels sbench is tested on
 * here do not have; this relay does the same for TCP in user space.
 *
 *   netdelay --listen=PORT --to=HOST:PORT --delay-ms=D [--jitter-ms=J]
 *            [--loss=PCT] [--seed=N] [--port-file=FILE]
 *            [--stall-on=TEXT --stall-after-ms=T]
 *
 * Each accepted connection gets its own connection to HOST:PORT.  What is read
 * from one side is written to the other side D ms later (a round trip costs
 * 2*D), plus a uniform jitter of up to J ms that never reorders bytes;
 * --loss=PCT holds a chunk back for one more 200 ms (TCP's minimum
 * retransmission timeout) with that probability, which is what a lost
 * segment costs a TCP stream.  Every queue is bounded (4 MiB a direction:
 * reading stops while it is full), every wait has the next release as its
 * deadline, and SIGINT/SIGTERM end the relay at once.  --listen=0 takes a
 * free port, written to --port-file.
 *
 * --stall-on=TEXT makes a server fall silent on one connection: once T ms
 * have passed since the relay started, a connection whose client sends
 * TEXT (within one read) has that request and everything after it held
 * forever, both ways quiet; the server and the other connections go on.
 * One line on stderr says when.  A test of a client's deadline on a
 * server that stops answering (a sampler's query, for instance).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 1024
#define CHUNK 65536
#define QUEUE_LIMIT (4u << 20)
#define LOSS_EXTRA_NS 200000000LL

struct chunk {
    struct chunk *next;
    int64_t release_ns;
    size_t len, off;
    char data[];
};

/* one direction of a relayed connection: bytes read from `from`, held,
 * written to `to` */
struct flow {
    int from, to;
    struct chunk *head, *tail;
    size_t queued;
    int eof;          /* `from` closed: shut `to` down once the queue is empty */
    int shut;
    int blocked;      /* `to` would block: wait for POLLOUT, not for the clock */
    int may_stall;    /* client->server: --stall-on looks at it */
    int stalled;      /* --stall-on matched: nothing more is released */
};

struct pair {
    struct flow up, down; /* client->server, server->client */
    int used;
};

static volatile sig_atomic_t stop_now;
static struct pair pairs[MAX_PAIRS];
static int64_t delay_ns, jitter_ns;
static double loss_share;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static const char *stall_text;
static int64_t stall_from_ns; /* now_ns() from which --stall-on applies */

static void on_signal(int sig) { (void)sig; stop_now = 1; }

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* xorshift64*: reproducible jitter and loss from --seed */
static double uniform01(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int64_t release_time(const struct flow *f)
{
    if (f->stalled)
        return INT64_MAX;
    int64_t t = now_ns() + delay_ns;
    if (jitter_ns > 0)
        t += (int64_t)(uniform01() * (double)jitter_ns);
    if (loss_share > 0 && uniform01() < loss_share)
        t += LOSS_EXTRA_NS;
    if (f->tail && t < f->tail->release_ns)
        t = f->tail->release_ns; /* a stream is never reordered */
    return t;
}

static void close_pair(struct pair *p)
{
    struct chunk *c, *n;
    for (c = p->up.head; c; c = n) { n = c->next; free(c); }
    for (c = p->down.head; c; c = n) { n = c->next; free(c); }
    close(p->up.from);
    close(p->up.to);
    memset(p, 0, sizeof *p);
}

/* read what `from` has into a new chunk; 0 on success, -1 when the pair must close */
static int flow_read(struct flow *f)
{
    char buf[CHUNK];
    ssize_t n = recv(f->from, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0)
        return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    if (n == 0) {
        f->eof = 1;
        return 0;
    }
    if (f->may_stall && stall_text && !f->stalled && now_ns() >= stall_from_ns &&
        memmem(buf, (size_t)n, stall_text, strlen(stall_text)) != NULL) {
        f->stalled = 1;
        fprintf(stderr, "netdelay: a connection sent '%s': stalled from now on\n", stall_text);
    }
    struct chunk *c = malloc(sizeof *c + (size_t)n);
    if (!c)
        return -1;
    memcpy(c->data, buf, (size_t)n);
    c->len = (size_t)n;
    c->off = 0;
    c->next = NULL;
    c->release_ns = release_time(f);
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    f->queued += (size_t)n;
    return 0;
}

/* write the chunks whose time has come; 0, or -1 when the pair must close */
static int flow_write(struct flow *f, int64_t now)
{
    while (f->head && f->head->release_ns <= now) {
        struct chunk *c = f->head;
        ssize_t n = send(f->to, c->data + c->off, c->len - c->off, MSG_DONTWAIT | MSG_NOSIGNAL);
        f->blocked = n < 0 && errno == EAGAIN;
        if (n < 0)
            return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
        c->off += (size_t)n;
        f->queued -= (size_t)n;
        if (c->off < c->len)
            return 0;
        f->head = c->next;
        if (!f->head)
            f->tail = NULL;
        free(c);
    }
    if (f->eof && !f->head && !f->shut) {
        shutdown(f->to, SHUT_WR);
        f->shut = 1;
    }
    return 0;
}

static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
    int fd = -1;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static void accept_one(int lfd, const char *host, const char *port)
{
    int c = accept(lfd, NULL, NULL);
    if (c < 0)
        return;
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int s = connect_to(host, port);
    int i;
    for (i = 0; i < MAX_PAIRS && pairs[i].used; i++)
        ;
    if (s < 0 || i == MAX_PAIRS) {
        fprintf(stderr, "netdelay: %s\n", s < 0 ? "cannot connect to the server" : "too many connections");
        close(c);
        if (s >= 0)
            close(s);
        return;
    }
    pairs[i] = (struct pair){ .up = { .from = c, .to = s, .may_stall = 1 }, .down = { .from = s, .to = c }, .used = 1 };
}

static int listen_on(int port, int *bound)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 512) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

/* the poll set for one pass: the listener, then each pair's two sockets
 * (entry k reads flow k and writes the other flow, whose `to` it is); *next
 * becomes the earliest release the clock, not a full socket, waits for */
static int build_poll(int lfd, struct pollfd *pfd, int *owner, int64_t *next)
{
    int n = 0;
    pfd[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
    for (int i = 0; i < MAX_PAIRS; i++) {
        struct pair *p = &pairs[i];
        if (!p->used)
            continue;
        struct flow *fl[2] = { &p->up, &p->down };
        for (int k = 0; k < 2; k++) {
            struct flow *f = fl[k], *back = fl[1 - k];
            short ev = 0;
            if (!f->eof && f->queued < QUEUE_LIMIT)
                ev |= POLLIN;
            if (back->head && back->blocked)
                ev |= POLLOUT;
            else if (back->head && back->head->release_ns < *next)
                *next = back->head->release_ns;
            pfd[n] = (struct pollfd){ .fd = f->from, .events = ev };
            owner[n++] = i * 2 + k;
        }
    }
    return n;
}

static void relay(int lfd, const char *host, const char *port)
{
    static struct pollfd pfd[1 + 2 * MAX_PAIRS];
    static int owner[1 + 2 * MAX_PAIRS];
    while (!stop_now) {
        int64_t now = now_ns(), next = now + 1000000000LL;
        int n = build_poll(lfd, pfd, owner, &next);
        int64_t wait_ns = next - now;
        int timeout_ms = wait_ns <= 0 ? 0 : (int)((wait_ns + 999999) / 1000000);
        /* a release under 1 ms away: spin on a zero timeout rather than oversleep it */
        if (wait_ns > 0 && wait_ns < 1000000)
            timeout_ms = 0;
        if (poll(pfd, (nfds_t)n, timeout_ms) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents & POLLIN)
            accept_one(lfd, host, port);
        for (int j = 1; j < n; j++) {
            struct pair *p = &pairs[owner[j] / 2];
            struct flow *f = owner[j] % 2 ? &p->down : &p->up;
            if (p->used && (pfd[j].revents & (POLLIN | POLLHUP | POLLERR)) && flow_read(f) < 0)
                close_pair(p);
        }
        now = now_ns();
        for (int i = 0; i < MAX_PAIRS; i++) {
            struct pair *p = &pairs[i];
            if (!p->used)
                continue;
            if (flow_write(&p->up, now) < 0 || flow_write(&p->down, now) < 0 ||
                (p->up.shut && p->down.shut))
                close_pair(p);
        }
    }
}

static int opt(const char *arg, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || arg[n] != '=')
        return 0;
    *val = arg + n + 1;
    return 1;
}

static int number(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *to = NULL, *port_file = NULL, *v;
    double listen_port = -1, delay = -1, jitter = 0, loss = 0, seed = 1, stall_after = 0;
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        if (opt(argv[i], "--listen", &v)) bad = number(v, 0, 65535, &listen_port);
        else if (opt(argv[i], "--to", &v)) to = v;
        else if (opt(argv[i], "--delay-ms", &v)) bad = number(v, 0, 10000, &delay);
        else if (opt(argv[i], "--jitter-ms", &v)) bad = number(v, 0, 10000, &jitter);
        else if (opt(argv[i], "--loss", &v)) bad = number(v, 0, 100, &loss);
        else if (opt(argv[i], "--seed", &v)) bad = number(v, 1, 1e15, &seed);
        else if (opt(argv[i], "--port-file", &v)) port_file = v;
        else if (opt(argv[i], "--stall-on", &v)) bad = !*(stall_text = v);
        else if (opt(argv[i], "--stall-after-ms", &v)) bad = number(v, 0, 1e9, &stall_after);
        else bad = 1;
        if (bad) {
            fprintf(stderr, "netdelay: bad argument '%s' (see the top of tests/netdelay/netdelay.c)\n", argv[i]);
            return 1;
        }
    }
    const char *colon = to ? strrchr(to, ':') : NULL;
    if (listen_port < 0 || delay < 0 || !colon || colon == to || !colon[1]) {
        fprintf(stderr, "netdelay: usage: netdelay --listen=PORT --to=HOST:PORT --delay-ms=D [--jitter-ms=J] [--loss=PCT] [--seed=N] [--port-file=FILE] [--stall-on=TEXT --stall-after-ms=T]\n");
        return 1;
    }
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(colon - to), to);
    delay_ns = (int64_t)(delay * 1e6);
    jitter_ns = (int64_t)(jitter * 1e6);
    loss_share = loss / 100.0;
    rng_state ^= (uint64_t)seed;
    stall_from_ns = now_ns() + (int64_t)(stall_after * 1e6);
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int bound, lfd = listen_on((int)listen_port, &bound);
    if (lfd < 0) {
        fprintf(stderr, "netdelay: cannot listen on 127.0.0.1:%d: %s\n", (int)listen_port, strerror(errno));
        return 1;
    }
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (!f || fprintf(f, "%d\n", bound) < 0 || fclose(f) != 0) {
            fprintf(stderr, "netdelay: cannot write %s\n", port_file);
            return 1;
        }
    }
    relay(lfd, host, colon + 1);
    for (int i = 0; i < MAX_PAIRS; i++)
        if (pairs[i].used)
            close_pair(&pairs[i]);
    close(lfd);
    return 0;
}
