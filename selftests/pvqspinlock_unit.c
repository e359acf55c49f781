// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the paravirtual queued spinlock: halting, hashing and
 * kicking, step by step, with the futex backend (shim/pv_futex.c).
 *
 * Like qspinlock_unit, this includes the sources themselves (the shared
 * slow path and the PV hooks), to reach the MCS nodes and the hash table.
 * Every contender is a thread registered as its own CPU; the backend tells
 * when a CPU is parked and how often it was kicked, and every step waits
 * (bounded) for the state the algorithm promises.  A lost kick therefore
 * fails a test after UNIT_TIMEOUT_MS instead of hanging it.
 *
 * Some tests stand in for a queue head on a CPU with no thread (CPU 5):
 * they write a tail into the lock word, then do that head's part by hand.
 */
#include "qspinlock.c"

/*
 * nr_cpu_ids is a constant in the shim (SHIM_NR_CPUS); the hash table is
 * sized from it.  Here it is a variable, so that a test can size the
 * table for a small guest too.  pvqspinlock.c reads it nowhere else.
 */
#include <linux/cpumask.h>
static unsigned int unit_nr_cpu_ids = SHIM_NR_CPUS;
#undef nr_cpu_ids
#define nr_cpu_ids	unit_nr_cpu_ids

#include "pvqspinlock.c"

/*
 * Every step takes microseconds.  A lost kick fails most tests after it,
 * and they must all report within the runner's timeout (KSFT_TIMEOUT).
 */
#define UNIT_TIMEOUT_MS		2000

#include "kselftest_harness.h"
#include "pv_futex.h"
#include "pv_use.h"
#include "pv_unit_helpers.h"

/* Small, so that waiters halt quickly; below the 256-loop early check. */
#define UNIT_SPIN_THRESHOLD	64
/* Long enough that no test ever sees a waiter spin it out. */
#define UNIT_SPIN_FOREVER	(1 << 30)

/* A CPU with no thread behind it, for a queue head the test plays. */
#define GHOST_CPU		5

/* Documented tail layout: bits 16-17 node index, bits 18-31 cpu + 1. */
static u32 tail_of(int cpu, int idx)
{
	return ((u32)(cpu + 1) << 18) | ((u32)idx << 16);
}

/*
 * As spin_lock_irqsave(): the whole acquisition with interrupts off, where
 * the futex backend, like the kernel's ipi one, cannot halt.
 */
static void pvqs_lock_irqs_off(void *lock)
{
	shim_irqs_off = 1;
	pvq_pv_qspin_lock(lock);
}

static void pvqs_unlock_irqs_on(void *lock)
{
	pvq_pv_qspin_unlock(lock);
	shim_irqs_off = 0;
}

static const struct lock_adapter pvqs_irqs_off_ops = {
	.lock = pvqs_lock_irqs_off,
	.unlock = pvqs_unlock_irqs_on,
};

static u32 word(struct pvq_qspinlock *lock)
{
	return atomic_read(&lock->val);
}

static u8 locked_byte(struct pvq_qspinlock *lock)
{
	return READ_ONCE(lock->locked);
}

static struct pvq_mcs_node *node_of(int cpu, int idx)
{
	return per_cpu_ptr(&pvq_mcs_nodes[idx], cpu);
}

static u8 state_of(int cpu)
{
	return READ_ONCE(node_of(cpu, 0)->state);
}

/* How many hash entries point at @lock; *@node gets the last one's node. */
static int hash_entries(struct pvq_qspinlock *lock, struct pvq_mcs_node **node)
{
	unsigned long i, n = 1UL << pvq_hash_bits;
	int found = 0;

	for (i = 0; i < n; i++) {
		if (READ_ONCE(pvq_hash_table[i].lock) != lock)
			continue;
		found++;
		if (node)
			*node = READ_ONCE(pvq_hash_table[i].node);
	}
	return found;
}

#ifdef PVQ_LOCK_STATS
#define EXPECT_EVENT(ev, n)						\
	EXPECT_EQ((unsigned long)(n), pvq_lock_event_sum(PVQ_EV_##ev))
#else
#define EXPECT_EVENT(ev, n)	do { } while (0)
#endif

/*
 * Start @c on @cpu and wait until it is the queue head, halted: it has
 * hashed the lock, set the slow value and parked.
 */
static bool start_head(struct contender *c, struct pvq_qspinlock *lock,
		       int cpu, bool hold)
{
	if (contender_start(c, &lock_adapter_pvqspinlock, lock, cpu, hold))
		return false;
	return poll_until(pvq_pv_halted_on(cpu) == &lock->locked &&
			  state_of(cpu) == PVQ_VCPU_HASHED &&
			  locked_byte(lock) == PVQ_SLOW_VAL);
}

/* Start @c on @cpu and wait until it is queued (not head) and parked. */
static bool start_halted(struct contender *c, struct pvq_qspinlock *lock,
			 int cpu, bool hold)
{
	if (contender_start(c, &lock_adapter_pvqspinlock, lock, cpu, hold))
		return false;
	return poll_until((word(lock) & PVQ_TAIL_MASK) == tail_of(cpu, 0) &&
			  pvq_pv_halted_on(cpu) == &node_of(cpu, 0)->state &&
			  state_of(cpu) == PVQ_VCPU_HALTED);
}

/* Play the ghost queue head: take the lock, pass the MCS head to @next. */
static void ghost_hand_over(struct pvq_qspinlock *lock,
			    struct pvq_mcs_node *next)
{
	WRITE_ONCE(lock->locked_pending, PVQ_LOCKED_VAL);
	/* Release: as pvq_head_acquire(), the lock is ours before @next heads. */
	smp_store_release(&next->locked, 1);
	pvq_pv_kick_node(lock, next);
}

/* Wait until @cpu is the queue head, spinning with the pending bit set. */
static bool head_spins(struct pvq_qspinlock *lock, int cpu)
{
	return poll_until((word(lock) & PVQ_TAIL_MASK) == tail_of(cpu, 0) &&
			  READ_ONCE(lock->pending));
}

/*
 * A fair queue head spinning for a lock we hold sets the pending bit at
 * the start of every round of pvq_queue_spin_threshold spins.  Clear it and wait
 * for it to come back: the head finished a round, past the point where a
 * head that can halt would have halted.  False if it did not (bounded).
 */
static bool head_spins_another_round(struct pvq_qspinlock *lock)
{
	WRITE_ONCE(lock->pending, 0);
	return poll_until(READ_ONCE(lock->pending));
}

/* Both fixtures: a fresh lock, table, backend, threshold and counters. */
#define PVQSPIN_SETUP(lock) do {					\
	shim_register_cpu(UNIT_TEST_CPU);				\
	ASSERT_EQ(0, pvq_hash_init());					\
	ASSERT_EQ(0, pvq_pv_select("futex"));				\
	pvq_queue_spin_threshold = UNIT_SPIN_THRESHOLD;			\
	/* Fair heads reserve the lock at once unless a test says so, */	\
	pvq_fair_bound_us = 0;						\
	/* and fair contenders make the one steal attempt only. */	\
	pvq_fair_steal_spin = 0;					\
	/* Every steal past a queue counts against the pass bound. */	\
	pvq_pass_bound = PVQ_PASS_BOUND_DEFAULT;			\
	pvq_pass_scale = 1;						\
	pvq_pv_qspin_init(lock);					\
	pvq_lock_events_reset();					\
	pvq_futex_reset();						\
} while (0)

FIXTURE(pvqspin) {
	struct pvq_qspinlock lock;
};

FIXTURE_SETUP(pvqspin)
{
	PVQSPIN_SETUP(&self->lock);
}

/*
 * The table stays: after a failed step, contenders may still use it, and
 * the harness ends this test's process right after the teardown anyway.
 */
FIXTURE_TEARDOWN(pvqspin)
{
}

TEST(pvqspin_hash_table_holds_every_cpu)
{
	static struct pvq_qspinlock locks[SHIM_NR_CPUS];
	unsigned long i, entries;
	struct pvq_mcs_node *n;
	int cpu;

	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(0, pvq_hash_init());
	entries = 1UL << pvq_hash_bits;
	/* A power of two, four slots per possible queue head, aligned. */
	EXPECT_GE(entries, 4UL * SHIM_NR_CPUS);
	EXPECT_EQ(0UL, entries & (entries - 1));
	EXPECT_EQ(0UL, (uintptr_t)pvq_hash_table % SMP_CACHE_BYTES);
	for (i = 0; i < entries; i++)
		ASSERT_TRUE(!pvq_hash_table[i].lock && !pvq_hash_table[i].node);

	/* Every CPU a queue head of its own lock, all at once. */
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++)
		ASSERT_TRUE(pvq_hash(&locks[cpu], node_of(cpu, 0)));
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		ASSERT_EQ(1, hash_entries(&locks[cpu], &n));
		EXPECT_TRUE(n == node_of(cpu, 0));
	}
	for (cpu = SHIM_NR_CPUS - 1; cpu >= 0; cpu--)
		EXPECT_TRUE(pvq_unhash(&locks[cpu]) == node_of(cpu, 0));
	for (i = 0; i < entries; i++)
		EXPECT_TRUE(!pvq_hash_table[i].lock);
	EXPECT_EQ(0UL, shim_warnings);
	pvq_hash_exit();
	EXPECT_TRUE(!pvq_hash_table);
}

