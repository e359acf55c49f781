/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued spinlock internals shared by the slow path, the PV hooks, their
 * diagnostics and the tests: the per-CPU MCS queue nodes.
 */
#ifndef PVQ_QSPINLOCK_INTERNAL_H
#define PVQ_QSPINLOCK_INTERNAL_H

#include <linux/percpu.h>
#include "qspinlock_types.h"

/* PV state of a queue node's vCPU (PARAVIRT_SPINLOCKS=y). */
enum pvq_vcpu_state {
	PVQ_VCPU_RUNNING = 0,	/* spinning, or about to */
	PVQ_VCPU_HALTED,	/* halted (or about to) in pvq_pv_wait() */
	PVQ_VCPU_HASHED,	/* in the hash table: the unlocker will kick it */
};

struct pvq_mcs_node {
	struct pvq_mcs_node *next;	/* successor in the queue */
	int locked;			/* 1: we are the queue head */
	int count;			/* node 0 only: nodes in use */
#ifdef PVQ_PARAVIRT_SPINLOCKS
	int cpu;			/* owner, for the kick */
	u8 state;			/* enum pvq_vcpu_state */
	u8 pred_hashed;			/* hashed by the previous owner */
#endif
};

DECLARE_PER_CPU_ALIGNED(struct pvq_mcs_node, pvq_mcs_nodes[PVQ_MAX_NODES]);

#endif /* PVQ_QSPINLOCK_INTERNAL_H */
