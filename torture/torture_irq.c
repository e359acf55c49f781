// SPDX-License-Identifier: GPL-2.0
/*
 * qspinlock_torture: locks taken from interrupt context (irq_mode).
 *
 * A queued lock gives each CPU one MCS node per context that can nest an
 * acquisition: task, softirq, hardirq, NMI.  A deeper node is used only
 * when a context has to queue while the context it interrupted is queued
 * too.  Interrupts that merely arrive often seldom do that (a queued lock
 * queues only its third contender, and interrupt sections are short), so
 * the nesting is built on purpose, as a "tower":
 *
 *  - one CPU, the builder, takes the softirq lock in a softirq and keeps
 *    it while it makes every other CPU run a softirq section (an IPI that
 *    schedules a tasklet), until some of them wait for that lock;
 *  - still holding it, it raises a hard interrupt on itself (irq_work),
 *    takes the hardirq lock there, and makes every other CPU run a
 *    hard-interrupt section (an IPI), on top of their waiting softirqs,
 *    until some of them wait for it;
 *  - still holding both, it sends NMIs to every CPU, in a few waves: the
 *    first NMI section of a wave to get the NMI lock keeps it until others
 *    wait for it.
 *
 * Every wait of the builder is bounded (TORTURE_TOWER_HOLD_NS), so a CPU
 * that does not answer (a vCPU the host does not run) only makes the
 * tower lower, and a section that would arrive after its level is done
 * is skipped rather than make the queue longer.  Per-CPU softirq and
 * hard-interrupt hrtimers take their locks as a steady load between
 * towers; the builder is whichever CPU's timer finds a tower due.  A
 * budget keeps the time spent in interrupt sections to
 * TORTURE_IRQ_SHARE_PCT of each CPU, so that the writers keep running.
 *
 * Why this cannot deadlock: each lock is only ever taken from one kind of
 * context, and a context never interrupts another of its own kind on the
 * same CPU (softirqs do not nest, hard-interrupt handlers run with
 * interrupts off, NMIs do not nest).  So whoever holds our lock, or is
 * queued ahead of us, runs on another CPU, and what interrupts it there
 * takes locks of other sets only: NMI sections always finish, hence
 * hard-interrupt sections, hence softirq sections, hence the writers.
 * The builder's holds end by themselves.  Were a lock shared by two
 * contexts, the interrupting one could spin forever on a lock that the
 * interrupted one holds on the same CPU.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "torture_irq.h"

/* The steady timers of every CPU fire on this grid. */
#define TORTURE_IRQ_PERIOD_NS	(500 * NSEC_PER_USEC)
/* A new tower at most this often... */
#define TORTURE_TOWER_GAP_NS	(1 * NSEC_PER_MSEC)
/* ...its builder waiting at most this long at each level... */
#define TORTURE_TOWER_HOLD_NS	(500 * NSEC_PER_USEC)
/* ...for this many other CPUs to wait there (a pending one, a queued one)... */
#define TORTURE_TOWER_WAITERS	2
/* ...and sending this many waves of NMIs on top. */
#define TORTURE_TOWER_NMI_WAVES	4
/* Interrupt sections take at most this share of a CPU's time... */
#define TORTURE_IRQ_SHARE_PCT	50
/* ...after this much from the start. */
#define TORTURE_IRQ_ALLOW_NS	(20 * NSEC_PER_MSEC)
/* Interrupt-context sections stay short whatever cs_loops says. */
#define TORTURE_IRQ_MAX_LOOPS	1000
/* An NMI of ours not claimed after this long is lost (its CPU went offline). */
#define TORTURE_NMI_LOST_NS	NSEC_PER_SEC
/* inject_fault=irq_exclusion: skip the lock once in this many sections... */
#define TORTURE_IRQ_FAULT_EVERY	16
/* ...and stay this long, so that a lock holder is sure to overlap. */
#define TORTURE_IRQ_FAULT_NS	(100 * NSEC_PER_USEC)

static const char *const torture_irq_names[] = {
	[TORTURE_IRQ_NONE] = "none",
	[TORTURE_IRQ_HARDIRQ] = "hardirq",
	[TORTURE_IRQ_SOFTIRQ] = "softirq",
	[TORTURE_IRQ_MIXED] = "mixed",
};