/* More locks on one cache line of slots than it holds: probing goes on. */
TEST(pvqspin_hash_probes_past_a_full_line)
{
	static struct pvq_qspinlock locks[4096];
	struct pvq_qspinlock *same[PVQ_HASH_ENTRIES_PER_LINE + 2];
	unsigned long first;
	unsigned int i, n = 0;

	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(0, pvq_hash_init());
	first = pvq_hash_first(&locks[0]);
	same[n++] = &locks[0];
	for (i = 1; i < ARRAY_SIZE(locks) && n < ARRAY_SIZE(same); i++)
		if (pvq_hash_first(&locks[i]) == first)
			same[n++] = &locks[i];
	ASSERT_EQ(ARRAY_SIZE(same), n);

	for (i = 0; i < n; i++)
		ASSERT_TRUE(pvq_hash(same[i], node_of(i, 0)));
	for (i = 0; i < n; i++)
		EXPECT_EQ(1, hash_entries(same[i], NULL));
	/* Out of order, so that a hole opens in front of later entries. */
	EXPECT_TRUE(pvq_unhash(same[1]) == node_of(1, 0));
	for (i = n - 1; i > 1; i--)
		EXPECT_TRUE(pvq_unhash(same[i]) == node_of(i, 0));
	EXPECT_TRUE(pvq_unhash(same[0]) == node_of(0, 0));
	EXPECT_EQ(0UL, shim_warnings);

	/* An entry that is not there is the lock word lying: warn. */
	EXPECT_TRUE(!pvq_unhash(same[0]));
	EXPECT_EQ(1UL, shim_warnings);
}

/*
 * Regression test (4 x nr_cpu_ids slots only): the table has a slot per
 * possible queue head, and at least a page of them, so that with few CPUs
 * unrelated locks do not share lines and probe sequences.
 */
TEST(pvqspin_hash_table_is_at_least_a_page)
{
	/* Beyond SHIM_NR_CPUS too: only the table's size is looked at. */
	static const unsigned int cpus[] = { 1, 2, 8, 16, SHIM_NR_CPUS, 1024 };
	unsigned long entries;
	unsigned int i;

	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(2 * sizeof(void *), sizeof(struct pvq_hash_entry));
	EXPECT_EQ(0UL, pvq_hash_entries());
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		unit_nr_cpu_ids = cpus[i];
		ASSERT_EQ(0, pvq_hash_init());
		entries = pvq_hash_entries();
		EXPECT_GE(entries * sizeof(struct pvq_hash_entry), PAGE_SIZE)
			TH_LOG("%u CPUs: %lu entries of %zu bytes", cpus[i],
			       entries, sizeof(struct pvq_hash_entry));
		EXPECT_GE(entries, 4UL * cpus[i])
			TH_LOG("%u CPUs: %lu entries", cpus[i], entries);
		EXPECT_EQ(0UL, entries & (entries - 1));
		EXPECT_EQ(1UL << pvq_hash_bits, entries);
		pvq_hash_exit();
		EXPECT_EQ(0UL, pvq_hash_entries());
	}
	unit_nr_cpu_ids = SHIM_NR_CPUS;
}

#ifdef PVQ_LOCK_STATS
/*
 * The kicker writes the kicked CPU's pvq_kick_time: never on a line that
 * holds that CPU's MCS nodes, which its waiters spin on.
 */
TEST(pvqspin_kick_time_is_off_the_node_lines)
{
	int cpu, unaligned = 0, shared = 0, first = -1;
	uintptr_t nodes, kick;

	shim_register_cpu(UNIT_TEST_CPU);
	for_each_possible_cpu(cpu) {
		nodes = (uintptr_t)per_cpu_ptr(&pvq_mcs_nodes[0], cpu);
		kick = (uintptr_t)per_cpu_ptr(&pvq_kick_time, cpu);
		if (kick % SMP_CACHE_BYTES)
			unaligned++;
		if (kick / SMP_CACHE_BYTES >= nodes / SMP_CACHE_BYTES &&
		    kick / SMP_CACHE_BYTES <=
		    (nodes + sizeof(pvq_mcs_nodes) - 1) / SMP_CACHE_BYTES)
			shared++;
		if ((unaligned || shared) && first < 0)
			first = cpu;
	}
	/* The first offender, for the log. */
	first = max(first, 0);
	nodes = (uintptr_t)per_cpu_ptr(&pvq_mcs_nodes[0], first);
	kick = (uintptr_t)per_cpu_ptr(&pvq_kick_time, first);
	EXPECT_EQ(0, unaligned)
		TH_LOG("cpu %d: pvq_kick_time at %#lx", first, kick);
	EXPECT_EQ(0, shared)
		TH_LOG("cpu %d: pvq_kick_time at %#lx, its nodes at %#lx..%#lx",
		       first, kick, nodes, nodes + sizeof(pvq_mcs_nodes) - 1);
}
#endif

TEST_F(pvqspin, uncontended_lock_never_enters_pv_code)
{
	pvq_pv_qspin_lock(&self->lock);
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_TRUE(pvq_pv_qspin_trylock(&self->lock) == false);
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_TRUE(pvq_pv_qspin_trylock(&self->lock));
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_waits(UNIT_TEST_CPU));
	EXPECT_EVENT(slowpath, 0);
}

/*
 * Every lock has the same verbs (lock, unlock, trylock, is_locked,
 * is_contended); the PV ones read the native word, slow value included.
 */
TEST_F(pvqspin, verbs_read_the_word_in_every_state)
{
	struct pvq_qspinlock *lock = &self->lock;

	EXPECT_FALSE(pvq_pv_qspin_is_locked(lock));
	EXPECT_FALSE(pvq_pv_qspin_is_contended(lock));
	ASSERT_TRUE(pvq_pv_qspin_trylock(lock));
	EXPECT_TRUE(pvq_pv_qspin_is_locked(lock));
	EXPECT_FALSE(pvq_pv_qspin_is_contended(lock));
	/* A halted head's slow value: still held, nobody else in the word. */
	WRITE_ONCE(lock->locked, PVQ_SLOW_VAL);
	EXPECT_TRUE(pvq_pv_qspin_is_locked(lock));
	EXPECT_FALSE(pvq_pv_qspin_is_contended(lock));
	WRITE_ONCE(lock->locked, PVQ_LOCKED_VAL);
	/* A pending head, then a queue. */
	WRITE_ONCE(lock->pending, 1);
	EXPECT_TRUE(pvq_pv_qspin_is_contended(lock));
	EXPECT_FALSE(pvq_pv_qspin_trylock(lock));
	WRITE_ONCE(lock->pending, 0);
	WRITE_ONCE(lock->tail, tail_of(GHOST_CPU, 0) >> PVQ_TAIL_OFFSET);
	EXPECT_TRUE(pvq_pv_qspin_is_contended(lock));
	WRITE_ONCE(lock->tail, 0);
	pvq_pv_qspin_unlock(lock);
	EXPECT_FALSE(pvq_pv_qspin_is_locked(lock));
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
	pvq_pv_qspin_unfair_init(lock);
	EXPECT_FALSE(pvq_pv_qspin_unfair_is_locked(lock));
	ASSERT_TRUE(pvq_pv_qspin_unfair_trylock(lock));
	EXPECT_TRUE(pvq_pv_qspin_unfair_is_locked(lock));
	EXPECT_FALSE(pvq_pv_qspin_unfair_trylock(lock));
	EXPECT_FALSE(pvq_pv_qspin_unfair_is_contended(lock));
	WRITE_ONCE(lock->pending, 1);
	EXPECT_TRUE(pvq_pv_qspin_unfair_is_contended(lock));
	WRITE_ONCE(lock->pending, 0);
	pvq_pv_qspin_unfair_unlock(lock);
	EXPECT_FALSE(pvq_pv_qspin_unfair_is_locked(lock));
#endif
	EXPECT_EQ(0u, word(lock));
}

