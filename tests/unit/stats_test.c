/*
 * stats_test.c: unit tests for the differences the reports are made of
 * (core/stats.c): sb_server_counters_diff, member by member (every member
 * gets its own value, so a member read from the wrong place or left out
 * shows; -1, "unknown", in either read gives -1), and sb_snapshot_diff
 * (counters subtract, errors by kind subtract and empty kinds drop out,
 * connection counts stay cumulative).  Expected values are written out
 * by hand.  Prints "N passed, M failed"; exits 1 if anything failed.
 */
#include "../../core/stats.h"

#include <stdio.h>
#include <string.h>

#include <sbench/driver.h>

static int passed, failed;

static void check(int cond, const char *what, long long got, long long want)
{
    if (cond) {
        passed++;
        printf("ok %s\n", what);
    } else {
        failed++;
        printf("FAIL %s: got %lld, want %lld\n", what, got, want);
    }
}

#define EQ(what, got, want) check((long long)(got) == (long long)(want), what, (long long)(got), (long long)(want))

static void server_counters(void)
{
    struct sbd_server_counters before = {.commits = 100, .rollbacks = 7, .selects = 1000,
                                         .inserts = 50, .updates = 60, .deletes = 40,
                                         .statements = 5000};
    struct sbd_server_counters after = {.commits = 131, .rollbacks = 9, .selects = 1410,
                                        .inserts = 53, .updates = 66, .deletes = 41,
                                        .statements = 5620};
    struct sbd_server_counters d;
    memset(&d, 0x5a, sizeof d);
    EQ("no counter went down", sb_server_counters_diff(&d, &after, &before), 0);
    EQ("commits", d.commits, 31);
    EQ("rollbacks", d.rollbacks, 2);
    EQ("selects", d.selects, 410);
    EQ("inserts", d.inserts, 3);
    EQ("updates", d.updates, 6);
    EQ("deletes", d.deletes, 1);
    EQ("statements", d.statements, 620);

    /* unknown in the first read, in the second, in both */
    before.statements = -1;
    after.deletes = -1;
    before.inserts = after.inserts = -1;
    sb_server_counters_diff(&d, &after, &before);
    EQ("statements unknown before", d.statements, -1);
    EQ("deletes unknown after", d.deletes, -1);
    EQ("inserts unknown in both", d.inserts, -1);
    EQ("commits still known", d.commits, 31);
    EQ("updates still known", d.updates, 6);

    /* a server restart: counters below the first read are unknown, never
     * negative, and counted as gone down; one equal stays 0 */
    after.commits = 60;  /* 40 below */
    after.rollbacks = 0; /* 7 below */
    after.updates = 60;  /* equal */
    EQ("two went down", sb_server_counters_diff(&d, &after, &before), 2);
    EQ("commits reset", d.commits, -1);
    EQ("rollbacks reset", d.rollbacks, -1);
    EQ("updates equal", d.updates, 0);
    EQ("selects still known", d.selects, 410);
}

static void snapshot(void)
{
    struct sb_snapshot a = {0}, b = {0}, d;
    a.events = 500;
    b.events = 120;
    for (int k = 0; k < SB_Q_NKINDS; k++) {
        a.queries[k] = 1000 + 10 * k;
        b.queries[k] = 100 + k;
    }
    a.ignored_errors = 9, b.ignored_errors = 4;
    a.reconnects = 3, b.reconnects = 3;
    a.failed_events = 2, b.failed_events = 1;
    a.retried_events = 8, b.retried_events = 5;
    a.late_events = 11, b.late_events = 10;
    a.pipelined = 70, b.pipelined = 20;
    a.busy_ns = 9000, b.busy_ns = 1000;
    a.connects = 4, b.connects = 2;
    a.connect_ns = 400, b.connect_ns = 200;
    /* error kinds: 40001 grew, 40P01 did not (drops out), 23505 is new */
    a.nerrors = 3;
    strcpy(a.errors[0].sqlstate, "40001"), a.errors[0].ignored = 6;
    strcpy(a.errors[1].sqlstate, "40P01"), a.errors[1].ignored = 2;
    strcpy(a.errors[2].sqlstate, "23505"), a.errors[2].ignored = 1, a.errors[2].fatal = 1;
    b.nerrors = 2;
    strcpy(b.errors[0].sqlstate, "40P01"), b.errors[0].ignored = 2;
    strcpy(b.errors[1].sqlstate, "40001"), b.errors[1].ignored = 2;
    sb_snapshot_diff(&d, &a, &b);
    EQ("events", d.events, 380);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        EQ("queries by kind", d.queries[k], 900 + 9 * k);
    EQ("ignored_errors", d.ignored_errors, 5);
    EQ("reconnects", d.reconnects, 0);
    EQ("failed_events", d.failed_events, 1);
    EQ("retried_events", d.retried_events, 3);
    EQ("late_events", d.late_events, 1);
    EQ("pipelined", d.pipelined, 50);
    EQ("busy_ns", d.busy_ns, 8000);
    EQ("connects stay cumulative", d.connects, 4);
    EQ("connect_ns stays cumulative", d.connect_ns, 400);
    EQ("error kinds left", d.nerrors, 2);
    check(strcmp(d.errors[0].sqlstate, "40001") == 0 && strcmp(d.errors[1].sqlstate, "23505") == 0,
          "error kinds kept in order", 0, 0);
    EQ("40001 ignored in the window", d.errors[0].ignored, 4);
    EQ("23505 ignored", d.errors[1].ignored, 1);
    EQ("23505 fatal", d.errors[1].fatal, 1);
}

int main(void)
{
    server_counters();
    snapshot();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
