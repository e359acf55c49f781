// SPDX-License-Identifier: GPL-2.0
/*
 * Paravirtual queued spinlock: the PV hooks of the shared slow path, the
 * lock -> queue-head hash table, and the unlock slow path.
 *
 * A queued waiter spins for pvq_queue_spin_threshold loops on its MCS node,
 * then halts; the CPU that hands it the queue head defers its kick to unlock
 * time.
 * The queue head spins (with the pending bit set, once it has been starved
 * for fair_bound_us, so nobody steals the lock from under it), then records
 * lock -> node in the hash table, turns the locked byte into PVQ_SLOW_VAL
 * and halts; the unlocker, whose cmpxchg 1 -> 0 fails on the slow value,
 * finds the node in the hash, releases the lock and kicks the node's CPU.
 * Documentation/pv.rst walks through the races and how each is closed.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/page.h>
#include <asm/processor.h>

#include "pvqspinlock.h"
#include "pvqspinlock_hooks.h"
#include "pv_ops.h"
#include "lock_stats.h"
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
#include "pvqspinlock_unfair.h"
#endif

/* How often a spinning queued waiter looks at its predecessor's state. */
#define PVQ_PREV_CHECK_MASK	0xff
/* How often a queue head that lets stealers in looks at the clock. */
#define PVQ_CLOCK_CHECK_MASK	0xf
/*
 * A longer gap between two of its looks at the clock means the head did
 * not run (its vCPU was preempted, or an interrupt ran long): 16 spins take
 * well under a microsecond on hardware and a few under TCG.
 */
#define PVQ_PREEMPTED_GAP_NS	(100 * NSEC_PER_USEC)
/* How often a queued waiter that cannot halt calls pvq_pv_spinning(). */
#define PVQ_SPINNING_MASK	0xff

struct pvq_hash_entry {
	struct pvq_qspinlock *lock;
	struct pvq_mcs_node *node;
};

/* Probing walks a cache line of entries before it touches the next one. */
#define PVQ_HASH_ENTRIES_PER_LINE \
	(SMP_CACHE_BYTES / sizeof(struct pvq_hash_entry))

static struct pvq_hash_entry *pvq_hash_table;
static unsigned int pvq_hash_bits;

#ifdef PVQ_LOCK_STATS
/*
 * When each CPU was last kicked, for the kick-to-wake latency.  Written by
 * the kicker: a line of its own, away from the kicked CPU's MCS nodes.
 */
static DEFINE_PER_CPU_ALIGNED(u64, pvq_kick_time);

static void pvq_note_kick(int cpu)
{
	WRITE_ONCE(per_cpu(pvq_kick_time, cpu), pvq_stat_clock());
}

/* After a wait: a real wake-up (what we waited for happened) or spurious. */
static void pvq_note_wake(bool woken)
{
	u64 kicked = xchg(this_cpu_ptr(&pvq_kick_time), 0);

	if (!woken) {
		pvq_stat_inc(spurious);
		return;
	}
	pvq_stat_inc(kick_wake);
	if (kicked)
		pvq_stat_add(PVQ_EV_kick_latency_ns, pvq_stat_clock() - kicked);
}
#else
static void pvq_note_kick(int cpu)
{
}

static void pvq_note_wake(bool woken)
{
}
#endif

/*
 * Every queue head hashes at most one lock, and a CPU has at most one queue
 * head per nesting context (PVQ_MAX_NODES): 4 x nr_cpu_ids slots can never
 * overflow.  At least a page, though: with few CPUs (32 slots for 8 vCPUs)
 * unrelated locks would share lines and probe sequences; a sparse table
 * keeps each hashed lock alone on its line.
 */
int pvq_hash_init(void)
{
	unsigned long entries;

	entries = max_t(unsigned long, 4 * nr_cpu_ids,
			PAGE_SIZE / sizeof(struct pvq_hash_entry));
	entries = roundup_pow_of_two(max_t(unsigned long, entries,
					   PVQ_HASH_ENTRIES_PER_LINE));
	pvq_hash_bits = ilog2(entries);
	pvq_hash_table = kvcalloc(entries, sizeof(*pvq_hash_table),
				  GFP_KERNEL);
	return pvq_hash_table ? 0 : -ENOMEM;
}

