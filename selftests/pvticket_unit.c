// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the paravirtual ticket lock, and of the userspace PV
 * backend (shim/pv_futex.c) that both PV locks halt and kick through.
 *
 * Includes pvticket.c, to reach the per-CPU waiter records and the mask
 * of waiting CPUs.  Contenders are threads registered as CPUs; the backend
 * says when a CPU is parked and counts the kicks each CPU got, so "unlock
 * kicks exactly the next ticket's CPU" is checked kick by kick.  Every wait
 * is bounded: a lost kick fails a test, it does not hang it.
 */
/* sched_setaffinity(), before any libc header. */
#define _GNU_SOURCE
#include "pvticket.c"

#include <sched.h>
#include <sys/mman.h>

/* As in pvqspinlock_unit: lost kicks must fail fast enough to report. */
#define UNIT_TIMEOUT_MS		2000

#include <linux/sched/clock.h>

#include "kselftest_harness.h"
#include "pv_futex.h"
#include "pv_unit_helpers.h"

#define UNIT_SPIN_THRESHOLD	64

#define FLAG	PVQ_PVTICKET_SLOW_FLAG

/* The lock word as (tail << 16) | head; the flag is the head's bit 0. */
static u32 tickets(u16 head, u16 tail)
{
	return (u32)tail << 16 | head;
}

static u32 word(struct pvq_pvticketlock *lock)
{
	return atomic_read(&lock->tickets.val);
}

static bool flag_of(struct pvq_pvticketlock *lock)
{
	return pvq_ticket_head(word(lock)) & FLAG;
}

static struct pvq_ticket_waiter *record_of(int cpu)
{
	return per_cpu_ptr(&pvq_ticket_waiters, cpu);
}

/* @cpu recorded that it waits for ticket @want of @lock, and is parked. */
static bool parked_for(int cpu, struct pvq_pvticketlock *lock, u16 want)
{
	struct pvq_ticket_waiter *w = record_of(cpu);

	return pvq_pv_halted_on(cpu) == (u8 *)&lock->tickets.head &&
	       READ_ONCE(w->lock) == lock &&
	       READ_ONCE(w->want) == want &&
	       cpumask_test_cpu(cpu, &pvq_ticket_waiting_cpus);
}

static bool start_parked(struct contender *c, struct pvq_pvticketlock *lock,
			 int cpu, u16 want, bool hold)
{
	if (contender_start(c, &lock_adapter_pvticket, lock, cpu, hold))
		return false;
	return poll_until(parked_for(cpu, lock, want));
}

static bool record_clear(int cpu)
{
	return !READ_ONCE(record_of(cpu)->lock) &&
	       !cpumask_test_cpu(cpu, &pvq_ticket_waiting_cpus);
}

