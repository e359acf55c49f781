/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock event counters (LOCK_STATS=y).
 *
 * Per-CPU counters, bumped without atomics from the lock paths and summed on
 * read (debugfs, or the torture report).  With LOCK_STATS=n every call
 * compiles away, so the counters cost nothing in the measured builds.
 */
#ifndef PVQ_LOCK_STATS_H
#define PVQ_LOCK_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

/* name, meaning: the single list every consumer is generated from. */
#define PVQ_LOCK_EVENTS(EV)						\
	EV(slowpath,	"qspinlock acquisitions that left the fast path")	\
	EV(pending,	"acquired through the pending bit, without queueing")	\
	EV(node_idx1,	"queued with MCS node 1 (task context)")		\
	EV(node_idx2,	"queued with MCS node 2 (first nested context)")	\
	EV(node_idx3,	"queued with MCS node 3")				\
	EV(node_idx4,	"queued with MCS node 4 (fourth nesting)")		\
	EV(nest_overflow, "a fifth nesting level spun on trylock instead")

#define PVQ_EV_ENUM(name, help)	PVQ_EV_##name,
enum pvq_lock_event {
	PVQ_LOCK_EVENTS(PVQ_EV_ENUM)
	PVQ_NR_LOCK_EVENTS
};
#undef PVQ_EV_ENUM

#ifdef PVQ_LOCK_STATS

DECLARE_PER_CPU(unsigned long, pvq_lock_events[PVQ_NR_LOCK_EVENTS]);

static __always_inline void pvq_stat_add(enum pvq_lock_event ev,
					 unsigned long n)
{
	/* Racy against interrupts by design: a rare lost count is harmless. */
	raw_cpu_add(pvq_lock_events[ev], n);
}

unsigned long pvq_lock_event_sum(enum pvq_lock_event ev);
void pvq_lock_events_reset(void);

#else

static __always_inline void pvq_stat_add(enum pvq_lock_event ev,
					 unsigned long n)
{
}

static inline unsigned long pvq_lock_event_sum(enum pvq_lock_event ev)
{
	return 0;
}

static inline void pvq_lock_events_reset(void)
{
}

#endif /* PVQ_LOCK_STATS */

#define pvq_stat_inc(ev)	pvq_stat_add(PVQ_EV_##ev, 1)

extern const char *const pvq_lock_event_names[PVQ_NR_LOCK_EVENTS];

#endif /* PVQ_LOCK_STATS_H */
