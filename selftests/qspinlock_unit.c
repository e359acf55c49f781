// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the queued spinlock: lock-word transitions, step by step.
 *
 * Like tools/testing/radix-tree, this includes the slow path source itself,
 * so a test can prepare and inspect the per-CPU MCS nodes and call its
 * static helpers.  Each contender is a thread registered as its own CPU,
 * and each step waits (bounded) until the lock word shows the state the
 * algorithm promises, so the tests are deterministic.
 *
 * The expected tail values are computed from the documented layout
 * (Documentation/qspinlock.rst), not from the code's own encoder.
 */
#include "qspinlock.c"

#include <string.h>

#include "kselftest_harness.h"
#include "unit_helpers.h"

/* Documented tail layout: bits 16-17 node index, bits 18-31 cpu + 1. */
static u32 tail_of(int cpu, int idx)
{
	return ((u32)(cpu + 1) << 18) | ((u32)idx << 16);
}

#define LOCKED_PENDING	(PVQ_LOCKED_VAL | PVQ_PENDING_VAL)

static u32 word(struct pvq_qspinlock *lock)
{
	return atomic_read(&lock->val);
}

static struct pvq_mcs_node *node_of(int cpu, int idx)
{
	return per_cpu_ptr(&pvq_mcs_nodes[idx], cpu);
}

/* Written by the owning CPU only; a relaxed read from here is enough. */
static int node_count(int cpu)
{
	return READ_ONCE(node_of(cpu, 0)->count);
}

