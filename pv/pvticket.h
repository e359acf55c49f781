/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual ticket lock, after Raghavendra K T's "Paravirtualized ticket
 * spinlocks" series (RFC V9, June 2013).
 *
 * Tickets advance by 2, so the low bit of the head is free to serve as the
 * "slowpath" flag: set by a waiter that is about to halt, it tells the
 * unlocker to look for the CPU waiting for the next ticket and kick it.
 * The flag sits in the head (as in the 2015 version of the series), so
 * that unlock is one wait-free xadd on the head that also returns the
 * flag; with the flag in the tail, unlock had to cmpxchg the whole word
 * and retry every time a contender took a ticket meanwhile.
 * See Documentation/pv.rst.
 */
#ifndef PVQ_PVTICKET_H
#define PVQ_PVTICKET_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "../qspinlock/ticket.h"
#include "pvticket_types.h"

void pvq_pvticket_lock_slowpath(struct pvq_pvticketlock *lock, u16 want);
void pvq_pvticket_unlock_slowpath(struct pvq_pvticketlock *lock, u16 head);

/* The ticket now served, without the flag. */
static __always_inline u16 pvq_pvticket_served(u32 val)
{
	return pvq_ticket_head(val) & ~PVQ_PVTICKET_SLOW_FLAG;
}

static __always_inline void pvq_pvticket_init(struct pvq_pvticketlock *lock)
{
	pvq_ticket_init(&lock->tickets);
}

static __always_inline void pvq_pvticket_lock(struct pvq_pvticketlock *lock)
{
	/* Acquire: when our ticket is already served we own the lock. */
	u32 old = atomic_fetch_add_acquire(PVQ_PVTICKET_INC <<
					   PVQ_TICKET_TAIL_SHIFT,
					   &lock->tickets.val);
	u16 want = pvq_ticket_tail(old);

	if (likely(pvq_pvticket_served(old) == want))
		return;
	pvq_pvticket_lock_slowpath(lock, want);
}

static __always_inline bool pvq_pvticket_trylock(struct pvq_pvticketlock *lock)
{
	int old = atomic_read(&lock->tickets.val);

	if (pvq_pvticket_served(old) != pvq_ticket_tail(old))
		return false;
	/* Acquire: the critical section cannot begin before we own the lock. */
	return atomic_try_cmpxchg_acquire(&lock->tickets.val, &old,
					  old + (PVQ_PVTICKET_INC <<
						 PVQ_TICKET_TAIL_SHIFT));
}

static __always_inline bool pvq_pvticket_is_locked(struct pvq_pvticketlock *lock)
{
	u32 val = atomic_read(&lock->tickets.val);

	return pvq_pvticket_served(val) != pvq_ticket_tail(val);
}

/* Somebody besides the owner holds a ticket. */
static __always_inline bool
pvq_pvticket_is_contended(struct pvq_pvticketlock *lock)
{
	u32 val = atomic_read(&lock->tickets.val);

	return (u16)(pvq_ticket_tail(val) - pvq_pvticket_served(val)) >
	       PVQ_PVTICKET_INC;
}

static __always_inline void pvq_pvticket_unlock(struct pvq_pvticketlock *lock)
{
	u16 head;

	PVQ_DEBUG_WARN(!pvq_pvticket_is_locked(lock));
	/*
	 * Fully ordered (xadd): the critical section is visible before the
	 * next ticket is served, and the flag is read in the same atomic
	 * step, after the head moved (a waiter that sets the flag later
	 * sees the new head in its own atomic step).  16 bits wide, so the
	 * head wraps without carrying into the tail, and the flag bit is
	 * left as it is.  One instruction whatever the contenders do.
	 */
	head = xadd(&lock->tickets.head, (u16)PVQ_PVTICKET_INC);
	if (unlikely(head & PVQ_PVTICKET_SLOW_FLAG))
		pvq_pvticket_unlock_slowpath(lock, head);
}

#endif /* PVQ_PVTICKET_H */