#ifdef PVQ_LOCK_STATS
#define EXPECT_EVENT(ev, n)						\
	EXPECT_EQ((unsigned long)(n), pvq_lock_event_sum(PVQ_EV_##ev))
#else
#define EXPECT_EVENT(ev, n)	do { } while (0)
#endif

FIXTURE(pvticket) {
	struct pvq_pvticketlock lock;
};

FIXTURE_SETUP(pvticket)
{
	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(0, pvq_pv_select("futex"));
	pvq_spin_threshold = UNIT_SPIN_THRESHOLD;
	pvq_pvticket_init(&self->lock);
	pvq_lock_events_reset();
	pvq_futex_reset();
}

FIXTURE_TEARDOWN(pvticket)
{
}

TEST_F(pvticket, uncontended_lock_takes_two_and_never_halts)
{
	EXPECT_EQ(4u, sizeof(self->lock));
	pvq_pvticket_lock(&self->lock);
	EXPECT_EQ(tickets(0, 2), word(&self->lock));
	EXPECT_TRUE(pvq_pvticket_is_locked(&self->lock));
	EXPECT_FALSE(pvq_pvticket_trylock(&self->lock));
	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(tickets(2, 2), word(&self->lock));
	EXPECT_FALSE(pvq_pvticket_is_locked(&self->lock));
	EXPECT_TRUE(pvq_pvticket_trylock(&self->lock));
	EXPECT_EQ(tickets(2, 4), word(&self->lock));
	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_waits(UNIT_TEST_CPU));
	EXPECT_EVENT(released_slow, 0);
}

/*
 * A waiter spins, then records (lock, wanted ticket), joins the mask of
 * waiting CPUs, sets the slowpath flag and parks.
 */
TEST_F(pvticket, waiter_sets_flag_records_ticket_and_parks)
{
	struct contender c;

	pvq_pvticket_lock(&self->lock);
	ASSERT_TRUE(start_parked(&c, &self->lock, 1, 2, false))
		TH_LOG("lock word %#x, cpu 1 parked %d", word(&self->lock),
		       pvq_futex_parked(1));
	EXPECT_EQ(tickets(0 | FLAG, 4), word(&self->lock));
	/* Still locked by us: the flag is not a ticket. */
	EXPECT_TRUE(pvq_pvticket_is_locked(&self->lock));
	EXPECT_FALSE(pvq_pvticket_trylock(&self->lock));
	EXPECT_TRUE(stays_false(flag_read(&c.acquired) ||
				pvq_futex_parks(1) != 1));
	EXPECT_EQ(0UL, pvq_futex_kicks(1));

	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	/* The record is gone once the waiter stopped waiting. */
	EXPECT_TRUE(record_clear(1));
	EXPECT_FALSE(flag_of(&self->lock));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EVENT(taken_slow, 1);
	EXPECT_EVENT(released_slow_kicked, 1);
}

/*
 * The spin is bounded in time as well as in loops (spin_threshold_ns): a
 * waiter with a loop count that would take seconds halts after the time.
 * (2^15 loops of the series lasted tens of milliseconds under TCG.)
 */
TEST_F(pvticket, waiter_halts_after_spin_threshold_ns)
{
	struct contender c;
	int saved_ns = pvq_spin_threshold_ns;
	u64 start, waited;

	pvq_spin_threshold = 1 << 30;
	pvq_spin_threshold_ns = 1000000;
	pvq_pvticket_lock(&self->lock);
	start = local_clock();
	ASSERT_TRUE(start_parked(&c, &self->lock, 1, 2, false))
		TH_LOG("not parked: 2^30 loops ran, the 1 ms bound did not end them");
	waited = local_clock() - start;
	/* Not before its time, and long before 2^30 loops. */
	EXPECT_GE(waited, 1000000ULL);
	EXPECT_LT(waited, 1000000000ULL);
	pvq_pvticket_unlock(&self->lock);
	ASSERT_TRUE(contender_finish(&c));
	pvq_spin_threshold_ns = saved_ns;
}

#define KICK_WAITERS	3

/*
 * Unlock kicks the CPU waiting for the new head, and only that one: the
 * others stay parked until their own ticket comes up.
 */
TEST_F(pvticket, unlock_kicks_exactly_the_next_tickets_cpu)
{
	struct contender c[KICK_WAITERS];
	int i, j;

	pvq_pvticket_lock(&self->lock);
	for (i = 0; i < KICK_WAITERS; i++)
		ASSERT_TRUE(start_parked(&c[i], &self->lock, 1 + i, 2 + 2 * i,
					 true))
			TH_LOG("waiter %d: lock word %#x", i, word(&self->lock));
	EXPECT_EQ(tickets(0 | FLAG, 2 + 2 * KICK_WAITERS), word(&self->lock));

	pvq_pvticket_unlock(&self->lock);
	for (i = 0; i < KICK_WAITERS; i++) {
		/* The kick is part of the unlock that served the ticket. */
		for (j = 0; j < KICK_WAITERS; j++)
			EXPECT_EQ((unsigned long)(j <= i),
				  pvq_futex_kicks(1 + j))
				TH_LOG("ticket %d served: cpu %d kicks %lu",
				       2 + 2 * i, 1 + j, pvq_futex_kicks(1 + j));
		ASSERT_TRUE(poll_until(flag_read(&c[i].acquired)));
		for (j = i + 1; j < KICK_WAITERS; j++)
			EXPECT_TRUE(parked_for(1 + j, &self->lock,
					       2 + 2 * j));
		EXPECT_TRUE(stays_false(unit_order_count() != i + 1));
		ASSERT_TRUE(contender_finish(&c[i]));
	}
	EXPECT_TRUE(order_is_sequential(1, KICK_WAITERS))
		TH_LOG("order:%s", unit_order_str());
	for (i = 0; i < KICK_WAITERS; i++) {
		EXPECT_EQ(1UL, pvq_futex_parks(1 + i));
		EXPECT_TRUE(record_clear(1 + i));
	}
	EXPECT_FALSE(pvq_pvticket_is_locked(&self->lock));
	EXPECT_FALSE(flag_of(&self->lock));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(taken_slow, KICK_WAITERS);
	EXPECT_EVENT(released_slow_kicked, KICK_WAITERS);
}

/* Once nobody waits any more, the flag goes and unlock is fast again. */
TEST_F(pvticket, flag_cleared_when_lock_becomes_uncontended)
{
	struct contender c;

	pvq_pvticket_lock(&self->lock);
	ASSERT_TRUE(start_parked(&c, &self->lock, 1, 2, true));
	EXPECT_TRUE(flag_of(&self->lock));
	pvq_pvticket_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));

	/* An uncontended round trip does not touch the slow path. */
	pvq_lock_events_reset();
	pvq_pvticket_lock(&self->lock);
	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(tickets(6, 6), word(&self->lock));
	EXPECT_EVENT(released_slow, 0);
}