/*
 * The queue head spins with the pending bit set, then hashes lock -> node,
 * turns the locked byte into the slow value, and parks.
 */
TEST_F(pvqspin, queue_head_hashes_lock_and_parks)
{
	struct pvq_mcs_node *n = NULL;
	struct contender a;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false))
		TH_LOG("lock word %#x, cpu 1 state %u parked %d", word(&self->lock),
		       state_of(1), pvq_futex_parked(1));
	/* Pending dropped before halting: running vCPUs may steal meanwhile. */
	EXPECT_EQ(tail_of(1, 0) | PVQ_SLOW_VAL, word(&self->lock));
	ASSERT_EQ(1, hash_entries(&self->lock, &n));
	EXPECT_TRUE(n == node_of(1, 0));
	EXPECT_EQ(1, READ_ONCE(node_of(1, 0)->cpu));
	EXPECT_TRUE(stays_false(flag_read(&a.acquired) ||
				pvq_futex_parks(1) != 1));
	EXPECT_EQ(0UL, pvq_futex_kicks(1));
	EXPECT_EVENT(wait_head, 1);
	EXPECT_EVENT(wait_again, 0);
	EXPECT_EVENT(wait_node, 0);

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
}

/*
 * Unlock sees the slow value, finds the head in the hash, releases the
 * lock and kicks the head's CPU, which then takes the lock.
 */
TEST_F(pvqspin, unlock_finds_hashed_head_and_kicks_it)
{
	struct contender a;
	u8 locked;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, true));

	pvq_pv_qspin_unlock(&self->lock);
	/* Released (or already taken by the head), never left slow. */
	locked = locked_byte(&self->lock);
	EXPECT_TRUE(locked == 0 || locked == PVQ_LOCKED_VAL)
		TH_LOG("locked byte %#x after unlock", locked);
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	/* The kick is part of unlock: it has happened by now. */
	EXPECT_EQ(1UL, pvq_futex_kicks(1));

	ASSERT_TRUE(poll_until(flag_read(&a.acquired)));
	/* The head was also the tail: the queue is empty again. */
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_EQ(1UL, pvq_futex_parks(1));
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_unlock, 1);
	EXPECT_EVENT(kick_wake, 1);
	EXPECT_EVENT(spurious, 0);
}

/* A queued waiter (not the head) spins first, then halts on its node. */
TEST_F(pvqspin, queued_waiter_halts_after_threshold)
{
	struct contender a, b;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false));
	ASSERT_TRUE(start_halted(&b, &self->lock, 2, false))
		TH_LOG("lock word %#x, cpu 2 state %u parked %d",
		       word(&self->lock), state_of(2), pvq_futex_parked(2));
	EXPECT_TRUE(READ_ONCE(node_of(1, 0)->next) == node_of(2, 0));
	EXPECT_EQ(0, READ_ONCE(node_of(2, 0)->locked));
	EXPECT_EQ(tail_of(2, 0) | PVQ_SLOW_VAL, word(&self->lock));
	/* Only the head is hashed. */
	EXPECT_EQ(1, hash_entries(&self->lock, NULL));
	EXPECT_TRUE(stays_false(flag_read(&b.acquired) ||
				pvq_futex_parks(2) != 1));
	EXPECT_EVENT(wait_node, 1);
	EXPECT_EVENT(wait_early, 0);

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
}

/* With a running predecessor, a queued waiter spins and does not halt. */
TEST_F(pvqspin, queued_waiter_spins_behind_running_head)
{
	struct contender b;

	pvq_queue_spin_threshold = UNIT_SPIN_FOREVER;
	atomic_set(&self->lock.val, tail_of(GHOST_CPU, 0) | PVQ_LOCKED_VAL);
	ASSERT_EQ(0, contender_start(&b, &lock_adapter_pvqspinlock, &self->lock, 2, false));
	ASSERT_TRUE(poll_until(READ_ONCE(node_of(GHOST_CPU, 0)->next) ==
			       node_of(2, 0)));
	EXPECT_TRUE(stays_false(pvq_futex_waits(2) != 0));
	EXPECT_EQ(PVQ_VCPU_RUNNING, state_of(2));

	/* The ghost head takes the lock and hands over: no kick needed. */
	ghost_hand_over(&self->lock, node_of(2, 0));
	EXPECT_EQ(PVQ_LOCKED_VAL, locked_byte(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&b.done)));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(2));
	EXPECT_EQ(0UL, pvq_futex_waits(2));
	ASSERT_TRUE(contender_finish(&b));
}

/*
 * Behind a halted head, a queued waiter halts early, at its first look at
 * the predecessor, without spinning out a threshold it could never finish.
 */
TEST_F(pvqspin, queued_waiter_halts_early_behind_halted_head)
{
	struct contender a, b;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false));
	pvq_queue_spin_threshold = UNIT_SPIN_FOREVER;
	ASSERT_TRUE(start_halted(&b, &self->lock, 2, false))
		TH_LOG("cpu 2 did not halt early: state %u", state_of(2));
	EXPECT_EVENT(wait_node, 1);
	EXPECT_EVENT(wait_early, 1);

	pvq_queue_spin_threshold = UNIT_SPIN_THRESHOLD;
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
}

/*
 * The new owner passes the MCS head to a halted successor: rather than
 * wake it to spin, it hashes it, makes the lock slow, and leaves the kick
 * to its own unlock.
 */
TEST_F(pvqspin, halted_successor_is_kicked_at_unlock_not_before)
{
	struct pvq_mcs_node *n = NULL;
	struct contender a, b;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, true));
	ASSERT_TRUE(start_halted(&b, &self->lock, 2, true));

	pvq_pv_qspin_unlock(&self->lock);
	/* ->acquired is set after A's lock() returned: the hand-over is done. */
	ASSERT_TRUE(poll_until(flag_read(&a.acquired)));
	EXPECT_EQ(1, READ_ONCE(node_of(2, 0)->locked));
	EXPECT_EQ(PVQ_VCPU_HASHED, state_of(2));
	EXPECT_EQ(tail_of(2, 0) | PVQ_SLOW_VAL, word(&self->lock));
	ASSERT_EQ(1, hash_entries(&self->lock, &n));
	EXPECT_TRUE(n == node_of(2, 0));
	/* B is the queue head now, but nobody has woken it. */
	EXPECT_TRUE(stays_false(!pvq_futex_parked(2) ||
				flag_read(&b.acquired)));
	EXPECT_EQ(0UL, pvq_futex_kicks(2));
	EXPECT_EQ(1UL, pvq_futex_parks(2));

	/* A's unlock is slow: it finds B in the hash and kicks it. */
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(1UL, pvq_futex_kicks(2));
	ASSERT_TRUE(poll_until(flag_read(&b.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(1UL, pvq_futex_parks(2));
	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_unlock, 2);
}

#define FIFO_HALTED	4

/* A queue of halted waiters drains in order, one deferred kick each. */
TEST_F(pvqspin, halted_queue_hands_over_in_fifo_order)
{
	struct contender c[FIFO_HALTED];
	int i;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&c[0], &self->lock, 1, false));
	for (i = 1; i < FIFO_HALTED; i++)
		ASSERT_TRUE(start_halted(&c[i], &self->lock, 1 + i, false))
			TH_LOG("waiter %d did not halt", i);

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(unit_order_count() == FIFO_HALTED))
		TH_LOG("only %d of %d acquired", unit_order_count(),
		       FIFO_HALTED);
	ASSERT_TRUE(contenders_finish(c, FIFO_HALTED));
	EXPECT_TRUE(order_is_sequential(1, FIFO_HALTED))
		TH_LOG("order:%s", unit_order_str());
	for (i = 0; i < FIFO_HALTED; i++) {
		EXPECT_EQ(1UL, pvq_futex_kicks(1 + i));
		EXPECT_EQ(1UL, pvq_futex_parks(1 + i));
	}
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_unlock, FIFO_HALTED);
	EXPECT_EVENT(wait_node, FIFO_HALTED - 1);
}