static const char *const torture_ctx_names[] = {
	[TORTURE_CTX_SOFTIRQ] = "softirq",
	[TORTURE_CTX_HARDIRQ] = "hardirq",
	[TORTURE_CTX_NMI] = "nmi",
};

struct torture_irq_cpu {
	struct hrtimer soft_timer;
	struct hrtimer hard_timer;
	struct tasklet_struct tasklet;	/* a softirq section, on request */
	/* IPIs to this CPU, indexed by the context they start. */
	call_single_data_t csd[TORTURE_CTX_NMI];
	atomic_t ipi_pending[TORTURE_CTX_NMI];	/* csd ours until handled */
	atomic64_t nmi_sent;		/* when an NMI of ours was sent here */
	unsigned long waiting;		/* BIT(ctx): this context is in lock() */
	unsigned long inside;		/* BIT(ctx): our handler of it runs */
	int depth;			/* our sections nested here */
	u64 spent_ns;			/* in outermost sections: the budget */
	/*
	 * Counters of the contexts on this CPU: one context of a kind runs
	 * on a CPU at a time, so each field has one writer at a time.
	 */
	u64 acq[TORTURE_NR_IRQ_CTX];
	u64 fail[TORTURE_NR_IRQ_CTX];
	u64 ns[TORTURE_NR_IRQ_CTX];
};

static const struct torture_lock_ops *irq_ops;
static int irq_mode;
static int irq_cs_loops;
static bool irq_fault;
static struct torture_slot *irq_slots;		/* one lock per context */
static struct torture_irq_cpu __percpu *irq_cpus;
static bool irq_stopping;			/* handlers: do nothing more */
static bool irq_nmi_registered;
static bool irq_pinned;
static ktime_t irq_grid;
static u64 irq_start_ns;

/* The tower under construction (one at a time). */
static atomic_t tower_busy;
static atomic64_t tower_next_ns;		/* earliest start of the next */
static atomic64_t towers_built;
static unsigned long tower_open;		/* BIT(ctx): level being built */
static atomic_t tower_nmi_hold;			/* 1: an NMI section may hold */
static bool tower_hard_done;			/* the builder's hard level */
static struct irq_work tower_work;		/* the builder's hard level */

int torture_irq_parse(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(torture_irq_names); i++)
		if (!strcmp(name, torture_irq_names[i]))
			return i;
	return -EINVAL;
}

const char *torture_irq_mode_names(void)
{
	static char names[64];
	size_t len = 0;
	int i;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(torture_irq_names); i++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? " " : "", torture_irq_names[i]);
	return names;
}

static bool torture_irq_has(enum torture_irq_ctx ctx)
{
	switch (ctx) {
	case TORTURE_CTX_SOFTIRQ:
		return irq_mode == TORTURE_IRQ_SOFTIRQ ||
		       irq_mode == TORTURE_IRQ_MIXED;
	case TORTURE_CTX_HARDIRQ:
		return irq_mode == TORTURE_IRQ_HARDIRQ ||
		       irq_mode == TORTURE_IRQ_MIXED;
	default:
		return irq_mode == TORTURE_IRQ_MIXED;
	}
}

static u64 torture_irq_now(void)
{
	/* NMI-safe, and cheap. */
	return ktime_get_mono_fast_ns();
}

/*
 * Every handler brackets its work with these.  False: the run is stopping,
 * do nothing.
 */
static bool torture_irq_enter(enum torture_irq_ctx ctx)
{
	/* this_cpu ops: one instruction, safe against nested contexts. */
	this_cpu_or(irq_cpus->inside, BIT(ctx));
	/*
	 * Full barrier: either torture_irq_stop() sees us inside, or we see
	 * irq_stopping and send nothing (pairs with its smp_mb()).
	 */
	smp_mb();
	return !READ_ONCE(irq_stopping);
}

static void torture_irq_exit(enum torture_irq_ctx ctx)
{
	/* Full barrier: our sends and accesses come before the "left" mark. */
	smp_mb();
	this_cpu_and(irq_cpus->inside, ~BIT(ctx));
}

/* Within this CPU's share of time for interrupt sections? */
static bool torture_irq_budget_ok(void)
{
	u64 elapsed = torture_irq_now() - irq_start_ns;

	return this_cpu_read(irq_cpus->spent_ns) * 100 <=
	       elapsed * TORTURE_IRQ_SHARE_PCT + TORTURE_IRQ_ALLOW_NS * 100;
}

