// SPDX-License-Identifier: GPL-2.0
/*
 * Queued spinlock: the contended (slow) path.
 *
 * A contender first tries to become the single "pending" waiter, which spins
 * on the lock word itself; this avoids touching an MCS node when only two
 * CPUs compete.  Any further contender queues on an MCS list whose tail is
 * encoded in the lock word; every queued CPU spins on its own node, and only
 * the queue head spins on the lock word.
 *
 * Each CPU owns PVQ_MAX_NODES nodes, one per context that can nest a lock
 * acquisition (task, softirq, hardirq, NMI).  Node 0 also counts how many
 * are in use.  See Documentation/qspinlock.rst.
 *
 * The paravirtual qspinlock shares this skeleton: pvq_slowpath() takes
 * compile-time constants @pv and @unfair, and its PV instances call the
 * hooks of pv/pvqspinlock.c (halt instead of spinning forever, kick on
 * hand-over) where the native instance spins; the unfair instance also
 * lets contenders steal the lock.  See Documentation/pv.rst and
 * Documentation/unfair.rst.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/smp.h>
#include <asm/processor.h>

#include "qspinlock.h"
#include "qspinlock_internal.h"
#include "lock_stats.h"
#include "pvqspinlock_hooks.h"
#ifdef PVQ_PV_QSPINLOCK
#include "pvqspinlock.h"
#endif
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
#include "pvqspinlock_unfair.h"
#endif

/*
 * How long a contender waits for a pending -> locked hand-over that is
 * already in progress before it gives up and queues.  The hand-over is a
 * handful of instructions on the other CPU, so a short bounded wait is cheaper
 * than the cache misses of queueing.
 */
#define PVQ_PENDING_LOOPS	(1 << 9)

DEFINE_PER_CPU_ALIGNED(struct pvq_mcs_node, pvq_mcs_nodes[PVQ_MAX_NODES]);

static __always_inline u32 pvq_encode_tail(int cpu, int idx)
{
	/* cpu + 1, so that a tail of 0 means "no queue". */
	return ((u32)(cpu + 1) << PVQ_TAIL_CPU_OFFSET) |
	       ((u32)idx << PVQ_TAIL_IDX_OFFSET);
}

static __always_inline struct pvq_mcs_node *pvq_decode_tail(u32 tail)
{
	int cpu = (tail >> PVQ_TAIL_CPU_OFFSET) - 1;
	int idx = (tail & PVQ_TAIL_IDX_MASK) >> PVQ_TAIL_IDX_OFFSET;

	return per_cpu_ptr(&pvq_mcs_nodes[idx], cpu);
}

/* Undo our own pending bit; only its owner ever writes the pending byte. */
static __always_inline void pvq_clear_pending(struct pvq_qspinlock *lock)
{
	WRITE_ONCE(lock->pending, 0);
}

/*
 * The pending waiter takes the lock: locked = 1 and pending = 0 in one
 * 16-bit store.  Safe without an RMW because the locked byte is 0 and we own
 * the pending byte; the tail half may change concurrently and is not touched.
 */
static __always_inline void pvq_clear_pending_set_locked(struct pvq_qspinlock *lock)
{
	WRITE_ONCE(lock->locked_pending, PVQ_LOCKED_VAL);
}

/* The queue head takes the lock while others stay queued behind it. */
static __always_inline void pvq_set_locked(struct pvq_qspinlock *lock)
{
	WRITE_ONCE(lock->locked, PVQ_LOCKED_VAL);
}

/*
 * Publish @tail as the new queue tail and return the previous one.  Relaxed:
 * the caller's smp_wmb() orders its node initialisation before this, and
 * nothing after it depends on the old value other than through the address
 * dependency of the predecessor's node.
 */
static __always_inline u32 pvq_xchg_tail(struct pvq_qspinlock *lock, u32 tail)
{
	u16 old = xchg_relaxed(&lock->tail, (u16)(tail >> PVQ_TAIL_OFFSET));

	return (u32)old << PVQ_TAIL_OFFSET;
}

/*
 * Try to become the pending waiter.  Returns true once the lock is ours,
 * false if the caller must queue; *val is the lock word last seen.
 */
