/*
 * compare_server_probe.c: the local server's processes while a run of
 * compare runs, seen from outside like the client's threads
 * (compare_probe.c): which processes serve the child sbench's TCP
 * connections, and their CPU time and run delay (time runnable but
 * waiting for a CPU) from /proc/PID/task/TID/schedstat.
 *
 * The processes are found from the connections themselves: the child's
 * socket inodes (/proc/CHILD/fd), their addresses in /proc/CHILD/net/tcp
 * and tcp6, the sockets at the other end of each connection (local and
 * remote addresses swapped) and the processes holding those
 * (/proc/PID/fd): PostgreSQL's backends of these connections, the
 * MariaDB server process.  Over a Unix socket the other end is the peer
 * the kernel names (sock_diag netlink, UNIX_DIAG_PEER; /proc/net/unix does
 * not say it).  Only a server on this machine whose processes this user
 * may read is found; otherwise none is,
 * and the bottleneck rules go on without it.  Looked for a few times
 * early in the run (threads connect at their own pace), sampled at every
 * probe period after.  A model server inside the client (the null
 * driver's, whose threads are named SBD_MODEL_SERVER_THREAD) has its
 * threads sampled into the server's tasks by the client's probe
 * (compare_probe.c): the same figures as a real local server's.
 */
#include "compare.h"

#include <dirent.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_SOCKETS 1024

struct inode_set {
    unsigned long v[MAX_SOCKETS];
    int n;
};

static int has(const struct inode_set *s, unsigned long ino)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == ino)
            return 1;
    return 0;
}

/* The socket inodes pid holds into s; with want, stops at the first one
 * in want and returns 1. */
static int socket_inodes(int pid, struct inode_set *s, const struct inode_set *want)
{
    char path[64], link[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char fdpath[320];
        snprintf(fdpath, sizeof fdpath, "/proc/%d/fd/%s", pid, e->d_name);
        ssize_t len = readlink(fdpath, link, sizeof link - 1);
        unsigned long ino;
        if (len <= 0)
            continue;
        link[len] = 0;
        if (sscanf(link, "socket:[%lu]", &ino) != 1)
            continue;
        if (want)
            found = has(want, ino);
        else if (s->n < MAX_SOCKETS)
            s->v[s->n++] = ino;
    }
    closedir(d);
    return found;
}

/* One pass over /proc/PID/net/tcp and tcp6.  Pass 1: the addresses of the
 * client's connections (inodes in mine) into ends.  Pass 2: the inodes of
 * the sockets whose addresses are an end's swapped into peers. */
struct conn_end {
    char local[64], remote[64];
};

static void scan_tcp(int pid, const struct inode_set *mine, struct conn_end *ends, int *nends,
                     struct inode_set *peers)
{
    static const char *const files[] = {"tcp", "tcp6"};
    for (int f = 0; f < 2; f++) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%d/net/%s", pid, files[f]);
        FILE *in = fopen(path, "r");
        if (in == NULL)
            continue;
        while (fgets(line, sizeof line, in)) {
            char local[64], remote[64];
            unsigned st;
            unsigned long ino;
            if (sscanf(line, " %*s %63s %63s %x %*s %*s %*s %*s %*s %lu", local, remote, &st, &ino) != 4 ||
                st != 1 /* established */ || ino == 0)
                continue;
            if (peers == NULL) {
                if (has(mine, ino) && *nends < MAX_SOCKETS) {
                    snprintf(ends[*nends].local, sizeof ends[0].local, "%s", local);
                    snprintf(ends[*nends].remote, sizeof ends[0].remote, "%s", remote);
                    (*nends)++;
                }
                continue;
            }
            for (int i = 0; i < *nends; i++)
                if (!strcmp(ends[i].remote, local) && !strcmp(ends[i].local, remote) && peers->n < MAX_SOCKETS &&
                    !has(peers, ino))
                    peers->v[peers->n++] = ino;
        }
        fclose(in);
    }
}

/* The peers of the Unix sockets in mine into peers, from the kernel's
 * sock_diag dump (every recv bounded by a 1 s timeout). */
static void unix_peers(const struct inode_set *mine, struct inode_set *peers)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return;
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct {
        struct nlmsghdr nlh;
        struct unix_diag_req r;
    } req = {.nlh = {.nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                     .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
             .r = {.sdiag_family = AF_UNIX, .udiag_states = ~0U, .udiag_show = UDIAG_SHOW_PEER}};
    if (send(fd, &req, sizeof req, 0) != (ssize_t)sizeof req) {
        close(fd);
        return;
    }
    static char buf[32768] __attribute__((aligned(4)));
    for (int done = 0, rounds = 0; !done && rounds < 100000;) {
        ssize_t len = recv(fd, buf, sizeof buf, 0);
        if (len <= 0)
            break;
        rounds++;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            struct unix_diag_msg *m = NLMSG_DATA(h);
            if (h->nlmsg_len < NLMSG_LENGTH(sizeof *m) || !has(mine, m->udiag_ino))
                continue;
            int alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
            for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
                if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t)) {
                    uint32_t peer;
                    memcpy(&peer, RTA_DATA(a), sizeof peer);
                    if (peer && peers->n < MAX_SOCKETS && !has(peers, peer))
                        peers->v[peers->n++] = peer;
                }
        }
    }
    close(fd);
}

/* Adds the pids holding the other ends of client_pid's connections (TCP
 * and Unix). */
static void find_server(struct cmp_probe *p, int client_pid)
{
    static struct inode_set mine, peers;
    static struct conn_end ends[MAX_SOCKETS];
    int nends = 0;
    mine.n = peers.n = 0;
    socket_inodes(client_pid, &mine, NULL);
    if (mine.n == 0)
        return;
    scan_tcp(client_pid, &mine, ends, &nends, NULL);
    if (nends > 0)
        scan_tcp(client_pid, &mine, ends, &nends, &peers);
    unix_peers(&mine, &peers);
    DIR *d = peers.n ? opendir("/proc") : NULL;
    if (d == NULL)
        return;
    struct dirent *e;
    int self = (int)getpid();
    while ((e = readdir(d)) != NULL && p->nserver_pid < CMP_SERVER_PIDS) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == client_pid || pid == self)
            continue;
        int known = 0;
        for (int i = 0; i < p->nserver_pid; i++)
            known |= p->server_pid[i] == pid;
        if (!known && socket_inodes((int)pid, NULL, &peers))
            p->server_pid[p->nserver_pid++] = (int)pid;
    }
    closedir(d);
}

void cmp_server_probe_sample(struct cmp_probe *p, int client_pid)
{
    /* looked for after 0.3, 1, 3 and 10 s: the threads connect meanwhile */
    if (p->samples == 3 || p->samples == 10 || p->samples == 30 || p->samples == 100)
        find_server(p, client_pid);
    for (int i = 0; i < p->nserver_pid; i++)
        cmp_probe_tasks(p->server_task, &p->nserver_task, p->server_pid[i], NULL, NULL);
}

void cmp_server_probe_result(const struct cmp_probe *p, struct cmp_server_figures *r)
{
    memset(r, 0, sizeof *r);
    r->processes = p->nserver_pid;
    r->model_threads = p->model_threads;
    for (int i = 0; i < p->nserver_task; i++) {
        const struct cmp_probe_task *t = &p->server_task[i];
        double span = t->t1 - t->t0;
        if (span < CMP_PROBE_MIN_S)
            continue;
        r->cpu_cores += (t->cpu1 - t->cpu0) / span;
        r->delay_cores += (t->delay1 - t->delay0) / span;
    }
}