/* Busy-wait for @ns, on the NMI-safe clock of every other timing here. */
static void torture_irq_spin(u64 ns)
{
	u64 end = torture_irq_now() + ns;

	while (torture_irq_now() < end)
		cpu_relax();
}

/* Fault injection: enter this section without the lock? */
static bool torture_irq_skip_lock(struct torture_irq_cpu *c,
				  enum torture_irq_ctx ctx)
{
	return irq_fault && !(c->acq[ctx] % TORTURE_IRQ_FAULT_EVERY);
}

/*
 * One acquisition from interrupt context, checked like a writer's: nobody
 * else inside, and a plain read-modify-write of the counter spread over
 * the section.  The CPU number tells the holders of one lock apart: one
 * context of a kind runs on a CPU at a time.  @hold, if any, runs while
 * the lock is held.
 */
static void torture_irq_section(enum torture_irq_ctx ctx, void (*hold)(void))
{
	struct torture_irq_cpu *c = this_cpu_ptr(irq_cpus);
	struct torture_slot *slot = &irq_slots[ctx];
	int fails, id = smp_processor_id();
	bool skip = torture_irq_skip_lock(c, ctx);
	u64 t0 = torture_irq_now();
	unsigned long count;
	/* Only the outermost section is charged: it spans the nested ones. */
	bool outer = this_cpu_inc_return(irq_cpus->depth) == 1;

	if (!skip) {
		this_cpu_or(irq_cpus->waiting, BIT(ctx));
		irq_ops->lock(&slot->lock);
		this_cpu_and(irq_cpus->waiting, ~BIT(ctx));
	}

	fails = torture_slot_enter(slot, id, &count);
	if (hold)
		hold();
	torture_work(irq_cs_loops);
	/* Stay long enough that a lock holder is sure to overlap. */
	if (skip)
		torture_irq_spin(TORTURE_IRQ_FAULT_NS);
	fails += torture_slot_leave(slot, id, count);

	if (!skip)
		irq_ops->unlock(&slot->lock);

	t0 = torture_irq_now() - t0;
	c->ns[ctx] += t0;
	if (outer)
		this_cpu_add(irq_cpus->spent_ns, t0);
	this_cpu_dec(irq_cpus->depth);
	/* Published for the stall watchdog and the statistics lines. */
	if (fails)
		WRITE_ONCE(c->fail[ctx], c->fail[ctx] + fails);
	WRITE_ONCE(c->acq[ctx], c->acq[ctx] + 1);
}

/* How many contexts of kind @ctx wait for their lock on other CPUs. */
static int torture_irq_waiters(enum torture_irq_ctx ctx, int self)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu)
		if (cpu != self &&
		    READ_ONCE(per_cpu_ptr(irq_cpus, cpu)->waiting) & BIT(ctx))
			n++;
	return n;
}

/* Spin until other CPUs wait at level @ctx, or for a while. */
static void torture_tower_await(enum torture_irq_ctx ctx)
{
	int self = smp_processor_id();
	int want = min_t(int, TORTURE_TOWER_WAITERS, num_online_cpus() - 1);
	u64 end = torture_irq_now() + TORTURE_TOWER_HOLD_NS;

	while (torture_irq_waiters(ctx, self) < want &&
	       torture_irq_now() < end)
		cpu_relax();
}

/* Start a section of context @ctx (softirq or hardirq) on @cpu. */
static void torture_irq_send_ipi(int cpu, enum torture_irq_ctx ctx)
{
	struct torture_irq_cpu *c = per_cpu_ptr(irq_cpus, cpu);

	/*
	 * The csd is not reusable until the kernel has picked it up, and
	 * smp_call_function_single_async()'s own busy check is not atomic
	 * against other senders: claim it first.
	 */
	if (atomic_cmpxchg(&c->ipi_pending[ctx], 0, 1))
		return;
	if (smp_call_function_single_async(cpu, &c->csd[ctx]))
		atomic_set(&c->ipi_pending[ctx], 0);	/* went offline */
}

/*
 * An NMI of ours is on its way to @c: sent, not claimed yet, and not so
 * long ago that it must be lost (an offline CPU ignores NMIs, and one that
 * comes back online has forgotten them).
 */
static bool torture_nmi_in_flight(struct torture_irq_cpu *c, u64 now)
{
	u64 sent = atomic64_read(&c->nmi_sent);

	return sent && now - sent < TORTURE_NMI_LOST_NS;
}