unsigned long pvq_hash_entries(void)
{
	return pvq_hash_table ? 1UL << pvq_hash_bits : 0;
}

void pvq_hash_exit(void)
{
	kvfree(pvq_hash_table);
	pvq_hash_table = NULL;
}

/* First slot to probe for @lock: the start of its hashed cache line. */
static unsigned long pvq_hash_first(struct pvq_qspinlock *lock)
{
	unsigned long slot = hash_ptr(lock, pvq_hash_bits);

	return slot & ~(PVQ_HASH_ENTRIES_PER_LINE - 1);
}

/* Record lock -> node.  Fails only if the table is full, which cannot be. */
static bool pvq_hash(struct pvq_qspinlock *lock, struct pvq_mcs_node *node)
{
	unsigned long mask = (1UL << pvq_hash_bits) - 1;
	unsigned long slot = pvq_hash_first(lock), hops;
	struct pvq_hash_entry *he;

	for (hops = 0; hops <= mask; hops++, slot = (slot + 1) & mask) {
		he = &pvq_hash_table[slot];
		/* Relaxed: the caller orders the entry before the slow value. */
		if (!cmpxchg_relaxed(&he->lock, NULL, lock)) {
			WRITE_ONCE(he->node, node);
			pvq_stat_add(PVQ_EV_hash_hops, hops);
			return true;
		}
	}
	/* The table has 4 slots per possible hashed lock: a bug elsewhere. */
	WARN_ONCE(1, "pvqspinlock: hash table full\n");
	return false;
}

static struct pvq_mcs_node *pvq_unhash(struct pvq_qspinlock *lock)
{
	unsigned long mask = (1UL << pvq_hash_bits) - 1;
	unsigned long slot = pvq_hash_first(lock), hops;
	struct pvq_hash_entry *he;
	struct pvq_mcs_node *node;

	for (hops = 0; hops <= mask; hops++, slot = (slot + 1) & mask) {
		he = &pvq_hash_table[slot];
		if (READ_ONCE(he->lock) == lock) {
			node = READ_ONCE(he->node);
			WRITE_ONCE(he->lock, NULL);
			return node;
		}
	}
	/* The slow value promised an entry: the lock word is corrupt. */
	WARN_ONCE(1, "pvqspinlock %p: slow value but no hash entry\n", lock);
	return NULL;
}

void pvq_pv_init_node(struct pvq_mcs_node *node)
{
	node->cpu = smp_processor_id();
	/* A late successor of this node's last use may still read it. */
	WRITE_ONCE(node->state, PVQ_VCPU_RUNNING);
	node->pred_hashed = 0;
}

/*
 * The pass bound.  A queue head that the host does not run, or that halts,
 * can be passed by every running vCPU for as long as it is away: its
 * reservation (the pending bit) only works while it spins, and its
 * starvation clock only counts time it runs.  So every steal past a queue
 * is counted in the lock word (PVQ_PASSES_MASK), and at pass_bound counted
 * steals nobody steals until a queue head has taken the lock, which sets
 * the count to 0 again.  That bounds how often any head is passed,
 * halting or not, fair or unfair, whatever its clock says.
 *
 * Seven bits count at most 127, and a queue head at 4x overcommit is
 * passed a thousand times and more while its vCPU is away: stopping the
 * stealers at 127 cost the fair lock a third of its throughput at 4x (the
 * lock stood free until the head ran).  So each CPU counts only one of its
 * pass_scale steals past a queue, the first, and the ones after it only
 * while it has credit left.  A head is then passed at most
 * pass_scale * pass_bound times, plus for every CPU the pass_scale - 1
 * uncounted steals it may have had credit for (and up to three more that
 * nested contexts of that CPU took from the same credit): with the
 * defaults, 16 * 127 + 18 per CPU (Documentation/pv.rst).  The credit is
 * for the lock it was earned on, so the bound holds for every lock,
 * whatever else the CPUs take.
 */