/* A kick with nothing changed: the head parks again, the lock stays sane. */
TEST_F(pvqspin, spurious_kick_head_parks_again)
{
	struct contender a;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false));
	pvq_pv_kick(1);
	ASSERT_TRUE(poll_until(pvq_futex_parks(1) == 2 &&
			       pvq_futex_parked(1)))
		TH_LOG("parks %lu", pvq_futex_parks(1));
	EXPECT_FALSE(flag_read(&a.acquired));
	EXPECT_EQ(tail_of(1, 0) | PVQ_SLOW_VAL, word(&self->lock));
	/* Still hashed exactly once: it must not hash itself twice. */
	EXPECT_EQ(1, hash_entries(&self->lock, NULL));
	EXPECT_EVENT(spurious, 1);
	EXPECT_EVENT(wait_head, 1);
	EXPECT_EVENT(wait_again, 1);

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(0UL, shim_warnings);
}

TEST_F(pvqspin, spurious_kick_queued_waiter_parks_again)
{
	struct contender a, b;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false));
	ASSERT_TRUE(start_halted(&b, &self->lock, 2, false));
	pvq_pv_kick(2);
	ASSERT_TRUE(poll_until(pvq_futex_parks(2) == 2 &&
			       pvq_futex_parked(2) &&
			       state_of(2) == PVQ_VCPU_HALTED))
		TH_LOG("parks %lu state %u", pvq_futex_parks(2), state_of(2));
	EXPECT_EQ(0, READ_ONCE(node_of(2, 0)->locked));
	EXPECT_EQ(tail_of(2, 0) | PVQ_SLOW_VAL, word(&self->lock));
	EXPECT_EVENT(spurious, 1);
	EXPECT_EVENT(wait_node, 2);

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
}

/*
 * The unlock (and its kick) lands after the head checked the slow value
 * but before it sleeps: the head must not sleep through it.
 */
TEST_F(pvqspin, kick_between_check_and_sleep_is_not_lost)
{
	struct contender a;

	window_cpu = 1;
	pvq_futex_window_hook = hold_in_window;
	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &lock_adapter_pvqspinlock, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(flag_read(&in_window)));
	EXPECT_EQ(PVQ_SLOW_VAL, locked_byte(&self->lock));

	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	flag_set(&window_done);
	ASSERT_TRUE(poll_until(flag_read(&a.done)))
		TH_LOG("the head slept through the kick (parked %d)",
		       pvq_futex_parked(1));
	EXPECT_EQ(1UL, pvq_futex_parks(1));
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
}

/*
 * The one steal attempt on entry takes a free lock even with a queue (its
 * head may be preempted, or halted and not yet kicked).
 */
TEST_F(pvqspin, steal_on_entry_takes_free_lock_past_queue)
{
	atomic_set(&self->lock.val, tail_of(GHOST_CPU, 0));
	pvq_pv_qspin_lock(&self->lock);
	/* One pass counted against the bound. */
	EXPECT_EQ(tail_of(GHOST_CPU, 0) | PVQ_PASS_VAL | PVQ_LOCKED_VAL,
		  word(&self->lock));
	/* Never queued: no link to the ghost head, node given back. */
	EXPECT_TRUE(!READ_ONCE(node_of(GHOST_CPU, 0)->next));
	EXPECT_EQ(0, READ_ONCE(node_of(UNIT_TEST_CPU, 0)->count));
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(tail_of(GHOST_CPU, 0) | PVQ_PASS_VAL, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_waits(UNIT_TEST_CPU));
	EXPECT_EVENT(lock_stealing, 1);
	EXPECT_EVENT(slowpath, 1);
	EXPECT_EVENT(node_idx1, 1);
}

/* ... and is refused while the queue head holds the pending bit. */
TEST_F(pvqspin, steal_refused_while_head_spins_with_pending)
{
	struct contender c;

	atomic_set(&self->lock.val, tail_of(GHOST_CPU, 0) | PVQ_PENDING_VAL);
	ASSERT_TRUE(start_halted(&c, &self->lock, 1, false))
		TH_LOG("lock word %#x", word(&self->lock));
	EXPECT_TRUE(READ_ONCE(node_of(GHOST_CPU, 0)->next) == node_of(1, 0));
	/* The free lock is untouched: reserved for the head. */
	EXPECT_EQ(tail_of(1, 0) | PVQ_PENDING_VAL, word(&self->lock));
	EXPECT_FALSE(flag_read(&c.acquired));
	EXPECT_EVENT(lock_stealing, 0);

	/* The ghost head takes its lock and defers the kick to its unlock. */
	ghost_hand_over(&self->lock, node_of(1, 0));
	EXPECT_EQ(PVQ_VCPU_HASHED, state_of(1));
	EXPECT_EQ(tail_of(1, 0) | PVQ_SLOW_VAL, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(1));
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	EXPECT_EQ(0u, word(&self->lock));
	ASSERT_TRUE(contender_finish(&c));
}

/* The word while we hold the lock and a ghost head waits, not reserving. */
#define HELD_PAST_GHOST		(tail_of(GHOST_CPU, 0) | PVQ_LOCKED_VAL)

/*
 * Hold the lock with a ghost queue behind it, and start a fair contender
 * on CPU 1 with a steal loop of @steal_spin loops (fair_steal_spin).
 */
static int start_fair_stealer(struct pvq_qspinlock *lock, struct contender *c,
			      int steal_spin)
{
	pvq_fair_steal_spin = steal_spin;
	atomic_set(&lock->val, HELD_PAST_GHOST);
	return contender_start(c, &lock_adapter_pvqspinlock, lock, 1, false);
}

/*
 * fair_steal_spin: a fair contender that finds a queue whose head has not
 * reserved the lock stays out of the queue and keeps trying to take the
 * lock; it gets it as soon as we let go, past the queue.
 */
TEST_F(pvqspin, fair_contender_keeps_stealing_past_queue)
{
	struct contender c;

	ASSERT_EQ(0, start_fair_stealer(&self->lock, &c,
					PVQ_FAIR_STEAL_SPIN_MAX));
	EXPECT_TRUE(stays_false(word(&self->lock) != HELD_PAST_GHOST))
		TH_LOG("the contender queued: word %#x", word(&self->lock));
	EXPECT_FALSE(flag_read(&c.acquired));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tail_of(GHOST_CPU, 0) | PVQ_PASS_VAL, word(&self->lock));
	EXPECT_TRUE(!READ_ONCE(node_of(GHOST_CPU, 0)->next));
	EXPECT_EQ(0UL, pvq_futex_waits(1));
	EXPECT_EVENT(lock_stealing, 1);
}

/*
 * Wait until contender @c (CPU 1) has queued behind the ghost head, then
 * let the ghost head take the lock from us, pass the queue on and unlock:
 * @c must get the lock through the queue.
 */
static bool queued_behind_ghost_gets_lock(struct pvq_qspinlock *lock,
					  struct contender *c)
{
	if (!poll_until((word(lock) & PVQ_TAIL_MASK) == tail_of(1, 0)) ||
	    READ_ONCE(node_of(GHOST_CPU, 0)->next) != node_of(1, 0) ||
	    flag_read(&c->acquired))
		return false;
	ghost_hand_over(lock, node_of(1, 0));
	pvq_pv_qspin_unlock(lock);
	return poll_until(flag_read(&c->done)) && contender_finish(c) &&
	       word(lock) == 0;
}

/* ... and queues once the head reserves the lock with the pending bit, */
TEST_F(pvqspin, fair_contender_queues_when_head_reserves)
{
	struct contender c;

	ASSERT_EQ(0, start_fair_stealer(&self->lock, &c,
					PVQ_FAIR_STEAL_SPIN_MAX));
	EXPECT_TRUE(stays_false(word(&self->lock) != HELD_PAST_GHOST));
	WRITE_ONCE(self->lock.pending, 1);
	EXPECT_TRUE(queued_behind_ghost_gets_lock(&self->lock, &c))
		TH_LOG("word %#x", word(&self->lock));
	EXPECT_EVENT(lock_stealing, 0);
}

