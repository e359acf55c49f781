/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued spinlock internals shared by the slow path, the PV hooks, their
 * diagnostics and the tests: the per-CPU MCS queue nodes.
 */
#ifndef PVQ_QSPINLOCK_INTERNAL_H
#define PVQ_QSPINLOCK_INTERNAL_H

#include <linux/percpu.h>
#include "qspinlock_types.h"

/* PV state of a queue node's vCPU (the PV qspinlock, PV_QSPINLOCK). */
enum pvq_vcpu_state {
	PVQ_VCPU_RUNNING = 0,	/* spinning, or about to */
	PVQ_VCPU_HALTED,	/* halted (or about to) in pvq_pv_wait() */
	PVQ_VCPU_HASHED,	/* in the hash table: the unlocker will kick it */
};

/*
 * A power-of-two size (16 bytes native, 32 with the PV fields), so that
 * the nodes tile their cache lines and none straddles two: a waiter spins
 * on one line and its predecessor writes one line.  The per-CPU array is
 * cache-line aligned and a whole number of lines long, and per-CPU data
 * that other CPUs write (kick times, strict kick counts, pvticket records)
 * sits on lines of its own.
 */
#ifdef PVQ_PV_QSPINLOCK
#define PVQ_MCS_NODE_ALIGN	32
#else
#define PVQ_MCS_NODE_ALIGN	16
#endif

struct pvq_mcs_node {
	struct pvq_mcs_node *next;	/* successor in the queue */
	int locked;			/* 1: we are the queue head */
	int count;			/* node 0 only: nodes in use */
#ifdef PVQ_PV_QSPINLOCK
	int cpu;			/* owner, for the kick */
	u8 state;			/* enum pvq_vcpu_state */
	u8 pred_hashed;			/* hashed by the previous owner */
#endif
} __aligned(PVQ_MCS_NODE_ALIGN);

DECLARE_PER_CPU_ALIGNED(struct pvq_mcs_node, pvq_mcs_nodes[PVQ_MAX_NODES]);

#endif /* PVQ_QSPINLOCK_INTERNAL_H */
