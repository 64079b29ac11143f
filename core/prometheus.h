/*
 * prometheus.h: a minimal Prometheus exporter.  A background thread serves
 * GET /metrics over HTTP/1.0 (plain sockets, poll, one connection at a
 * time, bounded reads and deadlines, so a slow or hostile client delays
 * only the next scrape, never the workers), and a formatter writes sbench's
 * counters and latency histogram in the Prometheus text exposition format
 * (version 0.0.4).
 *
 * The collect callback runs on the exporter thread, once per scrape: it
 * must only read what workers publish (relaxed atomics, as struct
 * sb_thread_stats allows), take no lock a worker may hold, and use its own
 * scratch histogram (not the reporter's) when it merges latencies.
 */
#ifndef SB_PROMETHEUS_H
#define SB_PROMETHEUS_H

#include <stddef.h>
#include <stdio.h>

#include "histogram.h"
#include "stats.h"

/* Default listen address: loopback only. */
#define SB_PROM_DEFAULT_LISTEN "127.0.0.1:9273"

/* Writes the whole metrics text to out (called once per scrape). */
typedef void (*sb_prom_collect_fn)(void *ctx, FILE *out);

struct sb_prom;

/*
 * Binds `listen_addr` and starts the exporter thread.  listen_addr is "IPv4:PORT",
 * "[IPv6]:PORT", "localhost:PORT", ":PORT" or "PORT" (the last two bind
 * 127.0.0.1), NULL or "" for SB_PROM_DEFAULT_LISTEN; PORT 0 picks a free
 * port (see sb_prom_port).  Host names other than localhost are refused.
 * Returns a new exporter owned by the caller (sb_prom_stop frees it), or
 * NULL with a one-line message in err (when err is not NULL) for an
 * unparsable address, a bind/listen failure, or no thread/memory.
 */
struct sb_prom *sb_prom_start(const char *listen_addr, sb_prom_collect_fn fn, void *ctx, char *err,
                              size_t errlen);

/* Checks listen_addr as sb_prom_start would parse it, without binding:
 * 0, or -1 with the same one-line message in err. */
int sb_prom_check_addr(const char *listen_addr, char *err, size_t errlen);

/* The bound TCP port (useful after asking for port 0). */
int sb_prom_port(const struct sb_prom *p);

/* Stops the thread (drops a connection in progress), joins it, closes the
 * socket and frees p.  NULL is a no-op. */
void sb_prom_stop(struct sb_prom *p);

/*
 * Writes sbench's metrics, labelled driver="..." and workload="..." (NULL
 * means ""), with HELP and TYPE lines:
 *   counters  sbench_events_total, sbench_failed_events_total,
 *             sbench_queries_total{kind="read|write|other"},
 *             sbench_statements_total{stmt="select|insert|update|delete|begin|commit|rollback|other"},
 *             sbench_ignored_errors_total, sbench_reconnects_total,
 *             sbench_connections_total, sbench_busy_seconds_total
 *   gauge     sbench_elapsed_seconds (s->time)
 *   histogram sbench_event_latency_seconds (when latency_ns is not NULL),
 *             le = 0.0005 0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.5 1 2 5
 *             +Inf, from the HDR buckets: a value is counted under le=b
 *             when its whole HDR bucket is <= b, so a bucket count can lag
 *             by the values within the histogram's precision below b;
 *             _count and +Inf are the sum of the HDR buckets, _sum is the
 *             exact sum of the recorded values in seconds.
 *   summary   sbench_statement_latency_seconds{stmt="select|insert|...",
 *             quantile="0.1|0.25|0.5|0.75|0.9|0.95|0.99|0.999|0.9999"}
 *             (when kind_ns is not NULL; kinds that ran only): each kind's
 *             statement latency since the start, the percentiles sbench's
 *             own reports give (SBK's 10th .. 99.99th), _sum and _count.
 * latency_ns and kind_ns[SB_Q_NKINDS] must not be recorded into meanwhile
 * (pass merged copies).
 */
void sb_prom_format(FILE *out, const struct sb_snapshot *s, const sb_histogram *latency_ns,
                    const sb_histogram *const *kind_ns, const char *driver, const char *workload);

#endif /* SB_PROMETHEUS_H */