int pvq_pass_bound = PVQ_PASS_BOUND_DEFAULT;
int pvq_pass_scale = PVQ_PASS_SCALE_DEFAULT;

/*
 * Uncounted steals past a queue this CPU may still make, and on which
 * lock: the credit a counted steal gives is for that lock's queue only (a
 * CPU that spent it on another lock would pass that lock's head
 * uncounted, without bound).  One word, so that contexts nesting on this
 * CPU see both change at once: the lock's address (its low 48 bits) above
 * PVQ_CREDIT_BITS, the credit below.
 */
#define PVQ_CREDIT_BITS		16
#define PVQ_CREDIT_MASK		((1UL << PVQ_CREDIT_BITS) - 1)
static DEFINE_PER_CPU(unsigned long, pvq_pass_credit);

static __always_inline unsigned long pvq_credit_key(struct pvq_qspinlock *lock)
{
	return (unsigned long)lock << PVQ_CREDIT_BITS;
}

static __always_inline u32 pvq_passes(u32 val)
{
	return (val & PVQ_PASSES_MASK) >> PVQ_PASSES_OFFSET;
}

/*
 * Must this CPU count its next steal past @lock's queue?  Yes without
 * credit for @lock, and with more credit than pass_scale gives
 * (pass_scale was lowered).  @credit: this CPU's pvq_pass_credit.
 */
static __always_inline bool pvq_pass_counts(struct pvq_qspinlock *lock,
					    unsigned long credit, int scale)
{
	unsigned long left = credit & PVQ_CREDIT_MASK;

	return (credit & ~PVQ_CREDIT_MASK) != pvq_credit_key(lock) ||
	       !left || left >= (unsigned long)scale;
}

/*
 * Every steal: take the lock if it is free and no head has reserved it,
 * and, past a queue, if the pass bound allows it.  @val: the word the
 * caller read.  Acquire: on success the critical section follows.  The
 * cmpxchg covers the whole word, so a head that reserves the lock, a
 * count that moves or a queue that appears or empties after the read
 * makes it fail.
 */
static __always_inline bool pvq_steal_free(struct pvq_qspinlock *lock, u32 val)
{
	unsigned long credit = this_cpu_read(pvq_pass_credit);
	u32 bound = READ_ONCE(pvq_pass_bound), new = val | PVQ_LOCKED_VAL;
	int scale = READ_ONCE(pvq_pass_scale);
	bool counted = false;

	if (val & (PVQ_LOCKED_MASK | PVQ_PENDING_VAL))
		return false;
	if (val & PVQ_TAIL_MASK) {
		if (bound && pvq_pass_counts(lock, credit, scale)) {
			if (pvq_passes(val) >= bound) {
				pvq_stat_inc(pass_bound);
				return false;
			}
			new += PVQ_PASS_VAL;
			counted = true;
		}
	}
	if (!atomic_try_cmpxchg_acquire(&lock->val, &val, new))
		return false;
	if (counted)
		this_cpu_write(pvq_pass_credit, pvq_credit_key(lock) | (scale - 1));
	else if ((val & PVQ_TAIL_MASK) && bound)
		/*
		 * One credit spent, unless a context nesting on this CPU
		 * changed the word meanwhile: its value stands (that context
		 * and this one then shared a credit, see the bound above).
		 */
		this_cpu_cmpxchg(pvq_pass_credit, credit, credit - 1);
	return true;
}

bool pvq_pv_trylock_steal(struct pvq_qspinlock *lock)
{
	/* A reserved lock: the queue head spins for it, leave it. */
	if (pvq_steal_free(lock, atomic_read(&lock->val))) {
		pvq_stat_inc(lock_stealing);
		return true;
	}
	return false;
}

