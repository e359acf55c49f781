// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the baseline locks (ticket, test-and-set) and of the shim's
 * per-CPU emulation.  Built with or without QUEUE_SPINLOCK.
 */
#include <linux/percpu.h>

#include "ticket.h"
#include "tas.h"

#include "kselftest_harness.h"
#include "unit_helpers.h"

DECLARE_PER_CPU(int, shim_cpu_number);

/* The ticket lock word as (tail << 16) | head. */
static u32 tickets(u16 head, u16 tail)
{
	return (u32)tail << 16 | head;
}

static u32 ticket_word(struct pvq_ticketlock *lock)
{
	return atomic_read(&lock->val);
}

static u32 tas_word(struct pvq_taslock *lock)
{
	return atomic_read(&lock->val);
}

FIXTURE(baseline) {
	struct pvq_ticketlock ticket;
	struct pvq_taslock tas;
};

FIXTURE_SETUP(baseline)
{
	shim_register_cpu(UNIT_TEST_CPU);
	pvq_ticket_init(&self->ticket);
	pvq_tas_init(&self->tas);
}

FIXTURE_TEARDOWN(baseline)
{
}

TEST(ticket_lock_word_layout)
{
	ASSERT_EQ(4u, sizeof(struct pvq_ticketlock));
	EXPECT_EQ(0u, offsetof(struct pvq_ticketlock, head));
	EXPECT_EQ(2u, offsetof(struct pvq_ticketlock, tail));
	EXPECT_EQ(4u, sizeof(struct pvq_taslock));
}

TEST_F(baseline, ticket_lock_takes_tail_unlock_advances_head)
{
	struct pvq_ticketlock *lock = &self->ticket;

	pvq_ticket_lock(lock);
	EXPECT_EQ(tickets(0, 1), ticket_word(lock));
	EXPECT_TRUE(pvq_ticket_is_locked(lock));
	EXPECT_FALSE(pvq_ticket_is_contended(lock));
	pvq_ticket_unlock(lock);
	EXPECT_EQ(tickets(1, 1), ticket_word(lock));
	EXPECT_FALSE(pvq_ticket_is_locked(lock));

	pvq_ticket_lock(lock);
	EXPECT_EQ(tickets(1, 2), ticket_word(lock));
	pvq_ticket_unlock(lock);
	EXPECT_EQ(tickets(2, 2), ticket_word(lock));
}

TEST_F(baseline, ticket_trylock)
{
	struct pvq_ticketlock *lock = &self->ticket;

	ASSERT_TRUE(pvq_ticket_trylock(lock));
	EXPECT_EQ(tickets(0, 1), ticket_word(lock));
	/* Held: fails and leaves the word alone (no ticket taken). */
	EXPECT_FALSE(pvq_ticket_trylock(lock));
	EXPECT_EQ(tickets(0, 1), ticket_word(lock));
	pvq_ticket_unlock(lock);
	EXPECT_EQ(tickets(1, 1), ticket_word(lock));
	ASSERT_TRUE(pvq_ticket_trylock(lock));
	EXPECT_EQ(tickets(1, 2), ticket_word(lock));
	pvq_ticket_unlock(lock);
}

#define TICKET_WAITERS	4

TEST_F(baseline, ticket_waiters_are_served_in_ticket_order)
{
	struct pvq_ticketlock *lock = &self->ticket;
	struct contender w[TICKET_WAITERS];
	int i;

	pvq_ticket_lock(lock);
	for (i = 0; i < TICKET_WAITERS; i++) {
		ASSERT_EQ(0, contender_start(&w[i], &lock_adapter_ticket, lock, 1 + i,
					     false));
		/* Waiter i holds ticket i + 1 before the next one starts. */
		ASSERT_TRUE(poll_until(ticket_word(lock) == tickets(0, 2 + i)))
			TH_LOG("waiter %d: word %#x", i, ticket_word(lock));
		EXPECT_TRUE(pvq_ticket_is_contended(lock));
	}
	EXPECT_TRUE(stays_false(unit_order_count() != 0));
	EXPECT_FALSE(pvq_ticket_trylock(lock));
	EXPECT_EQ(tickets(0, 1 + TICKET_WAITERS), ticket_word(lock));

	pvq_ticket_unlock(lock);
	ASSERT_TRUE(contenders_finish(w, TICKET_WAITERS));
	EXPECT_TRUE(order_is_sequential(1, TICKET_WAITERS))
		TH_LOG("order:%s", unit_order_str());
	EXPECT_EQ(tickets(1 + TICKET_WAITERS, 1 + TICKET_WAITERS),
		  ticket_word(lock));
}

