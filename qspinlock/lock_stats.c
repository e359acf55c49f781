// SPDX-License-Identifier: GPL-2.0
/*
 * Lock event counters: storage, summing and reset.  The debugfs files that
 * expose them are module glue and live in module/debugfs.c.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>

#include "lock_stats.h"

const char *const pvq_lock_event_names[PVQ_NR_LOCK_EVENTS] = {
#define PVQ_LOCK_EVENT(name) \
	[PVQ_EV_##name] = #name,
#include "lock_events_list.h"
#undef PVQ_LOCK_EVENT
};

#ifdef PVQ_LOCK_STATS

#ifndef PVQ_KERNEL_LOCK_EVENTS
DEFINE_PER_CPU(unsigned long, pvq_lock_events[PVQ_NR_LOCK_EVENTS]);
#endif

unsigned long pvq_lock_event_sum(enum pvq_lock_event ev)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(pvq_lock_event_slot(ev), cpu));
	return sum;
}

/* Not atomic against concurrent lock traffic: counts racing a reset may survive. */
void pvq_lock_events_reset(void)
{
	int cpu, ev;

	for_each_possible_cpu(cpu)
		for (ev = 0; ev < PVQ_NR_LOCK_EVENTS; ev++)
			WRITE_ONCE(per_cpu(pvq_lock_event_slot(ev), cpu), 0);
}

#endif /* PVQ_LOCK_STATS */
