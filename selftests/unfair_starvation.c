// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded starvation of the unfair PV queued spinlock, under overcommit.
 *
 * Twice as many threads as cpus (all pinned to at most two cpus) hammer
 * one pvqspinlock_unfair, and every thread counts how often the others
 * took the lock while it waited: its *passes*.  The count is the measure,
 * not the time, because on an overcommitted machine the time is mostly
 * scheduling.  The count is not immune to scheduling either: while a
 * waiter or a queue head that has not yet blocked stealing is off its cpu
 * (preempted, or woken but not yet running), stealers pass it as often as
 * they like.  Documentation/unfair.rst's bound says the same in time
 * ("wake latency"), and in userspace a wake latency can be a time slice.
 *
 * What the design does bound whatever the scheduler does is the queue
 * head's own wait once it runs: it notes the time, lets stealers pass for
 * unfair_bound_us, then sets the pending bit, after which its
 * pending -> locked cmpxchg is the only way to the lock, even while it is
 * halted or woken late.  With the bound at 0 that leaves the current owner
 * and a steal racing with the head's first look at the clock: at most two
 * passes.
 *
 * The late wake-up is what makes stealing starve a head, so the test makes
 * it happen (-w): a halted queue head sleeps on for a millisecond after its
 * kick, like a vCPU that the host runs a time slice later.  A running head
 * without the bound competes well enough with two cpus' stealers (at most
 * about ten passes, seen on the project's CI runner); halted and woken late
 * it is passed hundreds of times, unless its pending bit keeps the stealers
 * out.
 *
 * The test hears the head start its clock: the lock code's calls to
 * local_clock() are linked to __wrap_local_clock() below
 * (-Wl,--wrap=local_clock), and in the lock path only a queue head reads
 * the clock (pvq_unfair_deadline(), pvq_head_spin(), and with LOCK_STATS
 * the kick-latency stamp of a waiter woken as head).
 *
 * A second run checks the wake-latency term.  A head that halts before
 * its bound is passed while it is halted and until its vCPU runs after the
 * kick, and it could be so, halt after halt, up to the bound: how often
 * would depend on how slowly it wakes.  So pvq_wait_head() has a head
 * that was robbed once (halted, woke, found the lock taken) block stealing
 * before it halts again: once its second halt has begun, nobody else takes
 * the lock before it (the owner of the moment has it already).  The
 * second-halt run sets unfair_bound_us beyond the whole test
 * (SECOND_HALT_BOUND_US, more than the module parameter allows), so that
 * only that rule blocks stealing, and counts for every head wait the
 * acquisitions by others after its second wait() on the locked byte
 * began (late_wake_wait() sees every halt; a queue head halts on
 * &lock->locked, a waiter behind it on its node).
 *
 * An owner counts its acquisition in its critical section, so the owner of
 * the moment may count after the head's second halt began although it took
 * the lock before.  Owners also say when they are done with the count
 * (shared.released, just before the unlock): if none is between the two
 * when the head halts, the next count may be such a late one, and is not
 * held against the head (second_halt_base()).  Then the count is exact
 * for the new rule, 0 whatever the scheduler does; without the rule it
 * misses at most one of the passes.
 *
 * Checks, bound run (-b, default 0):
 *   1. no lost updates and the lock free at the end (else the counts lie);
 *   2. no queue head was passed more than HEAD_PASS_LIMIT times after it
 *      started its starvation clock, over at least MIN_HEAD_WAITS head
 *      waits.  Waits in which the thread was preempted (an involuntary
 *      context switch, from getrusage()) are reported but not judged: a
 *      head preempted before it blocks is the "wake latency" case;
 *   3. LOCK_STATS=y: steal_block > 0, the bound really engaged.
 * Second-halt run (unfair_bound_us SECOND_HALT_BOUND_US):
 *   4. as 1;
 *   5. no queue head was passed after its second halt began, in any head
 *      wait (preempted or not: the pending bit holds while the head is off
 *      its cpu), over at least MIN_SECOND_HALTS waits with a second halt.
 * The whole waits (passes and time) are reported, not judged.  -m runs one
 * of the two runs only (the other's checks are skipped).
 *
 * A third run, the pass-bound run, watches the fair pvqspinlock.  Its
 * queue head lets stealers in while it halts, and after a late wake-up
 * until it runs again, however its clock stands: what bounds how often it
 * is passed is pass_bound, the count of steals past the queue in the lock
 * word, at which nobody steals until the head has the lock.  The run sets
 * fair_bound_us beyond the run (FAIR_BOUND_NEVER_US), so that the clock
 * never blocks stealing, pass_bound PASS_RUN_BOUND (-p) and pass_scale 1
 * (every pass counted), and judges every head wait, preempted or not (the
 * bound is in the lock word, whatever the head's thread does):
 *   6. as 1;
 *   7. no queue head was passed more than PASS_RUN_BOUND + 2 times after it
 *      started its clock (the owner of the moment, and a steal that took
 *      the lock before the head's first look and counts after it, are not
 *      in the lock word's count), over at least MIN_HEAD_WAITS head waits.
 * With pass_bound 0 (no bound: the fair lock before the bound) check 7
 * fails, the worst head of a run passed hundreds of times.
 *
 * "make break-check" runs it with -b 1000000 (the bound longer than the
 * run: the head never blocks stealing before its second halt) and
 * requires check 2 to fail: it does, the worst head of a run passed 590
 * to 1,200 times in 23 to 104 head waits over the limit (before the block
 * at the second halt: thousands of times, in about a hundred).
 * Without the block before the second halt (pvq_wait_head()), check 5
 * fails in (nearly) every head wait that halted twice, the worst of a run
 * passed 2,000 to 6,000 times.  -T tas measures the test-and-set lock for
 * comparison (it has no queue head: checks 2, 3 and the second-halt run
 * are skipped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/processor.h>

#include "lock_stats.h"
#include "pv_futex.h"
#include "pv_use.h"

#include "kselftest.h"
#include "lock_adapters.h"
#include "stress_helpers.h"

/*
 * Each run lasts at least this long, longer (up to MAX_MS) until enough
 * head waits: MIN_HEAD_WAITS in the bound run, MIN_SECOND_HALTS waits
 * with a second halt in the second-halt run.
 */
#define DEFAULT_DURATION_MS	1000
#define MAX_MS			5000
#define MIN_HEAD_WAITS		20
#define MIN_SECOND_HALTS	20
/*
 * The second-halt run's unfair_bound_us: 100 s, beyond any run of
 * the test (MAX_MS, WATCHDOG_MS), so that no head reaches it.  The module
 * parameter stops at 1 s; the lock code takes any int.
 */
#define SECOND_HALT_BOUND_US	100000000
/*
 * Passes of a head after it started its clock, with bound 0: the owner
 * when it started, and a steal racing with its first look at the clock.
 * The rest is slack for a stall of the head's cpu in the few instructions
 * between that look and its pending store, which getrusage() cannot see:
 * an interrupt, or the hypervisor running another vCPU (seen once: 9
 * passes, a 160 us stall).  Without the bound (and with the default late
 * wake-up) the worst head of a run is passed 1600 to 5000 times.
 */
#define HEAD_PASS_LIMIT		64
/* The pass-bound run: pass_bound, and a fair_bound_us no run reaches. */
#define PASS_RUN_BOUND		16
#define FAIR_BOUND_NEVER_US	100000000
/*
 * Critical section, in pause loops: longer than the default unfair_steal_spin
 * (128 loops), so that contenders arriving during one run out of steal
 * loops and queue, and there are queue heads to watch.  Both are counted
 * in the same loops, so this holds whatever a pause costs.
 */
#define CS_LOOPS		200
/* Gap between acquisitions: 0..GAP_MASK pause loops. */
#define GAP_MASK		31
/*
 * PV spin threshold: small, so that waiters and heads halt.  A multiple of
 * 256: pvq_head_spin() looks at the clock only when its loop count is one.
 */
#define DEFAULT_SPIN_THRESHOLD	256
#define DEFAULT_PIN_CPUS	2
/*
 * How late a halted queue head runs after its kick: a vCPU that the host
 * runs a time slice later.  Long enough for many steals (one acquisition
 * takes some microseconds), so that a head that halts without blocking
 * stealing is passed far more than HEAD_PASS_LIMIT times.
 */
#define DEFAULT_LATE_WAKE_US	1000
#define MAX_LATE_WAKE_US	100000
/* How long threads may take to stop after the run. */
#define WATCHDOG_MS		10000

struct starve_type {
	const char *name;
	const struct lock_adapter *lock;
	bool has_head;		/* a queue head with a starvation clock */
};

static const struct starve_type types[] = {
	{ "pvqspinlock_unfair", &lock_adapter_pvqspinlock_unfair, true },
	{ "tas", &lock_adapter_tas, false },
};

/* The lock of the pass-bound run, whatever -T says. */
static const struct starve_type pass_run_type = {
	"pvqspinlock", &lock_adapter_pvqspinlock, true
};

/* The lock, and on another cache line the acquisition count it protects. */
static union {
	struct pvq_qspinlock qspin;
	struct pvq_taslock tas;
} starve_lock __aligned(SHIM_CACHELINE);

static struct {
	/* Plain increments under the lock: a broken lock loses some. */
	unsigned long seq;
	/* seq as it was left by the last owner to unlock. */
	unsigned long released;
} shared __aligned(SHIM_CACHELINE);

struct worker {
	pthread_t tid;
	int cpu;
	u64 acquisitions;
	u64 worst_passes;		/* whole waits */
	u64 worst_wait_ns;
	u64 head_waits;			/* as queue head, not preempted */
	u64 worst_head_passes;
	u64 worst_head_ns;
	u64 head_over_limit;
	u64 preempted_head_waits;	/* as queue head, preempted */
	u64 worst_preempted_head_passes;
	u64 second_halts;		/* head waits that halted twice */
	u64 second_halts_passed;	/* of them, passed after it */
	u64 worst_second_halt_passes;
} __aligned(SHIM_CACHELINE);

enum starve_run {
	RUN_BOUND = 1,		/* -b: passes after the head's clock started */
	RUN_SECOND_HALT = 2,	/* passes after the head's second halt began */
	RUN_PASS_BOUND = 4,	/* -p: the fair lock, bounded by pass_bound */
	RUN_ALL = RUN_BOUND | RUN_SECOND_HALT | RUN_PASS_BOUND,
};

static struct {
	const struct starve_type *type;
	unsigned int threads;
	unsigned int duration_ms;
	unsigned int pin_cpus;
	cpu_set_t pin_set;
	bool pinned;
	int bound_us;
	int steal_spin;
	int steal_budget;
	int spin_threshold;
	int late_wake_us;
	int pass_bound;
	unsigned int runs;	/* enum starve_run */
} cfg = {
	.type = &types[0],
	.duration_ms = DEFAULT_DURATION_MS,
	.pin_cpus = DEFAULT_PIN_CPUS,
	.bound_us = 0,
	.spin_threshold = DEFAULT_SPIN_THRESHOLD,
	.late_wake_us = DEFAULT_LATE_WAKE_US,
	.pass_bound = PASS_RUN_BOUND,
	.runs = RUN_ALL,
};

static pthread_barrier_t start_barrier;
static int stop;
static unsigned int finished;
static unsigned long head_waits_seen, second_halts_seen;
static enum starve_run running;

/*
 * Set around lock(); where the head started its clock, if it did; how
 * often it halted, and where its second halt began.
 */
static __thread bool in_lock, head_started;
static __thread unsigned long head_seq, second_halt_seq;
static __thread unsigned int head_halts;
static __thread u64 head_t0;

/*
 * The lock code's local_clock() (linked with --wrap=local_clock).  The
 * first call in one lock() is the queue head starting its starvation clock:
 * note how many acquisitions there were by then.
 */
u64 __wrap_local_clock(void)
{
	u64 now = stress_now_ns();

	if (in_lock && !head_started) {
		head_started = true;
		head_seq = READ_ONCE(shared.seq);
		head_t0 = now;
	}
	return now;
}

/*
 * The acquisitions that do not pass a queue head whose halt begins now:
 * those counted so far, and the acquisition of the owner of the moment if
 * it has not counted it yet (preempted between its lock() and its count,
 * say).  An owner counts (seq) first in its critical section and stores
 * the count in ->released just before it unlocks.  seq == released: no
 * owner is between the two, so the next count may be such a late one.
 */
static unsigned long second_halt_base(void)
{
	/*
	 * Acquire, pairs with the release in worker_fn(): seq is read after
	 * ->released and is at least as new, so an owner that counts or
	 * leaves between the two reads is seen as counted.
	 */
	unsigned long released = smp_load_acquire(&shared.released);
	unsigned long seq = READ_ONCE(shared.seq);

	return seq == released ? seq + 1 : seq;
}

/*
 * A halted queue head that the host does not run at once when it is
 * kicked: the futex backend's wait, then late_wake_us more asleep.
 * Waiters further back are woken on time.  A queue head halts on the
 * locked byte: note where its second halt in this lock() begins.
 */
static const struct pvq_pv_ops *futex_ops;

static void late_wake_wait(u8 *ptr, u8 val)
{
	if (in_lock && ptr == &starve_lock.qspin.locked && ++head_halts == 2)
		second_halt_seq = second_halt_base();
	futex_ops->wait(ptr, val);
	if (in_lock && head_started && cfg.late_wake_us)
		usleep(cfg.late_wake_us);
}

static bool late_wake_can_wait(void)
{
	return futex_ops->can_wait();
}

static void late_wake_kick(int cpu)
{
	futex_ops->kick(cpu);
}

static void late_wake_spinning(void)
{
	futex_ops->spinning();
}

static const struct pvq_pv_ops late_wake_ops = {
	.name = "futex, late head wake-up",
	.can_wait = late_wake_can_wait,
	.wait = late_wake_wait,
	.kick = late_wake_kick,
	.spinning = late_wake_spinning,
};

static long involuntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		ksft_exit_fail_msg("getrusage: %s\n", strerror(errno));
	return ru.ru_nivcsw;
}

static void note_head_wait(struct worker *w, u64 passes, u64 ns,
			   bool preempted)
{
	if (preempted) {
		w->preempted_head_waits++;
		if (passes > w->worst_preempted_head_passes)
			w->worst_preempted_head_passes = passes;
		return;
	}
	w->head_waits++;
	w->head_over_limit += passes > HEAD_PASS_LIMIT;
	if (passes > w->worst_head_passes)
		w->worst_head_passes = passes;
	if (ns > w->worst_head_ns)
		w->worst_head_ns = ns;
	__atomic_fetch_add(&head_waits_seen, 1, __ATOMIC_RELAXED);
}

/* A head wait that halted twice: passed @passes times after that. */
static void note_second_halt(struct worker *w, u64 passes)
{
	w->second_halts++;
	w->second_halts_passed += passes > 0;
	if (passes > w->worst_second_halt_passes)
		w->worst_second_halt_passes = passes;
	__atomic_fetch_add(&second_halts_seen, 1, __ATOMIC_RELAXED);
}

static void *worker_fn(void *arg)
{
	const struct starve_type *type = cfg.type;
	struct worker *w = arg;
	unsigned int rng = w->cpu * 2654435761u + 1;
	unsigned long seq0, seq;
	long switches;
	u64 t0, t1;

	shim_register_cpu(w->cpu);
	pthread_barrier_wait(&start_barrier);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		switches = involuntary_switches();
		seq0 = READ_ONCE(shared.seq);
		t0 = stress_now_ns();
		head_started = false;
		head_halts = 0;
		in_lock = true;
		type->lock->lock(&starve_lock);
		in_lock = false;
		t1 = stress_now_ns();
		seq = shared.seq;
		shared.seq = seq + 1;
		stress_spin_work(CS_LOOPS);
		/*
		 * Counted, on the way out (second_halt_base()).  Release: the
		 * count is visible first.
		 */
		smp_store_release(&shared.released, seq + 1);
		type->lock->unlock(&starve_lock);

		w->acquisitions++;
		if (seq - seq0 > w->worst_passes)
			w->worst_passes = seq - seq0;
		if (t1 - t0 > w->worst_wait_ns)
			w->worst_wait_ns = t1 - t0;
		if (head_started)
			note_head_wait(w, seq - head_seq, t1 - head_t0,
				       involuntary_switches() != switches);
		if (head_halts >= 2)
			note_second_halt(w, seq > second_halt_seq ?
					 seq - second_halt_seq : 0);
		rng = rng * 1103515245 + 12345;
		stress_spin_work((rng >> 16) & GAP_MASK);
	}
	shim_unregister_cpu();
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Pin to the first cfg.pin_cpus cpus we may run on; how many there are. */
static unsigned int setup_pinning(void)
{
	unsigned int n = stress_pick_cpus(cfg.pin_cpus, &cfg.pin_set);

	cfg.pinned = n > 0;
	return n;
}

static bool wait_finished(unsigned int limit_ms)
{
	return stress_wait_finished(&finished, cfg.threads, limit_ms);
}

/* Enough head waits seen to judge the run's check? */
static bool enough_waits(void)
{
	if (!cfg.type->has_head)
		return true;
	if (running == RUN_SECOND_HALT)
		return __atomic_load_n(&second_halts_seen, __ATOMIC_RELAXED) >=
		       MIN_SECOND_HALTS;
	return __atomic_load_n(&head_waits_seen, __ATOMIC_RELAXED) >=
	       MIN_HEAD_WAITS;
}

/* Run for duration_ms, and on (up to MAX_MS) until enough head waits. */
static u64 run(struct worker *workers)
{
	u64 t_start, elapsed_ms;
	unsigned int i;

	stop = 0;
	finished = 0;
	head_waits_seen = 0;
	second_halts_seen = 0;
	shared.seq = 0;
	shared.released = 0;
	memset(workers, 0, cfg.threads * sizeof(struct worker));
	pvq_lock_events_reset();
	pthread_barrier_init(&start_barrier, NULL, cfg.threads + 1);
	for (i = 0; i < cfg.threads; i++) {
		workers[i].cpu = i;
		if (pthread_create(&workers[i].tid, NULL, worker_fn, &workers[i]))
			ksft_exit_fail_msg("pthread_create failed\n");
		if (cfg.pinned)
			stress_pin(workers[i].tid, &cfg.pin_set, i);
	}
	pthread_barrier_wait(&start_barrier);
	t_start = stress_now_ns();
	do {
		usleep(10000);
		elapsed_ms = (stress_now_ns() - t_start) / 1000000;
	} while (elapsed_ms < cfg.duration_ms ||
		 (elapsed_ms < MAX_MS && !enough_waits()));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	if (!wait_finished(WATCHDOG_MS))
		ksft_exit_fail_msg("%s: %u of %u threads stuck on the lock\n",
				   cfg.type->name, cfg.threads -
				   __atomic_load_n(&finished, __ATOMIC_ACQUIRE),
				   cfg.threads);
	for (i = 0; i < cfg.threads; i++)
		pthread_join(workers[i].tid, NULL);
	pthread_barrier_destroy(&start_barrier);
	return elapsed_ms;
}

static void report_worker(const struct worker *w)
{
	char head[160] = "";

	if (running == RUN_SECOND_HALT)
		snprintf(head, sizeof(head),
			 "; as head %llu waits, %llu halted twice, worst %llu passes after",
			 w->head_waits + w->preempted_head_waits,
			 w->second_halts, w->worst_second_halt_passes);
	else if (cfg.type->has_head)
		snprintf(head, sizeof(head),
			 "; as head %llu waits, worst %llu passes / %llu us (preempted %llu, worst %llu)",
			 w->head_waits, w->worst_head_passes,
			 w->worst_head_ns / 1000, w->preempted_head_waits,
			 w->worst_preempted_head_passes);
	ksft_print_msg("cpu %d: %llu acquisitions, worst wait %llu passes / %llu us%s\n",
		       w->cpu, w->acquisitions, w->worst_passes,
		       w->worst_wait_ns / 1000, head);
}

/* Check 2: every judged head wait within HEAD_PASS_LIMIT passes. */
static void check_heads(const struct worker *workers, u64 elapsed_ms)
{
	const char *name = cfg.type->name;
	u64 waits = 0, worst = 0, over = 0;
	unsigned int i;

	if (!cfg.type->has_head) {
		ksft_test_result_skip("%s: no queue head to bound\n", name);
		return;
	}
	for (i = 0; i < cfg.threads; i++) {
		waits += workers[i].head_waits;
		over += workers[i].head_over_limit;
		if (workers[i].worst_head_passes > worst)
			worst = workers[i].worst_head_passes;
	}
	ksft_print_msg("%s: passes after a head started its starvation clock:\n",
		       name);
	ksft_print_msg("%llu head waits judged, %llu over %d\n", waits, over,
		       HEAD_PASS_LIMIT);
	if (worst > HEAD_PASS_LIMIT)
		ksft_test_result_fail("%s: a head was passed %llu times (limit %d)\n",
				      name, worst, HEAD_PASS_LIMIT);
	else if (waits < MIN_HEAD_WAITS)
		ksft_test_result_fail("%s: %llu head waits in %llu ms, too few to judge (%d)\n",
				      name, waits, elapsed_ms, MIN_HEAD_WAITS);
	else
		ksft_test_result_pass("%s: heads passed at most %llu times (limit %d)\n",
				      name, worst, HEAD_PASS_LIMIT);
}

/* Checks 1 and 4: the counts are sound. */
static void check_counts(const struct worker *workers, const char *run_name,
			 u64 elapsed_ms)
{
	u64 total = 0;
	unsigned int i;
	bool locked;

	for (i = 0; i < cfg.threads; i++) {
		report_worker(&workers[i]);
		total += workers[i].acquisitions;
	}
	shim_register_cpu(0);
	locked = cfg.type->lock->is_locked(&starve_lock);
	shim_unregister_cpu();
	ksft_test_result(total && total == shared.seq && !locked,
			 "%s%s: %llu acquisitions in %llu ms, none lost, lock %s at the end\n",
			 cfg.type->name, run_name, total, elapsed_ms,
			 locked ? "HELD" : "free");
}

/* Check 5: nobody passed a head after its second halt began. */
static void check_second_halts(const struct worker *workers, u64 elapsed_ms)
{
	const char *name = cfg.type->name;
	u64 halts = 0, passed = 0, worst = 0;
	unsigned int i;

	for (i = 0; i < cfg.threads; i++) {
		halts += workers[i].second_halts;
		passed += workers[i].second_halts_passed;
		if (workers[i].worst_second_halt_passes > worst)
			worst = workers[i].worst_second_halt_passes;
	}
	ksft_print_msg("%s: passes after a head's second halt began:\n", name);
	ksft_print_msg("%llu head waits halted twice, %llu passed after, worst %llu passes\n",
		       halts, passed, worst);
#ifdef PVQ_LOCK_STATS
	ksft_print_msg("steal_block %lu, wait_head %lu, wait_again %lu\n",
		       pvq_lock_event_sum(PVQ_EV_steal_block),
		       pvq_lock_event_sum(PVQ_EV_wait_head),
		       pvq_lock_event_sum(PVQ_EV_wait_again));
#endif
	if (worst)
		ksft_test_result_fail("%s: %llu passes after a second halt (%llu of %llu heads)\n",
				      name, worst, passed, halts);
	else if (halts < MIN_SECOND_HALTS)
		ksft_test_result_fail("%s: %llu heads halted twice in %llu ms, too few (%d)\n",
				      name, halts, elapsed_ms,
				      MIN_SECOND_HALTS);
	else
		ksft_test_result_pass("%s: no head passed after its second halt (%llu heads)\n",
				      name, halts);
}

/* Check 3: the heads really blocked stealing. */
static void check_steal_block(void)
{
#ifdef PVQ_LOCK_STATS
	unsigned long blocks = pvq_lock_event_sum(PVQ_EV_steal_block);

	if (!cfg.type->has_head)
		ksft_test_result_skip("%s: no starvation bound\n",
				      cfg.type->name);
	else
		ksft_test_result(blocks > 0,
				 "%s: the bound engaged (steal_block %lu)\n",
				 cfg.type->name, blocks);
#else
	ksft_test_result_skip("%s: steal_block needs LOCK_STATS=y\n",
			      cfg.type->name);
#endif
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-t threads] [-d ms] [-c cpus] [-b us] [-S loops] [-B steals]\n"
		"       [-s loops] [-w us] [-T type] [-m runs] [-p passes]\n"
		"  -t  threads, each its own CPU (default 2 x the pinned cpus, max %d)\n"
		"  -d  each run lasts at least this long (default %d ms; on to %d ms until\n"
		"      %d head waits, or %d that halted twice)\n"
		"  -c  pin all threads to this many cpus, 0: no pinning (default %d)\n"
		"  -b  unfair_bound_us of the bound run (default 0; the limit of\n"
		"      check 2 holds for 0; the second-halt run uses %d)\n"
		"  -S  unfair_steal_spin (default %d)\n"
		"  -B  unfair_steal_budget (default %d, at most %d)\n"
		"  -s  PV spin threshold (default %d)\n"
		"  -w  a halted queue head wakes this many us after its kick (default %d, max %d)\n"
		"  -T  pvqspinlock_unfair (default) or tas, for comparison\n"
		"  -m  bound (checks 1-3), second-halt (checks 4-5), pass-bound\n"
		"      (checks 6-7, the fair pvqspinlock) or all (default)\n"
		"  -p  pass_bound of the pass-bound run (default %d; 0: no bound,\n"
		"      check 7 must fail)\n",
		prog, SHIM_NR_CPUS, DEFAULT_DURATION_MS, MAX_MS,
		MIN_HEAD_WAITS, MIN_SECOND_HALTS, DEFAULT_PIN_CPUS,
		SECOND_HALT_BOUND_US, PVQ_STEAL_SPIN_DEFAULT,
		PVQ_STEAL_BUDGET_DEFAULT, PVQ_STEAL_BUDGET_MAX,
		DEFAULT_SPIN_THRESHOLD, DEFAULT_LATE_WAKE_US, MAX_LATE_WAKE_US,
		PASS_RUN_BOUND);
	exit(KSFT_FAIL);
}

static void parse_args(int argc, char **argv)
{
	unsigned int i;
	int opt;

	cfg.steal_spin = pvq_steal_spin;
	cfg.steal_budget = pvq_steal_budget;
	while ((opt = getopt(argc, argv, "t:d:c:b:S:B:s:w:T:m:p:h")) != -1) {
		switch (opt) {
		case 't':
			cfg.threads = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			cfg.duration_ms = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cfg.pin_cpus = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			cfg.bound_us = strtol(optarg, NULL, 0);
			break;
		case 'S':
			cfg.steal_spin = strtol(optarg, NULL, 0);
			break;
		case 'B':
			cfg.steal_budget = strtol(optarg, NULL, 0);
			break;
		case 'w':
			cfg.late_wake_us = strtol(optarg, NULL, 0);
			break;
		case 's':
			cfg.spin_threshold = strtol(optarg, NULL, 0);
			break;
		case 'T':
			for (i = 0; i < ARRAY_SIZE(types); i++)
				if (!strcmp(optarg, types[i].name))
					cfg.type = &types[i];
			if (strcmp(optarg, cfg.type->name))
				print_usage(argv[0]);
			break;
		case 'p':
			cfg.pass_bound = strtol(optarg, NULL, 0);
			break;
		case 'm':
			if (!strcmp(optarg, "bound"))
				cfg.runs = RUN_BOUND;
			else if (!strcmp(optarg, "second-halt"))
				cfg.runs = RUN_SECOND_HALT;
			else if (!strcmp(optarg, "pass-bound"))
				cfg.runs = RUN_PASS_BOUND;
			else if (!strcmp(optarg, "all"))
				cfg.runs = RUN_ALL;
			else
				print_usage(argv[0]);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	/* The module parameters' ranges (module/unfair_params.c). */
	if (cfg.threads > SHIM_NR_CPUS || cfg.bound_us < 0 ||
	    cfg.bound_us > 1000000 || cfg.steal_spin < 1 ||
	    cfg.steal_budget < 0 || cfg.steal_budget > PVQ_STEAL_BUDGET_MAX ||
	    cfg.spin_threshold < 1 || cfg.late_wake_us < 0 ||
	    cfg.late_wake_us > MAX_LATE_WAKE_US || cfg.pass_bound < 0 ||
	    cfg.pass_bound > (int)PVQ_PASSES_MAX)
		print_usage(argv[0]);
}

/* The bound run: checks 1 to 3. */
static void bound_run(struct worker *workers)
{
	u64 elapsed_ms;

	running = RUN_BOUND;
	pvq_starvation_bound_us = cfg.bound_us;
	ksft_print_msg("bound run: unfair_bound_us %d\n", cfg.bound_us);
	elapsed_ms = run(workers);
	check_counts(workers, "", elapsed_ms);
	check_heads(workers, elapsed_ms);
	check_steal_block();
}

/* The second-halt run: checks 4 and 5. */
static void second_halt_run(struct worker *workers)
{
	u64 elapsed_ms;

	if (!cfg.type->has_head) {
		ksft_test_result_skip("%s: no second-halt run, no queue head\n",
				      cfg.type->name);
		ksft_test_result_skip("%s: no queue head to halt twice\n",
				      cfg.type->name);
		return;
	}
	running = RUN_SECOND_HALT;
	pvq_starvation_bound_us = SECOND_HALT_BOUND_US;
	ksft_print_msg("second-halt run: unfair_bound_us %d, never reached\n",
		       SECOND_HALT_BOUND_US);
	elapsed_ms = run(workers);
	check_counts(workers, " (second-halt run)", elapsed_ms);
	check_second_halts(workers, elapsed_ms);
}

/* Check 7: every head wait, preempted or not, within the pass bound. */
static void check_pass_bound(const struct worker *workers)
{
	u64 waits = 0, worst = 0;
	unsigned int i;

	for (i = 0; i < cfg.threads; i++) {
		waits += workers[i].head_waits + workers[i].preempted_head_waits;
		worst = max(worst, max(workers[i].worst_head_passes,
				       workers[i].worst_preempted_head_passes));
	}
	ksft_print_msg("pvqspinlock: %llu head waits, worst passed %llu times\n",
		       waits, worst);
	if (worst > PASS_RUN_BOUND + 2)
		ksft_test_result_fail("pvqspinlock: a head was passed %llu times (limit %d)\n",
				      worst, PASS_RUN_BOUND + 2);
	else if (waits < MIN_HEAD_WAITS)
		ksft_test_result_fail("pvqspinlock: %llu head waits, too few (%d)\n",
				      waits, MIN_HEAD_WAITS);
	else
		ksft_test_result_pass("pvqspinlock: heads passed at most %llu times (limit %d)\n",
				      worst, PASS_RUN_BOUND + 2);
}

/* The pass-bound run: checks 6 and 7, on the fair pvqspinlock. */
static void pass_bound_run(struct worker *workers)
{
	const struct starve_type *saved = cfg.type;
	u64 elapsed_ms;

	if (!saved->has_head) {
		ksft_test_result_skip("%s: no pass-bound run\n", saved->name);
		ksft_test_result_skip("%s: no pass-bound run\n", saved->name);
		return;
	}
	cfg.type = &pass_run_type;
	running = RUN_PASS_BOUND;
	pvq_fair_bound_us = FAIR_BOUND_NEVER_US;
	pvq_pass_bound = cfg.pass_bound;
	pvq_pass_scale = 1;
	ksft_print_msg("pass-bound run: pvqspinlock, pass_bound %d, pass_scale 1\n",
		       cfg.pass_bound);
	ksft_print_msg("fair_bound_us %d, never reached\n", FAIR_BOUND_NEVER_US);
	elapsed_ms = run(workers);
	check_counts(workers, " (pass-bound run)", elapsed_ms);
	check_pass_bound(workers);
	cfg.type = saved;
}

int main(int argc, char **argv)
{
	struct worker *workers;
	unsigned int cpus;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(7);

	cpus = setup_pinning();
	if (!cfg.threads)
		cfg.threads = 2 * (cpus ? cpus : 1);
	pvq_steal_spin = cfg.steal_spin;
	pvq_steal_budget = cfg.steal_budget;
	pvq_spin_threshold = cfg.spin_threshold;
	pvq_queue_spin_threshold = cfg.spin_threshold;
	if (pvq_pv_select("futex") || pvq_hash_init())
		ksft_exit_fail_msg("no futex PV backend or hash table\n");
	futex_ops = pvq_pv;
	pvq_pv_use(&late_wake_ops);
	ksft_print_msg("%s: %u threads on %u pinned cpu(s), critical section %d pause loops\n",
		       cfg.type->name, cfg.threads, cpus, CS_LOOPS);
	ksft_print_msg("unfair_steal_spin %d, unfair_steal_budget %d, spin_threshold %d\n",
		       cfg.steal_spin, cfg.steal_budget, cfg.spin_threshold);
	ksft_print_msg("late head wake-up %d us\n", cfg.late_wake_us);

	workers = aligned_alloc(SHIM_CACHELINE,
				cfg.threads * sizeof(struct worker));
	if (!workers)
		ksft_exit_fail_msg("out of memory\n");

	if (cfg.runs & RUN_BOUND) {
		bound_run(workers);
	} else {
		ksft_test_result_skip("bound run not selected (-m)\n");
		ksft_test_result_skip("bound run not selected (-m)\n");
		ksft_test_result_skip("bound run not selected (-m)\n");
	}
	if (cfg.runs & RUN_SECOND_HALT) {
		second_halt_run(workers);
	} else {
		ksft_test_result_skip("second-halt run not selected (-m)\n");
		ksft_test_result_skip("second-halt run not selected (-m)\n");
	}
	if (cfg.runs & RUN_PASS_BOUND) {
		pass_bound_run(workers);
	} else {
		ksft_test_result_skip("pass-bound run not selected (-m)\n");
		ksft_test_result_skip("pass-bound run not selected (-m)\n");
	}

	free(workers);
	pvq_hash_exit();
	ksft_finished();
	return KSFT_FAIL;
}
