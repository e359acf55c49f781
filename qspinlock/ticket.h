/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ticket spinlock: the strictly FIFO baseline.
 *
 * A contender takes the next ticket from the tail half and waits until the
 * head half shows it; unlock advances the head.  Fair, and therefore the
 * lock that collapses under vCPU overcommit: when the next ticket holder's
 * vCPU is preempted, everybody behind it waits for the host to run it again.
 *
 * Like arch_spin_lock(), callers disable preemption around the lock.
 */
#ifndef PVQ_TICKET_H
#define PVQ_TICKET_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include "ticket_types.h"
#include "lock_debug.h"

static __always_inline u16 pvq_ticket_head(u32 val)
{
	return (u16)val;
}

static __always_inline u16 pvq_ticket_tail(u32 val)
{
	return (u16)(val >> PVQ_TICKET_TAIL_SHIFT);
}

static __always_inline void pvq_ticket_init(struct pvq_ticketlock *lock)
{
	atomic_set(&lock->val, 0);
}

static __always_inline void pvq_ticket_lock(struct pvq_ticketlock *lock)
{
	/*
	 * Acquire: when our ticket is already being served we own the lock
	 * without any further read.  The tail wraps at 16 bits, which is
	 * fine while fewer than 64K CPUs wait at once.
	 */
	u32 old = atomic_fetch_add_acquire(PVQ_TICKET_ONE, &lock->val);
	u16 me = pvq_ticket_tail(old);

	if (likely(pvq_ticket_head(old) == me))
		return;
	/* Acquire: pairs with the release in pvq_ticket_unlock(). */
	smp_cond_load_acquire(&lock->head, VAL == me);
}

static __always_inline bool pvq_ticket_trylock(struct pvq_ticketlock *lock)
{
	int old = atomic_read(&lock->val);

	if (pvq_ticket_head(old) != pvq_ticket_tail(old))
		return false;
	/* Acquire: the critical section cannot begin before we own the lock. */
	return atomic_try_cmpxchg_acquire(&lock->val, &old,
					  old + PVQ_TICKET_ONE);
}

static __always_inline bool pvq_ticket_is_locked(struct pvq_ticketlock *lock)
{
	u32 val = atomic_read(&lock->val);

	return pvq_ticket_head(val) != pvq_ticket_tail(val);
}

static __always_inline void pvq_ticket_unlock(struct pvq_ticketlock *lock)
{
	/* A free ticket lock has head == tail: unlocking it skips a ticket. */
	PVQ_DEBUG_WARN(!pvq_ticket_is_locked(lock));
	/*
	 * Release: the critical section is visible before the next ticket is
	 * served.  Only the owner writes the head half, so a plain read of it
	 * is stable; contenders only add to the tail half.
	 */
	smp_store_release(&lock->head, (u16)(READ_ONCE(lock->head) + 1));
}

static __always_inline bool pvq_ticket_is_contended(struct pvq_ticketlock *lock)
{
	u32 val = atomic_read(&lock->val);

	return (u16)(pvq_ticket_tail(val) - pvq_ticket_head(val)) > 1;
}

#endif /* PVQ_TICKET_H */
