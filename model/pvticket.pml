/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Promela model of the paravirtual ticket lock (pvticket) and of the halt /
 * kick backends under it, with an interrupting context on every CPU, for
 * the SPIN model checker.
 *
 * pvqspinlock.pml checks the PV queued spinlock with one context per CPU.
 * This model is about what that one leaves out: a CPU runs a task and,
 * nested in it, an NMI or a softirq that takes a lock of its own; both use
 * the CPU's one waiter record and the CPU's one backend state (the strict
 * backend's kick count or flag, the pending reschedule IPI, the deferred
 * NMI kicks).  Without options the model is the C code as it is; each
 * -DBUG_* switch puts back one way the C code was wrong (README.md,
 * "The PV ticket lock with nested contexts").
 *
 * Sources modelled (they are the truth; each part below names the C
 * function it stands for):
 *
 *   pv/pvticket.h     the lock word (head with the slowpath flag, tail),
 *                     pvq_pvticket_lock(), pvq_pvticket_trylock(),
 *                     pvq_pvticket_unlock()
 *   pv/pvticket.c     pvq_pvticket_lock_slowpath(), pvq_ticket_halt(),
 *                     pvq_ticket_record(), pvq_ticket_clear_flag(),
 *                     pvq_pvticket_unlock_slowpath(), pvq_ticket_kick()
 *   pv/pv_backends.c  pvq_ipi_can_wait(), pvq_ipi_wait(), pvq_ipi_kick(),
 *                     pvq_defer_kick(), pvq_send_deferred_kicks() (the
 *                     irq_work pvq_nmi_kicks_work()), pvq_ipi_spinning(),
 *                     pvq_strict_wait(), pvq_strict_halt(),
 *                     pvq_strict_kick(), pvq_nmi_wait(), pvq_nmi_ring(),
 *                     pvq_wait_way_begin(), pvq_wait_way_end()
 *   pv/pv_nmi.c       pvq_nmi_send(), pvq_nmi_handler() (the window fix
 *                     and the mark)
 *   pv/pv_nmi_halt.S  the window from the compare to the hlt
 *   pv/pv_ops.h       the can_wait() / wait(ptr, val) / kick(cpu) /
 *                     spinning() contract
 *
 * The machine (see README.md for why each choice is the strict one):
 *
 *  - NCPU CPUs (2).  Each runs a task (proctype task) that takes lock A
 *    ITERS times with interrupts on (spin_lock()), or, with IRQSAVE, CPU
 *    0's task with interrupts off (spin_lock_irqsave()).  Each has one
 *    nested context (proctype nested) that runs NEST_RUNS times, nested in
 *    whatever the CPU does:
 *      default           an NMI: lock(B) ... unlock(B).  B is taken by
 *                        NMIs only (a lock an NMI spins on must be).
 *      NEST_NMI_TRYLOCK  an NMI: trylock(A), and unlock(A) if it got it.
 *                        A is the tasks' lock.
 *      NEST_HARDIRQ      a hard interrupt: lock(B) ... unlock(B) with
 *                        interrupts off, B taken by hard interrupts
 *                        only; it arrives where a softirq does.  On nmi
 *                        and strict it halts, NMI-woken, inside the
 *                        task's wait with interrupts on.
 *      NEST_SOFTIRQ      a softirq: lock(B) ... unlock(B), B taken by
 *                        softirqs only.  A softirq runs where the CPU has
 *                        interrupts on: at any step of a task with
 *                        interrupts on, in the kicker's window between its
 *                        kick count (or flag) and its IPI, and after any
 *                        interrupt that ends a halt.  It is the interrupt
 *                        that raised the softirq, then the softirq on its
 *                        exit.
 *    An NMI may arrive at any step, in particular between a wait()'s check
 *    of *ptr and its hlt (interrupts are off there, NMIs are not masked).
 *    A nested context arriving while the CPU is halted ends the hlt.  One
 *    nesting level: no NMI inside the softirq.
 *  - The task does not run while its nested context runs: the task's
 *    proctype is "provided (!nest[me])", so an arrival may fall between
 *    any two of its steps (SPIN then applies no partial-order reduction to
 *    the task's steps).
 *  - Interrupts (proctype apic, one per CPU): a reschedule IPI is latched
 *    (ipi[c], the APIC's IRR: two IPIs in flight are one) and taken at
 *    any step at which the running context has interrupts on; taking it
 *    ends a hlt.  The irq_work of deferred NMI kicks is a self-IPI: it runs
 *    likewise, as one step (test-and-clear each target, ring its
 *    doorbell).  nmi and strict: an NMI kick is latched too (nmi_latch[c]:
 *    NMIs coalesce) and taken at any step outside NMI context, interrupts
 *    off or on; taking it ends a hlt, and its handler is two steps during
 *    which the CPU's contexts are frozen: the window fix (in the window,
 *    the return address moves past the hlt: skip_hlt), then the exchange
 *    that claims the mark.  The nested NMI context's arrival does both
 *    too (any NMI runs our handler).
 *  - No timer tick and no other interrupt: a CPU halted with no IPI or
 *    irq_work pending and no nested context left to arrive stays halted
 *    forever.  That is what makes a lost wakeup visible (the strict
 *    backend is exactly this; ipi without a tick is nohz_full).
 *  - Sequentially consistent memory; every atomic RMW (fetch_add, xadd,
 *    fetch_or, cmpxchg, atomic_inc, xchg) is one step, every plain load or
 *    store is a step of its own; a step may also update local variables
 *    (and ghosts).  Barriers are implicit: the model checks the protocol,
 *    not the barrier placement.
 *  - Tickets are small numbers: nothing wraps.  A lock is its index (A = 0,
 *    B = 1); a record's lock is index + 1, 0 meaning NULL.
 *  - Spin thresholds: one read of the head per round stands for the spin
 *    (see pvt_lock()); then a waiter that can wait halts, one that cannot
 *    reads again.
 *  - Statistics, the stall diagnostics (pvq_mark_halted()), the offline
 *    check of pvq_kick_target_online() (every CPU is online), cpu_relax()
 *    are left out.  The kvm and none backends are not modelled.
 *
 * Compile-time options (spin -a -DX):
 *
 *   STRICT             the strict backend (default: ipi): a wait ends
 *                      only on a kick; waiters with interrupts off halt
 *                      and are woken by an NMI, as on nmi.
 *   NMIKICK            the nmi backend: ipi, and waiters with interrupts
 *                      off halt and are woken by an NMI.
 *   NEST_NMI_TRYLOCK, NEST_HARDIRQ, NEST_SOFTIRQ
 *                      the nested context, see above.
 *   NEST_OWN_RECORD    the nested context's lock B keeps its waiter
 *                      record per context (record NCPU + cpu), not per
 *                      CPU: "another PV lock", as a pvqspinlock MCS node
 *                      of its nesting level.
 *   IRQSAVE            CPU 0's task takes lock A with interrupts off.
 *   ITERS              acquisitions of lock A per task (default 1).
 *   NEST_RUNS          runs of the nested context per CPU (default 1).
 *   BUG_*              planted bugs, see below.
 *
 * Properties:
 *
 *   1. Mutual exclusion, per lock: assert(in_cs[l] == 1) on entry to the
 *      critical section; and the owner's ticket is the one served.
 *   2. No lost wakeup: pan's invalid-end-state check.  The only valid end
 *      states are a task after its acquisitions, a nested context waiting
 *      to arrive (or done) and an idle APIC; a context halted forever
 *      while nothing else can run is an invalid end state.
 *   3. Progress: the LTL property "live", <> (ndone == 2 * NCPU), searched
 *      for acceptance cycles under weak fairness (pan -a -f): on every
 *      fair run every task completes its acquisitions and every nested
 *      context its runs.  A context halted forever violates it through the
 *      stuttering final state; one spinning forever (behind a halted one
 *      that nobody wakes) through a fair cycle.
 *
 * Planted bugs (each makes pan report a counterexample):
 *
 *   BUG_NMI_RECORD        hole 1: every waiter runs the halt protocol, as
 *                         the old pvq_pvticket_lock_slowpath() did: an NMI
 *                         records (B, ticket) over its CPU's record, sets
 *                         B's flag, calls wait() (which returns at once in
 *                         NMI context) and restores the record.  An NMI in
 *                         the task's wait() window hides the task's record
 *                         from A's unlocker.
 *   BUG_STRICT_FLAG       hole 3: the old strict backend, a per-CPU kicked
 *                         flag consumed by while (!xchg(kicked, 0))
 *                         safe_halt(): a softirq that waits on another
 *                         lock eats the task's kick (two kicks are also
 *                         one flag).  (With STRICT; checked with
 *                         NEST_OWN_RECORD, see README.md finding 4.)
 *   BUG_NMI_KICK_DROPPED  hole 2: pvq_ipi_kick() returns at once in NMI
 *                         context (the old "if (in_nmi()) return;"): the
 *                         unlock of a lock an NMI trylocked kicks nobody.
 *   BUG_NO_RECORD_RESTORE pvq_ticket_halt() clears its CPU's record on
 *                         the way out (the C code before commit b68d2ab)
 *                         instead of putting back the record of the
 *                         context it interrupted.
 *   BUG_NO_SELF_KICK      finding 4 (README.md), the C code before commit
 *                         d7d3a7c: pvq_ticket_halt() puts the interrupted
 *                         record back but does not kick its own CPU when
 *                         that record's ticket was served meanwhile.
 *                         Shows with NEST_SOFTIRQ STRICT: a softirq on
 *                         the exit of the interrupt that ends the task's
 *                         hlt replaces the record while it waits on B; an
 *                         unlock of A meanwhile finds no record for the
 *                         task, and the strict wait, which tests only its
 *                         kick count, halts again forever.
 *   BUG_NO_FLUSH_DEFERRED finding 5, the C code before commit d7d3a7c: no
 *                         spinning() op; a waiter that cannot wait never
 *                         sends its CPU's deferred NMI kicks.  Shows with
 *                         NEST_NMI_TRYLOCK IRQSAVE: the NMI's kick is
 *                         deferred to an irq_work that cannot run while
 *                         CPU 0's task spins with interrupts off, for the
 *                         same lock, behind the waiter the kick was for.
 *                         On nmi and strict the same waiter halts
 *                         (NMI-woken), and sends them first: the bug
 *                         leaves that out too.
 *   BUG_NMI_WINDOW        nmi and strict: the NMI handler leaves the window
 *                         alone (inject_fault=nmi_window): a kick whose
 *                         NMI comes between the waiter's compare and its
 *                         hlt is lost, and the waiter halts for good.
 *                         Shows with IRQSAVE or NEST_HARDIRQ.
 */