/*
 * fair_steal_spin (pvqspinlock_hooks.h): as upstream's hybrid trylock, a
 * contender keeps stealing while queued waiters exist and their head has
 * not reserved the lock.  That keeps running vCPUs out of the queue, where
 * each would sooner or later halt and cost a kick and a wake-up: at 2x the
 * fair lock went from 0.87 to 1.09-1.10 x test-and-set.  Bounded, unlike
 * upstream's: with no bound (2^30) it ran 1.16 x at 4x against 1.42-1.46,
 * because there a contender that queues and halts gives its host CPU to
 * the vCPUs that can use it (Documentation/performance.rst).
 */
#define PVQ_FAIR_STEAL_SPIN_DEFAULT	128
int pvq_fair_steal_spin = PVQ_FAIR_STEAL_SPIN_DEFAULT;

bool pvq_fair_steal(struct pvq_qspinlock *lock)
{
	u32 val;
	int loop;

	for (loop = READ_ONCE(pvq_fair_steal_spin); loop; loop--) {
		val = atomic_read(&lock->val);
		/*
		 * No queue: become its head (the head competes for the free
		 * lock itself).  A pending bit: the head has reserved the
		 * lock, so queue behind it.
		 */
		if (!(val & PVQ_TAIL_MASK) || (val & PVQ_PENDING_VAL))
			return false;
		if (!(val & PVQ_LOCKED_MASK) && pvq_steal_free(lock, val)) {
			pvq_stat_inc(lock_stealing);
			return true;
		}
		cpu_relax();
	}
	return false;
}

/* Every so often: is the predecessor halted?  Then we will wait long too. */
static bool pvq_wait_early(struct pvq_mcs_node *prev, int loop)
{
	if (loop & PVQ_PREV_CHECK_MASK)
		return false;
	return READ_ONCE(prev->state) != PVQ_VCPU_RUNNING;
}

void pvq_pv_wait_node(struct pvq_mcs_node *node, struct pvq_mcs_node *prev)
{
	bool early;
	int loop;

	/*
	 * A waiter that cannot halt spins on ->locked like a native one: its
	 * state stays RUNNING, so the CPU that hands it the queue head does
	 * not hash it, mark the lock slow or kick it.
	 */
	if (!pvq_pv_can_wait()) {
		for (loop = 0; !READ_ONCE(node->locked); loop++) {
			if (!(loop & PVQ_SPINNING_MASK))
				pvq_pv_spinning();	/* see pv_ops.h */
			cpu_relax();
		}
		return;
	}

	for (;;) {
		early = false;
		for (loop = READ_ONCE(pvq_queue_spin_threshold); loop; loop--) {
			if (READ_ONCE(node->locked))
				return;
			if (pvq_wait_early(prev, loop)) {
				early = true;
				break;
			}
			cpu_relax();
		}

		/*
		 * Full barrier: our "halted" is visible before we re-check
		 * ->locked, pairing with pvq_pv_kick_node(), which sets
		 * ->locked before it reads our state.  One side always sees
		 * the other: either we see ->locked, or it sees us halted and
		 * arranges the kick.
		 */
		smp_store_mb(node->state, PVQ_VCPU_HALTED);
		if (!READ_ONCE(node->locked)) {
			pvq_stat_inc(wait_node);
			if (early)
				pvq_stat_inc(wait_early);
			pvq_pv_wait(&node->state, PVQ_VCPU_HALTED);
			pvq_note_wake(READ_ONCE(node->locked));
		}

		/*
		 * Running again, unless the new lock owner has just made us
		 * "hashed": then the kick is deferred to its unlock, and we
		 * leave the state alone so that it is not kicked twice.
		 */
		cmpxchg(&node->state, PVQ_VCPU_HALTED, PVQ_VCPU_RUNNING);
	}
}