/*
 * The head wraps from 0xfffe to 0 on an unlock, with the flag set in its
 * low bit (0xffff + 2): the add must stay within the head, keeping the
 * flag; a carry would move the tail.
 */
TEST_F(pvticket, head_wrap_leaves_tail_and_flag_alone)
{
	struct contender c1, c2;

	atomic_set(&self->lock.tickets.val, tickets(0xfffe, 0xfffe));
	pvq_pvticket_lock(&self->lock);
	EXPECT_EQ(tickets(0xfffe, 0), word(&self->lock));
	ASSERT_TRUE(start_parked(&c1, &self->lock, 1, 0, true));
	ASSERT_TRUE(start_parked(&c2, &self->lock, 2, 2, true));
	EXPECT_EQ(tickets(0xfffe | FLAG, 4), word(&self->lock));

	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(tickets(0 | FLAG, 4), word(&self->lock));
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	EXPECT_EQ(0UL, pvq_futex_kicks(2));
	ASSERT_TRUE(poll_until(flag_read(&c1.acquired)));
	ASSERT_TRUE(contender_finish(&c1));
	ASSERT_TRUE(poll_until(flag_read(&c2.acquired)));
	ASSERT_TRUE(contender_finish(&c2));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	EXPECT_TRUE(order_is_sequential(1, 2))
		TH_LOG("order:%s", unit_order_str());
}

/*
 * A free lock that still carries the flag is free: trylock takes it.  Its
 * unlock goes to the slow path, finds no record for the next ticket and
 * kicks nobody.
 */
TEST_F(pvticket, trylock_takes_free_lock_with_stale_flag)
{
	int cpu;

	atomic_set(&self->lock.tickets.val, tickets(2 | FLAG, 2));
	EXPECT_FALSE(pvq_pvticket_is_locked(&self->lock));
	ASSERT_TRUE(pvq_pvticket_trylock(&self->lock));
	EXPECT_EQ(tickets(2 | FLAG, 4), word(&self->lock));
	EXPECT_FALSE(pvq_pvticket_trylock(&self->lock));
	pvq_pvticket_unlock(&self->lock);
	EXPECT_FALSE(pvq_pvticket_is_locked(&self->lock));
	/* The unlock moves the head and leaves the flag alone. */
	EXPECT_EQ(tickets(4 | FLAG, 4), word(&self->lock));
	/* Nobody to kick. */
	for_each_possible_cpu(cpu) {
		/* Braces: EXPECT and its TH_LOG are two statements. */
		EXPECT_EQ(0UL, pvq_futex_kicks(cpu))
			TH_LOG("cpu %d was kicked", cpu);
	}
	EXPECT_EVENT(released_slow, 1);
	EXPECT_EVENT(released_slow_kicked, 0);
}

/* A kick with nothing changed: the waiter parks again, record and all. */
TEST_F(pvticket, spurious_kick_waiter_parks_again)
{
	struct contender c;

	pvq_pvticket_lock(&self->lock);
	ASSERT_TRUE(start_parked(&c, &self->lock, 1, 2, false));
	pvq_pv_kick(1);
	ASSERT_TRUE(poll_until(pvq_futex_parks(1) == 2 &&
			       parked_for(1, &self->lock, 2)))
		TH_LOG("parks %lu", pvq_futex_parks(1));
	EXPECT_FALSE(flag_read(&c.acquired));
	EXPECT_EQ(tickets(0 | FLAG, 4), word(&self->lock));

	pvq_pvticket_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	EXPECT_EQ(2UL, pvq_futex_kicks(1));
}

/* The unlock and its kick land between the waiter's check and its sleep. */
TEST_F(pvticket, kick_between_check_and_sleep_is_not_lost)
{
	struct contender c;

	window_cpu = 1;
	pvq_futex_window_hook = hold_in_window;
	pvq_pvticket_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&c, &lock_adapter_pvticket, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(flag_read(&in_window)));
	EXPECT_TRUE(flag_of(&self->lock));

	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1));
	flag_set(&window_done);
	ASSERT_TRUE(poll_until(flag_read(&c.done)))
		TH_LOG("the waiter slept through the kick");
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
}