#ifndef NCPU
#define NCPU		2
#endif
#define NLOCK		2
#define NCTX		(2 * NCPU)	/* a task and a nested context per CPU */
#ifndef ITERS
#define ITERS		1
#endif
#ifndef NEST_RUNS
#define NEST_RUNS	1
#endif

#define LA		0		/* the tasks' lock */
#define LB		1		/* the nested contexts' lock */

/* pvticket.h: tickets advance by 2, the low bit of the head is the flag. */
#define INC		2		/* PVQ_PVTICKET_INC */
#define FLAG		1		/* PVQ_PVTICKET_SLOW_FLAG */
/* pvq_pvticket_served(): the ticket now served, without the flag. */
#define SERVED(h)	((h) & ~FLAG)

#if defined(NEST_SOFTIRQ) || defined(NEST_HARDIRQ)
#define NEST_IS_NMI	0
#else
#define NEST_IS_NMI	1
#endif
/* The nested context runs with interrupts off: an NMI or a hard interrupt. */
#if defined(NEST_SOFTIRQ)
#define NEST_IRQS_OFF	0
#else
#define NEST_IRQS_OFF	1
#endif

/* nmi and strict: waiters with interrupts off halt, and an NMI wakes them. */
#if defined(STRICT) || defined(NMIKICK)
#define NMI_WAKE
#endif

