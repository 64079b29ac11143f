/*
 * compare_probe.c: what kept a run's client (one child sbench) busy, seen
 * from outside while it runs: every thread's CPU time and the time it was
 * runnable but waiting for a CPU, from /proc/PID/task/TID/schedstat (the
 * kernel's sum_exec_runtime, the same clock as the thread's own
 * CLOCK_THREAD_CPUTIME_ID, and its run_delay), sampled every
 * CMP_PROBE_PERIOD_MS by compare_exec.c while it waits for the child.  A
 * thread's shares are taken between the first and the last time it was
 * seen, so a thread that ends early or starts late is measured over its
 * own life.  Threads named SBD_MODEL_SERVER_THREAD (the null driver's
 * model server, sbench/driver.h) stand for the server, not the client:
 * they are sampled as the server's tasks (compare_server_probe.c sums
 * them).  Nothing here runs inside the measured process.
 */
#include "compare.h"

#include <dirent.h>
#include <sbench/driver.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The task of tasks[0..*n) with id tid, a new one when there is room,
 * else NULL. */
static struct cmp_probe_task *task_of(struct cmp_probe_task *tasks, int *n, long tid)
{
    for (int i = 0; i < *n; i++)
        if (tasks[i].tid == tid)
            return &tasks[i];
    if (*n == CMP_PROBE_TASKS)
        return NULL;
    struct cmp_probe_task *t = &tasks[(*n)++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->t0 = -1;
    return t;
}

/* 1 when task tid of pid stands for a model server (its comm). */
static int is_model_server(int pid, long tid)
{
    char path[96], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%ld/comm", pid, tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    comm[strcspn(comm, "\n")] = 0;
    return ok && strcmp(comm, SBD_MODEL_SERVER_THREAD) == 0;
}

int cmp_probe_tasks(struct cmp_probe_task *tasks, int *n, int pid, struct cmp_probe_task *model, int *nmodel)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    double now = mono_s();
    struct dirent *e;
    int models = 0;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0)
            continue;
        int in_model = model != NULL && is_model_server(pid, tid);
        models += in_model;
        snprintf(path, sizeof path, "/proc/%d/task/%ld/schedstat", pid, tid);
        FILE *f = fopen(path, "r");
        unsigned long long cpu_ns, delay_ns;
        int ok = f && fscanf(f, "%llu %llu", &cpu_ns, &delay_ns) == 2;
        if (f)
            fclose(f);
        struct cmp_probe_task *t = !ok ? NULL : in_model ? task_of(model, nmodel, tid) : task_of(tasks, n, tid);
        if (t == NULL)
            continue;
        if (t->t0 < 0) {
            t->t0 = now;
            t->cpu0 = cpu_ns / 1e9;
            t->delay0 = delay_ns / 1e9;
        }
        t->t1 = now;
        t->cpu1 = cpu_ns / 1e9;
        t->delay1 = delay_ns / 1e9;
    }
    closedir(d);
    return models;
}

void cmp_probe_sample(struct cmp_probe *p, int pid)
{
    int models = cmp_probe_tasks(p->task, &p->n, pid, p->server_task, &p->nserver_task);
    if (models > p->model_threads)
        p->model_threads = models;
    p->samples++;
}

void cmp_probe_result(const struct cmp_probe *p, struct cmp_probe_result *r)
{
    memset(r, 0, sizeof *r);
    r->busiest_cpu = r->busiest_delay = -1;
    double delay_sum = 0;
    for (int i = 0; i < p->n; i++) {
        const struct cmp_probe_task *t = &p->task[i];
        double span = t->t1 - t->t0;
        if (span < CMP_PROBE_MIN_S)
            continue; /* seen too briefly to say anything */
        double cpu = (t->cpu1 - t->cpu0) / span, delay = (t->delay1 - t->delay0) / span;
        r->threads++;
        delay_sum += delay;
        if (cpu + delay > r->busiest_cpu + r->busiest_delay) {
            r->busiest_cpu = cpu;
            r->busiest_delay = delay;
        }
    }
    r->mean_delay = r->threads ? delay_sum / r->threads : -1;
}
