// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko: diagnostics for the torture module's stall report
 * (pvq_diag.h).  They print, so they are glue, not algorithm.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "glue.h"
#include "pvq_diag.h"

void pvq_diag_print_qspinlock_word(const char *prefix, u32 val)
{
	u32 tail = val & PVQ_TAIL_MASK;

	pr_alert("%slock word %#010x: locked=%u pending=%u tail=%s%d/%u\n",
		 prefix, val, val & PVQ_LOCKED_MASK,
		 (val & PVQ_PENDING_MASK) >> PVQ_PENDING_OFFSET,
		 tail ? "cpu " : "none ",
		 tail ? (int)(tail >> PVQ_TAIL_CPU_OFFSET) - 1 : 0,
		 (tail & PVQ_TAIL_IDX_MASK) >> PVQ_TAIL_IDX_OFFSET);
}
EXPORT_SYMBOL_GPL(pvq_diag_print_qspinlock_word);

void pvq_diag_print_queues(const char *prefix)
{
	int cpu;

	/* Offline CPUs too: a waiter stranded on one would show here. */
	for_each_possible_cpu(cpu) {
		if (PVQ_BUILT(QUEUE_SPINLOCK))
			pvq_diag_print_nodes(prefix, cpu);
		if (PVQ_BUILT(PARAVIRT_SPINLOCKS) && pvq_pv_halted_on(cpu))
			pr_alert("%scpu %d halted in pv wait\n", prefix, cpu);
	}
}
EXPORT_SYMBOL_GPL(pvq_diag_print_queues);

void pvq_diag_kick_all(void)
{
	int cpu;

	/* First: the kicks also wake its victims. */
	if (PVQ_BUILT(TORTURE_FAULTS))
		pvq_fault_rescue();
	if (!PVQ_BUILT(PARAVIRT_SPINLOCKS))
		return;
	/*
	 * And a CPU outside the online mask that is halted in a wait: on kvm
	 * a CPU coming up or going down may wait there (pv_backends.c).
	 */
	for_each_possible_cpu(cpu)
		if (cpu_online(cpu) || pvq_pv_halted_on(cpu))
			pvq_pv_kick(cpu);
}
EXPORT_SYMBOL_GPL(pvq_diag_kick_all);
