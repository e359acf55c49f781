/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Promela model of the paravirtual queued spinlock (PV qspinlock) and of its
 * unfair, starvation-bounded variant, for the SPIN model checker.
 *
 * Without options the model is the C code as it is; each -DBUG_* switch
 * breaks one step of it (some are the C code before a fix, see README.md
 * "Findings").
 *
 * Sources modelled (they are the truth; every part below names the C
 * function it stands for):
 *
 *   qspinlock/qspinlock.h   the fast path (whole-word cmpxchg 0 -> LOCKED_VAL)
 *   qspinlock/qspinlock.c   pvq_slowpath(pv = true, unfair), pvq_queue_acquire(),
 *                           pvq_xchg_tail(), pvq_head_acquire()
 *   pv/pvqspinlock.h        pvq_pv_qspin_lock(), pvq_pv_qspin_unlock()
 *   pv/pvqspinlock_unfair.h             pvq_pv_qspin_unfair_lock(), pvq_pv_qspin_unfair_unlock()
 *   pv/pvqspinlock.c        pvq_pv_init_node(), pvq_pv_trylock_steal(),
 *                           pvq_pv_wait_node(), pvq_pv_kick_node(),
 *                           pvq_wait_head() (fair and unfair), pvq_head_spin(),
 *                           pvq_head_take_free(), pvq_head_take_reserved(),
 *                           pvq_hash(), pvq_unhash(), pvq_unfair_steal(),
 *                           pvq_fair_steal(), pvq_steal_free() and
 *                           pvq_pass_counts() (the pass bound),
 *                           pvq_head_reserve(), pvq_head_unreserve(),
 *                           pvq_head_reset_passes(),
 *                           pvq_pv_qspin_unlock_slowpath()
 *   qspinlock/qspinlock_internal.h  struct pvq_mcs_node: state, pred_hashed
 *   pv/pv_ops.h             the wait(ptr, val) / kick(cpu) contract
 *
 * Abstractions (see README.md):
 *
 *  - Memory is sequentially consistent.  Every atomic RMW of the C code
 *    (cmpxchg, xchg) is one indivisible step; every plain load or store
 *    (READ_ONCE, WRITE_ONCE, smp_store_release, smp_store_mb) is a step of
 *    its own.  A step may also update local variables of the CPU (and the
 *    ghost variables of the properties): that is invisible to the others.
 *    Barriers are therefore implicit: the model checks the protocol, not
 *    the barrier placement (BUG_WAIT_NODE_ORDER moves a load across the
 *    smp_store_mb() in program order, which SC can express).
 *  - One lock, one MCS node per CPU (no nesting: node->count and the tail
 *    index are always 0; a tail is "cpu + 1", 0 meaning no queue).
 *  - Spin thresholds (pvq_spin_threshold, pvq_steal_spin,
 *    pvq_fair_steal_spin, the 256-loop
 *    predecessor check of pvq_wait_early(), the starvation-bound clock) are
 *    nondeterministic: a spinner may give up after any failed iteration
 *    (or never; SPIN_MAX bounds the steal loops and the head's spin); the
 *    clock may say "starving" at any look, or never.
 *  - Statistics (pvq_stat_*, pvq_note_*), prefetchw() and cpu_relax() are
 *    omitted: they do not touch the protocol state.
 *  - The hash table is HSIZE (lock, node) slots probed linearly from slot 0
 *    (there is only one lock, so he->lock is a "used" bit).
 *
 * Compile-time options (spin -a -DX):
 *
 *   UNFAIR         the unfair instance pvq_slowpath(pv, unfair = true):
 *                  pvq_unfair_steal() at entry and the unfair queue head.
 *   FAIR_BOUND     the fair instance with fair_bound_us set: the queue
 *                  head competes without the pending bit until it blocks
 *                  stealing (the clock, at any iteration or never; or
 *                  about to halt the second time), and clears the bit
 *                  before it halts.
 *   NCPU           CPUs (default 3).
 *   ITERS, ITERS0  lock acquisitions of CPUs 1..NCPU-1 and of CPU 0
 *                  (default 2 and ITERS; a second acquisition reuses the
 *                  node and makes a second round of stealing and hashing).
 *   SPURIOUS       wait() may also return at any time with no kick.
 *   WAIT_MONITOR   wait() also returns once *ptr != val (an mwait-like
 *                  backend; the real kvm and ipi backends do NOT do this).
 *   NO_HASH_INVARIANT  drop the "one hash entry per lock" assertion.
 *   PASS_BOUND     pass_bound (default 2): counted steals past a queue
 *                  before stealing stops until a queue head has the lock.
 *   PASS_SCALE     pass_scale (default 1: every steal past a queue counts;
 *                  else each CPU counts one in PASS_SCALE, a local credit).
 *   OTHER_LOCK     (with GREEDY and PASS_SCALE > 1) the greedy stealer also
 *                  steals past another lock's queue, at any time: that
 *                  lock abstracted to what its steals do to the credit,
 *                  which is for the lock it was earned on only.
 *   GREEDY         CPU NCPU - 1 never queues: it steals for ever (the
 *                  fifth nesting level's trylock loop, a steal loop that
 *                  never ends); the others acquire as usual.
 *   CPU0_NO_WAIT   CPU 0 cannot halt (pvq_pv_can_wait() false): it spins on
 *                  ->locked, and as queue head spins round after round.
 *   SPIN_MAX       the steal loop before queueing and each spin of the
 *                  queue head give up after at most SPIN_MAX failed loops
 *                  (finite in the C code; needed for liveness against a
 *                  greedy stealer, or a contender could spin in its steal
 *                  loop for ever instead of queueing).
 *   BUG_*          planted bugs, see below.
 *
 * Properties:
 *
 *   1. Mutual exclusion: assert(in_cs == 1) on entry to the critical
 *      section.  Also asserted: the WARNs of the C code (the unlock slow
 *      path saw a locked byte that is not the slow value; the slow value
 *      but no hash entry), the invariant of Documentation/pv.rst "the
 *      table never holds two entries for one lock", and three claims of
 *      the docs:
 *      - no steal past the pending bit: a steal (pvq_pv_trylock_steal(),
 *        pvq_fair_steal(), pvq_unfair_steal()) never takes the lock while the queue head's
 *        pending bit is set (pv.rst "stealers stay out", unfair.rst "the
 *        head's cmpxchg of pending -> locked is the only way to the lock");
 *      - the pass bound: while a queue head waits (from the tail xchg that
 *        found no queue, or the hand-over store to its ->locked, until it
 *        takes the lock) at most PASS_LIMIT steals succeed (ghost
 *        g_passed): PASS_BOUND with PASS_SCALE 1; PASS_BOUND x PASS_SCALE
 *        + (NCPU - 1) x (PASS_SCALE - 1) with the credit.  And the count
 *        lives only with a queue: it is 0 when a new queue starts and when
 *        the head has the lock;
 *      - a robbed head can halt again: a queue head never declines to hash
 *        itself for a predecessor's entry (->pred_hashed) whose consumer
 *        had already cleared the flag when the head read it, while another
 *        CPU holds the lock with a plain 1; it would wait for a slow value
 *        nobody sets, and spin for that CPU's whole critical section
 *        (unfair.rst "Robbed after the kick").
 *   2. No deadlock: pan's invalid-end-state check.  There are no end labels
 *      at all: the only valid end state of a CPU is the end of its proctype
 *      after its acquisitions.  A CPU halted in wait() is blocked, so a CPU
 *      halted forever while the others are finished (or blocked) is an
 *      invalid end state: this is how a lost wakeup shows.
 *   3. Progress: the LTL property "live", <> (ndone == NQUEUED), checked for
 *      acceptance cycles under weak fairness (pan -a -f): on every fair run
 *      every CPU (but the greedy stealer) completes all its acquisitions.
 *      A CPU halted forever violates it (the final state stutters), so does
 *      a livelock (a fair cycle without completion), such as a queue head
 *      passed for ever by the greedy stealer.  And the LTL property
 *      "head", [] (g_hd -> <> !g_hd): every queue head takes the lock,
 *      whatever the others do (with GREEDY, even when no bound is set on
 *      the contenders' steal loops: they may spin in them for ever).
 *
 * Planted bugs (each makes pan report a counterexample):
 *
 *   BUG_KICK_BEFORE_RELEASE    pvq_pv_qspin_unlock_slowpath() kicks the head
 *                              before its store-release of 0.
 *   BUG_DEFERRED_KICK_DROPPED  pvq_pv_kick_node() marks the successor hashed
 *                              but neither hashes it nor sets the slow value.
 *   BUG_WAIT_NODE_ORDER        pvq_pv_wait_node() reads ->locked before it
 *                              publishes "halted".
 *   BUG_UNLOCK_NO_UNHASH       the unlock slow path looks the node up but
 *                              leaves its hash entry in place.
 *   BUG_STEAL_NOT_ATOMIC       pvq_pv_trylock_steal() takes the lock with a
 *                              plain store after its read, not a cmpxchg.
 *   BUG_STEAL_LOCKED_BYTE      the steals cmpxchg the locked byte alone, not
 *                              the whole word (the C code before README.md
 *                              finding 2): a pending bit set after their
 *                              read does not stop them (nor is the steal
 *                              counted).
 *   BUG_PRED_HASHED_SNAPSHOT   the queue head's pred_hashed is a snapshot of
 *                              its state (HASHED) on entry to pvq_wait_head(),
 *                              dropped only once it has seen the slow value
 *                              come and go (the C code before README.md
 *                              finding 1): a head robbed before its first look
 *                              can never halt again.
 *   BUG_PRED_HASHED_READ_LATE  pvq_wait_head() reads the locked byte before
 *                              ->pred_hashed (the C code before README.md
 *                              finding 3): it can hash itself under the old
 *                              owner's slow value, which the owner's release
 *                              then overwrites, leaving a stale entry.
 *   BUG_PRED_HASHED_UNSET      pvq_pv_kick_node() never sets ->pred_hashed.
 *   BUG_PRED_HASHED_SET_LATE   pvq_pv_kick_node() sets ->pred_hashed after
 *                              its state cmpxchg instead of before.
 *   BUG_PRED_HASHED_KEPT       the unlock slow path does not clear the
 *                              ->pred_hashed of the node whose entry it
 *                              consumed.
 *   BUG_NO_PASS_BOUND          steals past a queue are neither counted nor
 *                              refused (the C code before the pass bound).
 *   BUG_RESERVE_BYTE_STORE     the head sets and clears its reservation with
 *                              a store of the pending byte (as the C code
 *                              before the pass bound did), over the count.
 *   BUG_STEAL_HALF_WORD        the steal cmpxchg's the 16-bit locked_pending
 *                              from val, not the whole word: blind to a
 *                              queue that appeared or emptied after its read.
 */

#ifndef NCPU
#define NCPU	3
#endif
#ifndef ITERS
#define ITERS	2
#endif
#ifndef ITERS0
#define ITERS0	ITERS
#endif

/* Does CPU @me still want the lock? */
#define ITER_OK	(!IS_GREEDY && \
		 ((me == 0 && iter < ITERS0) || (me != 0 && iter < ITERS)))

/* Hash slots: one lock needs one entry; a second slot lets a duplicate in. */
#define HSIZE	2

/* Locked byte values (qspinlock_types.h, pvqspinlock.h). */
#define LOCKED_VAL	1	/* PVQ_LOCKED_VAL */
#define SLOW_VAL	3	/* PVQ_SLOW_VAL: held, halted head in the hash */

/* enum pvq_vcpu_state (qspinlock_internal.h). */
#define RUNNING		0	/* PVQ_VCPU_RUNNING */
#define HALTED		1	/* PVQ_VCPU_HALTED */
#define HASHED		2	/* PVQ_VCPU_HASHED */

/*
 * The pass bound (pass_bound, pass_scale; pvq_steal_free()): at most
 * PASS_BOUND counted steals past a queue between two acquisitions through
 * it; a CPU counts one in PASS_SCALE of its steals past a queue.
 */
#ifndef PASS_BOUND
#define PASS_BOUND	2
#endif
#ifndef PASS_SCALE
#define PASS_SCALE	1
#endif
/*
 * How often a queue head may be passed: every counted steal, and with
 * PASS_SCALE > 1 the uncounted ones each counted steal gives credit for,
 * plus the credit every other CPU may have left over from before.
 */
#define PASS_LIMIT	(PASS_BOUND * PASS_SCALE + (NCPU - 1) * (PASS_SCALE - 1))

/*
 * GREEDY: CPU NCPU - 1 is a greedy stealer: it never queues, and steals
 * (pvq_steal_free()) for ever, as the fifth nesting level's trylock loop
 * of pvq_slowpath() does, or a contender whose steal loop never ends.
 */
#ifdef GREEDY
#define IS_GREEDY	(me == NCPU - 1)
#define NQUEUED		(NCPU - 1)
#else
#define IS_GREEDY	0
#define NQUEUED		NCPU
#endif

/*
 * CPU0_NO_WAIT: CPU 0 cannot halt (pvq_pv_can_wait() false: interrupts
 * off on the ipi backend, or NMI context): it spins on ->locked as a
 * queued waiter and only spins as the queue head.
 */
#ifdef CPU0_NO_WAIT
#define CAN_WAIT	(me != 0)
#else
#define CAN_WAIT	1
#endif

#ifdef FAIR_BOUND
#define IS_BOUNDED	1
#else
#define IS_BOUNDED	0
#endif
#ifdef UNFAIR
#define IS_UNFAIR	1
#else
#define IS_UNFAIR	0
#endif

/*
 * struct pvq_qspinlock: the 32-bit lock word, as its fields (the pending
 * byte split into the reservation bit and the pass count).  Every access
 * below uses the granularity of the C code: the whole word (fast path
 * cmpxchg, atomic_read(), the steals' cmpxchg, the head's atomic_or() and
 * atomic_andnot() of the reservation, its cmpxchg in pvq_head_acquire()),
 * the locked_pending half-word (16-bit cmpxchg and store), the tail
 * half-word (16-bit xchg), or one byte (pvq_head_reset_passes()).
 */
byte lk_locked;			/* 0, LOCKED_VAL or SLOW_VAL */
bit  lk_pending;		/* pending byte, bit 0: the head's reservation */
byte lk_passes;			/* pending byte, bits 1-7: counted passes */
byte lk_tail;			/* 0: no queue, else cpu + 1 of the tail */

/*
 * struct pvq_mcs_node, one per CPU (pvq_mcs_nodes[0] of each CPU).  A node
 * pointer is encoded as cpu + 1 (0 = NULL); node->cpu is the index itself.
 */
bit  nd_locked[NCPU];		/* 1: we are the queue head */
byte nd_next[NCPU];		/* successor node, cpu + 1, 0 = NULL */
byte nd_state[NCPU];		/* RUNNING, HALTED or HASHED */
bit  nd_pred_hashed[NCPU];	/* the predecessor hashed us (deferred kick) */

/* pvq_hash_table: the (lock, node) entries; only one lock exists. */
bit  he_lock[HSIZE];		/* he->lock == lock */
byte he_node[HSIZE];		/* he->node, cpu + 1 */

/*
 * The halt/kick backend (pv_ops.h).  waiting[c]: CPU c has passed the
 * *ptr == val check of wait() and is halted (the check and the halt are
 * one step: that is the guarantee "a kick posted after the check still
 * ends the halt").  kicked[c]: a kick arrived while it was halted; the
 * wake-up consumes it.
 */
bit  waiting[NCPU];
bit  kicked[NCPU];

/* Ghost variables of the properties. */
byte in_cs;			/* CPUs in the critical section */
byte ndone;			/* CPUs that completed all their acquisitions */
bit  g_unhashed[NCPU];		/* an unlock consumed c's entry, cleared its flag */
bit  g_hd;			/* a queue head waits (has not taken the lock) */
byte g_passed;			/* steals since it became head (saturates) */

#ifdef BUG_CREDIT_ANY_LOCK
#define BUG_ANY_LOCK	1
#else
#define BUG_ANY_LOCK	0
#endif

/*
 * pvq_steal_free(lock, val).  The caller has read the word, found the
 * locked byte and the reservation clear, and kept its tail and count in
 * v_tail, v_passes.  COUNTED: must this CPU count a steal past a queue
 * (pvq_pass_counts(): no credit left)?  REFUSED: the pass bound stops it.
 */
#if PASS_SCALE > 1 && defined(BUG_CREDIT_ANY_LOCK)
#define COUNTED		(credit == 0)
#elif PASS_SCALE > 1
#define COUNTED		(credit == 0 || credit_other)
#else
#define COUNTED		1
#endif
#ifdef BUG_NO_PASS_BOUND
#define REFUSED(tail, passes)	0
#else
#define REFUSED(tail, passes)	(tail != 0 && COUNTED && passes >= PASS_BOUND)
#endif

/*
 * The steal's cmpxchg: of the whole word from val (C code); of the 16-bit
 * locked_pending alone (BUG_STEAL_HALF_WORD: blind to the tail); of the
 * locked byte alone (BUG_STEAL_LOCKED_BYTE: blind to the reservation too,
 * the C code before README.md finding 2).
 */
#if defined(BUG_STEAL_LOCKED_BYTE)
#define STEAL_CAS	(lk_locked == 0)
#elif defined(BUG_STEAL_HALF_WORD)
#define STEAL_CAS	(lk_locked == 0 && lk_pending == 0 && lk_passes == v_passes)
#else
#define STEAL_CAS	(lk_locked == 0 && lk_pending == 0 && \
			 lk_passes == v_passes && lk_tail == v_tail)
#endif

/*
 * The queue head sets and clears its reservation bit with atomic_or() and
 * atomic_andnot() on the word (after an atomic_read(); only the head writes
 * the bit, so the read and the RMW are one step); BUG_RESERVE_BYTE_STORE
 * writes the pending byte instead, over the count.
 */
#ifdef BUG_RESERVE_BYTE_STORE
#define RESERVE		lk_pending = 1; lk_passes = 0
#define UNRESERVE	lk_pending = 0; lk_passes = 0
#else
#define RESERVE		lk_pending = 1
#define UNRESERVE	lk_pending = 0
#endif

/*
 * The queue head takes the lock (ghost): it is no longer passed.
 */
#define HEAD_TAKES	g_hd = 0; g_passed = 0

/* An acquisition done (the greedy stealer counts none). */
#ifdef GREEDY
#define ITER_NEXT	if :: !IS_GREEDY -> iter++ :: else fi
#else
#define ITER_NEXT	iter++
#endif

/*
 * pvq_wait_head()'s "halted": kept only while the head does not block
 * stealing (the one case in which it is read); default fair blocks always.
 */
#if defined(UNFAIR) || defined(FAIR_BOUND)
#define HALTED_NOTE	if :: !block -> halted = 1 :: else fi
#define HALTED_FORGET	halted = 0
#else
#define HALTED_NOTE	skip
#define HALTED_FORGET	skip
#endif

/*
 * SPIN_MAX: the steal loop before queueing (pvq_steal_spin,
 * pvq_fair_steal_spin loops) and each spin of the queue head
 * (pvq_head_spin(), pvq_queue_spin_threshold loops) give up after at most
 * SPIN_MAX failed loops, as they do in the C code.  Without it, after any
 * number of them, or never (which only a head that cannot halt does).
 * SPIN_ON: one more failed loop, if allowed; SPIN_BREAK: give up.
 */
#ifdef SPIN_MAX
#define SPIN_MORE	(spins < SPIN_MAX)
#define SPIN_ON		(spins < SPIN_MAX) -> spins++
#define SPIN_INC	spins++
#define SPIN_RESET	spins = 0
#define SPIN_BREAK	spins = 0; break
#else
#define SPIN_MORE	1
#define SPIN_ON		skip
#define SPIN_INC	skip
#define SPIN_RESET	skip
#define SPIN_BREAK	break
#endif

/*
 * The steal loop's condition besides the pending bit: the unfair one
 * steals with or without a queue, the fair one only past a queue.
 */
#ifdef UNFAIR
#define STEAL_QUEUE	1
#else
#define STEAL_QUEUE	(lk_tail != 0)
#endif

/* Progress: every CPU but the greedy stealer completes its acquisitions. */
ltl live { <> (ndone == NQUEUED) }
/* The queue head's liveness: every head takes the lock. */
ltl head { [] (g_hd -> <> !g_hd) }

/*
 * pvq_pv_wait(ptr, val) -- the pv_ops.h contract, kvm and ipi backends.
 *
 * Atomically: if *ptr != val return at once; else halt.  A halted CPU is
 * blocked (not executable) until kick() sets kicked[me]; the wake-up
 * consumes the kick.  With SPURIOUS it may also return at any time (an
 * interrupt, a stale kvm kick, the ipi backend with interrupts off); with
 * WAIT_MONITOR it also returns once *ptr != val.  Without either option a
 * halted CPU that nobody kicks stays halted forever.
 */
inline pvq_pv_wait(ptr, val)
{
	if
	:: d_step { ptr != val -> skip }
	:: d_step { ptr == val -> waiting[me] = 1 };
		if
		:: d_step { kicked[me] -> kicked[me] = 0; waiting[me] = 0 }
#ifdef SPURIOUS
		:: d_step { true -> kicked[me] = 0; waiting[me] = 0 }
#endif
#ifdef WAIT_MONITOR
		:: d_step { ptr != val -> kicked[me] = 0; waiting[me] = 0 }
#endif
		fi
	fi
}

/*
 * pvq_pv_kick(cpu) -- pv_ops.h: wake @cpu if it is halted in wait(),
 * harmless otherwise.  The weakest reading of the contract: a kick to a
 * CPU that is not halted (yet) is lost, as an IPI taken with interrupts on.
 */
inline pvq_pv_kick(cpu)
{
	d_step {
		if
		:: waiting[cpu] -> kicked[cpu] = 1
		:: else
		fi
	}
}

/*
 * pvq_hash(lock, node) -- record lock -> node in the first free slot:
 * cmpxchg_relaxed(&he->lock, NULL, lock) on each slot in turn (one atomic
 * step each), then WRITE_ONCE(he->node, node).  ok = 0 if the table is
 * full (WARN_ONCE).  @slot is 0 on entry and on exit.
 */
#ifdef NO_HASH_INVARIANT
#define HASH_INVARIANT	skip
#else
/* pv.rst: "or the table would hold two entries for one lock". */
#define HASH_INVARIANT	assert(he_lock[0] + he_lock[1] == 1)
#endif

inline pvq_hash(node, ok)
{
	do
	:: d_step {
		slot < HSIZE && !he_lock[slot] ->
			he_lock[slot] = 1;
			ok = 1;
			HASH_INVARIANT
	   };
	   break
	:: d_step { slot < HSIZE && he_lock[slot] -> slot++ }
	:: d_step { slot >= HSIZE -> ok = 0 }; break
	od;
	if
	:: d_step { ok -> he_node[slot] = node + 1; slot = 0 }
	:: d_step { !ok -> slot = 0 }
	fi
}

/*
 * pvq_unhash(lock) -- READ_ONCE(he->lock) on each slot until the lock's
 * entry, READ_ONCE(he->node), WRITE_ONCE(he->lock, NULL): separate steps.
 * n = node + 1, or 0 if there is no entry.  With @keep (only
 * BUG_UNLOCK_NO_UNHASH) the entry is left in place.
 */
inline pvq_unhash(n, keep)
{
	do
	:: slot < HSIZE && he_lock[slot] -> break
	:: d_step { slot < HSIZE && !he_lock[slot] -> slot++ }
	:: slot >= HSIZE -> break
	od;
	if
	:: slot < HSIZE ->
		n = he_node[slot];
		d_step {
			if
			:: keep
			:: else -> he_lock[slot] = 0
			fi;
			slot = 0
		}
	:: d_step { slot >= HSIZE -> n = 0; slot = 0 }
	fi
}

/*
 * pvq_steal_free(lock, val), after the caller's atomic_read() of the word
 * (v_tail, v_passes; locked byte and reservation clear): refused at the
 * pass bound; else the cmpxchg, one atomic step (the caller's atomic {}),
 * from val to val + PVQ_PASS_VAL + LOCKED_VAL if counted past a queue,
 * else to val | LOCKED_VAL.  Success: the per-CPU credit, goto locked.
 * Failure: falls through.  Ghost: a steal while a queue head waits passes
 * it.
 */
inline pvq_steal_free()
{
	if
	:: REFUSED(v_tail, v_passes)	/* pvq_stat_inc(pass_bound) */
	:: else ->
		if
		:: STEAL_CAS ->
			/* no steal past the pending bit */
			assert(!lk_pending);
			lk_locked = LOCKED_VAL;
#if !defined(BUG_NO_PASS_BOUND) && !defined(BUG_STEAL_LOCKED_BYTE)
			if
			:: v_tail != 0 && COUNTED -> lk_passes = v_passes + 1
			:: else
			fi;
#endif
#if PASS_SCALE > 1
			if
			:: v_tail != 0 && COUNTED ->
				credit = PASS_SCALE - 1;
				credit_other = 0
			:: v_tail != 0 && !COUNTED -> credit--
			:: else
			fi;
#endif
			/* a queue head is passed at most PASS_LIMIT times */
			if
			:: g_hd && g_passed <= PASS_LIMIT -> g_passed++
			:: else
			fi;
			assert(g_passed <= PASS_LIMIT);
			v_tail = 0;
			v_passes = 0;
#ifdef SPIN_MAX
			spins = 0;
#endif
			goto locked
		:: else
		fi
	fi;
	v_tail = 0;
	v_passes = 0
}

proctype cpu(byte me)
{
	byte iter;		/* acquisitions done */
	byte v_locked;		/* "val": a whole-word snapshot ... */
	bit  v_pending;
	byte v_tail;
	byte v_passes;		/* ... with the count (the steals' val) */
#if PASS_SCALE > 1
	byte credit;		/* pvq_pass_credit: uncounted steals left */
	bit  credit_other;	/* ... earned on another lock (OTHER_LOCK) */
#endif
	byte l;			/* a locked byte value read or returned */
	byte old;		/* old tail from pvq_xchg_tail() */
	byte next;		/* successor node (cpu + 1) */
	byte n;			/* node returned by pvq_unhash() */
	byte slot;		/* hash probe index */
	bit  ok;
	bit  keep;		/* BUG_UNLOCK_NO_UNHASH in the unlock */
	bit  pred_hashed;	/* pvq_wait_head(): READ_ONCE(node->pred_hashed) */
	bit  block;		/* pvq_wait_head(): stealing blocked */
#if defined(UNFAIR) || defined(FAIR_BOUND)
	bit  halted;		/* pvq_wait_head(): halted (kept only while !block) */
#endif
#ifdef SPIN_MAX
	byte spins;		/* failed loops of the current spin */
#endif
#ifdef BUG_PRED_HASHED_SNAPSHOT
	bit  seen_slow;		/* the old head's second local */
#endif
	bit  g_snap;		/* g_unhashed[me] when we read the locked byte */

top:
	do
	:: atomic {
		ITER_OK ->
		/*
		 * pvq_pv_qspin_lock() / pvq_pv_qspin_unfair_lock(): the fast path,
		 * atomic_try_cmpxchg_acquire(&lock->val, 0, LOCKED_VAL).
		 */
		if
		:: lk_locked == 0 && lk_pending == 0 && lk_passes == 0 &&
		   lk_tail == 0 ->
			lk_locked = LOCKED_VAL;
			goto locked
		:: else
		fi
	   };

		/*
		 * pvq_slowpath(lock, val, pv = true, unfair).  PV: no pending
		 * waiter (pvq_pending_acquire() is skipped), so val is unused.
		 */
		/*
		 * The steal loop before queueing.  Unfair, pvq_unfair_steal():
		 * spin, trying pvq_steal_free() whenever the locked byte is
		 * free (it may fail, or be refused at the pass bound: spin
		 * on), until the pending bit (a starving head) says stop, or
		 * until pvq_steal_spin loops or the steal budget (after any
		 * iteration, nondeterministically; SPIN_MAX: at most that
		 * many).  Fair, pvq_fair_steal(): the same while a queue
		 * exists (no queue: go and head it), until
		 * pvq_fair_steal_spin loops; 0 loops, the other default, is
		 * the one attempt of pvq_pv_trylock_steal() below.  Each guard
		 * is one atomic_read() of the whole word.
		 */
		do
		:: lk_pending || !STEAL_QUEUE ->
			SPIN_BREAK			/* blocked: queue */
		:: !lk_pending && STEAL_QUEUE && lk_locked != 0 && SPIN_MORE ->
			SPIN_INC			/* spin on */
		:: !lk_pending && STEAL_QUEUE && lk_locked != 0 ->
			SPIN_BREAK			/* loops used up */
		:: atomic {
			!lk_pending && STEAL_QUEUE && lk_locked == 0 ->
			v_tail = lk_tail;
			v_passes = lk_passes
		   };
			/* pvq_steal_free(lock, val); failed: loop or stop */
			atomic {
				pvq_steal_free();
				if
				:: SPIN_ON
				:: SPIN_BREAK
				fi
			}
		od;

		/*
		 * pvq_queue_acquire(), pvq_pv_trylock_steal(): one
		 * atomic_read() of the word, pvq_steal_free().  (The node
		 * initialisation that precedes it in the C code is done below
		 * with the tail exchange: the node is private until then.)
		 */
		if
		:: atomic {
			lk_locked == 0 && lk_pending == 0 ->
			v_tail = lk_tail;
			v_passes = lk_passes
		   };
			atomic {
#ifdef BUG_STEAL_NOT_ATOMIC
				/* BUG: a plain store, the read was the check. */
				lk_locked = LOCKED_VAL;
				v_tail = 0;
				v_passes = 0;
				goto locked
#else
				pvq_steal_free()
#endif
			}
		:: !(lk_locked == 0 && lk_pending == 0)
		fi;

		/*
		 * node->locked = 0, node->next = NULL, pvq_pv_init_node()
		 * (state = RUNNING, pred_hashed = 0), smp_wmb(), then
		 * pvq_xchg_tail(): the
		 * 16-bit xchg of the tail.  Nobody else can reach our node
		 * before the xchg publishes it, so this is one step.
		 */
		atomic {
			nd_locked[me] = 0;
			nd_next[me] = 0;
			nd_state[me] = RUNNING;
			nd_pred_hashed[me] = 0;
			g_unhashed[me] = 0;
			old = lk_tail;
			lk_tail = me + 1;
			if
			:: old == 0 ->
				/* we are the head; no count without a queue */
				assert(lk_passes == 0);
				g_hd = 1;
				g_passed = 0;
				goto wait_head
			:: else
			fi
		};

		/* WRITE_ONCE(prev->next, node) */
		d_step {
			nd_next[old - 1] = me + 1;
			old = 0
		};

		/*
		 * pvq_pv_wait_node(node, prev).  The spin loop reads
		 * node->locked once per iteration; it may end after any
		 * iteration (pvq_spin_threshold loops, or pvq_wait_early()
		 * saw the predecessor not running).
		 */
wn_spin:
		do
		:: nd_locked[me] -> goto wn_done
		:: !nd_locked[me] -> skip
		:: CAN_WAIT && !nd_locked[me] -> break	/* else: spin for ever */
		od;
#ifdef BUG_WAIT_NODE_ORDER
		/* BUG: ->locked is read before "halted" is published. */
		l = nd_locked[me];
		nd_state[me] = HALTED;
		if
		:: d_step { !l -> l = 0 };
			pvq_pv_wait(nd_state[me], HALTED)
		:: d_step { l -> l = 0 }
		fi;
#else
		/*
		 * smp_store_mb(node->state, HALTED), then re-check ->locked:
		 * pairs with pvq_pv_kick_node(), which sets ->locked and then
		 * reads the state.
		 */
		nd_state[me] = HALTED;
		if
		:: !nd_locked[me] -> pvq_pv_wait(nd_state[me], HALTED)
		:: nd_locked[me]
		fi;
#endif
		/* cmpxchg(&node->state, HALTED, RUNNING); loop */
		atomic {
			if
			:: nd_state[me] == HALTED -> nd_state[me] = RUNNING
			:: else
			fi;
			goto wn_spin
		};
wn_done:
		/*
		 * smp_cond_load_acquire(&node->locked, VAL) returns at once;
		 * next = READ_ONCE(node->next).
		 */
		next = nd_next[me];

		/*
		 * pvq_pv_wait_head_or_lock() / pvq_unfair_wait_head_or_lock():
		 * pvq_wait_head(lock, node, unfair).  Leaves through wh_out
		 * with the lock taken.
		 */
wait_head:
		atomic {
#ifdef BUG_PRED_HASHED_SNAPSHOT
			/* BUG: the flag is our state on entry, not the field. */
			pred_hashed = (nd_state[me] == HASHED);
			seen_slow = 0;
#endif
			block = !IS_UNFAIR && !IS_BOUNDED
		};
wh_loop:
		nd_state[me] = RUNNING;

		/*
		 * pvq_head_spin(lock, &block, &hc): reserve the lock if we
		 * block stealing (pvq_head_reserve(): atomic_or()).
		 */
		d_step {
			if
			:: block -> RESERVE
			:: else
			fi
		};
		do
		:: atomic {
			block ->
			/*
			 * pvq_head_take_reserved(): READ_ONCE(locked_pending),
			 * 16-bit cmpxchg from it to LOCKED_VAL (drops the
			 * reservation, resets the count).  Reserved, nobody
			 * else writes the half-word meanwhile: one step.
			 */
			if
			:: lk_locked == 0 ->
				lk_locked = LOCKED_VAL;
				lk_pending = 0;
				lk_passes = 0;
				HEAD_TAKES;
				goto wh_out
			:: else ->
				if
				:: SPIN_ON		/* cpu_relax(), spin on */
				:: SPIN_BREAK		/* pvq_queue_spin_threshold */
				fi
			fi
		   }
		:: !block ->
			/*
			 * pvq_head_take_free(): READ_ONCE(lock->locked), then
			 * cmpxchg_acquire(&lock->locked, 0, LOCKED_VAL), then
			 * pvq_head_reset_passes() below.
			 */
			if
			:: lk_locked == 0 ->
				atomic {
					if
					:: lk_locked == 0 ->
						lk_locked = LOCKED_VAL;
						HEAD_TAKES;
						goto wh_taken
					:: else
					fi
				}
			:: lk_locked != 0
			fi;
			/*
			 * Unfair or FAIR_BOUND: the starvation clock
			 * (pvq_head_starving()) may say "starving" at any
			 * iteration, or never; then no more stealing:
			 * pvq_head_block_stealing(now = true).
			 */
			if
			:: SPIN_ON
			:: SPIN_BREAK
#if defined(UNFAIR) || defined(FAIR_BOUND)
			:: d_step { RESERVE; block = 1; HALTED_FORGET }
			:: d_step { RESERVE; block = 1; HALTED_FORGET; SPIN_RESET };
				break
#endif
			fi
		od;

#ifdef CPU0_NO_WAIT
		/* !can_wait: pvq_pv_spinning() (nothing deferred here), spin */
		if
		:: !CAN_WAIT -> goto wh_loop
		:: else
		fi;
#endif
#if defined(UNFAIR)
		/*
		 * halted && !block: robbed after a halt already, block
		 * stealing; unfair: reserve now, and keep it while halted.
		 */
		if
		:: d_step { halted && !block -> HALTED_FORGET; block = 1; RESERVE }
		:: else
		fi;
#elif defined(FAIR_BOUND)
		/*
		 * halted && !block: block stealing from the next spin on (not
		 * now); then, fair: about to halt, let running vCPUs take the
		 * lock (pvq_head_unreserve(): atomic_andnot()).
		 */
		atomic {	/* not d_step: the spin loop breaks to here */
			if
			:: halted && !block -> HALTED_FORGET; block = 1
			:: else
			fi;
			UNRESERVE
		};
#else
		/*
		 * Fair: about to halt, let running vCPUs take the lock
		 * (pvq_head_unreserve(): atomic_andnot()).
		 */
		atomic { UNRESERVE };	/* the spin loop breaks to here */
#endif
#ifdef BUG_PRED_HASHED_SNAPSHOT
		/*
		 * BUG (the C code before the ->pred_hashed field):
		 * locked = READ_ONCE(lock->locked); the entry the predecessor
		 * made for us counts as consumed once we have seen its slow
		 * value come and go.
		 */
		atomic {
			g_snap = g_unhashed[me];
			l = lk_locked;
			if
			:: pred_hashed && l == SLOW_VAL -> seen_slow = 1
			:: pred_hashed && l != SLOW_VAL && seen_slow ->
				pred_hashed = 0
			:: else
			fi;
			/* a robbed head can halt again */
			assert(!(pred_hashed && g_snap && l == LOCKED_VAL));
			g_snap = 0;
			if
			:: pred_hashed || l == SLOW_VAL -> l = 0; goto wh_halt
			:: else -> l = 0
			fi
		};
#else
		/*
		 * smp_rmb(); READ_ONCE(node->pred_hashed); smp_rmb();
		 * locked = READ_ONCE(lock->locked).  The flag set: the
		 * predecessor hashed us and the unlock that consumes the entry
		 * has not cleared it yet, so we must not hash ourselves.
		 * (g_snap: had the unlock that consumed our entry cleared the
		 * flag when we read it?)  BUG_PRED_HASHED_READ_LATE reads the
		 * two the other way round.
		 */
#ifndef BUG_PRED_HASHED_READ_LATE
		atomic {	/* not d_step: the spin loop breaks to here */
			pred_hashed = nd_pred_hashed[me];
			g_snap = g_unhashed[me]
		};
		atomic {
			l = lk_locked;
#else
		l = lk_locked;
		atomic {
			pred_hashed = nd_pred_hashed[me];
			g_snap = g_unhashed[me];
#endif
			/*
			 * A robbed head can halt again: our entry was
			 * consumed and another CPU holds the lock, so nobody
			 * will set the slow value for us.
			 */
			assert(!(pred_hashed && g_snap && l == LOCKED_VAL));
			g_snap = 0;
			if
			:: pred_hashed || l == SLOW_VAL ->
				pred_hashed = 0; l = 0; goto wh_halt
			:: else -> l = 0
			fi
		};
#endif

		pvq_hash(me, ok);
		/*
		 * If the table is full we cannot halt safely: spin.  Else
		 * xchg(&lock->locked, SLOW_VAL): the entry is in place before
		 * an unlocker can see the slow value.
		 */
		atomic {
			if
			:: !ok -> goto wh_loop
			:: else
			fi;
			l = lk_locked;
			lk_locked = SLOW_VAL;
			if
			:: l != 0 -> l = 0; ok = 0; goto wh_halt
			:: else -> ok = 0; HEAD_TAKES
			fi
		};
		/*
		 * It was free: ours.  WRITE_ONCE(lock->locked_pending,
		 * LOCKED_VAL) (drops a reservation we may hold, resets the
		 * count), then pvq_unhash().
		 */
		d_step {
			lk_locked = LOCKED_VAL;
			lk_pending = 0;
			lk_passes = 0
		};
		pvq_unhash(n, 0);
		n = 0;
		goto wh_out;

wh_halt:
		/* For our successor's early-halt check; then halt. */
		atomic {	/* not d_step: jumped to */
			nd_state[me] = HASHED;
			HALTED_NOTE
		};
		pvq_pv_wait(lk_locked, SLOW_VAL);
		goto wh_loop;

wh_taken:
		/*
		 * pvq_head_reset_passes(): WRITE_ONCE(lock->pending, 0), the
		 * byte (reservation and count; the locked byte keeps every
		 * steal out).
		 */
		atomic {	/* not d_step: jumped to */
			lk_pending = 0;
			lk_passes = 0
		};

wh_out:
		/* WRITE_ONCE(node->state, RUNNING) */
		atomic {
			pred_hashed = 0;
#ifdef BUG_PRED_HASHED_SNAPSHOT
			seen_slow = 0;
#endif
			block = 0;
			HALTED_FORGET;
			SPIN_RESET;
			g_unhashed[me] = 0;	/* ghost: no longer needed */
			nd_state[me] = RUNNING
		};
		/*
		 * return atomic_read(&lock->val) | PVQ_LOCKED_VAL.  The count
		 * is 0: we reset it when we took the lock, and no steal can
		 * succeed while we hold it.
		 */
		d_step {
			v_locked = lk_locked | LOCKED_VAL;
			v_pending = lk_pending;
			v_tail = lk_tail;
			assert(lk_passes == 0)
		};

		/*
		 * pvq_head_acquire(lock, node, next, tail, val, pv = true):
		 * if we are the tail, atomic_try_cmpxchg_relaxed(&lock->val,
		 * &val, LOCKED_VAL) empties the queue.
		 */
		atomic {
			if
			:: v_tail == me + 1 && lk_locked == v_locked &&
			   lk_pending == v_pending && lk_passes == 0 &&
			   lk_tail == v_tail ->
				lk_locked = LOCKED_VAL;
				lk_pending = 0;
				lk_passes = 0;
				lk_tail = 0;
				v_locked = 0; v_pending = 0; v_tail = 0;
				next = 0;
				goto locked
			:: else ->
				v_locked = 0; v_pending = 0; v_tail = 0
			fi
		};
		/*
		 * PV: no pvq_set_locked(), the head wait did it.  If the
		 * successor is not known yet: smp_cond_load_relaxed(&node->next).
		 */
		atomic {
			next != 0 || nd_next[me] != 0 ->
			if
			:: next == 0 -> next = nd_next[me]
			:: else
			fi
		};
		/*
		 * smp_store_release(&next->locked, 1): it is the queue head
		 * (ghost: from here on, a steal passes it).
		 */
		d_step {
			nd_locked[next - 1] = 1;
			g_hd = 1;
			g_passed = 0
		};

		/*
		 * pvq_pv_kick_node(lock, next): WRITE_ONCE(node->pred_hashed,
		 * 1), then (full barrier) cmpxchg(&node->state, HALTED,
		 * HASHED).  If it was halted, defer its kick to our unlock:
		 * hash it and set the slow value (a plain store: we hold the
		 * lock).  Otherwise it sees ->locked by itself, and we clear
		 * the flag again.
		 */
#if !defined(BUG_PRED_HASHED_SNAPSHOT) && !defined(BUG_PRED_HASHED_UNSET) && \
    !defined(BUG_PRED_HASHED_SET_LATE)
		nd_pred_hashed[next - 1] = 1;
#endif
		atomic {
			if
			:: nd_state[next - 1] == HALTED ->
				nd_state[next - 1] = HASHED
			:: else -> goto kick_node_lost
			fi
		};
#ifdef BUG_PRED_HASHED_SET_LATE
		/* BUG: the flag comes after the state says HASHED. */
		nd_pred_hashed[next - 1] = 1;
#endif
#ifdef BUG_DEFERRED_KICK_DROPPED
		/* BUG: marked hashed, but no entry, no slow value, no kick. */
		next = 0;
#else
		pvq_hash(next - 1, ok);
		if
		:: d_step { ok -> lk_locked = SLOW_VAL; ok = 0; next = 0 }
		:: !ok ->
			pvq_pv_kick(next - 1);	/* no deferral possible */
			next = 0
		fi;
#endif
		goto locked;

kick_node_lost:
		/* WRITE_ONCE(node->pred_hashed, 0) */
		atomic {
#if !defined(BUG_PRED_HASHED_SNAPSHOT) && !defined(BUG_PRED_HASHED_UNSET)
			nd_pred_hashed[next - 1] = 0;
#endif
			next = 0
		};

locked:
		/* The critical section: mutual exclusion. */
		atomic {
			in_cs++;
			assert(in_cs == 1)
		};

		/*
		 * pvq_pv_qspin_unlock() (also pvq_pv_qspin_unfair_unlock()):
		 * cmpxchg_release(&lock->locked, LOCKED_VAL, 0).
		 */
		atomic {
			in_cs--;
			l = lk_locked;
			if
			:: l == LOCKED_VAL ->
				lk_locked = 0;
				l = 0;
				ITER_NEXT;
				goto top
			:: else ->
				/* WARN_ONCE: unlock saw a bad locked byte */
				assert(l == SLOW_VAL);
				l = 0
			fi
		};

		/*
		 * pvq_pv_qspin_unlock_slowpath(lock, SLOW_VAL): smp_rmb(),
		 * pvq_unhash(), release, kick.
		 */
#ifdef BUG_UNLOCK_NO_UNHASH
		keep = 1;
#endif
		pvq_unhash(n, keep);
		/* WARN_ONCE: slow value but no hash entry */
		d_step {
			assert(n != 0);
			keep = 0
		};
		/*
		 * WRITE_ONCE(node->pred_hashed, 0): its entry is gone, the
		 * head may hash itself again.  (Ghost g_unhashed: the unlock
		 * has told the node so; the BUG_PRED_HASHED_SNAPSHOT and
		 * BUG_PRED_HASHED_KEPT protocols tell it nothing here.)
		 */
		d_step {
			if
			:: n != 0 ->
#if !defined(BUG_PRED_HASHED_SNAPSHOT) && !defined(BUG_PRED_HASHED_KEPT)
				nd_pred_hashed[n - 1] = 0;
#endif
				g_unhashed[n - 1] = 1
			:: else
			fi
		};
#ifdef BUG_KICK_BEFORE_RELEASE
		/* BUG: the kick comes before the release. */
		pvq_pv_kick(n - 1);
		lk_locked = 0;			/* smp_store_release() */
#else
		lk_locked = 0;			/* smp_store_release() */
		pvq_pv_kick(n - 1);
#endif
		d_step {
			n = 0;
			ITER_NEXT
		}
#ifdef GREEDY
	/*
	 * The greedy stealer: atomic_read() of the word, pvq_steal_free(),
	 * for ever (the fast path is the steal from the empty word).  The
	 * reads that find the lock taken, reserved or refused change
	 * nothing: it waits for one that does not.
	 */
	:: atomic {
		IS_GREEDY && lk_locked == 0 && lk_pending == 0 &&
		!REFUSED(lk_tail, lk_passes) ->
		v_tail = lk_tail;
		v_passes = lk_passes
	   };
		atomic { pvq_steal_free() }
#ifdef OTHER_LOCK
	/*
	 * A steal past another lock's queue (its bound not modelled): it
	 * spends this CPU's credit for that lock, or counts there and earns
	 * credit for that lock.  BUG_CREDIT_ANY_LOCK: the credit knows no
	 * lock (the C code before the fix), and this lock's head is passed
	 * on credit earned elsewhere.
	 */
	:: atomic {
		IS_GREEDY ->
		if
		:: (credit_other || BUG_ANY_LOCK) && credit > 0 -> credit--
		:: else -> credit = PASS_SCALE - 1; credit_other = 1
		fi
	   }
#endif
#endif
	:: atomic { !IS_GREEDY && !ITER_OK -> ndone++ };
		break
	od
}

init {
	byte i;

	atomic {
		i = 0;
		do
		:: i < NCPU -> run cpu(i); i++
		:: else -> break
		od
	}
}
