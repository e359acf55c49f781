/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unfair PV queued spinlock (PARAVIRT_UNFAIR_LOCKS=y): the PV qspinlock's
 * lock word and unlock, with lock stealing and a starvation bound.
 *
 * A contender that finds the lock held spins trying to steal it (one
 * cmpxchg of the whole lock word whenever the lock is free, queue or no
 * queue, counted against the pass bound past a queue) for up to unfair_steal_spin
 * loops before it queues.  The queue head competes with the stealers until
 * it has been starved for unfair_bound_us; then it sets the pending
 * bit, which stops all stealing until it has the lock.  See
 * Documentation/unfair.rst and, for the pass bound, Documentation/pv.rst.
 */
#ifndef PVQ_PVQSPINLOCK_UNFAIR_H
#define PVQ_PVQSPINLOCK_UNFAIR_H

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
 * 1024, not 8: the budget is renewed so rarely under overcommit that 8
 * was as good as none, and 1024 ran 1.05-1.12 x test-and-set at 2x and
 * 1.66-1.68 x at 4x where 8 ran 0.91-0.98 and 1.22-1.28
 * (Documentation/performance.rst).
 */
#define PVQ_STEAL_BUDGET_DEFAULT	1024
#define PVQ_STEAL_BUDGET_MAX		(1 << 30)	/* as good as unlimited */
extern int pvq_steal_budget;

void pvq_pv_qspin_unfair_lock_slowpath(struct pvq_qspinlock *lock, u32 val);

/*
 * The PV qspinlock's verbs but lock: its trylock takes a free word only,
 * never past a queue; stealers leave no trace in the word, so contended
 * means a pending head or a queue; its unlock kicks a halted queue head
 * in either mode.
 */
#define pvq_pv_qspin_unfair_init(lock)		pvq_pv_qspin_init(lock)
#define pvq_pv_qspin_unfair_trylock(lock)	pvq_pv_qspin_trylock(lock)
#define pvq_pv_qspin_unfair_is_locked(lock)	pvq_pv_qspin_is_locked(lock)
#define pvq_pv_qspin_unfair_is_contended(lock)	pvq_pv_qspin_is_contended(lock)
#define pvq_pv_qspin_unfair_unlock(lock)	pvq_pv_qspin_unlock(lock)

static __always_inline void pvq_pv_qspin_unfair_lock(struct pvq_qspinlock *lock)
{
	pvq_qspin_lock_or(lock, pvq_pv_qspin_unfair_lock_slowpath);
}

#endif /* PVQ_PVQSPINLOCK_UNFAIR_H */