/*
 * The waiter records: one per CPU (pvticket), or, NEST_OWN_RECORD, one
 * more per CPU for the nested context (record NCPU + cpu): its lock B is
 * then "another PV lock" whose waiter state belongs to the waiting context
 * (as a pvqspinlock MCS node of its nesting level), not to the CPU.
 */
#ifdef NEST_OWN_RECORD
#define NREC		(2 * NCPU)
#define NEST_REC	(NCPU + me)
#else
#define NREC		NCPU
#define NEST_REC	me
#endif

#ifdef IRQSAVE
#define TASK_IRQSAVE	(me == 0)
#else
#define TASK_IRQSAVE	0
#endif

/* struct pvq_pvticketlock: the two halves of the lock word. */
byte head[NLOCK];		/* ticket served | FLAG */
byte tail[NLOCK];		/* next ticket to hand out */

/*
 * struct pvq_ticket_waiter pvq_ticket_waiters, one per CPU, shared by all
 * the contexts of that CPU (with NEST_OWN_RECORD, records NCPU.. are the
 * nested contexts' own); pvq_ticket_waiting_cpus, a bit per record.
 */
byte w_lock[NREC];		/* lock + 1, 0 = NULL */
byte w_want[NREC];
bit  waiting_cpus[NREC];

/*
 * The CPU.  nest[c]: c's nested context is running (its task is frozen);
 * in_nmi[c]: and it is an NMI.  irqs_off[c]: the running context has
 * interrupts disabled (an NMI always).  halted[c]: the running context is
 * in hlt; any interrupt taken, NMI included, clears it.
 */
bit  nest[NCPU];
bit  in_nmi[NCPU];
bit  irqs_off[NCPU];
bit  halted[NCPU];

/* The reschedule IPI, latched in the target's APIC until it is taken. */
bit  ipi[NCPU];

#ifdef NMI_WAKE
/*
 * way[c]: pvq_woken_by_nmi, how CPU c's current wait is woken (NMI: 1).
 * nmi_mark[c]: pvq_nmi_marks.in_flight, an NMI kick of ours is on its way
 * to c; nmi_latch[c]: an NMI is pending at c's APIC; knmi[c]: c runs our
 * NMI handler (its contexts are frozen).  in_window[c] (ghost): the
 * running context is between the window label and the hlt of
 * pv_nmi_halt.S; skip_hlt[c]: an NMI moved its return address past the
 * hlt.
 */
