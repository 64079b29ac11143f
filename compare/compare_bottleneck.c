/*
 * compare_bottleneck.c: what limited a point (a target at a thread count),
 * from the run records compare_exec.c wrote: per run the client's busiest
 * thread's share of the run on a CPU and runnable but waiting for one
 * (compare_probe.c, /proc/PID/task/TID/schedstat), the mean run-delay
 * share of its threads, the machine's busy and steal shares (/proc/stat)
 * and sbench's CPU time.  The medians over the point's repeats decide:
 *
 *   client-bound       the busiest client thread was on a CPU or waiting
 *                      for one >= 80% of the time: it never waited for
 *                      the server, the client is the limit (any number of
 *                      cores: one saturated thread is enough);
 *   server CPU-bound   else, a server on this machine was measured
 *                      (compare_server_probe.c) and its processes alone
 *                      were runnable (on a CPU or waiting for one) for at
 *                      least as many cores as the machine has, and on a
 *                      CPU for >= 80% of them: the server's own work fills
 *                      the cores, the client's waits for a CPU are the
 *                      server's doing (a throughput at the server's
 *                      capacity, not a saturated machine).  Both figures
 *                      are over the server processes' observed lives, so
 *                      a run's idle start and end (connecting, the
 *                      server sampler's last reads) do not dilute them
 *                      as they do the machine's busy share;
 *   machine saturated  else, when the server's processes were runnable
 *   (server starved)   for as many cores as the machine has but on a CPU
 *                      for less than 80% of them: the server wants the
 *                      cores and other work (neighbours, the client) holds
 *                      part of them (runnable tasks do not leave a CPU
 *                      idle; the machine's busy share over the whole run
 *                      is diluted by its idle start and end);
 *   server-bound       else, a server on this machine was measured and its
 *   (server waits)     processes were runnable for under half a core while
 *                      the busiest client thread was busy < 50% of the
 *                      time: neither side was held by the CPU, the
 *                      server's answers take their own time (sleeps,
 *                      locks, slots); the client's waits for a CPU at each
 *                      wake-up on a busy machine cost it nothing then.
 *                      The null driver's model server lives in the client:
 *                      its threads (named SBD_MODEL_SERVER_THREAD) are
 *                      measured as the server's (compare_probe.c), and
 *                      without any (--null-delay-us: its answers wait on
 *                      timers in the client's own threads) it is measured
 *                      as spending nothing;
 *   machine saturated  else, the machine was >= 90% busy and the client's
 *                      threads waited for a CPU >= 10% of the time: client
 *                      and server (and neighbours) share too few cores;
 *   server-bound       else, the busiest client thread was busy < 50% of
 *                      the time: it spent the rest waiting for answers;
 *   nothing            in between: no single part is shown to be the limit.
 *
 * The verdict qualifies the point's throughput; a warning says it once per
 * point with the number of runs in which the rule held.  The server's own
 * evidence (the cause its sampler named, final.server_metrics.cause of the
 * runs' reports, --server-metrics) is given beside it as
 * server_evidence, and a server-bound point's text names it: the cause most
 * of the point's runs named, with how many.
 */
#include "compare.h"

#include <stdio.h>
#include <string.h>

#include "compare_stats.h"

#define CLIENT_BUSY 0.8
#define MACHINE_BUSY 0.9
#define MACHINE_DELAY 0.1
#define SERVER_IDLE 0.5
#define SERVER_ON_CPU 0.8
#define SERVER_IDLE_CORES 0.5

enum kind { NONE, CLIENT, MACHINE, SERVER, SERVER_CPU };

static const char *const kind_names[] = {NULL, "client-bound", "machine saturated", "server-bound",
                                         "server CPU-bound"};

/* What one run's figures say; server_cpu: the local server's cores on a
 * CPU, demand: its runnable cores (CPU + run delay), < 0 when not
 * measured. */
static enum kind classify(double busy, double mean_delay, double machine, double server_cpu, double demand,
                          int cpus)
{
    if (busy >= CLIENT_BUSY)
        return CLIENT;
    if (demand >= cpus && server_cpu >= SERVER_ON_CPU * cpus)
        return SERVER_CPU;
    if (demand >= cpus)
        return MACHINE; /* the server wants the cores, others hold part of them */
    if (demand >= 0 && demand < SERVER_IDLE_CORES && busy < SERVER_IDLE)
        return SERVER; /* a measured server that mostly waits itself */
    if (machine >= MACHINE_BUSY && mean_delay >= MACHINE_DELAY)
        return MACHINE;
    if (busy < SERVER_IDLE)
        return SERVER;
    return NONE;
}