void pvq_pv_kick_node(struct pvq_qspinlock *lock, struct pvq_mcs_node *node)
{
	/*
	 * Full barrier: the hand-over store to ->locked (done by the caller)
	 * is visible before we read the successor's state; see
	 * pvq_pv_wait_node().  A successor that is not halted will see
	 * ->locked by itself, and we leave its line alone: it is the line
	 * it spins on.
	 */
	smp_mb();
	if (READ_ONCE(node->state) != PVQ_VCPU_HALTED)
		return;

	/*
	 * Before the state says HASHED: the successor reads the flag after
	 * the state, and must not hash itself while our entry exists.
	 */
	WRITE_ONCE(node->pred_hashed, 1);
	/* Fully ordered (cmpxchg): the flag is visible before the state. */
	if (cmpxchg(&node->state, PVQ_VCPU_HALTED, PVQ_VCPU_HASHED) !=
	    PVQ_VCPU_HALTED) {
		/* It woke meanwhile (spuriously): it sees ->locked itself. */
		WRITE_ONCE(node->pred_hashed, 0);
		return;
	}

	/*
	 * It is halted: rather than wake it now only to spin behind us, let
	 * our own unlock kick it.  We hold the lock, so nobody else writes
	 * the locked byte, and the unlock that reads the slow value is ours,
	 * after this store in program order.
	 */
	if (pvq_hash(lock, node)) {
		WRITE_ONCE(lock->locked, PVQ_SLOW_VAL);
		return;
	}
	/*
	 * No entry, so no deferral: wake it now, and take the flag back, or
	 * as queue head it would wait for an unlock to consume an entry that
	 * does not exist, never hash itself and spin its whole wait.  Before
	 * the kick; a head that read the flag still set only spins one more
	 * round (the locked byte is not the slow value, so its wait returns
	 * at once) and reads it again.
	 */
	WRITE_ONCE(node->pred_hashed, 0);
	pvq_pv_kick(node->cpu);
}

/*
 * fair_bound_us (pvqspinlock.h).  A head that reserves the lock at once
 * holds it for nobody while the host does not run its vCPU: at 2x that
 * put the fair lock's p99 wait at 15 us against test-and-set's 1 us; with
 * 10 us of starved time first it was 0.95 us (Documentation/performance.rst).
 */
#define PVQ_FAIR_BOUND_US_DEFAULT	10
int pvq_fair_bound_us = PVQ_FAIR_BOUND_US_DEFAULT;

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
int pvq_starvation_bound_us = PVQ_STARVATION_BOUND_US_DEFAULT;
int pvq_steal_spin = PVQ_STEAL_SPIN_DEFAULT;
int pvq_steal_budget = PVQ_STEAL_BUDGET_DEFAULT;

/*
 * Steals past queued waiters since this CPU last got the lock through the
 * queue.  Task and interrupt contexts of one CPU share it: a lost update
 * (no atomics here) only shifts a heuristic by one.
 */
static DEFINE_PER_CPU(int, pvq_steals_past_queue);

static u64 pvq_unfair_bound_ns(void)
{
	return (u64)READ_ONCE(pvq_starvation_bound_us) * NSEC_PER_USEC;
}
#else
static u64 pvq_unfair_bound_ns(void)
{
	return 0;
}
#endif

/* A queue head's starvation bound: how long it lets stealers pass it. */
static u64 pvq_head_bound_ns(bool unfair)
{
	if (unfair)
		return pvq_unfair_bound_ns();
	return (u64)READ_ONCE(pvq_fair_bound_us) * NSEC_PER_USEC;
}

/*
 * A queue head's starvation clock: how long it was starved, i.e.
 * ran and lost the free lock to stealers.  Wall-clock time would also
 * count the time its vCPU was preempted, and the time a holder kept the
 * lock (preempted itself, perhaps): under overcommit nearly every head
 * then reached the bound without being passed much, and a head that blocks
 * stealing and is preempted again holds the free lock for nobody until the
 * host runs it (Documentation/performance.rst measures what that cost).
 */
struct pvq_head_clock {
	u64 bound_ns;		/* block stealing once starved this long */
	u64 starved_ns;		/* starved so far */
	u64 last;		/* the clock at the previous look */
	bool robbed;		/* lost the free lock since that look */
};

/*
 * Another look at the clock: has the head been starved past its bound?
 * The time since the last look counts if the head lost the free lock
 * meanwhile, unless it is so long that the head cannot have been running
 * all of it.
 */