/* Both halves wrap at 16 bits without carrying into each other. */
TEST_F(baseline, ticket_wraps_at_16_bits)
{
	struct pvq_ticketlock *lock = &self->ticket;
	struct contender w;

	atomic_set(&lock->val, tickets(0xffff, 0xffff));
	pvq_ticket_lock(lock);
	EXPECT_EQ(tickets(0xffff, 0), ticket_word(lock));
	EXPECT_TRUE(pvq_ticket_is_locked(lock));

	ASSERT_EQ(0, contender_start(&w, &lock_adapter_ticket, lock, 1, true));
	ASSERT_TRUE(poll_until(ticket_word(lock) == tickets(0xffff, 1)));
	EXPECT_TRUE(pvq_ticket_is_contended(lock));
	EXPECT_TRUE(stays_false(flag_read(&w.acquired)));

	pvq_ticket_unlock(lock);
	ASSERT_TRUE(poll_until(flag_read(&w.acquired)));
	EXPECT_EQ(tickets(0, 1), ticket_word(lock));
	ASSERT_TRUE(contender_finish(&w));
	EXPECT_EQ(tickets(1, 1), ticket_word(lock));
	EXPECT_FALSE(pvq_ticket_is_locked(lock));
}

TEST_F(baseline, tas_lock_trylock_unlock)
{
	struct pvq_taslock *lock = &self->tas;

	pvq_tas_lock(lock);
	EXPECT_EQ(1u, tas_word(lock));
	EXPECT_TRUE(pvq_tas_is_locked(lock));
	EXPECT_FALSE(pvq_tas_trylock(lock));
	EXPECT_EQ(1u, tas_word(lock));
	pvq_tas_unlock(lock);
	EXPECT_EQ(0u, tas_word(lock));
	EXPECT_FALSE(pvq_tas_is_locked(lock));
	ASSERT_TRUE(pvq_tas_trylock(lock));
	EXPECT_EQ(1u, tas_word(lock));
	pvq_tas_unlock(lock);
	EXPECT_EQ(0u, tas_word(lock));
}

TEST_F(baseline, tas_contender_waits_for_unlock)
{
	struct pvq_taslock *lock = &self->tas;
	struct contender w;

	pvq_tas_lock(lock);
	ASSERT_EQ(0, contender_start(&w, &lock_adapter_tas, lock, 1, true));
	ASSERT_TRUE(poll_until(flag_read(&w.started)));
	EXPECT_TRUE(stays_false(flag_read(&w.acquired)));
	/* A waiter only reads: the word still says "held by one". */
	EXPECT_EQ(1u, tas_word(lock));
	/* ...so the lock cannot tell that it is contended. */
	EXPECT_FALSE(pvq_tas_is_contended(lock));

	pvq_tas_unlock(lock);
	ASSERT_TRUE(poll_until(flag_read(&w.acquired)));
	EXPECT_EQ(1u, tas_word(lock));
	EXPECT_FALSE(pvq_tas_trylock(lock));
	ASSERT_TRUE(contender_finish(&w));
	EXPECT_EQ(0u, tas_word(lock));
}

#ifdef PVQ_LOCK_DEBUG
TEST_F(baseline, debug_warns_on_unlock_of_free_lock)
{
	unsigned long warnings = shim_warnings;

	pvq_ticket_unlock(&self->ticket);
	EXPECT_EQ(warnings + 1, shim_warnings);
	pvq_tas_unlock(&self->tas);
	EXPECT_EQ(warnings + 2, shim_warnings);
}
#endif

/* Each CPU has its own copy, a whole number of cache lines apart. */
TEST(shim_per_cpu_areas)
{
	uintptr_t stride = (uintptr_t)per_cpu_ptr(&shim_cpu_number, 1) -
			   (uintptr_t)per_cpu_ptr(&shim_cpu_number, 0);
	int cpu;

	EXPECT_NE(0u, stride);
	EXPECT_EQ(0u, stride % SHIM_CACHELINE);
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		EXPECT_EQ(cpu, per_cpu(shim_cpu_number, cpu));
		EXPECT_EQ(stride * cpu,
			  (uintptr_t)per_cpu_ptr(&shim_cpu_number, cpu) -
			  (uintptr_t)per_cpu_ptr(&shim_cpu_number, 0));
	}
	shim_register_cpu(7);
	EXPECT_EQ(7, smp_processor_id());
	EXPECT_TRUE(this_cpu_ptr(&shim_cpu_number) ==
		    per_cpu_ptr(&shim_cpu_number, 7));
	shim_unregister_cpu();
	shim_register_cpu(8);
	EXPECT_EQ(8, smp_processor_id());
}

static void two_threads_on_cpu_1(void)
{
	struct pvq_taslock lock = PVQ_TASLOCK_UNLOCKED;
	struct contender w;

	shim_register_cpu(1);
	/* The contender registers as CPU 1 as well. */
	if (!contender_start(&w, &lock_adapter_tas, &lock, 1, false))
		pthread_join(w.tid, NULL);
}

static void tas_lock_unregistered(void)
{
	struct pvq_taslock lock = PVQ_TASLOCK_UNLOCKED;

	pvq_tas_lock(&lock);
}

TEST(shim_two_threads_on_one_cpu_abort)
{
	EXPECT_TRUE(aborts_saying(two_threads_on_cpu_1,
				  "another thread is CPU 1"));
}

TEST(tas_lock_on_unregistered_thread_aborts)
{
	EXPECT_TRUE(aborts_saying(tas_lock_unregistered, "not a CPU"));
}

TEST_HARNESS_MAIN
