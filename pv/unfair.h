/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unfair PV queued spinlock (PARAVIRT_UNFAIR_LOCKS=y): the PV qspinlock's
 * lock word and unlock, with lock stealing and a starvation bound.
 *
 * A contender that finds the lock held spins trying to steal it (one
 * cmpxchg on the locked byte whenever it is free, queue or no queue) for up
 * to spin_threshold loops before it queues.  The queue head competes with
 * the stealers on equal terms until it has waited starvation_bound_us; then
 * it sets the pending bit, which stops all stealing until it has the lock.
 * See Documentation/unfair.rst.
 */
#ifndef PVQ_UNFAIR_H
#define PVQ_UNFAIR_H

#include "pvqspinlock.h"

/* How long a queue head tolerates stealing before it blocks it. */
#define PVQ_STARVATION_BOUND_US_DEFAULT	50
extern int pvq_starvation_bound_us;

/* How many loops a contender spins trying to steal before it queues. */
#define PVQ_STEAL_SPIN_DEFAULT		128
extern int pvq_steal_spin;

/*
 * How many times a CPU may steal past queued waiters before it must queue
 * itself (the count restarts when it gets the lock through the queue).
 */
#define PVQ_STEAL_BUDGET_DEFAULT	8
#define PVQ_STEAL_BUDGET_MAX		(1 << 30)	/* as good as unlimited */
extern int pvq_steal_budget;

void pvq_unfair_lock_slowpath(struct pvq_qspinlock *lock, u32 val);

static __always_inline void pvq_unfair_init(struct pvq_qspinlock *lock)
{
	pvq_qspin_init(lock);
}

/* The PV trylock: a free word only, never past a queue. */
static __always_inline bool pvq_unfair_trylock(struct pvq_qspinlock *lock)
{
	return pvq_pvqspin_trylock(lock);
}

static __always_inline bool pvq_unfair_is_locked(struct pvq_qspinlock *lock)
{
	return pvq_pvqspin_is_locked(lock);
}

/* Stealers leave no trace in the word: only the pending head and the queue. */
static __always_inline bool pvq_unfair_is_contended(struct pvq_qspinlock *lock)
{
	return pvq_pvqspin_is_contended(lock);
}

static __always_inline void pvq_unfair_lock(struct pvq_qspinlock *lock)
{
	int val;

	if (pvq_qspin_lock_fast(lock, &val))
		return;
	pvq_unfair_lock_slowpath(lock, val);
}

/* The PV unlock: a halted queue head is kicked in either mode. */
static __always_inline void pvq_unfair_unlock(struct pvq_qspinlock *lock)
{
	pvq_pvqspin_unlock(lock);
}

#endif /* PVQ_UNFAIR_H */