static bool pvq_head_starving(struct pvq_head_clock *hc)
{
	u64 now = local_clock();
	u64 gap = now - hc->last;

	hc->last = now;
	if (hc->robbed && gap < PVQ_PREEMPTED_GAP_NS)
		hc->starved_ns += gap;
	hc->robbed = false;
	return hc->starved_ns >= hc->bound_ns;
}

/*
 * The queue head has the lock: the pass count starts again for the next
 * head.  A store is enough: no steal can succeed while the locked byte
 * is set, and only the head writes the reservation bit.
 */
static void pvq_head_reset_passes(struct pvq_qspinlock *lock)
{
	WRITE_ONCE(lock->pending, 0);
}

/* Take a free lock in competition with stealers (not reserved). */
static bool pvq_head_take_free(struct pvq_qspinlock *lock,
			       struct pvq_head_clock *hc)
{
	if (READ_ONCE(lock->locked))
		return false;
	/* Acquire: the critical section follows. */
	if (cmpxchg_acquire(&lock->locked, 0, PVQ_LOCKED_VAL) == 0) {
		pvq_head_reset_passes(lock);
		return true;
	}
	hc->robbed = true;
	return false;
}

/*
 * Take the lock that our pending bit reserves: pending -> locked at once.
 * Read first: while the owner holds the lock, a cmpxchg on every spin
 * would pull the line away from it in its critical section.
 */
static bool pvq_head_take_reserved(struct pvq_qspinlock *lock)
{
	u16 lp = READ_ONCE(lock->locked_pending);

	/*
	 * Acquire: the critical section follows.  Reserved, the pending byte
	 * cannot change under us (no steal succeeds); the cmpxchg resets the
	 * pass count with the reservation.
	 */
	return !(lp & PVQ_LOCKED_MASK) &&
	       cmpxchg_acquire(&lock->locked_pending, lp, PVQ_LOCKED_VAL) == lp;
}

/*
 * Set or clear the reservation bit alone.  An RMW, not a byte store: a
 * counted steal may move the count beside it at any time.  Unordered, as
 * the plain stores they replace: a stealer's cmpxchg sees the bit or
 * fails on it.
 */
static void pvq_head_reserve(struct pvq_qspinlock *lock)
{
	if (!(atomic_read(&lock->val) & PVQ_PENDING_VAL))
		atomic_or(PVQ_PENDING_VAL, &lock->val);
}

static void pvq_head_unreserve(struct pvq_qspinlock *lock)
{
	if (atomic_read(&lock->val) & PVQ_PENDING_VAL)
		atomic_andnot(PVQ_PENDING_VAL, &lock->val);
}

/*
 * Queue head: no more stealing until we have the lock.  The pending bit
 * that keeps stealers out is set now when @now, else at the start of the
 * head's next spin (pvq_head_spin()).
 */
static void pvq_head_block_stealing(struct pvq_qspinlock *lock, bool *block,
				    bool now)
{
	*block = true;
	if (now)
		pvq_head_reserve(lock);
	pvq_stat_inc(steal_block);
}

/*
 * Queue head: spin up to the threshold for the lock; true once ours.
 * With *@block set, the pending bit keeps stealers out.  Without it (not
 * starving yet) we compete with them, and set *@block once @hc says that
 * we were starved past the starvation bound.
 */
static bool pvq_head_spin(struct pvq_qspinlock *lock, bool *block,
			  struct pvq_head_clock *hc)
{
	int loop;

	if (*block)
		pvq_head_reserve(lock);
	else
		hc->last = local_clock();	/* a halt is not spinning */
	for (loop = READ_ONCE(pvq_queue_spin_threshold); loop; loop--) {
		if (*block ? pvq_head_take_reserved(lock) :
			     pvq_head_take_free(lock, hc))
			return true;
		/*
		 * The clock every 16 loops, and on the last one, so that a
		 * threshold below 16 still gets a look before we halt.
		 */
		if (!*block &&
		    (!(loop & PVQ_CLOCK_CHECK_MASK) || loop == 1) &&
		    pvq_head_starving(hc))
			pvq_head_block_stealing(lock, block, true); /* starving */
		cpu_relax();
	}
	return false;
}

