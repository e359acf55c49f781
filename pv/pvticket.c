// SPDX-License-Identifier: GPL-2.0
/*
 * Paravirtual ticket lock: the slow paths.
 *
 * A waiter spins for its ticket (pvq_spin_threshold loops, or
 * pvq_spin_threshold_ns, whichever ends first), then records (lock, wanted
 * ticket) for its CPU, sets the slowpath flag, re-checks the head and
 * halts until the head moves.  An unlock that sees the flag looks
 * for the CPU that waits for the new head ticket and kicks it; the new
 * owner clears the flag when nobody is left waiting.
 *
 * A waiter that cannot halt (pvq_pv_can_wait(): NMI context always, and
 * interrupts off on the ipi and strict backends) only spins: it sets no
 * flag, so its unlocker stays on the fast path, and it never touches its
 * CPU's record, which may belong to the context it interrupted.
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <asm/processor.h>

#include "pvticket.h"
#include "pv_ops.h"
#include "lock_stats.h"

/*
 * What this CPU waits for; lock is NULL when it waits for nothing.  Read
 * by every unlocker that sees the flag: a line of its own per CPU.
 */
struct pvq_ticket_waiter {
	struct pvq_pvticketlock *lock;
	u16 want;
};

static DEFINE_PER_CPU_ALIGNED(struct pvq_ticket_waiter, pvq_ticket_waiters);
/* CPUs that may have a record: the unlocker searches only these. */
static struct cpumask pvq_ticket_waiting_cpus;

static bool pvq_ticket_served(struct pvq_pvticketlock *lock, u16 want)
{
	/* Acquire: pairs with the unlock's fully ordered head update. */
	return (smp_load_acquire(&lock->tickets.head) &
		~PVQ_PVTICKET_SLOW_FLAG) == want;
}

/* Replace the record; pairs with the smp_rmb() in pvq_ticket_kick(). */
static void pvq_ticket_record(struct pvq_ticket_waiter *w,
			      struct pvq_pvticketlock *lock, u16 want)
{
	WRITE_ONCE(w->lock, NULL);
	/* No unlocker matches the old ->lock with the new ->want... */
	smp_wmb();
	WRITE_ONCE(w->want, want);
	/* ...nor the new ->lock with the old ->want. */
	smp_wmb();
	WRITE_ONCE(w->lock, lock);
}

/* Halt until the head moves, if it is still not our ticket. */
static void pvq_ticket_halt(struct pvq_pvticketlock *lock, u16 want)
{
	struct pvq_ticket_waiter *w = this_cpu_ptr(&pvq_ticket_waiters);
	/*
	 * We may be a softirq or (kvm backend) hard interrupt that arrived
	 * between another wait's record and its wait(): put that record back
	 * when done, or the unlock that serves it would find nobody to kick.
	 * An unlock of that lock meanwhile finds our record instead, but it
	 * moved the head first, so that wait's check does not halt.  Only an
	 * NMI could land between that check and the halt, and NMIs never get
	 * here (pvq_pv_can_wait()).  But we may also have come in on the exit
	 * of an interrupt that ended that wait's halt, and a wait whose halt
	 * ends only on a kick (strict) goes back to halting: if its ticket
	 * was served meanwhile, kick our own CPU for it (below).
	 */
	struct pvq_pvticketlock *outer_lock = READ_ONCE(w->lock);
	u16 outer_want = READ_ONCE(w->want);
	u64 start;
	u32 old;

	pvq_ticket_record(w, lock, want);
	cpumask_set_cpu(smp_processor_id(), &pvq_ticket_waiting_cpus);

	/*
	 * Fully ordered, and it returns the head: the record and the flag
	 * are visible before we look at the head, and the unlocker's xadd
	 * moves the head and reads the flag in one step.  One of the two
	 * atomics comes first: either we see our ticket served, or the
	 * unlock sees the flag and finds our record.
	 */
	old = atomic_fetch_or(PVQ_PVTICKET_SLOW_FLAG, &lock->tickets.val);
	if (pvq_pvticket_served(old) != want) {
		start = pvq_stat_clock();
		/* Low byte of the head, flag set: every unlock changes it. */
		pvq_pv_wait((u8 *)&lock->tickets.head,
			    (u8)(pvq_ticket_head(old) | PVQ_PVTICKET_SLOW_FLAG));
		pvq_stat_add(PVQ_EV_time_blocked_ns, pvq_stat_clock() - start);
	}

	pvq_ticket_record(w, outer_lock, outer_want);
	if (outer_lock) {
		cpumask_set_cpu(smp_processor_id(), &pvq_ticket_waiting_cpus);
		/*
		 * Full barrier: the record is back before we look at its
		 * head; an unlock after our look finds the record.  The lock
		 * cannot be gone: the interrupted context holds a ticket.
		 */
		smp_mb__after_atomic();
		if (pvq_ticket_served(outer_lock, outer_want))
			pvq_pv_kick(smp_processor_id());
	} else {
		cpumask_clear_cpu(smp_processor_id(),
				  &pvq_ticket_waiting_cpus);
	}
}