bit  way[NCPU];
bit  nmi_mark[NCPU];
bit  nmi_latch[NCPU];
bit  knmi[NCPU];
bit  in_window[NCPU];
bit  skip_hlt[NCPU];
#endif

#ifdef STRICT
#ifdef BUG_STRICT_FLAG
bit  kicked[NCPU];		/* old pvq_strict_kicked: consumed by wait */
#else
byte kicks[NCPU];		/* pvq_strict_kicks: a count, never consumed */
#endif
#endif

/*
 * struct pvq_nmi_kicks of each CPU c: the targets (nmi_kick[c * NCPU + t]),
 * the hint ->pending (nmi_pending[c]) and its irq_work, queued (the
 * self-IPI is pending) while work[c].
 */
bit  nmi_kick[NCPU * NCPU];
bit  nmi_pending[NCPU];
bit  work[NCPU];

/* Ghost variables of the properties. */
byte in_cs[NLOCK];		/* contexts in the critical section of a lock */
byte ndone;			/* contexts done with all their acquisitions */

ltl live { <> (ndone == NCTX) }

/*
 * pvq_pv_can_wait() = pvq_ipi_can_wait() (ipi): !irqs_disabled() &&
 * !in_nmi(); pvq_nmi_can_wait() (nmi and strict): !in_nmi().
 * BUG_NMI_RECORD: the old slow path asked nobody, every waiter ran
 * pvq_ticket_halt().
 */
#if defined(BUG_NMI_RECORD)
#define CAN_WAIT	1
#elif defined(NMI_WAKE)
#define CAN_WAIT	(!in_nmi[me])
#else
#define CAN_WAIT	(!in_nmi[me] && !irqs_off[me])
#endif

/* The contexts of CPU c may run: it is not in our NMI handler. */
#ifdef NMI_WAKE
#define RUNS(c)		(!knmi[c])
#else
#define RUNS(c)		1
#endif

/*
 * Locals of every context that takes a lock (task and nested).
 */
#define LOCK_LOCALS							\
	byte want;		/* our ticket */			\
	bit  got;		/* served / trylock succeeded */	\
	bit  can_wait;		/* pvq_pv_can_wait() on entry */	\
	byte h;			/* a head value read or returned */	\
	byte kw;		/* the ticket the unlock kicks; a tail */	\
	byte o_lock;		/* the record we interrupted */		\
	byte o_want;							\
	byte c;			/* pvq_ticket_kick()'s CPU */		\
	byte seen;		/* strict: the kick count before *ptr */ \
	byte rec;		/* our record: this_cpu_ptr(&waiters) */ \
	bit  prev_way;		/* the way of the wait we interrupted */ \
	bit  hlt		/* wait(): *ptr == val, halting */

/*
 * safe_halt(): "sti; hlt".  The hlt ends when an interrupt is taken: an IPI
 * or the irq_work (proctype apic), or a nested context arriving.  An
 * interrupt pending at the sti ends it at once.  Returns with interrupts on.
 */
inline safe_halt()
{
	d_step { irqs_off[me] = 0; halted[me] = 1 };
	!halted[me]
}

/*
 * wait(ptr, val) of the backend in use.
 *
 * pvq_ipi_wait(): if (!pvq_ipi_can_wait()) return; local_irq_disable();
 * if (READ_ONCE(*ptr) == val) safe_halt(); else local_irq_enable().
 *
 * pvq_strict_wait(): the same, but it first reads seen = its CPU's kick
 * count, and halts until the count moves: while (atomic_read(kicks) ==
 * seen) { safe_halt(); local_irq_disable(); }.  BUG_STRICT_FLAG: the old
 * loop, while (!xchg(kicked, 0)) { ... }, which consumes the kick.
 *
 * nmi and strict: a waiter with interrupts on does the same after
 * pvq_wait_way_begin(false); one with them off, see below.  Both put the
 * way of the wait they interrupted back (pvq_wait_way_end()).
 *
 * The step after the check and before the hlt is the window in which only
 * an NMI can arrive.
 */
