// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko, QUEUE_SPINLOCK=y: the per-CPU MCS queue nodes in a stall
 * report (diag.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/percpu.h>

#include "glue.h"
#include "qspinlock_internal.h"

static void pvq_diag_print_node(const char *prefix, int cpu, int idx)
{
	struct pvq_mcs_node *node = per_cpu_ptr(&pvq_mcs_nodes[idx], cpu);

#ifdef PVQ_PV_QSPINLOCK
	static const char *const states[] = { "running", "halted", "hashed" };
	u8 state = READ_ONCE(node->state);

	pr_alert("%scpu %d node %d: locked=%d next=%s%d state=%s\n", prefix,
		 cpu, idx, READ_ONCE(node->locked),
		 node->next ? "cpu " : "none ",
		 node->next ? READ_ONCE(node->next->cpu) : 0,
		 state < ARRAY_SIZE(states) ? states[state] : "?");
#else
	pr_alert("%scpu %d node %d: locked=%d next=%s\n", prefix, cpu, idx,
		 READ_ONCE(node->locked), node->next ? "set" : "none");
#endif
}

void pvq_diag_print_nodes(const char *prefix, int cpu)
{
	int idx, used = READ_ONCE(per_cpu_ptr(&pvq_mcs_nodes[0], cpu)->count);

	/* Cannot happen (see Documentation/pv.rst); say so loudly if it does. */
	if (used && !cpu_online(cpu))
		pr_alert("%scpu %d is OFFLINE with %d MCS nodes in use\n",
			 prefix, cpu, used);
	for (idx = 0; idx < min(used, PVQ_MAX_NODES); idx++)
		pvq_diag_print_node(prefix, cpu, idx);
}
