/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PV qspinlock's hooks into the shared slow-path skeleton
 * (qspinlock/qspinlock.c).  The skeleton calls them only in its PV
 * instance; without the PV qspinlock (PV_QSPINLOCK) they are empty
 * stubs that the compiler removes.
 */
#ifndef PVQ_PVQSPINLOCK_HOOKS_H
#define PVQ_PVQSPINLOCK_HOOKS_H

#include <linux/types.h>

#include "qspinlock_internal.h"

#ifdef PVQ_PV_QSPINLOCK

/* Record who owns @node, and that it runs. */
void pvq_pv_init_node(struct pvq_mcs_node *node);

/* The one steal attempt on entry: take a free lock unless the head blocks it. */
bool pvq_pv_trylock_steal(struct pvq_qspinlock *lock);

/*
 * Fair entry: before queueing, keep trying to take the free lock for up to
 * pvq_fair_steal_spin loops (the fair_steal_spin parameter; 0: not at all),
 * while there is a queue whose head has not reserved the lock.
 */
#define PVQ_FAIR_STEAL_SPIN_MAX		(1 << 30)	/* as good as unlimited */
extern int pvq_fair_steal_spin;
bool pvq_fair_steal(struct pvq_qspinlock *lock);

/* Queued, not head: spin, then halt until @node->locked is set. */
void pvq_pv_wait_node(struct pvq_mcs_node *node, struct pvq_mcs_node *prev);

/* Queue head: spin, then halt, until we own the lock; returns the lock word. */
u32 pvq_pv_wait_head_or_lock(struct pvq_qspinlock *lock,
			     struct pvq_mcs_node *node);

/* New owner, after passing the head to @node: defer its kick if halted. */
void pvq_pv_kick_node(struct pvq_qspinlock *lock, struct pvq_mcs_node *node);

#endif /* PVQ_PV_QSPINLOCK */

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS

/* Unfair entry: spin stealing the lock until it works or is blocked. */
bool pvq_unfair_steal(struct pvq_qspinlock *lock);

/* Unfair queue head: compete with stealers, block them when starving. */
u32 pvq_unfair_wait_head_or_lock(struct pvq_qspinlock *lock,
				 struct pvq_mcs_node *node);

#else

static inline bool pvq_unfair_steal(struct pvq_qspinlock *lock)
{
	return false;
}

static inline u32 pvq_unfair_wait_head_or_lock(struct pvq_qspinlock *lock,
					       struct pvq_mcs_node *node)
{
	return 0;
}

#endif /* PVQ_PARAVIRT_UNFAIR_LOCKS */

#ifndef PVQ_PV_QSPINLOCK

static inline void pvq_pv_init_node(struct pvq_mcs_node *node)
{
}

static inline bool pvq_pv_trylock_steal(struct pvq_qspinlock *lock)
{
	return false;
}

static inline bool pvq_fair_steal(struct pvq_qspinlock *lock)
{
	return false;
}

static inline void pvq_pv_wait_node(struct pvq_mcs_node *node,
				    struct pvq_mcs_node *prev)
{
}

static inline u32 pvq_pv_wait_head_or_lock(struct pvq_qspinlock *lock,
					   struct pvq_mcs_node *node)
{
	return 0;
}

static inline void pvq_pv_kick_node(struct pvq_qspinlock *lock,
				    struct pvq_mcs_node *node)
{
}

#endif /* !PVQ_PV_QSPINLOCK */

#endif /* PVQ_PVQSPINLOCK_HOOKS_H */
