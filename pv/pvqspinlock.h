/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual queued spinlock: fast paths.
 *
 * The lock word is the native one (qspinlock_types.h); the locked byte gains
 * a third value, PVQ_SLOW_VAL, meaning "the queue head is halted and has
 * recorded itself in the hash table: the unlocker must kick it".  Lock and
 * trylock are the native ones; unlock becomes a cmpxchg so that it notices
 * the slow value, except where nothing halts (pvq_pv_runs_native()): there
 * the lock is the native one throughout.  See Documentation/pv.rst.
 */
#ifndef PVQ_PVQSPINLOCK_H
#define PVQ_PVQSPINLOCK_H

#include <linux/atomic.h>
#include <linux/compiler.h>

#include "../qspinlock/qspinlock.h"
#include "pv_ops.h"

#define PVQ_SLOW_VAL		(3U << PVQ_LOCKED_OFFSET)

/*
 * Fair mode: how long (us of starved time, as pvq_head_starving() counts
 * it) a queue head competes with the slow path's one steal attempt before
 * it blocks stealing with the pending bit; 0 blocks at once.  The module
 * parameter fair_bound_us sets it; pvqspinlock.c has the default (out of
 * this header, which every user of a built-in lock includes).
 */
extern int pvq_fair_bound_us;

/*
 * Both modes: between two acquisitions through the queue, at most
 * pass_bound steals past it are counted in the lock word, and each CPU
 * counts one steal past a queue in pass_scale (pvqspinlock.c); the module
 * parameters pass_bound (0: no bound) and pass_scale set them.
 */
#define PVQ_PASS_BOUND_DEFAULT	PVQ_PASSES_MAX
#define PVQ_PASS_SCALE_DEFAULT	16
#define PVQ_PASS_SCALE_MAX	1024
extern int pvq_pass_bound;
extern int pvq_pass_scale;

void pvq_pv_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val);
void pvq_pv_qspin_unlock_slowpath(struct pvq_qspinlock *lock, u8 locked);

/* The lock -> queue head hash table: allocate before first use. */
int pvq_hash_init(void);
void pvq_hash_exit(void);
/* Its number of slots (for tests and diagnostics). */
unsigned long pvq_hash_entries(void);

/*
 * The native word, init and trylock, as asm-generic/qspinlock.h maps the
 * arch_spin_*() verbs: the slow value is a held lock too, and a pending
 * queue head or a queue is somebody besides the owner waiting.
 */
#define pvq_pv_qspin_init(lock)			pvq_qspin_init(lock)
#define pvq_pv_qspin_trylock(lock)		pvq_qspin_trylock(lock)
#define pvq_pv_qspin_is_locked(lock)		pvq_qspin_is_locked(lock)
#define pvq_pv_qspin_is_contended(lock)		pvq_qspin_is_contended(lock)

static __always_inline void pvq_pv_qspin_lock(struct pvq_qspinlock *lock)
{
	pvq_qspin_lock_or(lock, pvq_pv_qspin_lock_slowpath);
}

static __always_inline void pvq_pv_qspin_unlock(struct pvq_qspinlock *lock)
{
	u8 locked;

	/* Nothing halts (pv_ops.h): nobody can have set the slow value. */
	if (pvq_pv_runs_native()) {
		pvq_qspin_unlock(lock);
		return;
	}
	/*
	 * Release: the critical section is visible before the lock is seen
	 * free.  If the byte holds the slow value instead, the cmpxchg fails
	 * and the slow path releases the lock and kicks the halted head.
	 */
	locked = cmpxchg_release(&lock->locked, PVQ_LOCKED_VAL, 0);

	if (likely(locked == PVQ_LOCKED_VAL))
		return;
	pvq_pv_qspin_unlock_slowpath(lock, locked);
}

#endif /* PVQ_PVQSPINLOCK_H */
