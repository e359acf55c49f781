// SPDX-License-Identifier: GPL-2.0
/*
 * Threaded stress test of every lock type, under overcommit.
 *
 * N threads, each registered as its own CPU and all pinned to at most two
 * real CPUs (more runnable spinners than cores, as with overcommitted
 * vCPUs), take the lock in a loop.  Inside the critical section they check
 * and claim a "holder" field and do a deliberately non-atomic
 * read-modify-write of a counter, with some work in between.  A type passes
 * if nobody ever saw another holder, no counter update was lost, and the
 * lock ends up free.  Fairness (Jain's index, per-thread min/max) and the
 * wait latency (p50/p99/max) are reported, not asserted: they depend on the
 * machine's load.
 *
 * The PV locks run twice: with the futex backend and a small spin
 * threshold, where they must really halt and kick (a PV lock that never
 * parked, or was never kicked, fails), and with the "none" backend, where
 * nothing halts: there the PV ticket lock spins through its PV paths, and
 * the PV queued locks run as the native qspinlock (pv_ops.h), so that they
 * must never reach pv_wait() nor move a PV lock event.  Overcommit is
 * where halting pays: a parked waiter gives its core to the thread that
 * holds the lock.
 *
 * Built with -DPVQ_STRESS_BREAK=1 (only by "make break-check"), the tas
 * type is replaced by a lock that sometimes skips acquiring, and this
 * program must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/processor.h>

#include "pv_futex.h"
#include "pvq_locks.h"
#ifdef PVQ_PV_QSPINLOCK
#include "pvqspinlock_hooks.h"
#endif
#include "lock_stats.h"
#include "torture_stats.h"

#include "kselftest.h"
#include "lock_adapters.h"
#include "stress_helpers.h"

#ifdef __SANITIZE_THREAD__
/*
 * TSan slows everything ~10x, and what it needs is hand-offs, not volume:
 * at 4-to-1 overcommit the FIFO locks manage a few dozen in a run, at
 * 2-to-1 they manage hundreds, many of them through the MCS queue.
 */
#define DEFAULT_DURATION_MS	500
#define DEFAULT_THREADS		4

/*
 * A race report is a failure: stop at the first one (exit status 66).
 * Threads stuck on a broken lock are reported by the watchdog, which then
 * exits with them still running: not a leak worth a second report.
 */
const char *__tsan_default_options(void)
{
	return "halt_on_error=1 report_thread_leaks=0";
}

#else
#define DEFAULT_DURATION_MS	1000
#define DEFAULT_THREADS		8
#endif
#define DEFAULT_PIN_CPUS	2
/* Spin loops before a PV waiter halts: small, so that halting is common. */
#define DEFAULT_SPIN_THRESHOLD	(1 << 8)
/* How long after the end of the run threads may take to stop. */
#define WATCHDOG_MS		20000

struct stress_type {
	const char *name;
	const struct lock_adapter *lock;
	const char *pv;		/* PV backend, NULL for the native locks */
	/*
	 * The fair PV qspinlock as it was: fair_bound_us 0 (its head reserves
	 * the lock at once) and fair_steal_spin 0 (one steal attempt).
	 */
	bool reserve_at_once;
};

#if PVQ_STRESS_BREAK
/*
 * Deliberately broken: every 16th acquisition of each thread "succeeds"
 * without taking the lock (and its unlock does nothing).  It goes in only
 * once it sees the lock held by somebody else (or after BREAK_WAIT_LOOPS),
 * so that it overlaps a real holder: left to chance, a run once saw no
 * overlap in 27,000 skipped acquisitions and the check passed.
 */
#define BREAK_EVERY	16
#define BREAK_WAIT_LOOPS	(1 << 20)
static __thread unsigned int broken_calls;
static __thread bool broken_skipped;

static void broken_lock(void *l)
{
	int loops = BREAK_WAIT_LOOPS;

	if (++broken_calls % BREAK_EVERY == 0) {
		broken_skipped = true;
		while (!pvq_tas_is_locked(l) && --loops)
			cpu_relax();
		return;
	}
	lock_adapter_tas.lock(l);
}

static void broken_unlock(void *l)
{
	if (broken_skipped)
		broken_skipped = false;
	else
		lock_adapter_tas.unlock(l);
}