inline pv_wait(ptr, val)
{
	if
	:: d_step { in_nmi[me] -> skip }		/* cannot wait */
#ifndef NMI_WAKE
	:: d_step { !in_nmi[me] && irqs_off[me] -> skip }	/* cannot wait */
#endif
	:: d_step {
		!in_nmi[me] && !irqs_off[me] ->
#ifdef NMI_WAKE
		prev_way = way[me];		/* pvq_wait_way_begin(false) */
		way[me] = 0;
#endif
#if defined(STRICT) && !defined(BUG_STRICT_FLAG)
		seen = kicks[me]		/* atomic_read_acquire(kicks) */
#else
		skip
#endif
	   };
		/* local_irq_disable(); READ_ONCE(*ptr) == val */
		d_step {
			irqs_off[me] = 1;
			if
			:: (ptr) == (val) -> hlt = 1
			:: else -> irqs_off[me] = 0
			fi
		};
		if
		:: hlt ->
#ifndef STRICT
			safe_halt()
#else
			do
#ifdef BUG_STRICT_FLAG
			:: d_step { kicked[me] -> kicked[me] = 0 };	/* xchg: 1 */
				break
			:: !kicked[me] ->				/* xchg: 0 */
#else
			:: kicks[me] != seen -> break
			:: kicks[me] == seen ->
#endif
				safe_halt();
				irqs_off[me] = 1	/* local_irq_disable() */
			od;
			irqs_off[me] = 0		/* local_irq_enable() */
#endif
		:: else
		fi;
#ifdef NMI_WAKE
		way[me] = prev_way;		/* pvq_wait_way_end() */
#endif
		d_step { hlt = 0; seen = 0; prev_way = 0 }
#ifdef NMI_WAKE
	/*
	 * pvq_nmi_wait() / pvq_strict_wait() with interrupts off: the way,
	 * then READ_ONCE(*ptr) == val, then (strict: until the count moves)
	 * send the deferred kicks (pvq_ipi_spinning()) and halt through the
	 * window (pvq_nmi_wait_u8() / _u32()).
	 */
	:: d_step {
		!in_nmi[me] && irqs_off[me] ->
		prev_way = way[me];		/* pvq_wait_way_begin(true) */
		way[me] = 1;
#if defined(STRICT) && !defined(BUG_STRICT_FLAG)
		seen = kicks[me]
#else
		skip
#endif
	   };
		if
		:: (ptr) == (val) ->
#if defined(STRICT) && defined(BUG_STRICT_FLAG)
			do
			:: d_step { kicked[me] -> kicked[me] = 0 };	/* xchg: 1 */
				break
			:: !kicked[me] ->				/* xchg: 0 */
				nmi_flush();
				nmi_halt(kicked[me], 0)
			od
#elif defined(STRICT)
			do
			:: kicks[me] != seen -> break
			:: kicks[me] == seen ->
				nmi_flush();
				nmi_halt(kicks[me], seen)
			od
#else
			nmi_flush();
			nmi_halt(ptr, val)
#endif
		:: else
		fi;
		way[me] = prev_way;		/* pvq_wait_way_end() */
		d_step { seen = 0; prev_way = 0 }
#endif
	fi
}

/*
 * pv_nmi_halt.S, with interrupts off: the window label, the compare (*p
 * changed: return), the hlt.  An NMI that comes from the window label to
 * the hlt (the NMI handler, or the nested NMI context's arrival, sees
 * in_window) sets skip_hlt: the hlt is not executed.  One that comes
 * while halted ends the hlt.
 */
inline nmi_halt(p, v)
{
	d_step { in_window[me] = 1; skip_hlt[me] = 0 };
	if
	:: d_step { (p) != (v) -> in_window[me] = 0; skip_hlt[me] = 0 }
	:: (p) == (v) ->
		d_step {
			in_window[me] = 0;
			if
			:: skip_hlt[me] -> skip_hlt[me] = 0
			:: else -> halted[me] = 1
			fi
		};
		!halted[me]
	fi
}

/*
 * The doorbell of a kick sent outside NMI context (pvq_ring()).  ipi: the
 * reschedule IPI.  nmi and strict (pvq_nmi_ring()): read the target's way;
 * NMI: pvq_nmi_send(): nothing if a mark is set (one of ours is on its
 * way), else set the mark (cmpxchg), then, a step later, send the NMI;
 * else the IPI.
 */
inline pv_ring(cpu)
{
#ifdef NMI_WAKE
	if
	:: way[cpu] ->
		if
		:: d_step { nmi_mark[cpu] -> skip }
		:: d_step { !nmi_mark[cpu] -> nmi_mark[cpu] = 1 };
			nmi_latch[cpu] = 1		/* apic->send_IPI() */
		fi
	:: !way[cpu] -> ipi[cpu] = 1
	fi
#else
	ipi[cpu] = 1
#endif
}

/* The same in one step, inside a d_step: the deferred kicks' sender. */
inline ring_now(t)
{
#ifdef NMI_WAKE
	if
	:: way[t] && !nmi_mark[t] -> nmi_mark[t] = 1; nmi_latch[t] = 1
	:: way[t] && nmi_mark[t] -> skip
	:: !way[t] -> ipi[t] = 1
	fi
#else
	ipi[t] = 1
#endif
}