/* ... or once it has spun fair_steal_spin loops. */
TEST_F(pvqspin, fair_contender_queues_after_steal_spin)
{
	struct contender c;

	ASSERT_EQ(0, start_fair_stealer(&self->lock, &c, 64));
	EXPECT_TRUE(queued_behind_ghost_gets_lock(&self->lock, &c))
		TH_LOG("word %#x", word(&self->lock));
	EXPECT_EVENT(lock_stealing, 0);
}

/*
 * With fair_bound_us set, the fair queue head competes for the free lock
 * without the pending bit until it has been starved that long: it spins
 * for a lock we hold without reserving it, and takes it when we let go.
 */
TEST_F(pvqspin, fair_head_with_bound_spins_without_pending)
{
	struct contender a;

	pvq_fair_bound_us = 500000;
	pvq_queue_spin_threshold = 1 << 30;
	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &lock_adapter_pvqspinlock,
				     &self->lock, 1, false));
	ASSERT_TRUE(poll_until((word(&self->lock) & PVQ_TAIL_MASK) ==
			       tail_of(1, 0)));
	EXPECT_TRUE(stays_false(READ_ONCE(self->lock.pending)))
		TH_LOG("the head reserved the lock: word %#x",
		       word(&self->lock));
	EXPECT_FALSE(flag_read(&a.acquired));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&a.done)));
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EVENT(steal_block, 0);
	EXPECT_EQ(0UL, pvq_futex_waits(1));
}

/*
 * ... and blocks stealing from its second halt on: stealers it never saw
 * may have passed it all along.  It halts with the pending bit clear (a
 * fair head lets running vCPUs take the lock while it sleeps).
 */
TEST_F(pvqspin, fair_head_with_bound_blocks_at_second_halt)
{
	struct contender a;

	pvq_fair_bound_us = 500000;
	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, false));
	EXPECT_EVENT(steal_block, 0);
	pvq_pv_kick(1);
	ASSERT_TRUE(poll_until(pvq_futex_parks(1) == 2 &&
			       pvq_futex_parked(1)))
		TH_LOG("parks %lu", pvq_futex_parks(1));
	EXPECT_EVENT(steal_block, 1);
	EXPECT_EQ(tail_of(1, 0) | PVQ_SLOW_VAL, word(&self->lock));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
}

/* The word with a ghost queue, @passes counted steals past it and @locked. */
static u32 ghost_queue_word(u32 passes, u32 locked)
{
	return tail_of(GHOST_CPU, 0) | passes * PVQ_PASS_VAL | locked;
}

/*
 * pass_bound: every steal past a queue is counted in the lock word; at
 * the bound every way of stealing (the entry attempt, the fair steal
 * loop, the unfair one) is refused until a queue head has taken the lock.
 */
TEST_F(pvqspin, steals_past_queue_stop_at_pass_bound)
{
	u32 i;

	pvq_pass_bound = 3;
	atomic_set(&self->lock.val, ghost_queue_word(0, 0));
	for (i = 1; i <= 3; i++) {
		ASSERT_TRUE(pvq_pv_trylock_steal(&self->lock));
		EXPECT_EQ(ghost_queue_word(i, PVQ_LOCKED_VAL), word(&self->lock));
		pvq_pv_qspin_unlock(&self->lock);
	}
	EXPECT_FALSE(pvq_pv_trylock_steal(&self->lock));
	pvq_fair_steal_spin = 8;
	EXPECT_FALSE(pvq_fair_steal(&self->lock));
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
	EXPECT_FALSE(pvq_unfair_steal(&self->lock));
#endif
	EXPECT_EQ(ghost_queue_word(3, 0), word(&self->lock));
	EXPECT_EVENT(lock_stealing, 3);
#ifdef PVQ_LOCK_STATS
	EXPECT_LE(2UL, pvq_lock_event_sum(PVQ_EV_pass_bound));
#endif
	/* Without a queue nobody is passed: nothing counts, nothing stops. */
	atomic_set(&self->lock.val, 0);
	ASSERT_TRUE(pvq_pv_trylock_steal(&self->lock));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	pvq_pv_qspin_unlock(&self->lock);
}

/* pass_scale: each CPU counts the first of every pass_scale steals. */
TEST_F(pvqspin, pass_scale_counts_one_steal_in_n)
{
	int i;

	pvq_pass_scale = 4;
	atomic_set(&self->lock.val, ghost_queue_word(0, 0));
	for (i = 0; i < 8; i++) {
		ASSERT_TRUE(pvq_pv_trylock_steal(&self->lock));
		pvq_pv_qspin_unlock(&self->lock);
	}
	EXPECT_EQ(ghost_queue_word(2, 0), word(&self->lock));
}

/*
 * The credit of a counted steal is for that lock's queue only: a steal
 * past another lock's queue is counted there (it used to spend the first
 * lock's credit, and that queue's head could be passed without bound
 * while its count never moved).
 */
TEST_F(pvqspin, pass_credit_is_per_lock)
{
	struct pvq_qspinlock other;
	int i;

	pvq_pass_scale = 4;
	atomic_set(&self->lock.val, ghost_queue_word(0, 0));
	atomic_set(&other.val, ghost_queue_word(0, 0));
	for (i = 0; i < 8; i++) {
		ASSERT_TRUE(pvq_pv_trylock_steal(&self->lock));
		pvq_pv_qspin_unlock(&self->lock);
		ASSERT_TRUE(pvq_pv_trylock_steal(&other));
		pvq_pv_qspin_unlock(&other);
	}
	/* Every steal counted: no credit carried from one lock to the other. */
	EXPECT_EQ(ghost_queue_word(8, 0), word(&self->lock));
	EXPECT_EQ(ghost_queue_word(8, 0), word(&other))
		TH_LOG("the other lock's count: %u of 8 steals",
		       (word(&other) & PVQ_PASSES_MASK) >> PVQ_PASSES_OFFSET);
	/* On one lock alone, one in pass_scale counts, as before. */
	for (i = 0; i < 8; i++) {
		ASSERT_TRUE(pvq_pv_trylock_steal(&other));
		pvq_pv_qspin_unlock(&other);
	}
	EXPECT_EQ(ghost_queue_word(10, 0), word(&other));
}

/*
 * A queue head that takes the lock (here: reserved, spinning with
 * interrupts off) leaves the pass count at 0 for its successor, the next
 * head.
 */
TEST_F(pvqspin, head_takes_lock_and_resets_pass_count)
{
	struct contender a, b;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &pvqs_irqs_off_ops, &self->lock, 1,
				     true));
	ASSERT_TRUE(head_spins(&self->lock, 1));
	ASSERT_EQ(0, contender_start(&b, &pvqs_irqs_off_ops, &self->lock, 2,
				     false));
	ASSERT_TRUE(poll_until((word(&self->lock) & PVQ_TAIL_MASK) ==
			       tail_of(2, 0)));
	/* As if five steals had passed the queue meanwhile. */
	atomic_or(5 * PVQ_PASS_VAL, &self->lock.val);
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&a.acquired)));
	/* B, the new head, may have reserved the lock already. */
	EXPECT_EQ(tail_of(2, 0) | PVQ_LOCKED_VAL,
		  word(&self->lock) & ~PVQ_PENDING_VAL)
		TH_LOG("lock word %#x", word(&self->lock));
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(poll_until(flag_read(&b.done)));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
}

/* An unlock that finds neither the owner's value nor the slow one. */
TEST_F(pvqspin, unlock_of_free_lock_warns)
{
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(1UL, shim_warnings);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(UNIT_TEST_CPU));
}

/*
 * Regression test (none still ran the PV protocol, and unlocked with a
 * cmpxchg): where nothing halts the PV lock is the native qspinlock.  The
 * uncontended pair is one RMW (the lock's cmpxchg; the unlock a store),
 * and contenders wait as native ones do: no wait(), no hash entry, no
 * kick, no PV event.
 */
