/*
 * Event types: names a workload gives its events (sbench.event_type, e.g.
 * the tpcc workload's new_order, payment, ...), so that the final report
 * shows count, latency, retries and failures per type.  The names live in
 * one process-wide registry, so that type i is the same name in every
 * thread and per-thread counters add up by index (core/stats.h).
 *
 * A name is registered the first time any thread uses it (under a mutex,
 * once per name); looking a name up afterwards reads the published names
 * without a lock.
 */
#ifndef SB_EVENT_TYPES_H
#define SB_EVENT_TYPES_H

#define SB_MAX_TYPES 16
#define SB_TYPE_NAME_MAX 40

/* The index of type `name` (registered when new): 0..SB_MAX_TYPES-1, or
 * -1 when the name is empty, too long, or the registry is full. */
int sb_event_type_find(const char *name);
/* Types registered so far (acquire: their names are readable). */
int sb_event_type_count(void);
/* The name of type i (0 <= i < sb_event_type_count()); static storage. */
const char *sb_event_type_name(int i);

#endif