static void torture_irq_send_nmi(int cpu)
{
	struct torture_irq_cpu *c = per_cpu_ptr(irq_cpus, cpu);
	u64 now = torture_irq_now();
	s64 sent = atomic64_read(&c->nmi_sent);

	/*
	 * At most one NMI in flight per CPU, so that every NMI that finds
	 * the mark set is ours and every one of ours finds it set (NMIs
	 * coalesce; an unclaimed one would be "unknown").  The cmpxchg is
	 * fully ordered: the mark is visible before the IPI is sent.
	 */
	if (torture_nmi_in_flight(c, now) ||
	    atomic64_cmpxchg(&c->nmi_sent, sent, now) != sent)
		return;
	apic->send_IPI(cpu, NMI_VECTOR);
}

static void torture_tower_ipis(enum torture_irq_ctx ctx)
{
	int cpu, self = smp_processor_id();

	for_each_online_cpu(cpu)
		if (cpu != self)
			torture_irq_send_ipi(cpu, ctx);
}

/* No NMI of ours pending or running on an online CPU. */
static bool torture_irq_nmis_done(void)
{
	u64 now = torture_irq_now();
	struct torture_irq_cpu *c;
	int cpu;

	for_each_online_cpu(cpu) {
		c = per_cpu_ptr(irq_cpus, cpu);
		if (torture_nmi_in_flight(c, now) ||
		    READ_ONCE(c->inside) & BIT(TORTURE_CTX_NMI))
			return false;
	}
	return true;
}

/* The builder's top level: waves of NMIs to every CPU, itself last. */
static void torture_tower_nmis(void)
{
	int cpu, self = smp_processor_id(), wave;
	u64 end;

	WRITE_ONCE(tower_open, tower_open | BIT(TORTURE_CTX_NMI));
	for (wave = 0; wave < TORTURE_TOWER_NMI_WAVES; wave++) {
		atomic_set(&tower_nmi_hold, 1);
		for_each_online_cpu(cpu)
			if (cpu != self)
				torture_irq_send_nmi(cpu);
		torture_irq_send_nmi(self);
		end = torture_irq_now() + 2 * TORTURE_TOWER_HOLD_NS;
		while (!torture_irq_nmis_done() && torture_irq_now() < end)
			cpu_relax();
		atomic_set(&tower_nmi_hold, 0);
	}
	WRITE_ONCE(tower_open, tower_open & ~BIT(TORTURE_CTX_NMI));
}

/* The builder, holding the hardirq lock in a hard interrupt. */
static void torture_tower_hard(void)
{
	WRITE_ONCE(tower_open, tower_open | BIT(TORTURE_CTX_HARDIRQ));
	torture_tower_ipis(TORTURE_CTX_HARDIRQ);
	torture_tower_await(TORTURE_CTX_HARDIRQ);
	if (torture_irq_has(TORTURE_CTX_NMI))
		torture_tower_nmis();
	WRITE_ONCE(tower_open, tower_open & ~BIT(TORTURE_CTX_HARDIRQ));
}

static void torture_tower_work(struct irq_work *work)
{
	if (torture_irq_enter(TORTURE_CTX_HARDIRQ))
		torture_irq_section(TORTURE_CTX_HARDIRQ, torture_tower_hard);
	WRITE_ONCE(tower_hard_done, true);
	torture_irq_exit(TORTURE_CTX_HARDIRQ);
}

/* The builder, holding the softirq lock in a softirq. */
static void torture_tower_soft(void)
{
	u64 end;

	WRITE_ONCE(tower_open, BIT(TORTURE_CTX_SOFTIRQ));
	torture_tower_ipis(TORTURE_CTX_SOFTIRQ);
	torture_tower_await(TORTURE_CTX_SOFTIRQ);
	if (!torture_irq_has(TORTURE_CTX_HARDIRQ))
		goto out;
	/* Our own hard interrupt, on top of this softirq: the next level. */
	WRITE_ONCE(tower_hard_done, false);
	if (!irq_work_queue(&tower_work))
		goto out;	/* the last one is still running */
	end = torture_irq_now() +
	      (2 + 2 * TORTURE_TOWER_NMI_WAVES) * TORTURE_TOWER_HOLD_NS;
	while (!READ_ONCE(tower_hard_done) && torture_irq_now() < end)
		cpu_relax();
out:
	WRITE_ONCE(tower_open, 0);
}