/*
 * kick(cpu).  pvq_strict_kick(): atomic_inc() of cpu's kick count (full
 * barriers: the released head is visible first), or, BUG_STRICT_FLAG, the
 * old xchg(kicked, 1); then pvq_ipi_kick().  pvq_ipi_kick(): in NMI
 * context pvq_defer_kick() (cpumask_set_cpu() of the target and
 * irq_work_queue(), nothing else runs on this CPU in between), or,
 * BUG_NMI_KICK_DROPPED, nothing; else the doorbell, pv_ring() (to our own
 * CPU too: the self-kick of pvq_ticket_halt()).  On strict a softirq may
 * arrive on the kicker's CPU between the two steps.
 */
inline pv_kick(cpu)
{
#ifdef STRICT
#ifdef BUG_STRICT_FLAG
	kicked[cpu] = 1;
#else
	kicks[cpu]++;
#endif
#endif
	if
	:: d_step {
		in_nmi[me] ->
#ifdef BUG_NMI_KICK_DROPPED
		skip
#else
		nmi_kick[me * NCPU + cpu] = 1;
		nmi_pending[me] = 1;
		work[me] = 1
#endif
	   }
	:: !in_nmi[me] -> pv_ring(cpu)
	fi
}

/*
 * pvq_send_deferred_kicks() of CPU me, run by the irq_work: clear the
 * hint ->pending, then for each target, cpumask_test_and_clear_cpu() and
 * its doorbell.  @t: a scratch local, 0 on entry and on exit.  Used
 * inside a d_step.
 */
inline send_nmi_kicks(t)
{
	nmi_pending[me] = 0;
	do
	:: t < NCPU ->
		if
		:: nmi_kick[me * NCPU + t] ->
			nmi_kick[me * NCPU + t] = 0;
			ring_now(t)
		:: else
		fi;
		t++
	:: else -> break
	od;
	t = 0
}

/*
 * pvq_ipi_spinning() (ipi, nmi and strict): if (READ_ONCE(k->pending) &&
 * !in_nmi()) pvq_send_deferred_kicks(k): WRITE_ONCE(k->pending, 0), then
 * for each target cpumask_test_and_clear_cpu() and its doorbell (one step
 * per target).  The caller has interrupts off (it cannot wait and is not
 * an NMI, or is about to halt with them off), so only an NMI of its CPU
 * lands in between: it sets a target and the hint again, which the next
 * round sees.  @c: a scratch local (pvq_ticket_kick()'s), 0 on entry and
 * on exit.
 */
inline pv_spinning()
{
	if
	:: d_step { nmi_pending[me] && !in_nmi[me] -> c = 0 };
		nmi_pending[me] = 0;
		do
		:: c < NCPU ->
			d_step {
				if
				:: nmi_kick[me * NCPU + c] ->
					nmi_kick[me * NCPU + c] = 0;
					ring_now(c)
				:: else
				fi;
				c++
			}
		:: else -> c = 0; break
		od
	:: else
	fi
}

/* Before an NMI-woken halt: the deferred kicks (BUG_NO_FLUSH_DEFERRED: not). */
inline nmi_flush()
{
#ifndef BUG_NO_FLUSH_DEFERRED
	pv_spinning()
#else
	skip
#endif
}

/*
 * pvq_ticket_halt(lock, want): save the record of the context we may have
 * interrupted, record (lock, want), mark our CPU, set the flag with a
 * fully ordered fetch_or() that returns the head, and wait on the low
 * byte of the head (flag set) unless our ticket is served; then put the
 * interrupted context's record back.
 */
inline pvt_halt(l)
{
	o_lock = w_lock[rec];		/* outer_lock = READ_ONCE(w->lock) */
	o_want = w_want[rec];		/* outer_want = READ_ONCE(w->want) */
	/* pvq_ticket_record(w, lock, want) */
	w_lock[rec] = 0;
	w_want[rec] = want;
	w_lock[rec] = l + 1;
	waiting_cpus[rec] = 1;		/* cpumask_set_cpu() */
	/* old = atomic_fetch_or(PVQ_PVTICKET_SLOW_FLAG, &lock->tickets.val) */
	d_step { h = head[l]; head[l] = head[l] | FLAG };
	if
	:: SERVED(h) != want -> pv_wait(head[l], h | FLAG)
	:: else
	fi;
#ifndef BUG_NO_RECORD_RESTORE
	/* pvq_ticket_record(w, outer_lock, outer_want) */
	w_lock[rec] = 0;
	w_want[rec] = o_want;
	w_lock[rec] = o_lock;
	if
	:: o_lock != 0 -> waiting_cpus[rec] = 1	/* cpumask_set_cpu() */
	:: else -> waiting_cpus[rec] = 0		/* cpumask_clear_cpu() */
	fi;
#ifndef BUG_NO_SELF_KICK
	/*
	 * Finding 4 (commit d7d3a7c): an unlock of the interrupted context's
	 * lock may have moved the head and then missed its record (ours was
	 * in place).  After the record is back (full barrier), if its
	 * ticket is served (atomic_read() of the word), pvq_pv_kick(
	 * smp_processor_id()): on strict the count moves, and its wait ends.
	 * (We can wait, so we are not in NMI context: the kick is an IPI.)
	 */
	if
	:: o_lock != 0 && SERVED(head[o_lock - 1]) == o_want -> pv_kick(me)
	:: else
	fi;
#endif
#else
	/* BUG: clear the record, whoever it belonged to. */
	w_lock[rec] = 0;
	waiting_cpus[rec] = 0;
#endif
	d_step { o_lock = 0; o_want = 0; h = 0 }
}

