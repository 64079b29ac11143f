/*
 * core/event.c's failure policy, on cases whose answer the rules give
 * (core/event.h): which statuses and SQLSTATEs are ignorable, a script's
 * restart request counted as an ignored error and a retry of its event's
 * type until --max-retries makes it failed, the restart hook run once per
 * restart (and a failing hook is fatal), a stop request ending the event
 * uncounted, a fatal SQL error counted by SQLSTATE, and a retried event
 * counted once when it ends well.  The roll back / reconnect branch needs
 * a connection: tests/integration/null-paths.sh and the reliability tests
 * cover it against the null driver and real servers.
 */
#include <string.h>

#include "check.h"
#include "event.h"
#include "event_types.h"

static struct sb_run run;
static struct sb_worker w;
static int hook_calls, hook_result;

static int hook(void *ctx)
{
    (void)ctx;
    hook_calls++;
    return hook_result;
}

static void ignorable(void)
{
    run.nignore_sqlstates = 2;
    memcpy(run.ignore_sqlstates[0], "23505", 6);
    memcpy(run.ignore_sqlstates[1], "40001", 6);
    CHECK(sb_event_error_ignorable(&run, SBD_RETRY, ""), "a deadlock is ignorable");
    CHECK(sb_event_error_ignorable(&run, SBD_CONN_LOST, NULL), "a lost connection is ignorable");
    CHECK(sb_event_error_ignorable(&run, SBD_ERROR, "40001"), "the list's second entry");
    CHECK(!sb_event_error_ignorable(&run, SBD_ERROR, "40P01"), "a SQLSTATE not listed");
    CHECK(!sb_event_error_ignorable(&run, SBD_ERROR, "2350"), "a prefix of a listed one");
    CHECK(!sb_event_error_ignorable(&run, SBD_ERROR, NULL), "no SQLSTATE");
    run.nignore_sqlstates = 0;
    CHECK(!sb_event_error_ignorable(&run, SBD_ERROR, "23505"), "an empty list");
    PASS("ignorable");
}

static void max_retries(void)
{
    int ty = sb_event_type_find("pay");
    CHECK(ty >= 0, "an event type");
    run.max_retries = 2;
    w.event_type = ty;
    struct sb_event_error e = {.restart = 1}; /* the script's own restart */
    int retries = 0;
    hook_calls = 0;
    hook_result = 0;
    CHECK(sb_event_failed(&w, &e, &retries, hook, NULL) == SB_EVENT_RESTART, "1st restart");
    CHECK(sb_event_failed(&w, &e, &retries, hook, NULL) == SB_EVENT_RESTART, "2nd restart");
    CHECK(sb_event_failed(&w, &e, &retries, hook, NULL) == SB_EVENT_FAILED, "3rd: failed");
    CHECK(retries == 3 && hook_calls == 3, "retries %d, hook calls %d", retries, hook_calls);
    CHECK(SB_GET(w.stats.ignored_errors) == 3, "ignored %llu",
          (unsigned long long)SB_GET(w.stats.ignored_errors));
    CHECK(SB_GET(w.stats.types[ty].retries) == 3 && SB_GET(w.stats.types[ty].failed) == 1,
          "type retries %llu failed %llu", (unsigned long long)SB_GET(w.stats.types[ty].retries),
          (unsigned long long)SB_GET(w.stats.types[ty].failed));
    CHECK(SB_GET(w.stats.failed_events) == 1, "one failed event");
    run.max_retries = 0; /* no limit */
    retries = 0;
    for (int i = 0; i < 50; i++)
        CHECK(sb_event_failed(&w, &e, &retries, NULL, NULL) == SB_EVENT_RESTART, "no limit");
    CHECK(SB_GET(w.stats.failed_events) == 1, "still one failed event");
    w.event_type = -1;
    PASS("max_retries");
}

static void hook_stop_fatal(void)
{
    struct sb_event_error e = {.restart = 1};
    int retries = 0;
    uint64_t ignored = SB_GET(w.stats.ignored_errors);
    hook_result = -1;
    CHECK(sb_event_failed(&w, &e, &retries, hook, NULL) == SB_EVENT_FATAL, "a failing hook");
    CHECK(retries == 0, "not a retry");
    hook_result = 0;
    atomic_store(&run.stop, 1);
    CHECK(sb_event_failed(&w, &e, &retries, hook, NULL) == SB_EVENT_STOP, "a stop request");
    CHECK(retries == 0, "a stop is not a retry");
    atomic_store(&run.stop, 0);
    hook_calls = 0;
    struct sb_event_error fatal = {.sql = 1, .status = SBD_ERROR, .sqlstate = "42P01", .native = 7};
    CHECK(sb_event_failed(&w, &fatal, &retries, hook, NULL) == SB_EVENT_FATAL, "not restartable");
    CHECK(hook_calls == 0 && retries == 0, "no hook, no retry");
    CHECK(SB_GET(w.stats.ignored_errors) == ignored + 2, "only the two restart requests ignored");
    int found = 0;
    for (int i = 0; i < SB_GET(w.stats.nerrors); i++)
        if (strcmp(w.stats.errors[i].sqlstate, "42P01") == 0)
            found = SB_GET(w.stats.errors[i].fatal) == 1 && SB_GET(w.stats.errors[i].ignored) == 0;
    CHECK(found, "42P01 counted once as fatal");
    PASS("hook_stop_fatal");
}

static void retried_once(void)
{
    uint64_t before = SB_GET(w.stats.retried_events);
    int retries = 2;
    sb_event_count_retried(&w, &retries);
    sb_event_count_retried(&w, &retries);
    CHECK(retries == 0 && SB_GET(w.stats.retried_events) == before + 1, "counted once");
    PASS("retried_once");
}

int main(void)
{
    w.run = &run;
    w.event_type = -1;
    CHECK(sb_stats_init(&w.stats, 0.01) == 0, "stats");
    ignorable();
    max_retries();
    hook_stop_fatal();
    retried_once();
    sb_stats_free(&w.stats);
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