TEST_F(pvqspin, none_backend_runs_native)
{
	struct contender a, b;
	unsigned long before;

	ASSERT_EQ(0, pvq_pv_select("none"));
	before = shim_rmws_of(UNIT_TEST_CPU);
	pvq_pv_qspin_lock(&self->lock);
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(1UL, shim_rmws_of(UNIT_TEST_CPU) - before);

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &lock_adapter_pvqspinlock, &self->lock, 1, false));
	ASSERT_EQ(0, contender_start(&b, &lock_adapter_pvqspinlock, &self->lock, 2, false));
	/* One pending waiter and one queued: both spin, neither waits. */
	ASSERT_TRUE(poll_until((word(&self->lock) & PVQ_TAIL_MASK) &&
			       READ_ONCE(self->lock.pending)))
		TH_LOG("word %#x", word(&self->lock));
	EXPECT_TRUE(stays_false(flag_read(&a.acquired) ||
				flag_read(&b.acquired)));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(unit_order_count() == 2));
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(0UL, pvq_futex_waits(1) + pvq_futex_waits(2));
	EXPECT_EQ(0UL, pvq_futex_kicks(1) + pvq_futex_kicks(2));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(pending, 1);
	EXPECT_EVENT(wait_node, 0);
	EXPECT_EVENT(wait_head, 0);
	EXPECT_EVENT(kick_unlock, 0);
	EXPECT_EVENT(hash_hops, 0);
	EXPECT_EVENT(lock_stealing, 0);
}

/* A backend whose kicks arrive late: the test delivers them. */
static const struct pvq_pv_ops *futex_ops;
static int late_kick = -1;

static bool can_wait_by_futex(void)
{
	return futex_ops->can_wait();
}

static void wait_by_futex(u8 *ptr, u8 val)
{
	futex_ops->wait(ptr, val);
}

static void kick_later(int cpu)
{
	WRITE_ONCE(late_kick, cpu);
}

static void spinning_by_futex(void)
{
	futex_ops->spinning();
}

static const struct pvq_pv_ops late_kick_ops = {
	.name = "late-kick", .can_wait = can_wait_by_futex,
	.wait = wait_by_futex, .kick = kick_later,
	.spinning = spinning_by_futex,
};

/*
 * Regression test (the head never halted again before the fix): after a deferred kick
 * (the usual hand-over to a halted waiter) the new queue head never halts
 * again in that acquisition.  Its predecessor hashed it and set the slow
 * value; the predecessor's unlock consumed the entry while the head still
 * slept, so the head never saw the slow value and pred_hashed stays set:
 * if the lock is stolen before the head runs, the head spins (pv_wait()
 * returns at once) for as long as the stealer holds the lock.
 */
TEST_F(pvqspin, head_halts_again_after_deferred_kick_and_steal)
{
	struct contender c;

	atomic_set(&self->lock.val, tail_of(GHOST_CPU, 0) | PVQ_LOCKED_VAL);
	ASSERT_TRUE(start_halted(&c, &self->lock, 1, false));
	ghost_hand_over(&self->lock, node_of(1, 0));
	ASSERT_EQ(PVQ_VCPU_HASHED, state_of(1));

	/* The ghost's unlock, whose kick is slow to arrive... */
	futex_ops = pvq_pv;
	pvq_pv_use(&late_kick_ops);
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_EQ(1, READ_ONCE(late_kick));
	/* ...and a steal before it does. */
	ASSERT_TRUE(pvq_pv_trylock_steal(&self->lock));
	pvq_pv_use(futex_ops);
	pvq_pv_kick(1);

	/* The stealer (us) holds on: the head should hash itself and halt. */
	EXPECT_TRUE(poll_until(pvq_futex_parks(1) == 2 &&
			       pvq_futex_parked(1)))
		TH_LOG("head spins: %lu waits, %lu parks, locked byte %#x",
		       pvq_futex_waits(1), pvq_futex_parks(1),
		       locked_byte(&self->lock));
	EXPECT_EQ(PVQ_SLOW_VAL, locked_byte(&self->lock));
	EXPECT_EQ(1, hash_entries(&self->lock, NULL));
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
}

/* Rounds of the head's spinning watched: 20 thresholds' worth at least. */
#define IRQS_OFF_ROUNDS		20

/*
 * Regression test (a head with interrupts off ran the halt protocol): a
 * queue head that cannot halt (interrupts off; the futex backend is
 * ipi-like) spins like a native one.  However long it spins it never
 * hashes itself nor sets the slow value, so our unlock is the fast path
 * and kicks nobody.
 */
TEST_F(pvqspin, irqs_off_head_spins_and_is_never_hashed)
{
	u8 locked = PVQ_LOCKED_VAL, state = PVQ_VCPU_RUNNING;
	unsigned long waits = 0;
	struct contender a;
	int entries = 0, i;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &pvqs_irqs_off_ops, &self->lock, 1,
				     false));
	ASSERT_TRUE(head_spins(&self->lock, 1))
		TH_LOG("lock word %#x", word(&self->lock));
	for (i = 0; i < IRQS_OFF_ROUNDS; i++) {
		ASSERT_TRUE(head_spins_another_round(&self->lock))
			TH_LOG("round %d: lock word %#x", i, word(&self->lock));
		locked = locked_byte(&self->lock);
		state = state_of(1);
		entries = hash_entries(&self->lock, NULL);
		waits = pvq_futex_waits(1);
		if (locked != PVQ_LOCKED_VAL || state != PVQ_VCPU_RUNNING ||
		    entries || waits)
			break;
	}
	EXPECT_EQ(PVQ_LOCKED_VAL, locked)
		TH_LOG("round %d: the head set the slow value", i);
	EXPECT_EQ(PVQ_VCPU_RUNNING, state)
		TH_LOG("round %d: the head's state", i);
	EXPECT_EQ(0, entries)
		TH_LOG("round %d: the head hashed itself", i);
	EXPECT_EQ(0UL, waits)
		TH_LOG("round %d: the head called pvq_pv_wait()", i);
	EXPECT_FALSE(flag_read(&a.acquired));

	pvq_pv_qspin_unlock(&self->lock);
	/* Any kick is part of the unlock: none by now, none ever. */
	EXPECT_EQ(0UL, pvq_futex_kicks(1));
	ASSERT_TRUE(poll_until(flag_read(&a.done)));
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(0UL, pvq_futex_waits(1));
	EXPECT_EQ(0UL, pvq_futex_parks(1));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(wait_head, 0);
	EXPECT_EVENT(kick_unlock, 0);
}

/*
 * Regression test (a waiter with interrupts off ran the halt protocol): a
 * queued waiter that cannot halt spins on its node even behind a halted
 * head, so its state stays RUNNING.  The head that hands it the MCS lock
 * then neither hashes it nor sets the slow value: that head's unlock is
 * the fast path and kicks nobody.  As the new head it spins without
 * halting too.
 */
TEST_F(pvqspin, irqs_off_waiter_is_never_halted_nor_hashed)
{
	struct pvq_mcs_node *n = NULL;
	u8 locked = PVQ_LOCKED_VAL;
	struct contender a, b;
	int i;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_TRUE(start_head(&a, &self->lock, 1, true));
	ASSERT_EQ(0, contender_start(&b, &pvqs_irqs_off_ops, &self->lock, 2,
				     false));
	ASSERT_TRUE(poll_until(READ_ONCE(node_of(1, 0)->next) ==
			       node_of(2, 0)));
	/* Many thresholds' worth of spinning, behind a halted head. */
	EXPECT_TRUE(stays_false(state_of(2) != PVQ_VCPU_RUNNING ||
				pvq_futex_waits(2)))
		TH_LOG("cpu 2: state %u, %lu waits", state_of(2),
		       pvq_futex_waits(2));
	/* Only the head is hashed. */
	ASSERT_EQ(1, hash_entries(&self->lock, &n));
	EXPECT_TRUE(n == node_of(1, 0));

	/* Our unlock kicks A, which hands B the MCS lock: B is running. */
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	ASSERT_TRUE(poll_until(flag_read(&a.acquired)));
	EXPECT_EQ(1, READ_ONCE(node_of(2, 0)->locked));
	EXPECT_EQ(PVQ_VCPU_RUNNING, state_of(2));
	EXPECT_EQ(0, READ_ONCE(node_of(2, 0)->pred_hashed));
	EXPECT_EQ(PVQ_LOCKED_VAL, locked_byte(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));

	/* B, queue head behind A, spins round after round and never halts. */
	ASSERT_TRUE(head_spins(&self->lock, 2))
		TH_LOG("lock word %#x", word(&self->lock));
	for (i = 0; i < IRQS_OFF_ROUNDS; i++) {
		ASSERT_TRUE(head_spins_another_round(&self->lock));
		locked = locked_byte(&self->lock);
		if (locked != PVQ_LOCKED_VAL)
			break;
	}
	EXPECT_EQ(PVQ_LOCKED_VAL, locked)
		TH_LOG("round %d: the head set the slow value", i);
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));

	/* A's unlock is the fast path: B was never hashed, nobody kicks it. */
	ASSERT_TRUE(contender_finish(&a));
	ASSERT_TRUE(poll_until(flag_read(&b.done)));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(2));
	EXPECT_EQ(0UL, pvq_futex_waits(2));
	EXPECT_EQ(0UL, pvq_futex_parks(2));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(wait_node, 0);
	EXPECT_EVENT(kick_unlock, 1);
}

