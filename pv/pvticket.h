/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual ticket lock, after the 2013 PV ticketlock series (V9).
 *
 * Tickets advance by 2, so the low bit of the tail is free to serve as the
 * "slowpath" flag: set by a waiter that is about to halt, it tells the
 * unlocker to look for the CPU waiting for the next ticket and kick it.
 * Without halted waiters the flag is clear and unlock is one atomic update.
 * See Documentation/pv.rst.
 */
#ifndef PVQ_PVTICKET_H
#define PVQ_PVTICKET_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "ticket.h"

#define PVQ_PVTICKET_INC	2
#define PVQ_PVTICKET_SLOW_FLAG	1	/* in the tail */

/* Same word as the ticket lock: head in the low half, tail in the high. */
struct pvq_pvticketlock {
	struct pvq_ticketlock tickets;
};

void pvq_pvticket_lock_slowpath(struct pvq_pvticketlock *lock, u16 want);
void pvq_pvticket_unlock_slowpath(struct pvq_pvticketlock *lock, u32 old);

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
	u16 want = pvq_ticket_tail(old) & ~PVQ_PVTICKET_SLOW_FLAG;

	if (likely(pvq_ticket_head(old) == want))
		return;
	pvq_pvticket_lock_slowpath(lock, want);
}

static __always_inline bool pvq_pvticket_trylock(struct pvq_pvticketlock *lock)
{
	int old = atomic_read(&lock->tickets.val);
	u16 tail = pvq_ticket_tail(old) & ~PVQ_PVTICKET_SLOW_FLAG;

	if (pvq_ticket_head(old) != tail)
		return false;
	/* Acquire: the critical section cannot begin before we own the lock. */
	return atomic_try_cmpxchg_acquire(&lock->tickets.val, &old,
					  old + (PVQ_PVTICKET_INC <<
						 PVQ_TICKET_TAIL_SHIFT));
}

static __always_inline bool pvq_pvticket_is_locked(struct pvq_pvticketlock *lock)
{
	u32 val = atomic_read(&lock->tickets.val);

	return pvq_ticket_head(val) !=
	       (pvq_ticket_tail(val) & ~PVQ_PVTICKET_SLOW_FLAG);
}

static __always_inline void pvq_pvticket_unlock(struct pvq_pvticketlock *lock)
{
	int old = atomic_read(&lock->tickets.val);

	PVQ_DEBUG_WARN(!pvq_pvticket_is_locked(lock));
	/*
	 * Fully ordered: the critical section is visible before the next
	 * ticket is served, and the slowpath flag is read in the same atomic
	 * step, after the head moved (a waiter that sets the flag later sees
	 * the new head by itself).  A cmpxchg rather than an add, so that the
	 * head wrapping at 16 bits cannot carry into the tail's flag.
	 */
	while (!atomic_try_cmpxchg(&lock->tickets.val, &old,
				   (old & ~0xffff) |
				   (u16)(pvq_ticket_head(old) + PVQ_PVTICKET_INC)))
		;
	if (unlikely(pvq_ticket_tail(old) & PVQ_PVTICKET_SLOW_FLAG))
		pvq_pvticket_unlock_slowpath(lock, old);
}

#endif /* PVQ_PVTICKET_H */