#ifdef PVQ_LOCK_STATS
#define EXPECT_EVENT(ev, n)						\
	EXPECT_EQ((unsigned long)(n), pvq_lock_event_sum(PVQ_EV_##ev))
#else
#define EXPECT_EVENT(ev, n)	do { } while (0)
#endif

FIXTURE(qspin) {
	struct pvq_qspinlock lock;
};

FIXTURE_SETUP(qspin)
{
	shim_register_cpu(UNIT_TEST_CPU);
	pvq_qspin_init(&self->lock);
	pvq_lock_events_reset();
}

FIXTURE_TEARDOWN(qspin)
{
}

/*
 * We hold the lock; make @c (on @cpu) the pending waiter.  hold: whether it
 * keeps the lock, once it has it, until contender_finish().
 */
static bool start_pending(struct contender *c, struct pvq_qspinlock *lock,
			  int cpu, bool hold)
{
	if (contender_start(c, &lock_adapter_qspinlock, lock, cpu, hold))
		return false;
	return poll_until(word(lock) == LOCKED_PENDING);
}

/* Make @c (on @cpu) queue, and wait until the tail shows @cpu/@idx. */
static bool start_queued(struct contender *c, struct pvq_qspinlock *lock,
			 int cpu, int idx, bool hold)
{
	if (contender_start(c, &lock_adapter_qspinlock, lock, cpu, hold))
		return false;
	return poll_until((word(lock) & PVQ_TAIL_MASK) == tail_of(cpu, idx));
}

TEST(qspin_lock_word_layout)
{
	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(4u, sizeof(struct pvq_qspinlock));
	EXPECT_EQ(0u, offsetof(struct pvq_qspinlock, locked));
	EXPECT_EQ(1u, offsetof(struct pvq_qspinlock, pending));
	EXPECT_EQ(0u, offsetof(struct pvq_qspinlock, locked_pending));
	EXPECT_EQ(2u, offsetof(struct pvq_qspinlock, tail));
	EXPECT_EQ(0x000000ffu, PVQ_LOCKED_MASK);
	EXPECT_EQ(0x0000ff00u, PVQ_PENDING_MASK);
	EXPECT_EQ(0x00030000u, PVQ_TAIL_IDX_MASK);
	EXPECT_EQ(0xfffc0000u, PVQ_TAIL_CPU_MASK);
	EXPECT_EQ(4, PVQ_MAX_NODES);
	/* The code's encoder agrees with the documentation, both ways. */
	EXPECT_EQ(tail_of(5, 3), pvq_encode_tail(5, 3));
	EXPECT_EQ(tail_of(SHIM_NR_CPUS - 1, 0),
		  pvq_encode_tail(SHIM_NR_CPUS - 1, 0));
	EXPECT_TRUE(pvq_decode_tail(tail_of(5, 3)) == node_of(5, 3));
}

TEST_F(qspin, uncontended_lock_sets_locked_val)
{
	pvq_qspin_lock(&self->lock);
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_TRUE(pvq_qspin_is_locked(&self->lock));
	EXPECT_FALSE(pvq_qspin_is_contended(&self->lock));
	pvq_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_FALSE(pvq_qspin_is_locked(&self->lock));
	EXPECT_EQ(0, node_count(UNIT_TEST_CPU));
	EXPECT_EVENT(slowpath, 0);
}

TEST_F(qspin, trylock_fails_without_touching_word)
{
	static const u32 busy[] = {
		PVQ_LOCKED_VAL,			/* held */
		PVQ_PENDING_VAL,		/* pending -> locked hand-over */
		LOCKED_PENDING,
		PVQ_LOCKED_VAL | 0x40000,	/* held, CPU 0 queued */
		0x40000,			/* queue head about to take it */
	};
	unsigned int i;

	ASSERT_TRUE(pvq_qspin_trylock(&self->lock));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	for (i = 0; i < ARRAY_SIZE(busy); i++) {
		atomic_set(&self->lock.val, busy[i]);
		EXPECT_FALSE(pvq_qspin_trylock(&self->lock));
		EXPECT_EQ(busy[i], word(&self->lock));
	}
	atomic_set(&self->lock.val, PVQ_LOCKED_VAL);
	pvq_qspin_unlock(&self->lock);
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EVENT(slowpath, 0);
}

TEST_F(qspin, second_contender_pends)
{
	struct contender p;

	pvq_qspin_lock(&self->lock);
	ASSERT_TRUE(start_pending(&p, &self->lock, 1, true))
		TH_LOG("lock word %#x, expected %#x", word(&self->lock),
		       LOCKED_PENDING);
	EXPECT_TRUE(stays_false(flag_read(&p.acquired)));
	EXPECT_EQ(LOCKED_PENDING, word(&self->lock));
	EXPECT_TRUE(pvq_qspin_is_contended(&self->lock));
	/* The pending waiter spins on the lock word, not on a node. */
	EXPECT_EQ(0, node_count(1));

	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&p.acquired)));
	/* locked = 1, pending = 0 in one store. */
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_FALSE(pvq_qspin_is_contended(&self->lock));
	ASSERT_TRUE(contender_finish(&p));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EVENT(slowpath, 1);
	EXPECT_EVENT(pending, 1);
	EXPECT_EVENT(node_idx1, 0);
}

