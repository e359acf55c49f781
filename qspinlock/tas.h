/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-and-set spinlock: the unfair comparison point.
 *
 * This is what a Linux guest without paravirtual unhalt falls back to
 * (upstream's virt_spin_lock()): whoever runs when the lock comes free takes
 * it.  Robust under vCPU overcommit because a preempted waiter blocks nobody,
 * but with no bound on how long one waiter can be passed over.
 */
#ifndef PVQ_TAS_H
#define PVQ_TAS_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/processor.h>

#include "lock_debug.h"

struct pvq_taslock {
	atomic_t val;		/* 0 free, 1 held */
};

#define PVQ_TASLOCK_UNLOCKED	{ .val = ATOMIC_INIT(0) }

static __always_inline void pvq_tas_init(struct pvq_taslock *lock)
{
	atomic_set(&lock->val, 0);
}

static __always_inline bool pvq_tas_trylock(struct pvq_taslock *lock)
{
	int free = 0;

	/* Read first: spinning on a shared line keeps the bus quiet. */
	if (atomic_read(&lock->val))
		return false;
	/* Acquire: the critical section cannot begin before we own the lock. */
	return atomic_try_cmpxchg_acquire(&lock->val, &free, 1);
}

static __always_inline void pvq_tas_lock(struct pvq_taslock *lock)
{
	while (!pvq_tas_trylock(lock))
		cpu_relax();
}

static __always_inline void pvq_tas_unlock(struct pvq_taslock *lock)
{
	PVQ_DEBUG_WARN(!atomic_read(&lock->val));
	/* Release: the critical section is visible before the lock is free. */
	atomic_set_release(&lock->val, 0);
}

static __always_inline bool pvq_tas_is_locked(struct pvq_taslock *lock)
{
	return atomic_read(&lock->val) != 0;
}

/*
 * Waiters leave no trace in a test-and-set word: never contended, as the
 * kernel's raw_spin_is_contended() answers for a lock that cannot tell.
 */
static __always_inline bool pvq_tas_is_contended(struct pvq_taslock *lock)
{
	return false;
}

#endif /* PVQ_TAS_H */