static struct lock_adapter broken_tas;
#endif

/*
 * Every built type of lock_types_list.h, the PV ones with the futex
 * backend; then the PV ones again with the "none" backend.
 */
static struct stress_type types[] = {
#define PVQ_LOCK_TYPE(type, prefix, word, option)			\
	PVQ_BUILT_ITEM(option, { .name = #type, .lock = &lock_adapter_##type, \
				 .pv = PVQ_HALTS_##option ? "futex" : NULL })
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
#define PVQ_LOCK_TYPE(type, prefix, word, option)			\
	PVQ_IF_HALTS(option, { .name = #type "-none",			\
			       .lock = &lock_adapter_##type, .pv = "none" }, \
		     /* the item's comma */)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
#ifdef PVQ_PV_QSPINLOCK
	/* The fair lock whose head reserves at once, with no steal loop. */
	{ .name = "pvqspinlock-reserve", .lock = &lock_adapter_pvqspinlock,
	  .pv = "futex", .reserve_at_once = true },
#endif
};

/* The lock under test, and on another cache line, what it protects. */
static union {
#define PVQ_LOCK_TYPE(name, prefix, lock, option) \
	PVQ_IF_BUILT(option, lock name;)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
} stress_lock __aligned(SHIM_CACHELINE);

static struct {
	/*
	 * CPU in the critical section, or -1.  Atomic, so the check itself
	 * stays well defined when exclusion is broken.
	 */
	int holder;
	/* Plain: a broken lock shows up as lost updates. */
	unsigned long counter;
} shared __aligned(SHIM_CACHELINE);

struct worker {
	pthread_t tid;
	int cpu;
	u64 acquisitions;
	u64 violations;
	struct pvq_wait_hist hist;
} __aligned(SHIM_CACHELINE);

static struct {
	const struct stress_type *type;
	unsigned int threads;
	unsigned int duration_ms;
	u64 iterations;			/* per thread; 0: run for duration_ms */
	unsigned int pin_cpus;		/* 0: do not pin */
	cpu_set_t pin_set;
	bool pinned;
	int spin_threshold;		/* for the PV locks */
} cfg = {
	.threads = DEFAULT_THREADS,
	.duration_ms = DEFAULT_DURATION_MS,
	.pin_cpus = DEFAULT_PIN_CPUS,
	.spin_threshold = DEFAULT_SPIN_THRESHOLD,
};

/* Acquisitions per second of each type run, for the summary. */
static u64 throughput[ARRAY_SIZE(types)];
static bool type_ran[ARRAY_SIZE(types)];

static pthread_barrier_t start_barrier;
static int stop;
static unsigned int finished;

static void critical_section(struct worker *w)
{
	unsigned long c;

	if (READ_ONCE(shared.holder) != -1)
		w->violations++;
	WRITE_ONCE(shared.holder, w->cpu);
	c = shared.counter;
	stress_spin_work(8);
	shared.counter = c + 1;
	if (READ_ONCE(shared.holder) != w->cpu)
		w->violations++;
	WRITE_ONCE(shared.holder, -1);
}

static void *worker_fn(void *arg)
{
	const struct stress_type *type = cfg.type;
	struct worker *w = arg;
	unsigned int rng = w->cpu * 2654435761u + 1;

	shim_register_cpu(w->cpu);
	if (w->cpu == 0)
		type->lock->init(&stress_lock);
	pthread_barrier_wait(&start_barrier);
	while (cfg.iterations ? w->acquisitions < cfg.iterations :
				!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		u64 t0 = stress_now_ns();

		type->lock->lock(&stress_lock);
		pvq_hist_record(&w->hist, stress_now_ns() - t0);
		critical_section(w);
		type->lock->unlock(&stress_lock);
		w->acquisitions++;
		/* Vary the gap between acquisitions: 0..31 pauses. */
		rng = rng * 1103515245 + 12345;
		stress_spin_work(rng >> 27);
	}
	shim_unregister_cpu();
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Use the first cfg.pin_cpus CPUs we may run on. */
static void setup_pinning(void)
{
	unsigned int n = stress_pick_cpus(cfg.pin_cpus, &cfg.pin_set);

	if (!n) {
		ksft_print_msg("not pinning threads\n");
		return;
	}
	cfg.pinned = true;
	ksft_print_msg("%u threads pinned to %u cpu(s): %u-to-1 overcommit\n",
		       cfg.threads, n, (cfg.threads + n - 1) / n);
}

static void pin(struct worker *w)
{
	if (cfg.pinned)
		stress_pin(w->tid, &cfg.pin_set, w->cpu);
}

/* Wait for every worker to leave its loop; false if some never do. */
static bool wait_finished(unsigned int limit_ms)
{
	return stress_wait_finished(&finished, cfg.threads, limit_ms);
}

/* The lock events, a few per line: the list is long. */
static void print_lock_events(void)
{
#ifdef PVQ_LOCK_STATS
	const int per_line = 6;
	char line[512];
	int len = 0, ev;

	for (ev = 0; ev < PVQ_NR_LOCK_EVENTS; ev++) {
		len += snprintf(line + len, sizeof(line) - len, " %s=%lu",
				pvq_lock_event_names[ev],
				pvq_lock_event_sum(ev));
		if (ev % per_line == per_line - 1 ||
		    ev == PVQ_NR_LOCK_EVENTS - 1) {
			ksft_print_msg("%s events:%s\n", cfg.type->name, line);
			len = 0;
		}
	}
#endif
}

#ifdef PVQ_PARAVIRT_SPINLOCKS
#ifdef PVQ_PV_QSPINLOCK
/* The lock's own fair_bound_us and fair_steal_spin, saved before use. */
static int fair_bound_default, fair_steal_default;
#endif

/* Choose the type's backend and threshold, and zero its counters. */
static void pv_setup(const struct stress_type *type)
{
	if (!type->pv)
		return;
	if (pvq_pv_select(type->pv))
		ksft_exit_fail_msg("no PV backend %s\n", type->pv);
	pvq_spin_threshold = cfg.spin_threshold;
	pvq_queue_spin_threshold = cfg.spin_threshold;
#ifdef PVQ_PV_QSPINLOCK
	pvq_fair_bound_us = type->reserve_at_once ? 0 : fair_bound_default;
	pvq_fair_steal_spin = type->reserve_at_once ? 0 : fair_steal_default;
#endif
	pvq_futex_reset();
}

/* With none, the PV queued locks run native (pv_ops.h); pvticket does not. */
static bool pv_runs_native(const struct stress_type *type)
{
	return !strcmp(type->pv, "none") &&
	       type->lock != &lock_adapter_pvticket;
}

#ifdef PVQ_LOCK_STATS
/* The events only the PV protocol of a queued lock can move. */
static const enum pvq_lock_event pv_protocol_events[] = {
	PVQ_EV_lock_stealing, PVQ_EV_wait_node, PVQ_EV_wait_head,
	PVQ_EV_wait_again, PVQ_EV_kick_unlock, PVQ_EV_kick_wake,
	PVQ_EV_spurious, PVQ_EV_hash_hops, PVQ_EV_steal_block,
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
	PVQ_EV_unfair_steal,
#endif
};

static bool pv_events_still(const struct stress_type *type)
{
	unsigned long n;
	unsigned int i;
	bool still = true;

	for (i = 0; i < ARRAY_SIZE(pv_protocol_events); i++) {
		n = pvq_lock_event_sum(pv_protocol_events[i]);
		if (n) {
			ksft_print_msg("%s: %s moved: %lu\n", type->name,
				       pvq_lock_event_names[pv_protocol_events[i]],
				       n);
			still = false;
		}
	}
	return still;
}
#else
static bool pv_events_still(const struct stress_type *type)
{
	return true;
}
#endif

/*
 * Report what the backend saw.  With the futex backend the lock must have
 * parked and kicked: at this overcommit and threshold a PV lock that never
 * does is not halting at all.  With none the PV ticket lock must at least
 * have tried, and the PV queued locks must not have: they run native.
 */
static bool pv_check(const struct stress_type *type)
{
	unsigned long waits = 0, parks = 0, kicks = 0;
	unsigned int i;

	if (!type->pv)
		return true;
	for (i = 0; i < cfg.threads; i++) {
		waits += pvq_futex_waits(i);
		parks += pvq_futex_parks(i);
		kicks += pvq_futex_kicks(i);
	}
	ksft_print_msg("%s: backend %s, spin threshold %d: %lu waits, %lu parks, %lu kicks\n",
		       type->name, type->pv, cfg.spin_threshold, waits, parks,
		       kicks);
	if (!strcmp(type->pv, "futex") && (!parks || !kicks)) {
		ksft_print_msg("%s: never %s\n", type->name,
			       parks ? "kicked" : "parked");
		return false;
	}
	if (pv_runs_native(type))
		return !waits && pv_events_still(type);
	if (!strcmp(type->pv, "none") && !waits) {
		ksft_print_msg("%s: never reached pv_wait()\n", type->name);
		return false;
	}
	return true;
}
#else
static void pv_setup(const struct stress_type *type)
{
}

static bool pv_check(const struct stress_type *type)
{
	return true;
}

static bool pv_runs_native(const struct stress_type *type)
{
	return false;
}
#endif

/* What pv_check() held the type to, for its result line. */
static const char *pv_claim(const struct stress_type *type)
{
	if (!type->pv)
		return "";
	if (pv_runs_native(type))
		return ", runs native: no pv_wait(), no PV event";
	return strcmp(type->pv, "none") ? ", halts and kicks" :
					  ", reaches pv_wait()";
}

/* Run one type; true if it kept mutual exclusion. */
static bool run_type(const struct stress_type *type, struct worker *workers)
{
	struct pvq_wait_hist *all = calloc(1, sizeof(*all));
	u64 counts[SHIM_NR_CPUS], total = 0, min_acq = ~0ull, max_acq = 0;
	u64 violations = 0, t_start, elapsed_ms;
	unsigned long warnings = shim_warnings;
	unsigned int i, jain;
	bool locked, ok;

	if (!all)
		ksft_exit_fail_msg("out of memory\n");
	cfg.type = type;
	shared.holder = -1;
	shared.counter = 0;
	stop = 0;
	finished = 0;
	pvq_lock_events_reset();
	pv_setup(type);
	memset(workers, 0, cfg.threads * sizeof(*workers));
	pthread_barrier_init(&start_barrier, NULL, cfg.threads + 1);

	for (i = 0; i < cfg.threads; i++) {
		workers[i].cpu = i;
		if (pthread_create(&workers[i].tid, NULL, worker_fn, &workers[i]))
			ksft_exit_fail_msg("pthread_create failed\n");
		pin(&workers[i]);
	}
	pthread_barrier_wait(&start_barrier);
	t_start = stress_now_ns();
	if (!cfg.iterations) {
		usleep(cfg.duration_ms * 1000);
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	if (!wait_finished(WATCHDOG_MS + (cfg.iterations ? 60000 : 0))) {
		/* The workers are stuck on the lock: report, do not hang. */
		ksft_test_result_fail("%s: %u of %u threads stuck\n", type->name,
				      cfg.threads -
				      __atomic_load_n(&finished, __ATOMIC_ACQUIRE),
				      cfg.threads);
		ksft_exit_fail();
	}
	elapsed_ms = (stress_now_ns() - t_start) / 1000000;
	for (i = 0; i < cfg.threads; i++)
		pthread_join(workers[i].tid, NULL);
	pthread_barrier_destroy(&start_barrier);

	for (i = 0; i < cfg.threads; i++) {
		struct worker *w = &workers[i];

		counts[i] = w->acquisitions;
		total += w->acquisitions;
		violations += w->violations;
		min_acq = w->acquisitions < min_acq ? w->acquisitions : min_acq;
		max_acq = w->acquisitions > max_acq ? w->acquisitions : max_acq;
		pvq_hist_merge(all, &w->hist);
	}
	shim_register_cpu(0);
	locked = type->lock->is_locked(&stress_lock);
	shim_unregister_cpu();

	jain = pvq_jain_milli(counts, cfg.threads);
	ksft_print_msg("%s: %llu acquisitions in %llu ms (%llu/ms)\n",
		       type->name, total, elapsed_ms,
		       elapsed_ms ? total / elapsed_ms : total);
	ksft_print_msg("%s: per thread min %llu max %llu, Jain %u.%03u\n",
		       type->name, min_acq, max_acq, jain / 1000, jain % 1000);
	ksft_print_msg("%s: wait ns p50 %llu p99 %llu max %llu\n", type->name,
		       pvq_hist_percentile(all, 500),
		       pvq_hist_percentile(all, 990), all->max);
	warnings = shim_warnings - warnings;
	ksft_print_msg("%s: exclusion violations %llu, lost updates %lld\n",
		       type->name, violations,
		       (long long)(total - shared.counter));
	ksft_print_msg("%s: lock %s at the end, %lu LOCK_DEBUG warnings\n",
		       type->name, locked ? "HELD" : "free", warnings);
	if (strstr(type->name, "qspinlock") || type->pv)
		print_lock_events();
	free(all);
	throughput[type - types] = total * 1000 / (elapsed_ms ? elapsed_ms : 1);
	type_ran[type - types] = true;

	ok = !violations && shared.counter == total && !locked && !warnings &&
	     total;
	ok &= pv_check(type);
	ksft_test_result(ok, "%s: mutual exclusion, no lost updates%s\n",
			 type->name, pv_claim(type));
	return ok;
}

static void print_throughput(void)
{
	char line[256];
	unsigned int i;
	int len = 0;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (type_ran[i] && len < (int)sizeof(line))
			len += snprintf(line + len, sizeof(line) - len,
					" %s %llu", types[i].name,
					throughput[i]);
	ksft_print_msg("throughput (acquisitions/s, %u threads):%s\n",
		       cfg.threads, line);
}

static void print_usage(const char *prog)
{
	unsigned int i;

	fprintf(stderr,
		"usage: %s [-t threads] [-d ms | -n iterations] [-c cpus] [-s loops] [-T type]\n"
		"  -t  threads, each its own CPU (default %d, max %d)\n"
		"  -d  run each type for this many ms (default %d)\n"
		"  -n  instead, this many acquisitions per thread\n"
		"  -c  pin all threads to this many cpus, 0: no pinning (default %d)\n"
		"  -s  PV spin threshold: loops before halting (default %d)\n"
		"  -T  only this type:", prog, DEFAULT_THREADS, SHIM_NR_CPUS,
		DEFAULT_DURATION_MS, DEFAULT_PIN_CPUS, DEFAULT_SPIN_THRESHOLD);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		fprintf(stderr, " %s", types[i].name);
	fputc('\n', stderr);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	struct worker *workers;
	unsigned int i, planned = 0;
	int opt;

	while ((opt = getopt(argc, argv, "t:d:n:c:s:T:h")) != -1) {
		switch (opt) {
		case 't':
			cfg.threads = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			cfg.duration_ms = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cfg.iterations = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			cfg.pin_cpus = strtoul(optarg, NULL, 0);
			break;
		case 's':
			cfg.spin_threshold = strtol(optarg, NULL, 0);
			break;
		case 'T':
			only = optarg;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (!cfg.threads || cfg.threads > SHIM_NR_CPUS ||
	    cfg.spin_threshold < 0)
		print_usage(argv[0]);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		planned += !only || !strcmp(only, types[i].name);
	if (!planned)
		print_usage(argv[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(planned);
#if PVQ_STRESS_BREAK
	ksft_print_msg("PVQ_STRESS_BREAK: tas is broken on purpose, this run must FAIL\n");
	broken_tas = lock_adapter_tas;
	broken_tas.lock = broken_lock;
	broken_tas.unlock = broken_unlock;
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].lock == &lock_adapter_tas)
			types[i].lock = &broken_tas;
#endif
	setup_pinning();
#ifdef PVQ_PV_QSPINLOCK
	fair_bound_default = pvq_fair_bound_us;
	fair_steal_default = pvq_fair_steal_spin;
	if (pvq_hash_init())
		ksft_exit_fail_msg("pvq_hash_init failed\n");
#endif
	workers = aligned_alloc(SHIM_CACHELINE,
				cfg.threads * sizeof(struct worker));
	if (!workers)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!only || !strcmp(only, types[i].name))
			run_type(&types[i], workers);
	print_throughput();
	free(workers);
#ifdef PVQ_PV_QSPINLOCK
	pvq_hash_exit();
#endif
	ksft_finished();
	return KSFT_FAIL;
}
