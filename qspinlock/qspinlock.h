/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued spinlock: fast paths.
 *
 * The uncontended lock is one cmpxchg and the unlock one release store; all
 * contention is handled out of line in pvq_qspin_lock_slowpath().
 *
 * Like arch_spin_lock(), these functions expect the caller to have disabled
 * preemption (and interrupts, if the lock is also taken from interrupt
 * context): a task that migrates while queued would corrupt the per-CPU
 * queue nodes.
 */
#ifndef PVQ_QSPINLOCK_H
#define PVQ_QSPINLOCK_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include "qspinlock_types.h"
#include "lock_debug.h"

void pvq_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val);

static __always_inline void pvq_qspin_init(struct pvq_qspinlock *lock)
{
	atomic_set(&lock->val, 0);
}

/* Held, being handed over, or with waiters queued: anything but free. */
static __always_inline bool pvq_qspin_is_locked(struct pvq_qspinlock *lock)
{
	return atomic_read(&lock->val) != 0;
}

/* Somebody besides the owner wants the lock (pending or queued). */
static __always_inline bool pvq_qspin_is_contended(struct pvq_qspinlock *lock)
{
	return (atomic_read(&lock->val) & ~PVQ_LOCKED_MASK) != 0;
}

static __always_inline bool pvq_qspin_trylock(struct pvq_qspinlock *lock)
{
	int val = atomic_read(&lock->val);

	/* Do not disturb the cache line with an RMW that is bound to fail. */
	if (unlikely(val))
		return false;
	/* Acquire: the critical section cannot begin before we own the lock. */
	return likely(atomic_try_cmpxchg_acquire(&lock->val, &val,
						 PVQ_LOCKED_VAL));
}

/*
 * The acquisition every queued lock (native, PV, unfair) starts with: the
 * uncontended cmpxchg, else that lock's @slowpath with the lock word seen.
 * Always inlined with a constant @slowpath, so the call is a direct one.
 */
static __always_inline void
pvq_qspin_lock_or(struct pvq_qspinlock *lock,
		  void (*slowpath)(struct pvq_qspinlock *lock, u32 val))
{
	int val = 0;

	/* Acquire: the critical section cannot begin before we own the lock. */
	if (likely(atomic_try_cmpxchg_acquire(&lock->val, &val,
					      PVQ_LOCKED_VAL)))
		return;
	slowpath(lock, val);
}

static __always_inline void pvq_qspin_lock(struct pvq_qspinlock *lock)
{
	pvq_qspin_lock_or(lock, pvq_qspin_lock_slowpath);
}

static __always_inline void pvq_qspin_unlock(struct pvq_qspinlock *lock)
{
	/* Unlocking a lock nobody holds corrupts the next hand-over. */
	PVQ_DEBUG_WARN(!READ_ONCE(lock->locked));
	/*
	 * Release: every access of the critical section is visible before
	 * the next owner can see the locked byte clear.  Only the locked byte
	 * is written, so concurrent pending/tail updates are never undone.
	 */
	smp_store_release(&lock->locked, 0);
}

#endif /* PVQ_QSPINLOCK_H */