/* 1 when the run's server is the null driver's model, inside the client. */
static int model_server(const json_object *run)
{
    const char *d = sb_json_str(sb_json_at(run, "final.run"), "driver");
    return d != NULL && strcmp(d, "null") == 0;
}

/* The cause a run's report names, or "". */
static const char *cause_of(const json_object *run)
{
    const char *c = sb_json_str(sb_json_at(run, "final.server_metrics"), "cause");
    return c ? c : "";
}

/* The cause most of the point's runs named (their first n, by index in
 * runs; causes that differ only in their figures are the same), and in
 * how many: "" when none was sampled. */
static const char *server_evidence(const json_object *const *which, int n, int *agree)
{
    const char *best = "";
    *agree = 0;
    for (int i = 0; i < n; i++) {
        const char *c = cause_of(which[i]);
        int same = 0;
        for (int j = 0; c[0] && j < n; j++)
            same += cmp_same_cause(c, cause_of(which[j]));
        if (same > *agree) {
            best = c;
            *agree = same;
        }
    }
    return best;
}

/* A point's medians, for its verdict's text. */
struct medians {
    double busy, cpu, delay, mean_delay, machine, steal, client, srv_cpu, srv_delay;
    int srv_measured, cpus;
};

/* The text of verdict k: its evidence in words.  some: the server's
 * evidence was named in only some of the runs. */
static void verdict_text(char *text, size_t len, enum kind k, const struct medians *m, const char *evidence,
                         int some)
{
    double mb = m->busy, mc = m->cpu, md = m->delay, mm = m->mean_delay, mach = m->machine, st = m->steal;
    double cl = m->client, sc = m->srv_cpu, sd = m->srv_delay;
    int cpus = m->cpus;
    char starved[200] = "";
    if (m->srv_measured && sc + sd >= cpus) /* the server wanted the cores: how many it got */
        snprintf(starved, sizeof starved,
                 "; the server's processes wanted %.1f cores and were on a CPU %.1f: other work held the rest",
                 sc + sd, sc);
    if (k == CLIENT)
        snprintf(text, len,
                 "client-bound: the busiest sbench thread was on a CPU or waiting for one %.0f%% of the time "
                 "(on a CPU %.0f%%, waiting %.0f%%), never waiting for the server: the client limits this point%s",
                 mb * 100, mc * 100, md * 100,
                 md >= MACHINE_DELAY * 3 ? "; it mostly waited for a CPU: the machine's cores are saturated" : "");
    else if (k == MACHINE)
        snprintf(text, len,
                 "machine saturated (client and server share %d cores): the machine was %.0f%% busy, sbench used "
                 "%.0f%% of it and its threads waited for a CPU %.0f%% of the time (steal %.0f%%)%s",
                 cpus, mach * 100, mach > 0 ? cl / mach * 100 : 0, mm * 100, st * 100, starved);
    else if (k == SERVER_CPU)
        snprintf(text, len,
                 "server CPU-bound: the server's processes on this machine were on a CPU %.1f cores and waiting "
                 "for one %.1f cores, more than the machine's %d: its own work fills the cores (the machine was "
                 "%.0f%% busy over the whole run, sbench used %.0f%% of it)",
                 sc, sd, cpus, mach * 100, mach > 0 ? cl / mach * 100 : 0);
    else if (k == SERVER)
        snprintf(text, len,
                 "server-bound: the busiest sbench thread was on a CPU or waiting for one only %.0f%% of the time, "
                 "waiting for the server's answers the rest%s%s%.300s%s", mb * 100,
                 m->srv_measured && sc + sd < SERVER_IDLE_CORES
                     ? "; the server on this machine was runnable for under half a core: its answers take their own "
                       "time, not the CPU's"
                     : "",
                 evidence[0] ? "; the server's own evidence: " : "", evidence,
                 evidence[0] && some ? " (in some of the runs)" : "");
}