/*
 * Queue head, PV: take the lock, halting while that takes long.
 * ->pred_hashed says that pvq_pv_kick_node() made a hash entry for us:
 * until the unlock that consumes it clears the flag, we must not hash
 * ourselves, or the table would hold two entries for one lock.
 *
 * Fair mode blocks stealing while it spins (after fair_bound_us of
 * starved time or from its second halt on; 0: at once) and lets
 * stealers in while it halts; its stealers are contenders in their
 * fair_steal_spin loop (pvq_fair_steal()), which ends once a head
 * reserves the lock, and the slow path's one attempt.
 * Unfair mode lets them in until it has been starved for the starvation
 * bound (pvq_head_starving()) or is about to halt for the second time,
 * whichever comes first, then blocks them until it owns the lock, halted
 * or not.
 *
 * A head that cannot halt (pvq_pv_can_wait()) only spins, in either mode.
 */
static __always_inline u32 pvq_wait_head(struct pvq_qspinlock *lock,
					 struct pvq_mcs_node *node,
					 const bool unfair)
{
	struct pvq_head_clock hc = { .bound_ns = pvq_head_bound_ns(unfair) };
	bool block = !unfair && !hc.bound_ns;
	bool can_wait = pvq_pv_can_wait();
	bool halted = false, pred_hashed;
	u8 locked;

	for (;;) {
		WRITE_ONCE(node->state, PVQ_VCPU_RUNNING);
		if (pvq_head_spin(lock, &block, &hc))
			break;
		if (!can_wait) {
			pvq_pv_spinning();	/* see pv_ops.h */
			continue;
		}
		if (halted && !block) {
			/*
			 * Still letting stealers in, and robbed once already:
			 * while we halted, and until the host ran us after the
			 * kick, anybody could pass us, and stealers that took
			 * the lock before we read it free never showed on our
			 * clock.  Not a second time: from here on how long we
			 * are passed does not depend on how slowly our vCPU
			 * wakes.  Unfair mode keeps the reservation while it
			 * halts; fair mode reserves the lock whenever it
			 * spins from here on, as a head with no fair_bound_us,
			 * and not now: it is about to let stealers in.
			 */
			pvq_head_block_stealing(lock, &block, unfair);
		}
		/* Fair: about to halt, let running vCPUs take the lock. */
		if (!unfair)
			pvq_head_unreserve(lock);

		/*
		 * Read barrier: pvq_pv_kick_node() set ->pred_hashed before
		 * the HASHED state that wait_node saw.  It stays set until the
		 * unlock that consumes its entry.
		 */
		smp_rmb();
		pred_hashed = READ_ONCE(node->pred_hashed);
		/*
		 * Read barrier: the flag before the locked byte.  That unlock
		 * clears the flag (release) before it releases the lock, so a
		 * clear flag means the byte is its slow value or newer.  Read
		 * the other way round, the byte could be the owner's 1 from
		 * before its slow value and the flag already clear: we would
		 * hash ourselves and xchg() in the slow value just before the
		 * unlock stores 0 over it, and leave our entry in the table
		 * (model/README.md, finding 3).
		 */
		smp_rmb();
		locked = READ_ONCE(lock->locked);
		if (!pred_hashed && locked != PVQ_SLOW_VAL) {
			if (!pvq_hash(lock, node))
				continue;	/* cannot halt safely: spin */
			/*
			 * Full barrier (xchg): the hash entry is visible
			 * before the slow value, so an unlocker that sees
			 * the slow value finds it.
			 */
			if (xchg(&lock->locked, PVQ_SLOW_VAL) == 0) {
				/*
				 * It was free: ours.  Undo the slow marking,
				 * drop a reservation we may hold and reset
				 * the pass count.
				 */
				WRITE_ONCE(lock->locked_pending, PVQ_LOCKED_VAL);
				pvq_unhash(lock);
				break;
			}
		}

		/* For our successor's early-halt check. */
		WRITE_ONCE(node->state, PVQ_VCPU_HASHED);
		pvq_stat_add(halted ? PVQ_EV_wait_again : PVQ_EV_wait_head, 1);
		halted = true;
		pvq_pv_wait(&lock->locked, PVQ_SLOW_VAL);
		pvq_note_wake(READ_ONCE(lock->locked) != PVQ_SLOW_VAL);
	}
	WRITE_ONCE(node->state, PVQ_VCPU_RUNNING);
	return (u32)atomic_read(&lock->val) | PVQ_LOCKED_VAL;
}