/*
 * We own the lock: if nobody took a ticket after ours, nobody waits, and
 * the flag can go.  Done here, not at unlock, where the lock may already
 * be gone.  A contender that gets a ticket meanwhile makes it fail.
 */
static void pvq_ticket_clear_flag(struct pvq_pvticketlock *lock, u16 want)
{
	u32 slow = (u32)(u16)(want + PVQ_PVTICKET_INC) << PVQ_TICKET_TAIL_SHIFT |
		   want | PVQ_PVTICKET_SLOW_FLAG;

	if (atomic_read(&lock->tickets.val) == (int)slow)
		atomic_cmpxchg_relaxed(&lock->tickets.val, slow,
				       slow & ~PVQ_PVTICKET_SLOW_FLAG);
}

/* Loops between two looks at the clock, which costs more than a loop. */
#define PVQ_TICKET_CLOCK_LOOPS	64

/*
 * Spin until our ticket is served (true), or for pvq_spin_threshold loops
 * or pvq_spin_threshold_ns, whichever ends first (false).
 */
static bool pvq_ticket_spin(struct pvq_pvticketlock *lock, u16 want)
{
	int loops = READ_ONCE(pvq_spin_threshold);
	u64 budget = READ_ONCE(pvq_spin_threshold_ns);
	u64 start = 0;
	int loop;

	for (loop = 0; loop < loops; loop++) {
		if (pvq_ticket_served(lock, want))
			return true;
		cpu_relax();
		if (loop % PVQ_TICKET_CLOCK_LOOPS == PVQ_TICKET_CLOCK_LOOPS - 1) {
			if (!start)
				start = local_clock();
			else if (local_clock() - start >= budget)
				break;
		}
	}
	return false;
}

void pvq_pvticket_lock_slowpath(struct pvq_pvticketlock *lock, u16 want)
{
	/* Fixed for this acquisition: its context and irq state are. */
	bool can_wait = pvq_pv_can_wait();
	bool halted = false;

	for (;;) {
		if (pvq_ticket_spin(lock, want))
			goto out;
		if (can_wait) {
			pvq_ticket_halt(lock, want);
			halted = true;
		} else {
			pvq_pv_spinning();	/* see pv_ops.h */
		}
	}
out:
	if (halted)
		pvq_stat_inc(taken_slow);
	pvq_ticket_clear_flag(lock, want);
}

/* Kick the CPU waiting for ticket @want of @lock, if any. */
static void pvq_ticket_kick(struct pvq_pvticketlock *lock, u16 want)
{
	struct pvq_ticket_waiter *w;
	int cpu;

	for_each_cpu(cpu, &pvq_ticket_waiting_cpus) {
		w = per_cpu_ptr(&pvq_ticket_waiters, cpu);
		if (READ_ONCE(w->lock) != lock)
			continue;
		/* Order the ->want read after ->lock; pairs with smp_wmb(). */
		smp_rmb();
		if (READ_ONCE(w->want) == want) {
			pvq_stat_inc(released_slow_kicked);
			if (!pvq_fault_drop_kick(lock))	/* fault build: maybe not */
				pvq_pv_kick(cpu);
			return;
		}
	}
}

/*
 * @head: the head just before our unlock, flag set.  We no longer own the
 * lock, and whoever takes it next may free it: compare its address, never
 * touch its memory.  Nobody may wait for the next ticket (a stale flag):
 * then no record matches and nobody is kicked.
 */
void pvq_pvticket_unlock_slowpath(struct pvq_pvticketlock *lock, u16 head)
{
	pvq_stat_inc(released_slow);
	pvq_ticket_kick(lock, (u16)((head & ~PVQ_PVTICKET_SLOW_FLAG) +
				    PVQ_PVTICKET_INC));
}