TEST_F(pvticket, none_backend_spins_and_hands_over)
{
	struct contender c;

	ASSERT_EQ(0, pvq_pv_select("none"));
	pvq_pvticket_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&c, &lock_adapter_pvticket, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(pvq_futex_waits(1) > 10));
	EXPECT_TRUE(flag_of(&self->lock));
	pvq_pvticket_unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.done)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(pvq_pvticket_is_locked(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_parks(1));
}

#ifdef PVQ_LOCK_DEBUG
TEST_F(pvticket, debug_warns_on_unlock_of_free_lock)
{
	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(1UL, shim_warnings);
}
#endif

/*
 * Regression test (a kick was lost before the fix).  An interrupt that
 * arrives after a waiter recorded (lock, ticket) but before its pv_wait()
 * masks interrupts, and whose handler waits for another pvticket lock,
 * overwrites the per-CPU record and clears it (and the CPU's mask bit) on
 * its way out.  The interrupted waiter then halts with no record, and the
 * unlock that serves its ticket finds nobody to kick.  The backend's entry
 * hook plays the interrupt.
 */
static struct pvq_pvticketlock irq_lock;
static int irq_cpu = -1;
static int in_irq;

static void interrupt_takes_irq_lock(void)
{
	if (smp_processor_id() != irq_cpu || flag_read(&in_irq))
		return;
	flag_set(&in_irq);
	pvq_pvticket_lock(&irq_lock);
	pvq_pvticket_unlock(&irq_lock);
}

TEST_F(pvticket, interrupt_waiting_on_other_lock_keeps_outer_record)
{
	struct contender c;

	pvq_pvticket_init(&irq_lock);
	irq_cpu = 1;
	pvq_futex_entry_hook = interrupt_takes_irq_lock;
	pvq_pvticket_lock(&self->lock);
	pvq_pvticket_lock(&irq_lock);
	ASSERT_EQ(0, contender_start(&c, &lock_adapter_pvticket, &self->lock, 1, false));
	/* CPU 1 waits in the "interrupt", for irq_lock. */
	ASSERT_TRUE(poll_until(parked_for(1, &irq_lock, 2)));
	pvq_pvticket_unlock(&irq_lock);
	/* Back in the outer wait: the record must be ours again. */
	ASSERT_TRUE(poll_until(pvq_futex_parks(1) == 2 &&
			       pvq_futex_parked(1)));
	EXPECT_TRUE(parked_for(1, &self->lock, 2))
		TH_LOG("cpu 1 halted for ticket 2 without a record");
	pvq_pvticket_unlock(&self->lock);
	EXPECT_TRUE(poll_until(flag_read(&c.done)))
		TH_LOG("cpu 1 was never kicked: %lu kicks",
		       pvq_futex_kicks(1));
}

/*
 * Regression test (a kick was lost).  An NMI that
 * lands between a wait's *ptr == val check and its halt, and spins there
 * for another pvticket lock, used to run the halt protocol too: it wrote
 * (its lock, its ticket) over the interrupted wait's record, set the flag
 * on its lock and called wait(), which cannot halt in NMI context.  An
 * unlock of the outer lock meanwhile found no record for its next ticket
 * and kicked nobody; the NMI later put the outer record back, but the
 * outer wait had passed its check already and halted for ever.  A context
 * that cannot halt now only spins, and CPU 1's record stays the outer
 * one.
 *
 * The window hook plays the NMI on CPU 1, in the outer wait's window.  The
 * entry hook is there for a halting NMI only: it holds it in wait(), where
 * its own record is in place, until the outer lock was unlocked; that
 * makes the old failure certain instead of a matter of timing.
 */
static struct pvq_pvticketlock nmi_lock;
static int nmi_cpu = -1;
static int nmi_entered, nmi_in_wait, nmi_release;

static void nmi_spins_on_nmi_lock(void)
{
	if (smp_processor_id() != nmi_cpu || flag_read(&nmi_entered))
		return;
	flag_set(&nmi_entered);
	shim_in_nmi = 1;
	pvq_pvticket_lock(&nmi_lock);
	pvq_pvticket_unlock(&nmi_lock);
	shim_in_nmi = 0;
}

static void nmi_held_in_wait(void)
{
	if (!shim_in_nmi || flag_read(&nmi_in_wait))
		return;
	flag_set(&nmi_in_wait);
	poll_until(flag_read(&nmi_release));
}

