// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line slow paths of the lock types fastpath.c measures.  An
 * uncontended lock never reaches them, so here each one only reports that
 * the benchmark's premise broke and aborts.  This also keeps the benchmark
 * independent of which slow-path sources the shim can build (the PV slow
 * paths need a halt/kick backend, which an uncontended lock never uses).
 */
#include <linux/compiler.h>
#include <linux/types.h>

#include "pvq_locks.h"

#include "shim.h"

/* Only the queued and PV locks have out-of-line slow paths. */
#if defined(PVQ_QUEUE_SPINLOCK) || defined(PVQ_PARAVIRT_SPINLOCKS)
static __noreturn __cold void premise_broken(const char *what)
{
	shim_die("fastpath: %s reached its slow path: the lock was not uncontended",
		 what);
}
#endif

#ifdef PVQ_QUEUE_SPINLOCK
void pvq_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	premise_broken("qspinlock lock");
}
#endif

#ifdef PVQ_PARAVIRT_SPINLOCKS
/*
 * pv/pv_ops.h: false, as with a backend that halts: the PV types unlock
 * with their cmpxchg here.  pvq_fastpath.ko (bench/kfastpath.c) measures
 * them with the key set too, as the kernel patches it.
 */
struct static_key_true pvq_pv_native = { false };

void pvq_pvticket_lock_slowpath(struct pvq_pvticketlock *lock, u16 want)
{
	premise_broken("pvticket lock");
}

void pvq_pvticket_unlock_slowpath(struct pvq_pvticketlock *lock, u16 head)
{
	premise_broken("pvticket unlock");
}
#endif

#ifdef PVQ_PV_QSPINLOCK
void pvq_pv_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	premise_broken("pvqspinlock lock");
}

void pvq_pv_qspin_unlock_slowpath(struct pvq_qspinlock *lock, u8 locked)
{
	premise_broken("pvqspinlock unlock");
}
#endif

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
void pvq_pv_qspin_unfair_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	premise_broken("pvqspinlock_unfair lock");
}
#endif