/*
 * pvq_pvticket_lock(lock): atomic_fetch_add_acquire() of INC to the tail;
 * the old head shows our ticket: ours.  Else pvq_pvticket_lock_slowpath():
 * can_wait = pvq_pv_can_wait() (in the same step: it reads only our own
 * CPU's state, which nothing else changes for good), then spin on
 * pvq_ticket_served() (smp_load_acquire() of the head), and after
 * pvq_spin_threshold loops halt if we can wait; when served,
 * pvq_ticket_clear_flag().
 *
 * One read of the head per round stands for the whole spin: a read that
 * finds the head unchanged changes nothing, so spinning k times is
 * spinning once, at the last of them.  The threshold is finite: after it
 * a waiter that can wait halts (a spinner that never gives up is not a
 * behaviour of the C code); one that cannot goes round again.
 */
inline pvt_lock(l)
{
	d_step {
		want = tail[l];
		tail[l] = tail[l] + INC;
		got = (SERVED(head[l]) == want);
		can_wait = CAN_WAIT
	};
	if
	:: got -> skip
	:: else ->
		do
		:: SERVED(head[l]) == want -> break	/* goto out */
		:: SERVED(head[l]) != want ->		/* threshold */
			if
#ifndef BUG_NO_FLUSH_DEFERRED
			/*
			 * Finding 5 (commit d7d3a7c): a waiter that cannot
			 * halt calls pvq_pv_spinning() once per round:
			 * pvq_ipi_spinning() sends the kicks an NMI deferred
			 * on its CPU (their irq_work cannot run before it
			 * enables interrupts) if the hint is set and it is
			 * not in NMI context.
			 */
			:: !can_wait -> pv_spinning()
#else
			:: !can_wait
#endif
			:: can_wait -> pvt_halt(l)
			fi
		od;
		/*
		 * pvq_ticket_clear_flag(): if the word is exactly "our ticket
		 * served, flag set, nobody after us" (atomic_read()), cmpxchg
		 * the flag away.
		 */
		if
		:: head[l] == (want | FLAG) && tail[l] == want + INC ->
			d_step {
				if
				:: head[l] == (want | FLAG) &&
				   tail[l] == want + INC -> head[l] = want
				:: else
				fi
			}
		:: else
		fi
	fi;
	d_step { got = 0; can_wait = 0 }
}

/*
 * pvq_pvticket_trylock(lock): atomic_read() of the word; if the served
 * ticket is the tail (free), atomic_try_cmpxchg_acquire() of the word to
 * the tail + INC.  got = 1 if we own it (want: our ticket).
 */
inline pvt_trylock(l)
{
	d_step { h = head[l]; kw = tail[l] };
	if
	:: SERVED(h) != kw -> got = 0
	:: else ->
		d_step {
			if
			:: head[l] == h && tail[l] == kw ->
				tail[l] = kw + INC;
				want = kw;
				got = 1
			:: else -> got = 0
			fi
		}
	fi;
	d_step { h = 0; kw = 0 }
}

/* The critical section: mutual exclusion, and the owner is the one served. */
inline pvt_cs(l)
{
	d_step {
		in_cs[l]++;
		assert(in_cs[l] == 1);
		assert(SERVED(head[l]) == want)
	}
}

/*
 * pvq_pvticket_unlock(lock): xadd(&head, INC), fully ordered, returns the
 * old head with the flag; flag set: pvq_pvticket_unlock_slowpath() ->
 * pvq_ticket_kick(lock, served + INC): for_each_cpu() of the waiting CPUs,
 * READ_ONCE(w->lock) == lock, then READ_ONCE(w->want) == the new head:
 * kick that CPU and stop.
 */
inline pvt_unlock(l)
{
	d_step {
		in_cs[l]--;
		h = head[l];
		head[l] = head[l] + INC;
		want = 0
	};
	if
	:: h & FLAG ->
		d_step { kw = SERVED(h) + INC; h = 0; c = 0 };
		do
		:: c < NREC ->
			/* (no "else": the trail shows what was read) */
			if
			:: waiting_cpus[c] ->
				if
				:: w_lock[c] == l + 1 ->
					if
					:: w_want[c] == kw ->
						pv_kick(c % NCPU);
						break
					:: w_want[c] != kw -> c++
					fi
				:: w_lock[c] != l + 1 -> c++
				fi
			:: !waiting_cpus[c] -> c++
			fi
		:: else -> break
		od;
		atomic { kw = 0; c = 0 }	/* not d_step: a break lands here */
	:: else -> h = 0
	fi
}