/* How long a halting NMI gets to show itself; the fixed one never does. */
#define NMI_SETTLE_MS		100
/* Many seconds of spinning: "until its ticket comes", as far as a test goes. */
#define UNIT_SPIN_FOREVER	(1 << 30)

TEST_F(pvticket, nmi_in_wait_window_spins_and_keeps_outer_record)
{
	struct pvq_ticket_waiter *w = record_of(1);
	struct contender c;

	pvq_pvticket_init(&nmi_lock);
	nmi_cpu = 1;
	pvq_futex_window_hook = nmi_spins_on_nmi_lock;
	pvq_futex_entry_hook = nmi_held_in_wait;
	pvq_pvticket_lock(&self->lock);
	pvq_pvticket_lock(&nmi_lock);
	ASSERT_EQ(0, contender_start(&c, &lock_adapter_pvticket, &self->lock, 1, false));
	/* CPU 1 passed its check for ticket 2; its NMI waits for ticket 2. */
	ASSERT_TRUE(poll_until(flag_read(&nmi_entered) &&
			       pvq_ticket_tail(word(&nmi_lock)) == 4))
		TH_LOG("lock word %#x, nmi_lock word %#x", word(&self->lock),
		       word(&nmi_lock));
	/* A halting NMI reaches wait() after 64 spins: give it the time. */
	poll_ms(flag_read(&nmi_in_wait), NMI_SETTLE_MS);
	EXPECT_EQ(&self->lock, READ_ONCE(w->lock))
		TH_LOG("cpu 1's record names %s while the NMI spins",
		       READ_ONCE(w->lock) == &nmi_lock ? "nmi_lock" : "no lock");
	EXPECT_EQ(2, READ_ONCE(w->want));
	EXPECT_FALSE(flag_read(&nmi_in_wait))
		TH_LOG("the NMI called wait()");
	EXPECT_FALSE(flag_of(&nmi_lock));
	EXPECT_EQ(tickets(0, 4), word(&nmi_lock));

	pvq_pvticket_unlock(&self->lock);
	EXPECT_EQ(1UL, pvq_futex_kicks(1))
		TH_LOG("unlock of the outer lock kicked cpu 1 %lu times",
		       pvq_futex_kicks(1));
	/*
	 * A halting NMI that leaves wait() puts the outer record back, then
	 * spins: keep it spinning until the record is back, so that the
	 * unlock of nmi_lock cannot kick CPU 1 by chance and so rescue the
	 * outer wait.  Both bounded, neither an assertion.
	 */
	WRITE_ONCE(pvq_spin_threshold, UNIT_SPIN_FOREVER);
	flag_set(&nmi_release);
	poll_ms(READ_ONCE(w->lock) == &self->lock, NMI_SETTLE_MS);
	/* The outer wait's one call; it is still in there, under the NMI. */
	EXPECT_EQ(1UL, pvq_futex_waits(1))
		TH_LOG("the NMI called wait(): %lu calls on cpu 1",
		       pvq_futex_waits(1));
	pvq_pvticket_unlock(&nmi_lock);
	ASSERT_TRUE(poll_until(flag_read(&c.done)))
		TH_LOG("outer waiter never kicked: cpu 1 kicks %lu, parked %d",
		       pvq_futex_kicks(1), pvq_futex_parked(1));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	EXPECT_EQ(tickets(4, 4), word(&nmi_lock));
	EXPECT_EQ(1UL, pvq_futex_waits(1));
	EXPECT_TRUE(record_clear(1));
	EXPECT_EVENT(taken_slow, 1);
	EXPECT_EVENT(released_slow_kicked, 1);
}

/*
 * Regression test (interrupts-off waiters).  A waiter with interrupts off
 * cannot halt (on the futex backend as on the kernel's ipi one, no kick
 * could wake it), so it spins like a native waiter: no flag, no record, no
 * wait().  The unlock that serves it is then the fast one: no slow path,
 * no kick, the flag still clear.
 */
static void pvt_lock_irqs_off(void *lock)
{
	shim_irqs_off = 1;
	pvq_pvticket_lock(lock);
}

static void pvt_unlock_irqs_on(void *lock)
{
	pvq_pvticket_unlock(lock);
	shim_irqs_off = 0;
}

static const struct lock_adapter pvt_irqs_off_ops = {
	.lock = pvt_lock_irqs_off,
	.unlock = pvt_unlock_irqs_on,
};