TEST_F(qspin, third_contender_queues)
{
	struct contender p, q;
	u32 w;

	pvq_qspin_lock(&self->lock);
	ASSERT_TRUE(start_pending(&p, &self->lock, 1, true));
	ASSERT_TRUE(start_queued(&q, &self->lock, 2, 0, true))
		TH_LOG("lock word %#x, expected tail %#x", word(&self->lock),
		       tail_of(2, 0));
	w = word(&self->lock);
	EXPECT_EQ(tail_of(2, 0) | LOCKED_PENDING, w);
	EXPECT_EQ(3u, w >> PVQ_TAIL_CPU_OFFSET);
	EXPECT_EQ(0u, (w & PVQ_TAIL_IDX_MASK) >> PVQ_TAIL_IDX_OFFSET);
	EXPECT_TRUE(pvq_qspin_is_contended(&self->lock));
	EXPECT_EQ(1, node_count(2));
	EXPECT_TRUE(!READ_ONCE(node_of(2, 0)->next));
	EXPECT_TRUE(stays_false(flag_read(&q.acquired)));

	/* Owner -> pending waiter; the queue head keeps waiting. */
	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&p.acquired)));
	EXPECT_EQ(tail_of(2, 0) | PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_TRUE(stays_false(flag_read(&q.acquired)));

	/* Pending waiter -> queue head, which also empties the queue. */
	ASSERT_TRUE(contender_finish(&p));
	ASSERT_TRUE(poll_until(flag_read(&q.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	ASSERT_TRUE(contender_finish(&q));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(0, node_count(2));

	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EVENT(slowpath, 2);
	EXPECT_EVENT(pending, 1);
	EXPECT_EVENT(node_idx1, 1);
}

#define FIFO_QUEUED	5

TEST_F(qspin, queue_hands_over_in_fifo_order)
{
	struct contender p, q[FIFO_QUEUED];
	int i;

	pvq_qspin_lock(&self->lock);
	ASSERT_TRUE(start_pending(&p, &self->lock, 1, false));
	for (i = 0; i < FIFO_QUEUED; i++) {
		ASSERT_TRUE(start_queued(&q[i], &self->lock, 2 + i, 0, false))
			TH_LOG("waiter %d: lock word %#x", i, word(&self->lock));
		/* Each new tail links itself behind the previous one. */
		if (i)
			ASSERT_TRUE(poll_until(READ_ONCE(node_of(1 + i, 0)->next) ==
					       node_of(2 + i, 0)));
	}
	EXPECT_EQ(0, unit_order_count());

	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(unit_order_count() == FIFO_QUEUED + 1))
		TH_LOG("only %d of %d acquired", unit_order_count(),
		       FIFO_QUEUED + 1);
	ASSERT_TRUE(contender_finish(&p));
	ASSERT_TRUE(contenders_finish(q, FIFO_QUEUED));
	/* The pending waiter first, then the queue in the order it formed. */
	EXPECT_TRUE(order_is_sequential(1, FIFO_QUEUED + 1))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EVENT(slowpath, FIFO_QUEUED + 1);
	EXPECT_EVENT(pending, 1);
	EXPECT_EVENT(node_idx1, FIFO_QUEUED);
}

/*
 * A word showing only the pending bit is a hand-over in flight.  A new
 * contender waits for it only PVQ_PENDING_LOOPS times, then queues; it must
 * neither spin forever nor take the lock from the pending waiter.
 */
TEST_F(qspin, pending_handover_wait_is_bounded)
{
	struct contender q;

	atomic_set(&self->lock.val, PVQ_PENDING_VAL);
	ASSERT_TRUE(start_queued(&q, &self->lock, 1, 0, true))
		TH_LOG("lock word %#x", word(&self->lock));
	EXPECT_EQ(tail_of(1, 0) | PVQ_PENDING_VAL, word(&self->lock));
	EXPECT_TRUE(stays_false(flag_read(&q.acquired)));

	/* We are that pending waiter: finish the hand-over, then unlock. */
	pvq_clear_pending_set_locked(&self->lock);
	EXPECT_EQ(tail_of(1, 0) | PVQ_LOCKED_VAL, word(&self->lock));
	EXPECT_TRUE(stays_false(flag_read(&q.acquired)));
	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&q.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	ASSERT_TRUE(contender_finish(&q));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EVENT(pending, 0);
	EXPECT_EVENT(node_idx1, 1);
}

/*
 * Nesting: pretend @outer contexts of CPU 2 (task, softirq, ...) are already
 * in the slow path with nodes 0 .. outer-1, then contend from CPU 2.
 */
FIXTURE(qspin_nest) {
	struct pvq_qspinlock lock;
};

FIXTURE_VARIANT(qspin_nest) {
	int outer;
};

FIXTURE_VARIANT_ADD(qspin_nest, task) { .outer = 0 };
FIXTURE_VARIANT_ADD(qspin_nest, softirq) { .outer = 1 };
FIXTURE_VARIANT_ADD(qspin_nest, hardirq) { .outer = 2 };
FIXTURE_VARIANT_ADD(qspin_nest, nmi) { .outer = 3 };

FIXTURE_SETUP(qspin_nest)
{
	shim_register_cpu(UNIT_TEST_CPU);
	pvq_qspin_init(&self->lock);
	pvq_lock_events_reset();
}

FIXTURE_TEARDOWN(qspin_nest)
{
}

TEST_F(qspin_nest, tail_idx_is_nesting_level)
{
	int k = variant->outer;
	struct contender p, n;
	u32 w;

	node_of(2, 0)->count = k;
	pvq_qspin_lock(&self->lock);
	ASSERT_TRUE(start_pending(&p, &self->lock, 1, false));
	ASSERT_TRUE(start_queued(&n, &self->lock, 2, k, true))
		TH_LOG("lock word %#x, expected tail %#x", word(&self->lock),
		       tail_of(2, k));
	w = word(&self->lock);
	EXPECT_EQ((u32)k, (w & PVQ_TAIL_IDX_MASK) >> PVQ_TAIL_IDX_OFFSET);
	EXPECT_EQ(3u, w >> PVQ_TAIL_CPU_OFFSET);
	EXPECT_EQ(k + 1, node_count(2));

	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&n.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	ASSERT_TRUE(contender_finish(&n));
	ASSERT_TRUE(contender_finish(&p));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(k, node_count(2));
	EXPECT_EVENT(node_idx1, k == 0);
	EXPECT_EVENT(node_idx2, k == 1);
	EXPECT_EVENT(node_idx3, k == 2);
	EXPECT_EVENT(node_idx4, k == 3);
}

/*
 * A fifth nesting level has no node: it must spin on trylock, never publish
 * itself in the tail, and leave the four nodes below it alone.
 */
TEST_F(qspin, fifth_nesting_spins_on_trylock)
{
	struct pvq_mcs_node before[PVQ_MAX_NODES];
	struct contender p, n;

	memset(node_of(2, 0), 0xa5, sizeof(before));
	node_of(2, 0)->count = PVQ_MAX_NODES;
	memcpy(before, node_of(2, 0), sizeof(before));

	pvq_qspin_lock(&self->lock);
	ASSERT_TRUE(start_pending(&p, &self->lock, 1, false));
	ASSERT_EQ(0, contender_start(&n, &lock_adapter_qspinlock, &self->lock, 2, true));
	ASSERT_TRUE(poll_until(flag_read(&n.started)));
#ifdef PVQ_LOCK_STATS
	ASSERT_TRUE(poll_until(pvq_lock_event_sum(PVQ_EV_nest_overflow) == 1));
#endif
	/* Spinning on trylock: the word never changes, no tail appears. */
	EXPECT_TRUE(stays_false(word(&self->lock) != LOCKED_PENDING))
		TH_LOG("lock word %#x", word(&self->lock));
	EXPECT_FALSE(flag_read(&n.acquired));

	pvq_qspin_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&n.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	ASSERT_TRUE(contender_finish(&n));
	ASSERT_TRUE(contender_finish(&p));
	EXPECT_EQ(0u, word(&self->lock));
	/* Back to the four outer levels, and nothing else touched. */
	EXPECT_EQ(PVQ_MAX_NODES, node_count(2));
	EXPECT_EQ(0, memcmp(before, node_of(2, 0), sizeof(before)));

	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EVENT(nest_overflow, 1);
	EXPECT_EVENT(pending, 1);
	EXPECT_EVENT(node_idx1, 0);
	EXPECT_EVENT(node_idx2, 0);
	EXPECT_EVENT(node_idx3, 0);
	EXPECT_EVENT(node_idx4, 0);
}

/*
 * ... and behind a queue it waits for the whole word to be free: the
 * native queue head takes the lock with a plain store once it sees
 * locked and pending clear, so a fifth level that took the lock past the
 * queue (as the PV instances may, their heads use a cmpxchg) would let
 * both in.
 */
TEST_F(qspin, fifth_nesting_waits_for_queue_to_drain)
{
	const u32 queue = tail_of(5, 0);	/* CPU 5: no thread */
	struct contender n;

	node_of(2, 0)->count = PVQ_MAX_NODES;
	atomic_set(&self->lock.val, queue);
	ASSERT_EQ(0, contender_start(&n, &lock_adapter_qspinlock, &self->lock, 2, true));
	ASSERT_TRUE(poll_until(flag_read(&n.started)));
#ifdef PVQ_LOCK_STATS
	ASSERT_TRUE(poll_until(pvq_lock_event_sum(PVQ_EV_nest_overflow) == 1));
#endif
	EXPECT_TRUE(stays_false(flag_read(&n.acquired) ||
				word(&self->lock) != queue))
		TH_LOG("lock word %#x", word(&self->lock));

	/* The queue drains: its last head took the lock and released it. */
	atomic_set(&self->lock.val, 0);
	ASSERT_TRUE(poll_until(flag_read(&n.acquired)));
	EXPECT_EQ(PVQ_LOCKED_VAL, word(&self->lock));
	ASSERT_TRUE(contender_finish(&n));
	EXPECT_EQ(0u, word(&self->lock));
	EXPECT_EQ(PVQ_MAX_NODES, node_count(2));
	node_of(2, 0)->count = 0;
	EXPECT_EVENT(nest_overflow, 1);
	EXPECT_EVENT(node_idx1, 0);
}

/*
 * Regression test (24-byte PV nodes): the MCS nodes tile their cache
 * lines, a power of two in size, so that none straddles two lines (a
 * waiter spins on one line, its predecessor writes one), and each CPU's
 * array fills whole lines of its own.
 */
TEST(qspin_mcs_nodes_never_straddle_cache_lines)
{
	const size_t size = sizeof(struct pvq_mcs_node);
	int cpu, i, bad = 0, bad_cpu = -1, bad_idx = -1;
	uintptr_t node;

	shim_register_cpu(UNIT_TEST_CPU);
	EXPECT_EQ(0UL, size & (size - 1))
		TH_LOG("struct pvq_mcs_node is %zu bytes", size);
	EXPECT_EQ(0UL, SMP_CACHE_BYTES % size)
		TH_LOG("struct pvq_mcs_node is %zu bytes", size);
	EXPECT_EQ(0UL, sizeof(pvq_mcs_nodes) % SMP_CACHE_BYTES);
	/* Every node of every CPU; the first that straddles is reported. */
	for_each_possible_cpu(cpu) {
		for (i = 0; i < PVQ_MAX_NODES; i++) {
			node = (uintptr_t)node_of(cpu, i);
			if (node / SMP_CACHE_BYTES ==
			    (node + size - 1) / SMP_CACHE_BYTES)
				continue;
			if (!bad++) {
				bad_cpu = cpu;
				bad_idx = i;
			}
		}
	}
	EXPECT_EQ(0, bad)
		TH_LOG("%d nodes straddle; cpu %d node %d: %#lx, %zu bytes",
		       bad, bad_cpu, bad_idx,
		       bad ? (uintptr_t)node_of(bad_cpu, bad_idx) : 0UL, size);
}

#ifdef PVQ_LOCK_DEBUG
TEST_F(qspin, debug_warns_on_unlock_of_free_lock)
{
	unsigned long warnings = shim_warnings;

	pvq_qspin_unlock(&self->lock);
	EXPECT_EQ(warnings + 1, shim_warnings);
	EXPECT_EQ(0u, word(&self->lock));
}
#endif

static void qspin_lock_unregistered(void)
{
	struct pvq_qspinlock lock = PVQ_QSPINLOCK_UNLOCKED;

	pvq_qspin_lock(&lock);
}

/* Lock code on a thread that is not a CPU aborts, even on the fast path. */
TEST(qspin_lock_on_unregistered_thread_aborts)
{
	EXPECT_TRUE(aborts_saying(qspin_lock_unregistered, "not a CPU"));
}

TEST_HARNESS_MAIN