static __always_inline bool pvq_pending_acquire(struct pvq_qspinlock *lock,
						u32 *val)
{
	u32 v = *val;

	/* A pending -> locked hand-over is in flight: let it finish. */
	if (v == PVQ_PENDING_VAL) {
		int loops = PVQ_PENDING_LOOPS;

		v = atomic_cond_read_relaxed(&lock->val,
					     VAL != PVQ_PENDING_VAL || !--loops);
	}

	/* Somebody is pending or queued already: join the queue. */
	if (v & ~PVQ_LOCKED_MASK)
		goto queue;

	/* Acquire: if the lock turns out free, we own it from here on. */
	v = atomic_fetch_or_acquire(PVQ_PENDING_VAL, &lock->val);
	if (unlikely(v & ~PVQ_LOCKED_MASK)) {
		/* Lost a race against another contender: back off and queue. */
		if (!(v & PVQ_PENDING_MASK))
			pvq_clear_pending(lock);
		goto queue;
	}

	/* Acquire: pairs with the owner's release in pvq_qspin_unlock(). */
	if (v & PVQ_LOCKED_MASK)
		smp_cond_load_acquire(&lock->locked, !VAL);

	pvq_clear_pending_set_locked(lock);
	pvq_stat_inc(pending);
	return true;
queue:
	*val = v;
	return false;
}

/*
 * Take the lock as the queue head: the lock word shows neither owner nor
 * pending waiter.  If we are also the tail, the queue can be emptied in the
 * same cmpxchg; otherwise the MCS lock is passed to our successor.
 */
static __always_inline void pvq_head_acquire(struct pvq_qspinlock *lock,
					     struct pvq_mcs_node *node,
					     struct pvq_mcs_node *next,
					     u32 tail, int val, const bool pv)
{
	/*
	 * Relaxed: the acquire read that observed the lock free already
	 * ordered our critical section after the previous owner's.
	 */
	if ((val & PVQ_TAIL_MASK) == tail &&
	    atomic_try_cmpxchg_relaxed(&lock->val, &val, PVQ_LOCKED_VAL))
		return;

	/* Somebody queued behind us (or is about to link in). */
	if (!pv)
		pvq_set_locked(lock);	/* PV: the head wait already did */
	if (!next)
		next = smp_cond_load_relaxed(&node->next, VAL);

	/* Fault build: maybe withhold the hand-over (lock_debug.h). */
	if (pvq_fault_skip_handoff(lock, &next->locked))
		return;
	/*
	 * Release: our locked-byte store must be visible before the successor
	 * becomes head and starts watching the lock word; otherwise it could
	 * see the lock free and take it too.
	 */
	smp_store_release(&next->locked, 1);
	if (pv)
		pvq_pv_kick_node(lock, next);
}

static __always_inline void pvq_queue_acquire(struct pvq_qspinlock *lock,
					      struct pvq_mcs_node *node,
					      u32 tail, const bool pv,
					      const bool unfair)
{
	struct pvq_mcs_node *prev, *next = NULL;
	u32 old;
	int val;

	node->locked = 0;
	node->next = NULL;
	if (pv)
		pvq_pv_init_node(node);

	/*
	 * The node was probably cold: the lock may have come free meanwhile.
	 * PV: this is the one steal attempt of the PV slow path.
	 */
	if (pv ? pvq_pv_trylock_steal(lock) : pvq_qspin_trylock(lock))
		return;

	/*
	 * The node must be initialised before it can be reached through the
	 * tail: a successor writes our ->next as soon as it sees our tail.
	 */
	smp_wmb();
	old = pvq_xchg_tail(lock, tail);

	if (old & PVQ_TAIL_MASK) {
		prev = pvq_decode_tail(old);
		WRITE_ONCE(prev->next, node);

		if (pv)
			pvq_pv_wait_node(node, prev);
		/*
		 * Acquire: pairs with the release that hands us the head.
		 * (PV: returns at once, ->locked is already set.)
		 */
		smp_cond_load_acquire(&node->locked, VAL);

		/* Warm up the successor's node while we wait for the lock. */
		next = READ_ONCE(node->next);
		if (next)
			prefetchw(next);
	}

	if (unfair)	/* returns with the lock taken (acquire) */
		val = pvq_unfair_wait_head_or_lock(lock, node);
	else if (pv)	/* likewise */
		val = pvq_pv_wait_head_or_lock(lock, node);
	else		/* Acquire: pairs with the owner's unlock release. */
		val = atomic_cond_read_acquire(&lock->val,
					       !(VAL & PVQ_LOCKED_PENDING_MASK));
	pvq_head_acquire(lock, node, next, tail, val, pv);
}

