/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued spinlock internals shared by the slow path, its diagnostics and the
 * tests: the per-CPU MCS queue nodes.
 */
#ifndef PVQ_QSPINLOCK_INTERNAL_H
#define PVQ_QSPINLOCK_INTERNAL_H

#include <linux/percpu.h>
#include "qspinlock_types.h"

struct pvq_mcs_node {
	struct pvq_mcs_node *next;	/* successor in the queue */
	int locked;			/* 1: we are the queue head */
	int count;			/* node 0 only: nodes in use */
};

DECLARE_PER_CPU_ALIGNED(struct pvq_mcs_node, pvq_mcs_nodes[PVQ_MAX_NODES]);

#endif /* PVQ_QSPINLOCK_INTERNAL_H */