json_object *cmp_bottleneck(const json_object *runs, const char *wl, int threads, const char *target, int cpus,
                            json_object *warnings)
{
    double busy[CMP_MAX_REPEATS], cpu[CMP_MAX_REPEATS], delay[CMP_MAX_REPEATS], mdelay[CMP_MAX_REPEATS];
    double machine[CMP_MAX_REPEATS], steal[CMP_MAX_REPEATS], client[CMP_MAX_REPEATS];
    double srv_cpu[CMP_MAX_REPEATS], srv_delay[CMP_MAX_REPEATS];
    int nsrv = 0;
    int n = 0, votes[SERVER_CPU + 1] = {0};
    const json_object *first = NULL, *counted[CMP_MAX_REPEATS];
    for (size_t i = 0; i < sb_json_len(runs) && n < CMP_MAX_REPEATS; i++) {
        const json_object *r = sb_json_elem(runs, i), *rec = sb_json_member(r, "record");
        if (strcmp(sb_json_str(r, "workload"), wl) || sb_json_int(r, "threads") != threads ||
            strcmp(sb_json_str(r, "target"), target) || !sb_json_member(rec, "client_busiest_thread_cpu_share"))
            continue; /* runs of an older sbench have no thread figures */
        cpu[n] = sb_json_num(rec, "client_busiest_thread_cpu_share");
        delay[n] = sb_json_num(rec, "client_busiest_thread_delay_share");
        busy[n] = cpu[n] + delay[n];
        mdelay[n] = sb_json_num(rec, "client_mean_run_delay_share");
        machine[n] = sb_json_num(rec, "machine_busy_share");
        steal[n] = sb_json_num(rec, "machine_steal_share");
        client[n] = sb_json_num(rec, "client_cpu_share");
        double demand = -1, on_cpu = 0;
        if (sb_json_member(rec, "server_cpu_cores")) { /* a local server measured */
            srv_cpu[nsrv] = sb_json_num(rec, "server_cpu_cores");
            srv_delay[nsrv] = sb_json_num(rec, "server_run_delay_cores");
            demand = srv_cpu[nsrv] + srv_delay[nsrv];
            on_cpu = srv_cpu[nsrv];
            nsrv++;
        } else if (model_server(r)) { /* the model, without threads of its own: no CPU */
            srv_cpu[nsrv] = srv_delay[nsrv] = 0;
            demand = 0;
            nsrv++;
        }
        votes[classify(busy[n], mdelay[n], machine[n], on_cpu, demand, cpus)]++;
        first = first ? first : r;
        counted[n++] = r;
    }
    if (n == 0)
        return NULL;
    double mb = cmp_median(busy, n), mc = cmp_median(cpu, n), md = cmp_median(delay, n);
    double mm = cmp_median(mdelay, n), mach = cmp_median(machine, n), st = cmp_median(steal, n);
    double cl = cmp_median(client, n);
    double sc = nsrv ? cmp_median(srv_cpu, nsrv) : 0, sd = nsrv ? cmp_median(srv_delay, nsrv) : 0;
    enum kind k = classify(mb, mm, mach, sc, nsrv * 2 > n ? sc + sd : -1, cpus);
    int agree;
    const char *evidence = server_evidence(counted, n, &agree);
    char text[760] = "";
    struct medians m = {mb, mc, md, mm, mach, st, cl, sc, sd, nsrv * 2 > n, cpus};
    verdict_text(text, sizeof text, k, &m, evidence, agree < n);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verdict", cmp_string(kind_names[k]));
    json_object_object_add(o, "runs", json_object_new_int(n));
    json_object_object_add(o, "runs_agreeing", json_object_new_int(votes[k]));
    json_object_object_add(o, "busiest_thread_cpu_share", cmp_real(mc));
    json_object_object_add(o, "busiest_thread_delay_share", cmp_real(md));
    json_object_object_add(o, "mean_run_delay_share", cmp_real(mm));
    json_object_object_add(o, "machine_busy_share", cmp_real(mach));
    json_object_object_add(o, "machine_steal_share", cmp_real(st));
    json_object_object_add(o, "client_cpu_share", cmp_real(cl));
    if (nsrv) {
        json_object_object_add(o, "server_cpu_cores", cmp_real(sc));
        json_object_object_add(o, "server_run_delay_cores", cmp_real(sd));
    }
    json_object_object_add(o, "text", cmp_string(k == NONE ? NULL : text));
    json_object_object_add(o, "server_evidence", cmp_string(evidence[0] ? evidence : NULL));
    if (k == CLIENT || k == MACHINE) { /* what may have spoiled the point: a warning, once */
        char w[860];
        snprintf(w, sizeof w, "%s (in %d of %d runs)", text, votes[k], n);
        cmp_warn(warnings, first, k == CLIENT ? "client_bound" : "machine_saturated", w);
    }
    return o;
}
