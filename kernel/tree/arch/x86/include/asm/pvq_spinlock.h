/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch_spin_*() from the pvqspinlock locks (CONFIG_PVQ_SPINLOCKS): every
 * lock has the same verbs (init, lock, unlock, trylock, is_locked,
 * is_contended) under its own prefix; the options pick the lock, its
 * header and its prefix (asm/pvq_spinlock_types.h, with the lock word).
 * The fast paths are inlined here, the slow paths are in
 * kernel/locking/pvq/.
 */
#ifndef _ASM_X86_PVQ_SPINLOCK_H
#define _ASM_X86_PVQ_SPINLOCK_H

#include <asm/pvq_spinlock_types.h>

/* The verbs of the lock asm/pvq_spinlock_types.h chose. */
#include PVQ_ARCH_SPINLOCK_H

static __always_inline void arch_spin_lock(arch_spinlock_t *lock)
{
	pvq_arch_spin(lock)(lock);
}

static __always_inline int arch_spin_trylock(arch_spinlock_t *lock)
{
	return pvq_arch_spin(trylock)(lock);
}

static __always_inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	pvq_arch_spin(unlock)(lock);
}

static __always_inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	return pvq_arch_spin(is_locked)(lock);
}

static __always_inline int arch_spin_is_contended(arch_spinlock_t *lock)
{
	return pvq_arch_spin(is_contended)(lock);
}

#define arch_spin_is_contended	arch_spin_is_contended

/* lockref tests a copy of the lock word, taken with its count. */
static __always_inline int arch_spin_value_unlocked(arch_spinlock_t lock)
{
	return !pvq_arch_spin(is_locked)(&lock);
}

#endif /* _ASM_X86_PVQ_SPINLOCK_H */
