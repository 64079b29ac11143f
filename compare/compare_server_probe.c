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
 * MariaDB server process.  Only a server on this machine, reached over
 * TCP, whose processes this user may read, is found; otherwise none is,
 * and the bottleneck rules go on without it.  Looked for a few times
 * early in the run (threads connect at their own pace), sampled at every
 * probe period after.
 */
#include "compare.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Adds the pids holding the other ends of client_pid's connections. */
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
    if (nends == 0)
        return;
    scan_tcp(client_pid, &mine, ends, &nends, &peers);
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
        cmp_probe_tasks(p->server_task, &p->nserver_task, p->server_pid[i]);
}

void cmp_server_probe_result(const struct cmp_probe *p, struct cmp_server_figures *r)
{
    memset(r, 0, sizeof *r);
    r->processes = p->nserver_pid;
    for (int i = 0; i < p->nserver_task; i++) {
        const struct cmp_probe_task *t = &p->server_task[i];
        double span = t->t1 - t->t0;
        if (span < CMP_PROBE_MIN_S)
            continue;
        r->cpu_cores += (t->cpu1 - t->cpu0) / span;
        r->delay_cores += (t->delay1 - t->delay0) / span;
    }
}
