/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qspinlock_torture: the lock types under test, behind one set of verbs.
 */
#ifndef PVQ_TORTURE_H
#define PVQ_TORTURE_H

#include <linux/cache.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pvq_locks.h"

/* Storage for any lock type under test. */
union torture_lock {
	spinlock_t spin;		/* the running kernel's own lock */
	struct pvq_ticketlock ticket;
	struct pvq_taslock tas;
#ifdef PVQ_QUEUE_SPINLOCK
	struct pvq_qspinlock qspin;	/* also the PV qspinlock */
#endif
#ifdef PVQ_PARAVIRT_SPINLOCKS
	struct pvq_pvticketlock pvticket;
#endif
};

struct torture_lock_ops {
	const char *name;
	void (*init)(union torture_lock *lock);
	void (*lock)(union torture_lock *lock);
	void (*unlock)(union torture_lock *lock);
	/* Raw lock word, for diagnostics. */
	u32 (*word)(union torture_lock *lock);
	/* The word has the queued-spinlock layout (decoded in stall reports). */
	bool queued;
};

/* One lock under test, on its own cache line with its checking state. */
struct torture_slot {
	union torture_lock lock;
	int holder;			/* id of the context inside, -1 when free */
	unsigned long count;		/* plain counter: lost updates show */
} ____cacheline_aligned_in_smp;

/* Work that the compiler cannot remove, of roughly constant cost per loop. */
static inline void torture_work(int loops)
{
	int i;

	for (i = 0; i < loops; i++)
		barrier();
}

const struct torture_lock_ops *torture_find_ops(const char *name);
/* Space-separated names of every built type, for messages. */
const char *torture_type_names(void);

#endif /* PVQ_TORTURE_H */