/* How long the owner holds the lock while a queue head spins for it. */
#define HOLD_MS			20
/* Atomic RMWs the spinning head may issue meanwhile: a handful at most. */
#define HOLD_MAX_RMWS		4UL

/*
 * Regression test (a cmpxchg on every spin): the queue head whose pending
 * bit reserves the lock reads the locked byte before its cmpxchg, so it
 * issues no atomic RMW on the lock word, whose line the owner is using,
 * while the owner holds the lock.  Interrupts off, so that it spins for
 * the whole hold and never halts.
 */
TEST_F(pvqspin, reserved_head_spins_without_rmw_while_owner_holds)
{
	unsigned long before, rmws;
	struct contender a;
	int rounds = 0;
	u64 end;

	pvq_pv_qspin_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&a, &pvqs_irqs_off_ops, &self->lock, 1,
				     false));
	ASSERT_TRUE(head_spins(&self->lock, 1))
		TH_LOG("lock word %#x", word(&self->lock));
	before = shim_rmws_of(1);
	/* HOLD_MS, and at least a few rounds of pvq_queue_spin_threshold spins. */
	end = unit_now_ms() + HOLD_MS;
	do {
		ASSERT_TRUE(head_spins_another_round(&self->lock))
			TH_LOG("round %d: lock word %#x", rounds,
			       word(&self->lock));
		rounds++;
	} while (rounds < 5 || unit_now_ms() < end);
	/*
	 * And one a round: the head sets its reservation again after we took
	 * it away to see the round end (an RMW, so that a counted steal's
	 * count beside it is never overwritten).  A cmpxchg on every spin
	 * would be 64 a round.
	 */
	rmws = shim_rmws_of(1) - before;
	EXPECT_LE(rmws, rounds + HOLD_MAX_RMWS)
		TH_LOG("%lu RMWs in %d rounds of %d spins", rmws, rounds,
		       pvq_queue_spin_threshold);
	EXPECT_FALSE(flag_read(&a.acquired));

	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&a.done)));
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(1));
}

/* The successor the tests below hand the MCS lock to: CPU 5, no thread. */
static struct pvq_mcs_node *ghost_successor(u8 state, u8 pred_hashed)
{
	struct pvq_mcs_node *n = node_of(GHOST_CPU, 0);

	n->cpu = GHOST_CPU;
	n->next = NULL;
	WRITE_ONCE(n->state, state);
	WRITE_ONCE(n->pred_hashed, pred_hashed);
	/* The hand-over store, done by pvq_head_acquire() before the kick. */
	WRITE_ONCE(n->locked, 1);
	return n;
}

/*
 * Regression test (pred_hashed written 1, then 0, for every successor):
 * handing the MCS lock to a running successor touches nothing of its node
 * (the line it spins on) and nothing of the lock: no write, no RMW.
 */
TEST_F(pvqspin, kick_node_leaves_running_successor_alone)
{
	struct pvq_mcs_node *n;
	unsigned long before;

	pvq_pv_qspin_lock(&self->lock);
	n = ghost_successor(PVQ_VCPU_RUNNING, 0x5a);
	before = shim_rmws_of(UNIT_TEST_CPU);
	pvq_pv_kick_node(&self->lock, n);
	EXPECT_EQ(0UL, shim_rmws_of(UNIT_TEST_CPU) - before);
	EXPECT_EQ(0x5a, READ_ONCE(n->pred_hashed));
	EXPECT_EQ(PVQ_VCPU_RUNNING, READ_ONCE(n->state));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(0UL, pvq_futex_kicks(GHOST_CPU));

	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_kicks(GHOST_CPU));
	EXPECT_EQ(0UL, shim_warnings);
}

/*
 * A halted successor is hashed instead, the lock made slow, and its kick
 * left to our unlock.
 */
TEST_F(pvqspin, kick_node_hashes_halted_successor)
{
	struct pvq_mcs_node *n, *found = NULL;

	pvq_pv_qspin_lock(&self->lock);
	n = ghost_successor(PVQ_VCPU_HALTED, 0);
	pvq_pv_kick_node(&self->lock, n);
	EXPECT_EQ(PVQ_VCPU_HASHED, READ_ONCE(n->state));
	EXPECT_EQ(1, READ_ONCE(n->pred_hashed));
	EXPECT_EQ(PVQ_SLOW_VAL, word(&self->lock));
	ASSERT_EQ(1, hash_entries(&self->lock, &found));
	EXPECT_TRUE(found == n);
	EXPECT_EQ(0UL, pvq_futex_kicks(GHOST_CPU));

	/* The slow unlock consumes the entry and kicks the successor. */
	pvq_pv_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, READ_ONCE(n->pred_hashed));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(1UL, pvq_futex_kicks(GHOST_CPU));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_unlock, 1);
}

/* Fill (@fill) or empty every slot of the hash table that @lock is not in. */
static void hash_fill_others(struct pvq_qspinlock *lock, bool fill)
{
	static struct pvq_qspinlock dummy;
	unsigned long i, n = 1UL << pvq_hash_bits;

	for (i = 0; i < n; i++) {
		if (READ_ONCE(pvq_hash_table[i].lock) == lock)
			continue;
		WRITE_ONCE(pvq_hash_table[i].lock, fill ? &dummy : NULL);
	}
}

/*
 * Regression test (a failed hash left ->pred_hashed set): when the MCS
 * lock passes to a halted successor and no hash entry can be made for it
 * (a full table: "cannot be", but then it must still work), the successor
 * is kicked at once and, as queue head, hashes itself and parks like any
 * other head once the table has room.  With the flag left set it believed
 * an entry existed, never hashed itself and spun its whole wait.
 */
TEST_F(pvqspin, head_parks_after_failed_deferred_hash)
{
	struct contender b;
	unsigned long warned;

	atomic_set(&self->lock.val, HELD_PAST_GHOST);
	ASSERT_TRUE(start_halted(&b, &self->lock, 2, false))
		TH_LOG("word %#x, cpu 2 state %u", word(&self->lock),
		       state_of(2));
	ASSERT_TRUE(READ_ONCE(node_of(GHOST_CPU, 0)->next) == node_of(2, 0));

	hash_fill_others(&self->lock, true);
	ghost_hand_over(&self->lock, node_of(2, 0));
	/* "hash table full"; again whenever B tries before we make room. */
	EXPECT_LE(1UL, shim_warnings);
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(1UL, pvq_futex_kicks(2));	/* woken now, not deferred */
	EXPECT_EQ(0, READ_ONCE(node_of(2, 0)->pred_hashed));
	hash_fill_others(&self->lock, false);

	/* B is head, we (the ghost) hold the lock: B must park, hashed. */
	EXPECT_TRUE(poll_until(pvq_pv_halted_on(2) == &self->lock.locked &&
			       locked_byte(&self->lock) == PVQ_SLOW_VAL &&
			       hash_entries(&self->lock, NULL) == 1))
		TH_LOG("word %#x, cpu 2 state %u pred_hashed %u parked on %p",
		       word(&self->lock), state_of(2),
		       READ_ONCE(node_of(2, 0)->pred_hashed),
		       (void *)pvq_pv_halted_on(2));
	warned = shim_warnings;

	/* Our slow unlock finds B's own entry and kicks it. */
	pvq_pv_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&b.acquired)));
	ASSERT_TRUE(contender_finish(&b));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, hash_entries(&self->lock, NULL));
	EXPECT_EQ(warned, shim_warnings);
}

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
/*
 * Unfair mode: a CPU steals past queued waiters at most unfair_steal_budget
 * times, then must queue; stealing from an empty queue is not limited.
 */