TEST_F(pvticket, irqs_off_waiter_spins_without_flag_or_record)
{
	struct contender c;
	int cpu;

	/* Every spin but the first is past the threshold. */
	pvq_spin_threshold = 1;
	pvq_pvticket_lock(&self->lock);
	ASSERT_EQ(0, contender_start(&c, &pvt_irqs_off_ops, &self->lock, 1,
				     true));
	ASSERT_TRUE(poll_until(pvq_ticket_tail(word(&self->lock)) == 4));
	/* Watched for thousands of thresholds. */
	EXPECT_TRUE(stays_false(flag_of(&self->lock) || !record_clear(1) ||
				pvq_futex_waits(1) ||
				flag_read(&c.acquired)))
		TH_LOG("lock word %#x; cpu 1: record %p, %lu waits",
		       word(&self->lock), READ_ONCE(record_of(1)->lock),
		       pvq_futex_waits(1));
	EXPECT_EQ(tickets(0, 4), word(&self->lock));
	EXPECT_TRUE(record_clear(1));
	EXPECT_EQ(0UL, pvq_futex_waits(1));
	EXPECT_EQ(0UL, pvq_futex_parks(1));

	pvq_pvticket_unlock(&self->lock);
	/* Served, CPU 1 takes the lock and holds it: only we wrote the word. */
	EXPECT_EQ(tickets(2, 4), word(&self->lock));
	EXPECT_EVENT(released_slow, 0);
	for_each_possible_cpu(cpu) {
		/* Braces: EXPECT and its TH_LOG are two statements. */
		EXPECT_EQ(0UL, pvq_futex_kicks(cpu))
			TH_LOG("cpu %d was kicked", cpu);
	}
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(tickets(4, 4), word(&self->lock));
	EXPECT_EQ(0UL, pvq_futex_waits(1));
	EXPECT_TRUE(record_clear(1));
	EXPECT_EVENT(taken_slow, 0);
}

/*
 * Regression test (one atomic unlock).  Unlock is one atomic RMW (an xadd
 * on the head), however busy the tail is.  With the flag in the tail it
 * was a cmpxchg loop on the whole word, which failed and retried whenever
 * a contender took a ticket between its read and its cmpxchg.
 *
 * CPU 1 churns the tail: it takes a ticket (+2) and hands it back (-2),
 * over and over.  Handing a ticket back is sound only while it is the last
 * one taken, so the test takes the lock with trylock alone: that succeeds
 * only on a free word (head == tail, no churned ticket out) and fails if
 * the word changed meanwhile, so no ticket of ours ever lands between a
 * +2 and its -2.  Each round leaves the lock as it found it: held by the
 * test (the churned ticket queued behind ours), or free (the churned
 * ticket served, then returned).
 */
struct tail_churn {
	pthread_t tid;
	atomic_t *val;
	int stop;
	unsigned long rounds;	/* written by the churner only */
};

/*
 * Put the calling thread on the @nth host CPU we may use, if there is
 * one: the test and the churner then run side by side whenever the host
 * runs them at all, instead of taking turns on one CPU (where the test
 * may find nothing to see, and says so).
 */
