/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock event counters (LOCK_STATS=y).
 *
 * Per-CPU counters, bumped without atomics from the lock paths and summed on
 * read (debugfs, or the torture report): the module's own, or, built into
 * the kernel, the kernel's lock events.  With LOCK_STATS=n every call
 * compiles away, so the counters cost nothing in the measured builds.
 */
#ifndef PVQ_LOCK_STATS_H
#define PVQ_LOCK_STATS_H

#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

enum pvq_lock_event {
#define PVQ_LOCK_EVENT(name)	PVQ_EV_##name,
#include "lock_events_list.h"
#undef PVQ_LOCK_EVENT
	PVQ_NR_LOCK_EVENTS
};

#if defined(PVQ_LOCK_STATS) && defined(PVQ_KERNEL_LOCK_EVENTS)

/*
 * Built into the kernel, the counters are the kernel's lock events
 * (CONFIG_LOCK_EVENT_COUNTS), one interface for every lock: the kernel's
 * lock_events_list.h includes lock_events_list.h, ours, naming each
 * counter pvq_<name>, so they are shown and reset in
 * /sys/kernel/debug/lock_event_counts/.  One #include makes them one
 * run of the kernel's lockevents[], in our order, from
 * LOCKEVENT_pvq_slowpath (a build error if the kernel lacks them).
 */
struct file;
#include "../lock_events.h"

#define PVQ_LOCK_EVENT_BASE	(LOCKEVENT_pvq_slowpath - PVQ_EV_slowpath)
#define pvq_lock_event_slot(ev)	lockevents[PVQ_LOCK_EVENT_BASE + (ev)]

#elif defined(PVQ_LOCK_STATS)

/* In the module and in userspace, counters of our own. */
DECLARE_PER_CPU(unsigned long, pvq_lock_events[PVQ_NR_LOCK_EVENTS]);

#define pvq_lock_event_slot(ev)	pvq_lock_events[ev]

#endif

#ifdef PVQ_LOCK_STATS

static __always_inline void pvq_stat_add(enum pvq_lock_event ev,
					 unsigned long n)
{
	/* Racy against interrupts by design: a rare lost count is harmless. */
	raw_cpu_add(pvq_lock_event_slot(ev), n);
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

/* A timestamp for time-valued counters; 0 (and free) without LOCK_STATS. */
static __always_inline u64 pvq_stat_clock(void)
{
#ifdef PVQ_LOCK_STATS
	return local_clock();
#else
	return 0;
#endif
}

#define pvq_stat_inc(ev)	pvq_stat_add(PVQ_EV_##ev, 1)

extern const char *const pvq_lock_event_names[PVQ_NR_LOCK_EVENTS];

#endif /* PVQ_LOCK_STATS_H */