TEST_F(pvqspin, unfair_steal_budget_sends_stealer_to_queue)
{
	int i;

	pvq_steal_budget = 2;
	for (i = 0; i < 3; i++) {
		atomic_set(&self->lock.val, 0);
		EXPECT_TRUE(pvq_unfair_steal(&self->lock));
		EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	}
	/* A ghost queue: two steals pass it, the third is refused. */
	for (i = 0; i < 2; i++) {
		atomic_set(&self->lock.val, tail_of(GHOST_CPU, 0));
		pvq_pv_qspin_unfair_lock(&self->lock);
		EXPECT_EQ(tail_of(GHOST_CPU, 0) | PVQ_PASS_VAL | PVQ_LOCKED_VAL,
			  word(&self->lock));
		pvq_pv_qspin_unfair_unlock(&self->lock);
	}
	EXPECT_FALSE(pvq_unfair_steal(&self->lock));
	EXPECT_EQ(tail_of(GHOST_CPU, 0) | PVQ_PASS_VAL, word(&self->lock));
	EXPECT_EVENT(unfair_steal, 5);
	EXPECT_EVENT(steal_budget_out, 1);
	pvq_steal_budget = PVQ_STEAL_BUDGET_DEFAULT;
}

/*
 * Start @c on CPU 1 as the unfair queue head behind our lock, spinning
 * (with a threshold that never runs out) under a starvation bound of
 * @bound_us, and give it time to start its starvation clock.
 */
static bool start_unfair_head(struct contender *c, struct pvq_qspinlock *lock,
			      int bound_us)
{
	pvq_starvation_bound_us = bound_us;
	pvq_queue_spin_threshold = 1 << 30;
	pvq_pv_qspin_unfair_lock(lock);
	if (contender_start(c, &lock_adapter_pvqspinlock_unfair, lock, 1, false))
		return false;
	if (!poll_until((word(lock) & PVQ_TAIL_MASK) == tail_of(1, 0)))
		return false;
	usleep(20000);
	return true;
}

static void unfair_params_reset(void)
{
	pvq_starvation_bound_us = PVQ_STARVATION_BOUND_US_DEFAULT;
	pvq_queue_spin_threshold = UNIT_SPIN_THRESHOLD;
}

/*
 * Regression test (the starvation clock was the wall clock): time in
 * which the head did not run is not starvation.  The clock jumps a second
 * under a spinning head, as a vCPU's does when the host did not run it;
 * with a bound of 500 ms the head must go on letting stealers in.  With
 * the wall clock it blocked stealing at its next look, and while its vCPU
 * was preempted again nobody could take the free lock.
 */
TEST_F(pvqspin, unfair_head_clock_leaves_out_preemption)
{
	struct contender a;

	ASSERT_TRUE(start_unfair_head(&a, &self->lock, 500000));
	__atomic_add_fetch(&shim_clock_skew_ns, 1000000000ull, __ATOMIC_RELAXED);
	EXPECT_TRUE(stays_false(READ_ONCE(self->lock.pending)))
		TH_LOG("the head blocked stealing after a clock jump");
	EXPECT_EVENT(steal_block, 0);
	pvq_pv_qspin_unfair_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&a));
	EXPECT_EQ(0u, word(&self->lock));
	unfair_params_reset();
}

/*
 * The head's starvation clock counts only time in which it ran and lost
 * the free lock to a stealer: not the time a holder kept the lock (a
 * preempted holder is no stealer), not a clock jump (the head's vCPU did
 * not run).  Driven through the shim's clock, 50 us a step.
 */
TEST(pvqspin_unfair_head_clock_counts_robbed_running_time)
{
	struct pvq_head_clock hc = { .bound_ns = 1000 * NSEC_PER_USEC };
	bool starving = false;
	u64 before;
	int i;

	shim_register_cpu(UNIT_TEST_CPU);
	hc.last = local_clock();
	/* Not robbed: the lock was held all along. */
	__atomic_add_fetch(&shim_clock_skew_ns, 50000, __ATOMIC_RELAXED);
	EXPECT_FALSE(pvq_head_starving(&hc));
	EXPECT_EQ(0ull, hc.starved_ns);
	/* Robbed, but the clock jumped: preempted, not counted. */
	before = hc.starved_ns;
	hc.robbed = true;
	__atomic_add_fetch(&shim_clock_skew_ns, 1000000000ull, __ATOMIC_RELAXED);
	EXPECT_FALSE(pvq_head_starving(&hc));
	EXPECT_EQ(before, hc.starved_ns);
	EXPECT_FALSE(hc.robbed);
	/*
	 * Robbed at every look while running: starving after 20 steps of
	 * 50 us; 40 leave room for steps that a preemption of this thread
	 * (over 100 us) makes not count.
	 */
	for (i = 0; i < 40 && !starving; i++) {
		hc.robbed = true;
		__atomic_add_fetch(&shim_clock_skew_ns, 50000, __ATOMIC_RELAXED);
		starving = pvq_head_starving(&hc);
	}
	EXPECT_TRUE(starving);
	EXPECT_GE(hc.starved_ns, hc.bound_ns);
}
#endif

/*
 * A fifth nesting level of the PV instances: CPU 1's node 0 says that all
 * PVQ_MAX_NODES nodes are in use (four contexts queued below us), so the
 * lock can only be taken by trylock.
 */
FIXTURE(pvq_fifth) {
	struct pvq_qspinlock lock;
};

FIXTURE_VARIANT(pvq_fifth) {
	const struct lock_adapter *ops;
};

FIXTURE_VARIANT_ADD(pvq_fifth, fair) {
	.ops = &lock_adapter_pvqspinlock,
};

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
FIXTURE_VARIANT_ADD(pvq_fifth, unfair) {
	.ops = &lock_adapter_pvqspinlock_unfair,
};
#endif

FIXTURE_SETUP(pvq_fifth)
{
	PVQSPIN_SETUP(&self->lock);
}

FIXTURE_TEARDOWN(pvq_fifth)
{
}

/*
 * Regression test (the fifth level needed the whole word free, and
 * starved behind a queue that never empties): it takes the lock whenever
 * the locked byte and the pending bit are clear, past the queue, and
 * leaves the tail alone; while a queue head blocks stealing (pending set)
 * it waits.
 */
TEST_F(pvq_fifth, takes_free_lock_past_persistent_queue)
{
	const u32 queue = tail_of(GHOST_CPU, 0);
	struct contender c;
	bool took;

	node_of(1, 0)->count = PVQ_MAX_NODES;
	/* The ghost queue head spins for the lock with stealing blocked. */
	atomic_set(&self->lock.val, queue | PVQ_PENDING_VAL);
	ASSERT_EQ(0, contender_start(&c, variant->ops, &self->lock, 1, true));
	ASSERT_TRUE(poll_until(flag_read(&c.started)));
#ifdef PVQ_LOCK_STATS
	ASSERT_TRUE(poll_until(pvq_lock_event_sum(PVQ_EV_nest_overflow) == 1));
#endif
	EXPECT_TRUE(stays_false(flag_read(&c.acquired) ||
				word(&self->lock) != (queue | PVQ_PENDING_VAL)))
		TH_LOG("lock word %#x", word(&self->lock));

	/*
	 * The ghost head takes its reserved lock, hands the MCS lock on and
	 * unlocks: the lock is free, and the queue (whose tail we leave at
	 * the ghost) is still there.
	 */
	WRITE_ONCE(self->lock.locked_pending, PVQ_LOCKED_VAL);
	EXPECT_FALSE(flag_read(&c.acquired));
	pvq_pv_qspin_unlock(&self->lock);
	took = poll_until(flag_read(&c.acquired));
	EXPECT_TRUE(took)
		TH_LOG("starved behind the queue: lock word %#x",
		       word(&self->lock));
	if (took) {
		EXPECT_EQ(queue | PVQ_PASS_VAL | PVQ_LOCKED_VAL,
			  word(&self->lock));
	} else {
		/* Let the contender finish: the queue drains. */
		atomic_set(&self->lock.val, 0);
		ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	}
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(took ? queue | PVQ_PASS_VAL : 0, word(&self->lock));
	/* It never queued: the four nodes below it are as they were. */
	EXPECT_EQ(PVQ_MAX_NODES, READ_ONCE(node_of(1, 0)->count));
	EXPECT_TRUE(!READ_ONCE(node_of(GHOST_CPU, 0)->next));
	node_of(1, 0)->count = 0;
	EXPECT_EQ(0UL, pvq_futex_waits(1));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(nest_overflow, 1);
	EXPECT_EVENT(lock_stealing, 1);
	EXPECT_EVENT(unfair_steal, 0);
	EXPECT_EVENT(node_idx1, 0);
}

TEST_HARNESS_MAIN