/* A late answer to a tower (its level is done) only makes queues longer. */
static bool torture_tower_open(enum torture_irq_ctx ctx)
{
	return READ_ONCE(tower_open) & BIT(ctx);
}

/*
 * From a timer of context @ctx: build a tower if one is due, from the
 * lowest level this mode has.  Returns whether it did.
 */
static bool torture_tower_try(enum torture_irq_ctx ctx)
{
	enum torture_irq_ctx base = torture_irq_has(TORTURE_CTX_SOFTIRQ) ?
				    TORTURE_CTX_SOFTIRQ : TORTURE_CTX_HARDIRQ;

	if (ctx != base || torture_irq_now() < atomic64_read(&tower_next_ns) ||
	    atomic_cmpxchg(&tower_busy, 0, 1))
		return false;
	torture_irq_section(ctx, ctx == TORTURE_CTX_SOFTIRQ ?
			    torture_tower_soft : torture_tower_hard);
	atomic64_inc(&towers_built);
	atomic64_set(&tower_next_ns, torture_irq_now() + TORTURE_TOWER_GAP_NS);
	atomic_set(&tower_busy, 0);
	return true;
}

/* IPI: a hard-interrupt section of a tower. */
static void torture_irq_ipi_hard(void *info)
{
	struct torture_irq_cpu *c = info;

	if (torture_irq_enter(TORTURE_CTX_HARDIRQ) &&
	    torture_tower_open(TORTURE_CTX_HARDIRQ))
		torture_irq_section(TORTURE_CTX_HARDIRQ, NULL);
	/* The kernel is done with the csd before it calls us. */
	atomic_set(&c->ipi_pending[TORTURE_CTX_HARDIRQ], 0);
	torture_irq_exit(TORTURE_CTX_HARDIRQ);
}

/* IPI: a softirq section of a tower, as soon as this interrupt returns. */
static void torture_irq_ipi_soft(void *info)
{
	struct torture_irq_cpu *c = info;

	if (torture_irq_enter(TORTURE_CTX_HARDIRQ))
		tasklet_schedule(&c->tasklet);
	atomic_set(&c->ipi_pending[TORTURE_CTX_SOFTIRQ], 0);
	torture_irq_exit(TORTURE_CTX_HARDIRQ);
}

static void torture_irq_tasklet(struct tasklet_struct *t)
{
	if (torture_irq_enter(TORTURE_CTX_SOFTIRQ) &&
	    torture_tower_open(TORTURE_CTX_SOFTIRQ))
		torture_irq_section(TORTURE_CTX_SOFTIRQ, NULL);
	torture_irq_exit(TORTURE_CTX_SOFTIRQ);
}

/*
 * The steady timers: a section each tick, within the budget, unless a
 * tower is being built (its queues are long enough); and the towers.
 */
static enum hrtimer_restart torture_irq_timer(struct hrtimer *timer,
					      enum torture_irq_ctx ctx)
{
	enum hrtimer_restart ret = HRTIMER_NORESTART;

	if (torture_irq_enter(ctx)) {
		if (torture_irq_budget_ok() && !torture_tower_try(ctx) &&
		    !atomic_read(&tower_busy))
			torture_irq_section(ctx, NULL);
		/* Stays on the grid, skipping the ticks that it overran. */
		hrtimer_forward_now(timer, ns_to_ktime(TORTURE_IRQ_PERIOD_NS));
		ret = HRTIMER_RESTART;
	}
	torture_irq_exit(ctx);
	return ret;
}

static enum hrtimer_restart torture_irq_hard_fn(struct hrtimer *timer)
{
	return torture_irq_timer(timer, TORTURE_CTX_HARDIRQ);
}

static enum hrtimer_restart torture_irq_soft_fn(struct hrtimer *timer)
{
	return torture_irq_timer(timer, TORTURE_CTX_SOFTIRQ);
}

/* The first NMI section of a wave keeps its lock for the others. */
static void torture_tower_nmi_hold(void)
{
	torture_tower_await(TORTURE_CTX_NMI);
}