static void pin_to_nth_host_cpu(int nth)
{
	cpu_set_t allowed, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || nth--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

static void *tail_churn_fn(void *arg)
{
	struct tail_churn *t = arg;
	const int one = PVQ_PVTICKET_INC << PVQ_TICKET_TAIL_SHIFT;
	unsigned long rounds = 0;

	/* Before the test pins itself: the whole set is still ours. */
	pin_to_nth_host_cpu(1);
	shim_register_cpu(1);
	while (!flag_read(&t->stop)) {
		__atomic_fetch_add(&t->val->counter, one, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&t->val->counter, one, __ATOMIC_RELAXED);
		__atomic_store_n(&t->rounds, ++rounds, __ATOMIC_RELAXED);
	}
	shim_unregister_cpu();
	return NULL;
}

static unsigned long churn_rounds(struct tail_churn *t)
{
	return __atomic_load_n(&t->rounds, __ATOMIC_RELAXED);
}

/*
 * Enough unlocks that CPU 1 overlapped, or CHURN_MS of trying; up to
 * CHURN_MAX_MS while it overlapped fewer than CHURN_RACED_MIN (a busy
 * host that runs the two threads in turns).
 */
#define CHURN_RACED		20000
#define CHURN_RACED_MIN		100
#define CHURN_MS		200
#define CHURN_MAX_MS		700

TEST_F(pvticket, unlock_is_one_rmw_while_the_tail_churns)
{
	struct tail_churn t = { .val = &self->lock.tickets.val };
	unsigned long before, rmws, worst = 1, r;
	int unlocks = 0, raced = 0, retried = 0;
	u64 start, now;

	ASSERT_EQ(0, pthread_create(&t.tid, NULL, tail_churn_fn, &t));
	ASSERT_TRUE(poll_until(churn_rounds(&t)));
	/* Only this test's process: the harness forks one per test. */
	pin_to_nth_host_cpu(0);
	start = unit_now_ms();
	while (raced < CHURN_RACED) {
		now = unit_now_ms();
		if (now >= start + CHURN_MAX_MS ||
		    (now >= start + CHURN_MS && raced >= CHURN_RACED_MIN))
			break;
		if (!pvq_pvticket_trylock(&self->lock)) {
			cpu_relax();
			continue;
		}
		r = churn_rounds(&t);
		before = shim_rmws_of(UNIT_TEST_CPU);
		pvq_pvticket_unlock(&self->lock);
		rmws = shim_rmws_of(UNIT_TEST_CPU) - before;
		/* CPU 1 moved the tail around our unlock. */
		raced += churn_rounds(&t) != r;
		unlocks++;
		if (rmws != 1)
			retried++;
		if (rmws > worst)
			worst = rmws;
	}
	flag_set(&t.stop);
	ASSERT_EQ(0, pthread_join(t.tid, NULL));

	EXPECT_EQ(0, retried)
		TH_LOG("%d of %d unlocks took more than one atomic RMW (up to %lu)",
		       retried, unlocks, worst);
	/* Every churned ticket handed back, every lock unlocked. */
	EXPECT_EQ(tickets(2 * unlocks, 2 * unlocks), word(&self->lock));
	EXPECT_EVENT(released_slow, 0);
	/* Nothing was tested if CPU 1 never ran during an unlock. */
	if (!retried && !raced)
		SKIP(return, "cpu 1 never churned during an unlock (%d unlocks)",
		     unlocks);
}

/*
 * Regression test (memory corruption before the fix).  An unlock that saw
 * the flag and leaves the lock free (head == tail) clears the flag with a
 * cmpxchg on the lock word, after the lock was released: by then another
 * CPU may have taken the lock, released it and freed its memory.  Here
 * CPU 1 runs pvq_pvticket_unlock() up to its slow path, the test takes,
 * releases and frees (unmaps) the lock, and CPU 1 continues.
 */
static struct pvq_pvticketlock *mapped_lock;
static int released, freed;

static void unlock_then_slow_path(void)
{
	struct pvq_pvticketlock *lock = mapped_lock;
	u16 head;

	/* pvq_pvticket_unlock() up to its slow-path call. */
	head = xadd(&lock->tickets.head, (u16)PVQ_PVTICKET_INC);
	flag_set(&released);
	poll_until(flag_read(&freed));
	pvq_pvticket_unlock_slowpath(lock, head);
}

static void *unlocker_fn(void *arg)
{
	shim_register_cpu(1);
	unlock_then_slow_path();
	shim_unregister_cpu();
	return NULL;
}

static void unlock_races_free(void)
{
	pthread_t tid;

	shim_register_cpu(UNIT_TEST_CPU);
	mapped_lock = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* Held by CPU 1 after a halted waiter came and went: flag set. */
	atomic_set(&mapped_lock->tickets.val, tickets(2 | FLAG, 4));
	pthread_create(&tid, NULL, unlocker_fn, NULL);
	poll_until(flag_read(&released));
	pvq_pvticket_lock(mapped_lock);
	pvq_pvticket_unlock(mapped_lock);
	munmap(mapped_lock, getpagesize());
	flag_set(&freed);
	pthread_join(tid, NULL);
	abort();		/* what aborts_saying() waits for */
}

TEST(pvticket_unlock_does_not_touch_lock_after_release)
{
	/* The child must abort here, not die of SIGSEGV in the slow path. */
	EXPECT_TRUE(aborts_saying(unlock_races_free, ""))
		TH_LOG("the unlock slow path wrote to the released lock");
}

/*
 * The backend itself.  A "CPU" thread that waits on a byte, so the tests
 * can watch it park and wake.
 */
struct byte_waiter {
	pthread_t tid;
	int cpu;
	u8 *ptr;
	u8 val;
	int done;
};

static void *byte_waiter_fn(void *arg)
{
	struct byte_waiter *w = arg;

	shim_register_cpu(w->cpu);
	pvq_pv_wait(w->ptr, w->val);
	shim_unregister_cpu();
	flag_set(&w->done);
	return NULL;
}

static int byte_waiter_start(struct byte_waiter *w, int cpu, u8 *ptr, u8 val)
{
	*w = (struct byte_waiter){ .cpu = cpu, .ptr = ptr, .val = val };
	return pthread_create(&w->tid, NULL, byte_waiter_fn, w);
}

static bool byte_waiter_finish(struct byte_waiter *w)
{
	if (!poll_until(flag_read(&w->done)))
		return false;
	return pthread_join(w->tid, NULL) == 0;
}

TEST(pv_backend_names)
{
	EXPECT_STREQ("futex", pvq_pv->name);
	EXPECT_EQ(PVQ_FUTEX_SPIN_THRESHOLD, pvq_spin_threshold);
	EXPECT_EQ(0, pvq_pv_select("none"));
	EXPECT_STREQ("none", pvq_pv->name);
	EXPECT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("futex", pvq_pv->name);
	EXPECT_EQ(-ENODEV, pvq_pv_select("kvm"));
	EXPECT_EQ(-ENODEV, pvq_pv_select("ipi"));
	EXPECT_EQ(-EINVAL, pvq_pv_select("hlt"));
	EXPECT_STREQ("futex", pvq_pv->name);
}

TEST(pv_backend_wait_returns_if_value_differs)
{
	u8 byte = 0;

	shim_register_cpu(UNIT_TEST_CPU);
	pvq_pv_wait(&byte, 1);
	EXPECT_EQ(1UL, pvq_futex_waits(UNIT_TEST_CPU));
	EXPECT_EQ(0UL, pvq_futex_parks(UNIT_TEST_CPU));
}

TEST(pv_backend_kick_wakes_parked_cpu_only)
{
	struct byte_waiter a, b;
	u8 byte = 1;

	ASSERT_EQ(0, byte_waiter_start(&a, 3, &byte, 1));
	ASSERT_EQ(0, byte_waiter_start(&b, 4, &byte, 1));
	ASSERT_TRUE(poll_until(pvq_futex_parked(3) && pvq_futex_parked(4)));
	/* Parked until kicked: a changed value alone does not wake it. */
	byte = 2;
	EXPECT_TRUE(stays_false(flag_read(&a.done) || flag_read(&b.done)));
	pvq_pv_kick(3);
	ASSERT_TRUE(byte_waiter_finish(&a));
	EXPECT_TRUE(stays_false(flag_read(&b.done)));
	pvq_pv_kick(4);
	ASSERT_TRUE(byte_waiter_finish(&b));
	EXPECT_EQ(1UL, pvq_futex_kicks(3));
	EXPECT_EQ(1UL, pvq_futex_parks(3));
	EXPECT_EQ(1UL, pvq_futex_kicks(4));
}

/* A kick between the check and the sleep: the sleep must not happen. */
TEST(pv_backend_kick_between_check_and_sleep_is_not_lost)
{
	struct byte_waiter w;
	u8 byte = 1;

	window_cpu = 3;
	pvq_futex_window_hook = hold_in_window;
	ASSERT_EQ(0, byte_waiter_start(&w, 3, &byte, 1));
	ASSERT_TRUE(poll_until(flag_read(&in_window)));
	pvq_pv_kick(3);
	flag_set(&window_done);
	ASSERT_TRUE(byte_waiter_finish(&w))
		TH_LOG("the kick in the window was lost");
	EXPECT_EQ(1UL, pvq_futex_parks(3));
}

/*
 * A kick that came before wait() even started is forgotten, as the
 * contract allows: the backend must not hide a lock's lost kick behind an
 * old one.
 */
TEST(pv_backend_forgets_kick_before_wait)
{
	struct byte_waiter w;
	u8 byte = 1;

	pvq_pv_kick(3);
	ASSERT_EQ(0, byte_waiter_start(&w, 3, &byte, 1));
	ASSERT_TRUE(poll_until(pvq_futex_parked(3)));
	EXPECT_TRUE(stays_false(flag_read(&w.done)));
	pvq_pv_kick(3);
	ASSERT_TRUE(byte_waiter_finish(&w));
	EXPECT_EQ(2UL, pvq_futex_kicks(3));
}

TEST(pv_backend_none_never_parks)
{
	u8 byte = 1;

	shim_register_cpu(UNIT_TEST_CPU);
	ASSERT_EQ(0, pvq_pv_select("none"));
	pvq_pv_wait(&byte, 1);
	pvq_pv_kick(2);
	EXPECT_EQ(1UL, pvq_futex_waits(UNIT_TEST_CPU));
	EXPECT_EQ(0UL, pvq_futex_parks(UNIT_TEST_CPU));
	EXPECT_EQ(1UL, pvq_futex_kicks(2));
}

TEST_HARNESS_MAIN