u32 pvq_pv_wait_head_or_lock(struct pvq_qspinlock *lock,
			     struct pvq_mcs_node *node)
{
	return pvq_wait_head(lock, node, false);
}

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
u32 pvq_unfair_wait_head_or_lock(struct pvq_qspinlock *lock,
				 struct pvq_mcs_node *node)
{
	u32 val = pvq_wait_head(lock, node, true);

	/* Got it through the queue: a fresh steal budget. */
	__this_cpu_write(pvq_steals_past_queue, 0);
	return val;
}

/*
 * A CPU that keeps stealing while others are queued could keep them
 * waiting as long as it runs; after pvq_steal_budget such steals it
 * queues like them.  Stealing from an empty queue passes nobody.
 */
static bool pvq_steal_budget_spent(u32 val)
{
	if (!(val & PVQ_TAIL_MASK))
		return false;
	if (__this_cpu_read(pvq_steals_past_queue) < READ_ONCE(pvq_steal_budget))
		return false;
	pvq_stat_inc(steal_budget_out);
	return true;
}

bool pvq_unfair_steal(struct pvq_qspinlock *lock)
{
	u32 val;
	int loop;

	for (loop = READ_ONCE(pvq_steal_spin); loop; loop--) {
		val = atomic_read(&lock->val);
		/* A starving queue head has blocked stealing: queue. */
		if (val & PVQ_PENDING_VAL || pvq_steal_budget_spent(val))
			return false;
		if (!(val & PVQ_LOCKED_MASK) && pvq_steal_free(lock, val)) {
			pvq_stat_inc(unfair_steal);
			if (val & PVQ_TAIL_MASK)
				__this_cpu_inc(pvq_steals_past_queue);
			return true;
		}
		cpu_relax();
	}
	return false;
}
#endif /* PVQ_PARAVIRT_UNFAIR_LOCKS */

void pvq_pv_qspin_unlock_slowpath(struct pvq_qspinlock *lock, u8 locked)
{
	struct pvq_mcs_node *node;
	int cpu;

	if (WARN_ONCE(locked != PVQ_SLOW_VAL,
		      "pvqspinlock %p: unlock saw locked byte %#x\n",
		      lock, locked))
		return;

	/*
	 * Read barrier: the failed cmpxchg that saw the slow value gives no
	 * ordering; the hash entry written before it must be visible now.
	 */
	smp_rmb();
	node = pvq_unhash(lock);
	if (!node) {
		/* Release: as below; with no entry there is nobody to kick. */
		smp_store_release(&lock->locked, 0);
		return;
	}
	cpu = node->cpu;
	/*
	 * Its entry is gone: the head may hash itself again.  Release: our
	 * slow value is visible before the clear flag (pvq_wait_head()).
	 */
	smp_store_release(&node->pred_hashed, 0);

	/*
	 * Release: the critical section is visible before the lock is free.
	 * From here on the lock's memory may be gone (its owner may free it
	 * as soon as it can take it): touch only the waiter's CPU number.
	 */
	smp_store_release(&lock->locked, 0);
	pvq_stat_inc(kick_unlock);
	pvq_note_kick(cpu);
	if (!pvq_fault_drop_kick(lock))	/* fault build: maybe not */
		pvq_pv_kick(cpu);
}