static int torture_irq_nmi(unsigned int type, struct pt_regs *regs)
{
	struct torture_irq_cpu *c = this_cpu_ptr(irq_cpus);
	bool ours, run;

	/* Entered before the claim, so torture_irq_stop() waits for us. */
	run = torture_irq_enter(TORTURE_CTX_NMI);
	/* Claim even when stopping: an NMI nobody claims is "unknown". */
	ours = atomic64_xchg(&c->nmi_sent, 0);
	if (ours && run && torture_tower_open(TORTURE_CTX_NMI))
		torture_irq_section(TORTURE_CTX_NMI,
				    atomic_cmpxchg(&tower_nmi_hold, 1, 0) ?
				    torture_tower_nmi_hold : NULL);
	torture_irq_exit(TORTURE_CTX_NMI);
	return ours ? NMI_HANDLED : NMI_DONE;
}

/* On each CPU: start its timers, pinned to it, on the shared grid. */
static void torture_irq_arm(void *unused)
{
	struct torture_irq_cpu *c = this_cpu_ptr(irq_cpus);

	if (torture_irq_has(TORTURE_CTX_HARDIRQ))
		hrtimer_start(&c->hard_timer, irq_grid,
			      HRTIMER_MODE_ABS_PINNED_HARD);
	if (torture_irq_has(TORTURE_CTX_SOFTIRQ))
		hrtimer_start(&c->soft_timer, irq_grid,
			      HRTIMER_MODE_ABS_PINNED_SOFT);
}

int torture_irq_start(const struct torture_lock_ops *ops, int mode,
		      int cs_loops, bool fault)
{
	struct torture_irq_cpu *c;
	int cpu, err;

	irq_ops = ops;
	irq_mode = mode;
	irq_cs_loops = min(cs_loops, TORTURE_IRQ_MAX_LOOPS);
	irq_fault = fault;
	if (mode == TORTURE_IRQ_NONE)
		return 0;

	irq_slots = torture_slots_alloc(ops, TORTURE_NR_IRQ_CTX);
	irq_cpus = alloc_percpu(struct torture_irq_cpu);
	if (!irq_slots || !irq_cpus) {
		/* Nothing to stop: the timers are not even initialised. */
		torture_irq_free();
		return -ENOMEM;
	}
	/* Every possible CPU's, so that torture_irq_stop() may cancel all. */
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(irq_cpus, cpu);
		hrtimer_init(&c->hard_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_HARD);
		c->hard_timer.function = torture_irq_hard_fn;
		hrtimer_init(&c->soft_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_SOFT);
		c->soft_timer.function = torture_irq_soft_fn;
		tasklet_setup(&c->tasklet, torture_irq_tasklet);
		INIT_CSD(&c->csd[TORTURE_CTX_SOFTIRQ], torture_irq_ipi_soft, c);
		INIT_CSD(&c->csd[TORTURE_CTX_HARDIRQ], torture_irq_ipi_hard, c);
	}
	init_irq_work(&tower_work, torture_tower_work);

	if (torture_irq_has(TORTURE_CTX_NMI)) {
		err = register_nmi_handler(NMI_LOCAL, torture_irq_nmi, 0,
					   KBUILD_MODNAME);
		if (err)
			return err;
		irq_nmi_registered = true;
	}

	irq_start_ns = torture_irq_now();
	atomic64_set(&tower_next_ns, irq_start_ns);
	irq_grid = ktime_add_ns(ktime_get(), TORTURE_IRQ_PERIOD_NS);
	/* CPUs that come online later get no timers; that is fine. */
	cpus_read_lock();
	on_each_cpu(torture_irq_arm, NULL, 1);
	cpus_read_unlock();
	return 0;
}

/* Cancel @timer, waiting for a running handler until @deadline. */
static bool torture_irq_cancel(struct hrtimer *timer, unsigned long deadline)
{
	while (hrtimer_try_to_cancel(timer) < 0) {
		if (time_after(jiffies, deadline))
			return false;
		cond_resched();
		cpu_relax();
	}
	return true;
}

/*
 * No handler of ours runs, and no IPI or NMI of ours is on its way (a CPU
 * that goes offline runs its queued IPI functions before it goes).  The
 * "inside" marks first: a handler that
 * left has made its sends visible (acquire), and one that enters now sees
 * irq_stopping and sends nothing.
 */