static __always_inline void pvq_slowpath(struct pvq_qspinlock *lock,
					 u32 val, const bool pv,
					 const bool unfair)
{
	struct pvq_mcs_node *node;
	int idx;

	BUILD_BUG_ON(sizeof(struct pvq_qspinlock) != 4);
	/* No node straddles two cache lines (qspinlock_internal.h). */
	BUILD_BUG_ON(sizeof(struct pvq_mcs_node) &
		     (sizeof(struct pvq_mcs_node) - 1));
	BUILD_BUG_ON(SMP_CACHE_BYTES % sizeof(struct pvq_mcs_node));
	BUILD_BUG_ON(CONFIG_NR_CPUS >= (1U << PVQ_TAIL_CPU_BITS));

	pvq_stat_inc(slowpath);
	node = this_cpu_ptr(&pvq_mcs_nodes[0]);

	/*
	 * A fifth nesting level (e.g. an NMI inside every other context) has
	 * no node: spin on trylock instead.  Unfair but rare, and it never
	 * corrupts a node in use below us.  It must not take the pending bit
	 * either: a pending waiter that then backs off to trylock spinning
	 * could make a queue head that raced with it wait for a successor
	 * that never comes.  The native trylock needs the whole word free,
	 * so behind a queue that never empties it would spin for ever; the
	 * PV instances take the lock whenever it is free and no head blocks
	 * stealing (their heads take the lock with a cmpxchg, so they can).
	 */
	if (unlikely(node->count >= PVQ_MAX_NODES)) {
		pvq_stat_inc(nest_overflow);
		while (!(pv ? pvq_pv_trylock_steal(lock) :
			      pvq_qspin_trylock(lock)))
			cpu_relax();
		return;
	}

	/*
	 * PV: no pending waiter.  A pending waiter spins on the lock word
	 * with no way to halt, and the PV queue head uses the pending bit
	 * itself, to block stealing while it spins.
	 */
	if (!pv && pvq_pending_acquire(lock, &val))
		return;

	/*
	 * Unfair: try to steal for a while before queueing.  Fair PV: the
	 * same while a queue waits and its head has not reserved the lock.
	 */
	if (unfair ? pvq_unfair_steal(lock) : pv && pvq_fair_steal(lock))
		return;

	idx = node->count++;
	pvq_stat_add(PVQ_EV_node_idx1 + idx, 1);

	/*
	 * An interrupt arriving after the count update must see it, or it
	 * would reuse our node; the compiler must not sink the increment.
	 */
	barrier();
	pvq_queue_acquire(lock, node + idx,
			  pvq_encode_tail(smp_processor_id(), idx), pv, unfair);

	/* Only this CPU (and contexts nested on it) touches the count. */
	__this_cpu_dec(pvq_mcs_nodes[0].count);
}

void pvq_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	pvq_slowpath(lock, val, false, false);
}

/*
 * The PV instances run the native one where nothing halts (pv_ops.h): no
 * hash, no kick, the pending waiter; the choice is made once, before any
 * PV lock is contended, so no lock word ever mixes the two protocols.
 */
#ifdef PVQ_PV_QSPINLOCK
void pvq_pv_qspin_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	if (pvq_pv_runs_native())
		pvq_qspin_lock_slowpath(lock, val);
	else
		pvq_slowpath(lock, val, true, false);
}
#endif

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
void pvq_pv_qspin_unfair_lock_slowpath(struct pvq_qspinlock *lock, u32 val)
{
	if (pvq_pv_runs_native())
		pvq_qspin_lock_slowpath(lock, val);
	else
		pvq_slowpath(lock, val, true, true);
}
#endif
