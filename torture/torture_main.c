// SPDX-License-Identifier: GPL-2.0
/*
 * qspinlock_torture: compare spinlock types under vCPU overcommit.
 *
 * nwriters_stress kthreads take one of nlocks locks of the chosen type in a
 * loop, check mutual exclusion inside the critical section, and record how
 * long each acquisition waited.  The report follows locktorture's format so
 * that existing torture tooling can parse it, plus one key=value summary
 * line.  See Documentation/torture.rst for parameters and output.
 */
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "torture.h"
#include "torture_hotplug.h"
#include "torture_irq.h"
#include "torture_stats.h"
#include "lock_stats.h"
#include "pvq_diag.h"

/* locktorture's prefix, "<torture_type>-torture: ", so its tooling parses us. */
#define torture_alert(fmt, ...) \
	pr_alert("%s-torture: " fmt, torture_type, ##__VA_ARGS__)
#define torture_err(fmt, ...) \
	pr_err("%s-torture: " fmt, torture_type, ##__VA_ARGS__)

#define TORTURE_MAX_WRITERS	1024
#define TORTURE_MAX_LOCKS	64
#define TORTURE_MAX_LOOPS	1000000
#define TORTURE_MAX_SECS	86400
#define TORTURE_MAX_NESTED	8
/* Room for " name=value" of every lock event (and hotplug counts). */
#define TORTURE_EVENTS_LEN	768
/* balance_writers: acquisitions a writer may be ahead beyond the 1/8. */
#define TORTURE_TURN_SLACK	1024

#ifdef PVQ_LOCK_STATS
#define PVQ_LOCK_STATS_BUILD	1
#else
#define PVQ_LOCK_STATS_BUILD	0
#endif

static char *torture_type = "qspinlock";
module_param(torture_type, charp, 0444);
MODULE_PARM_DESC(torture_type, "Lock type to torture (see the load message for the built ones)");

static int nwriters_stress = -1;
module_param(nwriters_stress, int, 0444);
MODULE_PARM_DESC(nwriters_stress, "Number of writer kthreads (-1: 2 x online CPUs)");

static int nlocks = 1;
module_param(nlocks, int, 0444);
MODULE_PARM_DESC(nlocks, "Number of locks the writers spread over (1..64); 0: a lock of its own for each writer (at most 64 writers), the testbed's ceiling: no lock is shared");

static int cs_loops = 50;
module_param(cs_loops, int, 0444);
MODULE_PARM_DESC(cs_loops, "Work loop iterations inside the critical section");

static int between_loops = 200;
module_param(between_loops, int, 0444);
MODULE_PARM_DESC(between_loops, "Work loop iterations between two acquisitions");

static int runtime_secs;
module_param(runtime_secs, int, 0444);
MODULE_PARM_DESC(runtime_secs, "Run length; module init waits for the end (0: run until rmmod)");

static int stat_interval = 60;
module_param(stat_interval, int, 0444);
MODULE_PARM_DESC(stat_interval, "Seconds between statistics lines (0: only at the end)");

static int shutdown_secs;
module_param(shutdown_secs, int, 0444);
MODULE_PARM_DESC(shutdown_secs, "End the test and power the machine off after this many seconds (0: never)");

static int onoff_interval_ms;
module_param(onoff_interval_ms, int, 0444);
MODULE_PARM_DESC(onoff_interval_ms, "Take a random CPU offline, or back online, every this many ms (0: never; needs CONFIG_HOTPLUG_CPU)");

static int onoff_holdoff;
module_param(onoff_holdoff, int, 0444);
MODULE_PARM_DESC(onoff_holdoff, "Seconds before the first CPU hotplug operation");

static int long_hold;
module_param(long_hold, int, 0444);
MODULE_PARM_DESC(long_hold, "Occasionally hold the lock this many ms (0: never)");

static bool bind_writers = true;
module_param(bind_writers, bool, 0444);
MODULE_PARM_DESC(bind_writers, "Spread writers evenly over the online CPUs (affinity), so per-thread fairness measures the lock, not thread placement");

static bool balance_writers = true;
module_param(balance_writers, bool, 0444);
MODULE_PARM_DESC(balance_writers, "Writers that share a CPU take turns: one ahead of a CPU sibling by more than 1/8 of its acquisitions sleeps a tick (see Documentation/torture.rst)");

static bool irqs_disabled;
module_param(irqs_disabled, bool, 0444);
MODULE_PARM_DESC(irqs_disabled, "Hold interrupts off (not only preemption) from lock to unlock");

static int stall_secs = 30;
module_param(stall_secs, int, 0444);
MODULE_PARM_DESC(stall_secs, "Report a stall (and FAILURE) when no lock is taken for this long (0: never)");

static char *irq_mode = "none";
module_param(irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode, "Also take locks from interrupt context: none, hardirq, softirq, mixed (softirq + hardirq + NMI)");
static int irq_mode_val;

static int nested_locks;
module_param(nested_locks, int, 0444);
MODULE_PARM_DESC(nested_locks, "Each acquisition takes 1 to this many distinct locks, in ascending order (0..8, at most nlocks; 0: one lock)");

static int verbose;
module_param(verbose, int, 0444);
MODULE_PARM_DESC(verbose, "1: per-thread counts in the final report");

#ifdef PVQ_TORTURE_FAULTS
/*
 * Test builds only (make TORTURE_FAULTS=y): break the lock on purpose to
 * prove that the detectors below report FAILURE.
 */
static char *inject_fault = "none";
module_param(inject_fault, charp, 0444);
MODULE_PARM_DESC(inject_fault, "TEST BUILDS ONLY: none; exclusion (enter every 64th critical section without the lock, for 500us); irq_exclusion (the same in every 16th interrupt-context section, for 100us); stall (writer 0 keeps the lock until the stall watchdog fires)");
static bool fault_exclusion, fault_irq_exclusion, fault_stall;
#endif

struct torture_writer {
	struct task_struct *task;
	int id;
	u32 rand;
	u64 acquisitions;
	u64 locks_taken;		/* >= acquisitions with nested_locks */
	u64 failures;
	u64 waiting_since;		/* local_clock() at lock(); 0 outside */
	u64 turns_given;		/* balance_writers sleeps */
	struct pvq_wait_hist hist;
};

static const struct torture_lock_ops *ops;
static struct torture_slot *slots;
static struct torture_writer *writers;
static int nwriters;
static struct task_struct *control_task;
static DECLARE_COMPLETION(run_done);
static bool run_ended;			/* writers stop acquiring */
static bool run_stalled;		/* the stall watchdog fired */
static atomic_t writers_running;	/* writers still in their loop */
static bool report_printed;
static int writer_stride;		/* writers i and i + stride share a CPU */
static int nslots;			/* locks in slots[]: nlocks, or nwriters */
static u64 run_start_ns, run_end_ns;

/* xorshift32: cheap per-thread randomness for lock choice and long holds. */
static u32 qtorture_random(struct torture_writer *w)
{
	u32 x = w->rand;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	w->rand = x;
	return x;
}

/* The locks of one acquisition, in ascending index order. */
struct torture_lockset {
	int n;
	struct torture_slot *slot[TORTURE_MAX_NESTED];
};

/*
 * One lock at random; with nested_locks, 1 to nested_locks distinct ones.
 * Taken in ascending index order, one global order for every writer, so
 * that no two writers can each hold a lock the other waits for.
 */
static void torture_pick_locks(struct torture_writer *w,
			       struct torture_lockset *set)
{
	u64 mask = 0;
	int want, i;

	if (!nlocks) {		/* a lock of its own: never contended */
		set->n = 1;
		set->slot[0] = &slots[w->id];
		return;
	}
	if (nested_locks <= 1) {
		set->n = 1;
		set->slot[0] = &slots[nlocks > 1 ? qtorture_random(w) % nlocks : 0];
		return;
	}
	/* want <= nested_locks <= nlocks, so this ends. */
	want = 1 + qtorture_random(w) % nested_locks;
	while (hweight64(mask) < want)
		mask |= BIT_ULL(qtorture_random(w) % nlocks);
	set->n = 0;
	for (i = 0; i < nlocks; i++)
		if (mask & BIT_ULL(i))
			set->slot[set->n++] = &slots[i];
}

/*
 * The critical section: nobody else may be inside any of our locks, and
 * each counter update is a plain read-modify-write spread over the
 * section, so any overlap of two holders shows up as an exclusion failure
 * or a lost update.
 */
static void torture_critical_section(struct torture_lockset *set,
				     struct torture_writer *w,
				     unsigned int extra_us)
{
	unsigned long count[TORTURE_MAX_NESTED];
	int i;

	for (i = 0; i < set->n; i++)
		w->failures += torture_slot_enter(set->slot[i], w->id, &count[i]);

	torture_work(cs_loops);
	if (extra_us)
		udelay(extra_us);
	if (long_hold && !(qtorture_random(w) % (2000U * nwriters)))
		mdelay(long_hold);

	for (i = 0; i < set->n; i++)
		w->failures += torture_slot_leave(set->slot[i], w->id, count[i]);
}

/* Fault injection: should this acquisition skip the lock? */
static bool torture_skip_lock(struct torture_writer *w)
{
#ifdef PVQ_TORTURE_FAULTS
	return fault_exclusion && !(w->acquisitions % 64);
#else
	return false;
#endif
}

/*
 * The pvq_* locks, like arch_spin_lock(), need preemption off.  With
 * irqs_disabled, interrupts too: then a PV waiter may not halt on the ipi
 * backend (no IPI could wake it) and must keep spinning instead.
 */
static unsigned long torture_enter(void)
{
	unsigned long flags = 0;

	if (irqs_disabled)
		local_irq_save(flags);
	else
		preempt_disable();
	return flags;
}

static void torture_exit_section(unsigned long flags)
{
	if (irqs_disabled)
		local_irq_restore(flags);
	else
		preempt_enable();
}

/* Fault injection: break the interrupt-context sections too? */
static bool torture_irq_fault(void)
{
#ifdef PVQ_TORTURE_FAULTS
	return fault_irq_exclusion;
#else
	return false;
#endif
}

/* Fault injection: hold the lock until the stall watchdog notices. */
static void torture_fault_stall(struct torture_writer *w)
{
#ifdef PVQ_TORTURE_FAULTS
	if (fault_stall && w->id == 0 && w->acquisitions == 1000)
		while (!READ_ONCE(run_stalled))
			cpu_relax();
#endif
}

/*
 * balance_writers: is @w ahead of a writer that shares its CPU now?
 *
 * Two writers on one CPU never wait for a lock at the same time (lock to
 * unlock runs with preemption off), so no lock can favour one over the
 * other: how they split the CPU is the guest scheduler's doing.  Under
 * overcommit that split is noise.  A guest without steal-time accounting
 * (TCG has none) charges the writer that was running when the host
 * descheduled the vCPU for all the time the vCPU was away, so each
 * writer's real CPU time is the small difference between two large
 * numbers.  Taking turns by acquisitions removes that noise and leaves the
 * per-CPU totals, which are the lock's doing, as they were.
 */
static bool torture_writer_ahead(const struct torture_writer *w)
{
	int cpu = raw_smp_processor_id(), i;
	u64 mine = w->acquisitions, theirs;

	for (i = w->id % writer_stride; i < nwriters; i += writer_stride) {
		if (i == w->id || task_cpu(writers[i].task) != cpu)
			continue;
		theirs = READ_ONCE(writers[i].acquisitions);
		if (mine > theirs + theirs / 8 + TORTURE_TURN_SLACK)
			return true;
	}
	return false;
}

static int torture_writer_fn(void *arg)
{
	struct torture_writer *w = arg;
	struct torture_lockset set;
	unsigned long flags;
	u64 t0, t1;
	int i;

	while (!READ_ONCE(run_ended)) {
		torture_pick_locks(w, &set);

		flags = torture_enter();
		t0 = local_clock();
		/* For the stall watchdog: a waiter that never gets the lock. */
		WRITE_ONCE(w->waiting_since, t0);
		if (torture_skip_lock(w)) {
			/* Stay long enough that a lock holder is sure to overlap. */
			t1 = t0;
			torture_critical_section(&set, w, 500);
		} else {
			for (i = 0; i < set.n; i++)
				ops->lock(&set.slot[i]->lock);
			t1 = local_clock();
			WRITE_ONCE(w->waiting_since, 0);
			torture_critical_section(&set, w, 0);
			torture_fault_stall(w);
			for (i = set.n - 1; i >= 0; i--)
				ops->unlock(&set.slot[i]->lock);
		}
		torture_exit_section(flags);

		pvq_hist_record(&w->hist, t1 - t0);
		WRITE_ONCE(w->locks_taken, w->locks_taken + set.n);
		/* Published for the periodic statistics lines. */
		WRITE_ONCE(w->acquisitions, w->acquisitions + 1);
		torture_work(between_loops);
		cond_resched();
		if (writer_stride && torture_writer_ahead(w)) {
			w->turns_given++;
			schedule_timeout_idle(1);
		}
	}
	atomic_dec(&writers_running);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

struct torture_totals {
	u64 total, max, min, failures, lost, turns;
};

static void torture_sum(struct torture_totals *t)
{
	u64 counted = 0, taken = 0;
	int i;

	memset(t, 0, sizeof(*t));
	t->min = U64_MAX;
	for (i = 0; i < nwriters; i++) {
		u64 acq = READ_ONCE(writers[i].acquisitions);

		t->total += acq;
		t->max = max(t->max, acq);
		t->min = min(t->min, acq);
		t->failures += READ_ONCE(writers[i].failures);
		t->turns += READ_ONCE(writers[i].turns_given);
		taken += READ_ONCE(writers[i].locks_taken);
	}
	for (i = 0; i < nslots; i++)
		counted += READ_ONCE(slots[i].count);
	/* Only meaningful once the writers are quiet; see torture_report(). */
	t->lost = torture_lost(taken, counted);
}

/* locktorture's line: "???" flags unfairness, "!!!" flags failures. */
static void torture_print_writes(const struct torture_totals *t, u64 failures)
{
	torture_alert("Writes:  Total: %llu  Max/Min: %llu/%llu %s  Fail: %llu %s\n",
		      t->total, t->max, t->min,
		      t->max > 2 * t->min ? "???" : "", failures,
		      failures ? "!!!" : "");
}

static void torture_print_params(const char *what)
{
	torture_alert("--- %s: nwriters_stress=%d nlocks=%d nested_locks=%d cs_loops=%d between_loops=%d runtime_secs=%d stat_interval=%d shutdown_secs=%d long_hold=%d irqs_disabled=%d irq_mode=%s bind_writers=%d balance_writers=%d stall_secs=%d verbose=%d onoff_interval_ms=%d onoff_holdoff=%d\n",
		      what, nwriters, nlocks, nested_locks, cs_loops,
		      between_loops, runtime_secs, stat_interval, shutdown_secs,
		      long_hold, irqs_disabled, irq_mode, bind_writers,
		      balance_writers,
		      stall_secs, verbose, onoff_interval_ms, onoff_holdoff);
}

/*
 * " name=value" for every lock event of this run (reset at its start), for
 * the summary line; empty without LOCK_STATS.
 */
static void torture_format_events(char *buf, size_t size)
{
	size_t len = 0;
	int ev;

	buf[0] = '\0';
	if (!PVQ_LOCK_STATS_BUILD)
		return;
	for (ev = 0; ev < PVQ_NR_LOCK_EVENTS; ev++)
		len += scnprintf(buf + len, size - len, " %s=%lu",
				 pvq_lock_event_names[ev],
				 pvq_lock_event_sum(ev));
}

static void torture_report(void)
{
	struct torture_irq_totals irq;
	struct pvq_wait_hist *hist;
	struct torture_totals t;
	char *events;
	u64 *counts, elapsed_ns, per_sec, failures;
	unsigned int jain;
	int i;

	hist = kvzalloc(sizeof(*hist), GFP_KERNEL);
	counts = kcalloc(nwriters, sizeof(*counts), GFP_KERNEL);
	events = kmalloc(TORTURE_EVENTS_LEN, GFP_KERNEL);
	if (!hist || !counts || !events) {
		torture_alert("no memory for the final report\n");
		goto out;
	}
	torture_sum(&t);
	/* Interrupt-context checks count with the writers'. */
	torture_irq_sum(&irq);
	t.failures += irq.failures;
	t.lost += irq.lost;
	for (i = 0; i < nwriters; i++) {
		pvq_hist_merge(hist, &writers[i].hist);
		counts[i] = writers[i].acquisitions;
		if (verbose)
			torture_alert("writer %d: acquisitions=%llu failures=%llu max_wait_ns=%llu\n",
				      i, counts[i], writers[i].failures,
				      writers[i].hist.max);
	}
	if (verbose && irq_mode_val != TORTURE_IRQ_NONE)
		torture_alert("irq: towers=%llu softirq_ms=%llu hardirq_ms=%llu nmi_ms=%llu\n",
			      irq.towers,
			      div_u64(irq.ns[TORTURE_CTX_SOFTIRQ], NSEC_PER_MSEC),
			      div_u64(irq.ns[TORTURE_CTX_HARDIRQ], NSEC_PER_MSEC),
			      div_u64(irq.ns[TORTURE_CTX_NMI], NSEC_PER_MSEC));
	jain = pvq_jain_milli(counts, nwriters);
	elapsed_ns = max_t(u64, run_end_ns - run_start_ns, 1);
	per_sec = mul_u64_u64_div_u64(t.total, NSEC_PER_SEC, elapsed_ns);
	/* A CPU we could not bring back fails the run: the machine is short of it. */
	failures = t.failures + t.lost + run_stalled + torture_onoff_left();

	torture_print_writes(&t, failures);
	torture_format_events(events, TORTURE_EVENTS_LEN);
	torture_onoff_format(events, TORTURE_EVENTS_LEN);
	torture_alert("summary: type=%s threads=%d cpus=%u locks=%d msecs=%llu acq=%llu acq_per_sec=%llu max=%llu min=%llu jain=%u.%03u p50_ns=%llu p99_ns=%llu max_ns=%llu fail=%llu lost=%llu softirq_acq=%llu hardirq_acq=%llu nmi_acq=%llu turns=%llu result=%s%s\n",
		      ops->name, nwriters, num_online_cpus(), nslots,
		      div_u64(elapsed_ns, NSEC_PER_MSEC), t.total, per_sec,
		      t.max, t.min, jain / 1000, jain % 1000,
		      pvq_hist_percentile(hist, 500), pvq_hist_percentile(hist, 990),
		      hist->max, t.failures, t.lost,
		      irq.acq[TORTURE_CTX_SOFTIRQ], irq.acq[TORTURE_CTX_HARDIRQ],
		      irq.acq[TORTURE_CTX_NMI], t.turns,
		      failures ? "FAILURE" : "SUCCESS", events);
	torture_print_params(failures ? "End of test: FAILURE" :
					"End of test: SUCCESS");
out:
	kvfree(hist);
	kfree(counts);
	kfree(events);
}

/*
 * The stall report, after the caller's "STALL:" line: what every lock and
 * queue looks like, which CPUs are halted.  Then a kick to every CPU, so
 * that waiters that lost a wakeup can still leave and the run can end.
 * Runs in hard interrupt context (an hrtimer): with the lock deadlocked
 * every CPU may spin with preemption off, so no thread, not even
 * ksoftirqd, could report anything.
 */
static void torture_report_stall(void)
{
	char prefix[48];
	int i;

	for (i = 0; i < nslots; i++) {
		u32 word = ops->word(&slots[i].lock);

		snprintf(prefix, sizeof(prefix), "%s-torture: lock %d: ",
			 torture_type, i);
		if (ops->queued)
			pvq_diag_print_qspinlock_word(prefix, word);
		else
			torture_alert("lock %d: word %#010x holder=%d\n", i,
				      word, READ_ONCE(slots[i].holder));
	}
	snprintf(prefix, sizeof(prefix), "%s-torture: ", torture_type);
	torture_irq_report_stall(prefix);
	pvq_diag_print_queues(prefix);
	WRITE_ONCE(run_stalled, true);
	pvq_diag_kick_all();
}

static struct hrtimer stall_timer;
static bool stall_armed;
static u64 stall_last_total, stall_last_irq;
static int stall_idle_secs;

/*
 * The writer that has waited longest in its current lock() call, if that
 * is @secs or more: others may go on taking the lock (stealing it past a
 * queue whose head lost its wakeup, say), so no stall shows in the total.
 */
static int torture_starved_writer(int secs, u64 *waited)
{
	u64 now = local_clock(), since;
	int i, who = -1;

	*waited = 0;
	for (i = 0; i < nwriters; i++) {
		since = READ_ONCE(writers[i].waiting_since);
		if (since && now > since && now - since > *waited) {
			*waited = now - since;
			who = i;
		}
	}
	return *waited >= (u64)secs * NSEC_PER_SEC ? who : -1;
}

/*
 * Once a second: has a lock been taken since the last look, by the
 * writers and (with irq_mode) in interrupt context, and has no writer
 * waited stall_secs for its lock?  Each context must progress: a
 * deadlocked lock in one must not hide behind the other.
 */
static enum hrtimer_restart torture_stall_check(struct hrtimer *timer)
{
	bool writers_moved, irq_moved = true;
	struct torture_totals t;
	u64 waited, irq;
	int who;

	if (READ_ONCE(run_ended))
		return HRTIMER_NORESTART;
	torture_sum(&t);
	writers_moved = t.total != stall_last_total;
	stall_last_total = t.total;
	if (torture_irq_active()) {
		irq = torture_irq_progress();
		irq_moved = irq != stall_last_irq;
		stall_last_irq = irq;
	}
	if (writers_moved && irq_moved) {
		stall_idle_secs = 0;
	} else if (++stall_idle_secs >= stall_secs) {
		torture_alert("STALL: no lock acquired%s for %d s\n",
			      writers_moved ? " in interrupt context" : "",
			      stall_idle_secs);
		torture_report_stall();
		return HRTIMER_NORESTART;	/* the control thread ends the run */
	}
	who = torture_starved_writer(stall_secs, &waited);
	if (who >= 0) {
		torture_alert("STALL: writer %d waiting for its lock for %llu ms\n",
			      who, div_u64(waited, NSEC_PER_MSEC));
		torture_report_stall();
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ktime_set(1, 0));
	return HRTIMER_RESTART;
}

/* The (@n mod online CPUs)-th online CPU. */
static int torture_nth_cpu(int n)
{
	int cpu;

	n %= num_online_cpus();
	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

/* Runs on the watchdog's CPU: the timer stays there (until it goes offline). */
static void torture_stall_arm(void *unused)
{
	hrtimer_start(&stall_timer, ktime_set(1, 0),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * The watchdog's CPU: one that no writer is bound to, when there is one.
 * A writer halted with interrupts off (irqs_disabled=1, on the NMI kick)
 * keeps its CPU from running timers: a watchdog there, as on the CPU that
 * happened to load the module, would stay blind to the stall it is for.
 * With a writer on every CPU there is no such CPU; see torture.rst.
 */
static int torture_watchdog_cpu(void)
{
	if (bind_writers && nwriters < num_online_cpus())
		return torture_nth_cpu(num_online_cpus() - 1);
	return -1;
}

static void torture_stall_start(void)
{
	int cpu = torture_watchdog_cpu();

	if (!stall_secs)
		return;
	hrtimer_init(&stall_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	stall_timer.function = torture_stall_check;
	/* Here if that CPU went offline meanwhile (or there is none). */
	if (cpu < 0 || smp_call_function_single(cpu, torture_stall_arm, NULL, 1))
		torture_stall_arm(NULL);
	stall_armed = true;
}

static void torture_stall_stop(void)
{
	if (stall_armed)
		hrtimer_cancel(&stall_timer);
	stall_armed = false;
}

/* Wait up to @secs for the writers to leave their loops. */
static bool torture_writers_wait(int secs)
{
	int waited;

	for (waited = 0; waited < secs * 10; waited++) {
		if (!atomic_read(&writers_running))
			return true;
		schedule_timeout_interruptible(HZ / 10);
	}
	return false;
}

/*
 * Wait for the writers to leave their loops.  Writers still in the lock
 * well after the end have lost their wakeup (or the lock is deadlocked)
 * in the last stall_secs of the run, where the watchdog could not see it:
 * that is a stall too, reported, rescued and counted as one (unless
 * stall_secs=0 turned stall detection off).  Writers that still cannot
 * leave cannot be stopped, and the module pins itself so that it is never
 * unloaded under them.
 */
static bool torture_writers_quiesce(int secs)
{
	if (torture_writers_wait(secs))
		return true;
	if (stall_secs && !READ_ONCE(run_stalled)) {
		torture_alert("STALL: %d writers still in the lock %d s after the end\n",
			      atomic_read(&writers_running), secs);
		torture_report_stall();
		if (torture_writers_wait(secs))
			return true;
	}
	torture_alert("%d writers stuck in the lock: cannot stop them; the module stays loaded\n",
		      atomic_read(&writers_running));
	__module_get(THIS_MODULE);
	return false;
}

/* Stop the writers, then print the final report (once). */
static void torture_end_run(void)
{
	int i;

	if (report_printed)
		return;
	WRITE_ONCE(run_ended, true);
	run_end_ns = local_clock();
	torture_stall_stop();
	/* No handler may run once the module is gone (false: pinned). */
	torture_irq_stop(10);
	if (torture_writers_quiesce(10))
		for (i = 0; i < nwriters; i++)
			if (writers[i].task)
				kthread_stop(writers[i].task);
	/* Every CPU this run took offline is back before the report. */
	torture_onoff_stop();
	torture_report();
	report_printed = true;
}

/* Periodic statistics, and the end of a time-bounded run. */
static int torture_control_fn(void *unused)
{
	int limit = runtime_secs ? runtime_secs : shutdown_secs;
	u64 next_stat = stat_interval;
	struct torture_totals t;
	int secs;

	for (secs = 0; !kthread_should_stop(); secs++) {
		if (limit && secs >= limit)
			break;
		schedule_timeout_interruptible(HZ);
		if (stat_interval && secs + 1 == next_stat) {
			torture_sum(&t);
			torture_print_writes(&t, t.failures);
			next_stat += stat_interval;
		}
		if (READ_ONCE(run_stalled))
			break;
	}
	if ((limit || run_stalled) && !kthread_should_stop()) {
		torture_end_run();
		complete(&run_done);
		if (shutdown_secs) {
			torture_alert("shutdown_secs=%d reached: powering off\n",
				      shutdown_secs);
			kernel_power_off();
		}
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int torture_check_range(const char *name, int val, int min, int max)
{
	if (val >= min && val <= max)
		return 0;
	torture_err("%s=%d out of range [%d..%d]\n", name, val, min, max);
	return -EINVAL;
}

static int torture_check_faults(void)
{
#ifdef PVQ_TORTURE_FAULTS
	fault_exclusion = !strcmp(inject_fault, "exclusion");
	fault_irq_exclusion = !strcmp(inject_fault, "irq_exclusion");
	fault_stall = !strcmp(inject_fault, "stall");
	if (!fault_exclusion && !fault_irq_exclusion && !fault_stall &&
	    strcmp(inject_fault, "none")) {
		torture_err("unknown inject_fault '%s'; valid: none exclusion irq_exclusion stall\n",
			    inject_fault);
		return -EINVAL;
	}
	torture_alert("FAULT INJECTION BUILD: inject_fault=%s\n", inject_fault);
#endif
	return 0;
}

/* CPU hotplug during the run needs a kernel that can do it. */
static int torture_check_onoff(void)
{
	int err;

	err = torture_check_range("onoff_interval_ms", onoff_interval_ms, 0,
				  TORTURE_ONOFF_MAX_MS);
	err |= torture_check_range("onoff_holdoff", onoff_holdoff, 0,
				   TORTURE_ONOFF_MAX_HOLDOFF);
	if (!err && onoff_interval_ms && !IS_ENABLED(CONFIG_HOTPLUG_CPU)) {
		torture_err("onoff_interval_ms=%d: this kernel has no CONFIG_HOTPLUG_CPU; valid: 0\n",
			    onoff_interval_ms);
		err = -EINVAL;
	}
	return err;
}

static int torture_check_params(void)
{
	int err = 0;

	ops = torture_find_ops(torture_type);
	if (!ops) {
		torture_err("unknown torture_type '%s'; built types: %s\n",
			    torture_type, torture_type_names());
		return -EINVAL;
	}
	if (nwriters_stress != -1)
		err |= torture_check_range("nwriters_stress", nwriters_stress,
					   1, TORTURE_MAX_WRITERS);
	err |= torture_check_range("nlocks", nlocks, 0, TORTURE_MAX_LOCKS);
	err |= torture_check_range("nested_locks", nested_locks, 0,
				   TORTURE_MAX_NESTED);
	if (!nlocks && nested_locks > 1) {
		torture_err("nested_locks=%d needs shared locks; nlocks=0 gives each writer one lock\n",
			    nested_locks);
		err = -EINVAL;
	} else if (nlocks && nested_locks > nlocks &&
		   nested_locks <= TORTURE_MAX_NESTED) {
		torture_err("nested_locks=%d out of range [0..%d]: distinct locks, at most nlocks=%d\n",
			    nested_locks, min(nlocks, TORTURE_MAX_NESTED), nlocks);
		err = -EINVAL;
	}
	irq_mode_val = torture_irq_parse(irq_mode);
	if (irq_mode_val < 0) {
		torture_err("unknown irq_mode '%s'; valid: %s\n", irq_mode,
			    torture_irq_mode_names());
		err = -EINVAL;
	}
	err |= torture_check_range("cs_loops", cs_loops, 0, TORTURE_MAX_LOOPS);
	err |= torture_check_range("between_loops", between_loops, 0,
				   TORTURE_MAX_LOOPS);
	err |= torture_check_range("runtime_secs", runtime_secs, 0,
				   TORTURE_MAX_SECS);
	err |= torture_check_range("stat_interval", stat_interval, 0,
				   TORTURE_MAX_SECS);
	err |= torture_check_range("shutdown_secs", shutdown_secs, 0,
				   TORTURE_MAX_SECS);
	err |= torture_check_range("long_hold", long_hold, 0, 1000);
	err |= torture_check_range("verbose", verbose, 0, 2);
	err |= torture_check_range("stall_secs", stall_secs, 0,
				   TORTURE_MAX_SECS);
	err |= torture_check_faults();
	err |= torture_check_onoff();
	return err ? -EINVAL : 0;
}

struct torture_slot *torture_slots_alloc(const struct torture_lock_ops *ops,
					 int n)
{
	struct torture_slot *array = kcalloc(n, sizeof(*array), GFP_KERNEL);
	int i;

	if (!array)
		return NULL;
	for (i = 0; i < n; i++) {
		ops->init(&array[i].lock);
		array[i].holder = -1;
	}
	return array;
}

static void torture_free(void)
{
	torture_irq_free();
	kvfree(writers);
	kfree(slots);
}

static int torture_alloc(void)
{
	int i;

	nwriters = nwriters_stress == -1 ? 2 * num_online_cpus() :
					   nwriters_stress;
	nslots = nlocks ? nlocks : nwriters;
	if (nslots > TORTURE_MAX_LOCKS) {
		torture_err("nlocks=0 with %d writers: a lock each would be %d locks, more than %d\n",
			    nwriters, nslots, TORTURE_MAX_LOCKS);
		return -EINVAL;
	}
	slots = torture_slots_alloc(ops, nslots);
	writers = kvcalloc(nwriters, sizeof(*writers), GFP_KERNEL);
	if (!slots || !writers) {
		torture_free();
		return -ENOMEM;
	}
	for (i = 0; i < nwriters; i++) {
		writers[i].id = i;
		writers[i].rand = 2654435761U * (i + 1);
	}
	return 0;
}

static int torture_start_threads(void)
{
	struct task_struct *task;
	int i, err;

	/* Writers i and i + stride get the same CPU (torture_nth_cpu()). */
	if (bind_writers && balance_writers && nwriters > num_online_cpus())
		writer_stride = num_online_cpus();
	for (i = 0; i < nwriters; i++) {
		task = kthread_create(torture_writer_fn, &writers[i],
				      "qspinlock_torture_w%d", i);
		if (IS_ERR(task))
			return PTR_ERR(task);
		writers[i].task = task;
		/*
		 * Affinity, not kthread_bind(): the scheduler may still move
		 * a writer off a CPU that goes offline.
		 */
		if (bind_writers)
			set_cpus_allowed_ptr(task, cpumask_of(torture_nth_cpu(i)));
	}
	task = kthread_create(torture_control_fn, NULL, "qspinlock_torture_ctl");
	if (IS_ERR(task))
		return PTR_ERR(task);
	control_task = task;

	/*
	 * The watchdog first: once a deadlocked lock has every CPU spinning
	 * with preemption off, this thread would never run again.
	 */
	torture_stall_start();
	/* Before the writers, so that their first waits get interrupted. */
	err = torture_irq_start(ops, irq_mode_val, cs_loops,
				torture_irq_fault());
	if (err)
		return err;
	pvq_lock_events_reset();
	run_start_ns = local_clock();
	for (i = 0; i < nwriters; i++) {
		atomic_inc(&writers_running);
		wake_up_process(writers[i].task);
	}
	wake_up_process(control_task);
	return torture_onoff_start(torture_type, onoff_interval_ms, onoff_holdoff,
				   verbose);
}

static void torture_stop_all(void)
{
	if (control_task)
		kthread_stop(control_task);
	control_task = NULL;
	torture_end_run();
}

static int __init torture_init(void)
{
	int err;

	err = torture_check_params();
	if (err)
		return err;
	err = torture_alloc();
	if (err)
		return err;
	torture_print_params("Start of test");
	err = torture_start_threads();
	if (err) {
		torture_err("cannot start threads: %d\n", err);
		torture_stop_all();
		torture_free();
		return err;
	}
	/* A time-bounded run keeps insmod waiting, so scripts need no timing. */
	if (runtime_secs)
		wait_for_completion(&run_done);
	return 0;
}

static void __exit torture_exit(void)
{
	torture_stop_all();
	torture_free();
}

module_init(torture_init);
module_exit(torture_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Torture test comparing spinlock types under vCPU overcommit");