static bool torture_irq_idle(void)
{
	struct torture_irq_cpu *c;
	u64 now;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(irq_cpus, cpu);
		/* Acquire: pairs with the full barrier of torture_irq_exit(). */
		if (smp_load_acquire(&c->inside))
			return false;
	}
	now = torture_irq_now();

	for_each_online_cpu(cpu) {
		c = per_cpu_ptr(irq_cpus, cpu);
		if (atomic_read(&c->ipi_pending[TORTURE_CTX_SOFTIRQ]) ||
		    atomic_read(&c->ipi_pending[TORTURE_CTX_HARDIRQ]) ||
		    torture_nmi_in_flight(c, now))
			return false;
	}
	return true;
}

bool torture_irq_stop(int secs)
{
	unsigned long deadline = jiffies + secs * HZ;
	bool quiet = true;
	int cpu;

	if (!irq_cpus || irq_pinned)
		return !irq_pinned;
	WRITE_ONCE(irq_stopping, true);
	/* Full barrier: pairs with the one in torture_irq_enter(). */
	smp_mb();
	/* The timers first: they start every chain of IPIs and NMIs. */
	for_each_possible_cpu(cpu) {
		quiet &= torture_irq_cancel(&per_cpu_ptr(irq_cpus, cpu)->hard_timer,
					    deadline);
		quiet &= torture_irq_cancel(&per_cpu_ptr(irq_cpus, cpu)->soft_timer,
					    deadline);
	}
	while (quiet && !torture_irq_idle()) {
		if (time_after(jiffies, deadline))
			quiet = false;
		else
			schedule_timeout_uninterruptible(1);
	}
	if (!quiet) {
		/* A handler is stuck in a lock: never unload under it. */
		pr_alert("qspinlock_torture: interrupt handlers stuck in a lock: the module stays loaded\n");
		__module_get(THIS_MODULE);
		irq_pinned = true;
		return false;
	}
	/* A tower's hard level that outlived its builder's wait. */
	irq_work_sync(&tower_work);
	/* Scheduled by IPIs that are done now; they see irq_stopping. */
	for_each_possible_cpu(cpu)
		tasklet_kill(&per_cpu_ptr(irq_cpus, cpu)->tasklet);
	/*
	 * A handler may still be in its last instructions after its mark:
	 * wait for every one that started (they run with interrupts off, or
	 * under rcu_read_lock() for NMIs).  unregister_nmi_handler() waits
	 * for that itself.
	 */
	if (irq_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, KBUILD_MODNAME);
	else
		synchronize_rcu();
	irq_nmi_registered = false;
	return true;
}

void torture_irq_free(void)
{
	if (irq_pinned)
		return;
	free_percpu(irq_cpus);
	irq_cpus = NULL;
	kfree(irq_slots);
	irq_slots = NULL;
}

void torture_irq_sum(struct torture_irq_totals *t)
{
	struct torture_irq_cpu *c;
	u64 total = 0, counted = 0;
	int cpu, ctx;

	memset(t, 0, sizeof(*t));
	if (!irq_cpus || !irq_slots)
		return;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(irq_cpus, cpu);
		for (ctx = 0; ctx < TORTURE_NR_IRQ_CTX; ctx++) {
			t->acq[ctx] += READ_ONCE(c->acq[ctx]);
			t->ns[ctx] += READ_ONCE(c->ns[ctx]);
			t->failures += READ_ONCE(c->fail[ctx]);
		}
	}
	for (ctx = 0; ctx < TORTURE_NR_IRQ_CTX; ctx++) {
		total += t->acq[ctx];
		counted += READ_ONCE(irq_slots[ctx].count);
	}
	t->lost = torture_lost(total, counted);
	t->towers = atomic64_read(&towers_built);
}

u64 torture_irq_progress(void)
{
	struct torture_irq_totals t;

	torture_irq_sum(&t);
	return t.acq[TORTURE_CTX_SOFTIRQ] + t.acq[TORTURE_CTX_HARDIRQ] +
	       t.acq[TORTURE_CTX_NMI];
}

bool torture_irq_active(void)
{
	return irq_mode != TORTURE_IRQ_NONE && irq_cpus &&
	       !READ_ONCE(irq_stopping);
}

void torture_irq_report_stall(const char *prefix)
{
	int ctx;

	if (!irq_slots)
		return;
	for (ctx = 0; ctx < TORTURE_NR_IRQ_CTX; ctx++)
		if (torture_irq_has(ctx))
			pr_alert("%s%s lock: word %#010x holder=%d\n", prefix,
				 torture_ctx_names[ctx],
				 irq_ops->word(&irq_slots[ctx].lock),
				 READ_ONCE(irq_slots[ctx].holder));
}