/*
 * A task: ITERS times lock(A), critical section, unlock(A), with
 * interrupts on, or (IRQSAVE, CPU 0) inside local_irq_save() /
 * local_irq_restore().  Frozen while its CPU's nested context runs.
 */
proctype task(byte me) provided (!nest[me] && RUNS(me))
{
	byte iter;
	LOCK_LOCALS;

	rec = me;
	do
	:: iter < ITERS ->
		if
		:: TASK_IRQSAVE -> irqs_off[me] = 1	/* local_irq_save() */
		:: else
		fi;
		pvt_lock(LA);
		pvt_cs(LA);
		pvt_unlock(LA);
		d_step {
			if
			:: TASK_IRQSAVE -> irqs_off[me] = 0
			:: else
			fi;
			iter++
		}
	:: else -> ndone++; break
	od
}

/*
 * The nested context of CPU me: it arrives (an NMI: at any step; a
 * softirq: where the CPU has interrupts on), ends a hlt in progress,
 * saves the interrupted context's interrupt state, runs, and restores it.
 */
proctype nested(byte me) provided (RUNS(me))
{
	byte runs;
	bit  saved_irqs_off;
	LOCK_LOCALS;

	rec = NEST_REC;
end:
	do
	:: d_step {
		runs < NEST_RUNS && (NEST_IS_NMI || !irqs_off[me]) ->
		nest[me] = 1;
		saved_irqs_off = irqs_off[me];
		halted[me] = 0;
#ifdef NMI_WAKE
		/* An NMI runs our handler too: the window fix, the claim. */
		if
		:: NEST_IS_NMI ->
#ifndef BUG_NMI_WINDOW
			if
			:: in_window[me] -> skip_hlt[me] = 1
			:: else
			fi;
#endif
			nmi_mark[me] = 0
		:: else
		fi;
#endif
		in_nmi[me] = NEST_IS_NMI;
		irqs_off[me] = NEST_IRQS_OFF
	   };
#ifdef NEST_NMI_TRYLOCK
		pvt_trylock(LA);
		if
		:: got ->
			pvt_cs(LA);
			pvt_unlock(LA)
		:: else
		fi;
		got = 0;
#else
		pvt_lock(LB);
		pvt_cs(LB);
		pvt_unlock(LB);
#endif
		/* Return from the NMI / softirq: the interrupted state is back. */
		d_step {
			irqs_off[me] = saved_irqs_off;
			saved_irqs_off = 0;
			in_nmi[me] = 0;
			nest[me] = 0;
			runs++;
			if
			:: runs == NEST_RUNS -> ndone++
			:: else
			fi
		}
	od
}

/*
 * The interrupts CPU me takes: whenever its running context has
 * interrupts on, a pending reschedule IPI (its handler does nothing else)
 * or the irq_work of deferred NMI kicks, pvq_send_nmi_kicks(): for each
 * target, cpumask_test_and_clear_cpu() and smp_send_reschedule().  Either
 * ends a hlt in progress.
 */
proctype apic(byte me)
{
	byte t;

end:
	do
	:: d_step {
		ipi[me] && !irqs_off[me] && RUNS(me) ->
		ipi[me] = 0; halted[me] = 0
	   }
	:: d_step {
		work[me] && !irqs_off[me] && RUNS(me) ->
		work[me] = 0;
		send_nmi_kicks(t);
		halted[me] = 0
	   }
#ifdef NMI_WAKE
	/*
	 * An NMI kick, taken outside NMI context whatever the interrupt
	 * flag: it ends a hlt; pvq_nmi_handler() moves a context in the
	 * window past its hlt (BUG_NMI_WINDOW: not), then claims the mark
	 * (atomic64_xchg()) in a later step; the CPU's contexts are frozen
	 * in between.
	 */
	:: d_step {
		nmi_latch[me] && !in_nmi[me] && !knmi[me] ->
		nmi_latch[me] = 0;
		knmi[me] = 1;
		halted[me] = 0;
#ifndef BUG_NMI_WINDOW
		if
		:: in_window[me] -> skip_hlt[me] = 1
		:: else
		fi
#else
		skip
#endif
	   }
	:: d_step { knmi[me] -> nmi_mark[me] = 0; knmi[me] = 0 }
#endif
	od
}

init {
	byte i;

	atomic {
		i = 0;
		do
		:: i < NCPU ->
			run task(i);
			run nested(i);
			run apic(i);
			i++
		:: else -> break
		od
	}
}
