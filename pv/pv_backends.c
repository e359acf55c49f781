// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's PV backends: kvm, ipi, nmi, strict and none.  See pv_ops.h
 * for the contract and Documentation/pv.rst for why each one cannot lose a
 * kick; the NMI kick itself is in pv_nmi.c.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/kvm_para.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/processor.h>
/* Since 6.4, smp_send_reschedule() traces the IPI it sends. */
#include <trace/events/ipi.h>

#include "pv_use.h"
#ifdef PVQ_NMI_KICK
#include "pv_nmi.h"
#endif
#include "lock_debug.h"
#include "lock_stats.h"

/*
 * What each CPU is halted on (NULL: not in wait()), for stall reports.
 * Read remotely: kept off the lines of the MCS nodes and of the lock words.
 */
static DEFINE_PER_CPU_ALIGNED(u8 *, pvq_halted_on);

u8 *pvq_pv_halted_on(int cpu)
{
	return READ_ONCE(per_cpu(pvq_halted_on, cpu));
}

static void pvq_mark_halted(u8 *ptr)
{
	this_cpu_write(pvq_halted_on, ptr);
}

/*
 * ipi and strict halt with "sti; hlt" and are woken by a reschedule IPI:
 * a context that runs with interrupts off (NMI included) could never be
 * woken, so it must not start the halt protocol at all.
 */
static bool pvq_ipi_can_wait(void)
{
	return !irqs_disabled() && !in_nmi();
}

/*
 * ipi: works on any hypervisor (and under TCG).  The waiter checks *ptr with
 * interrupts disabled and halts with "sti; hlt": an interrupt posted after
 * the check stays pending until the sti shadow ends, so the hlt wakes at
 * once.  With interrupts disabled by the caller no IPI could wake us, so we
 * never halt then: the caller simply keeps spinning.
 */
static void pvq_ipi_wait(u8 *ptr, u8 val)
{
	if (!pvq_ipi_can_wait())
		return;
	local_irq_disable();
	if (READ_ONCE(*ptr) == val) {
		pvq_mark_halted(ptr);
		safe_halt();		/* sti; hlt: returns with irqs on */
		pvq_mark_halted(NULL);
	} else {
		local_irq_enable();
	}
}

/*
 * ipi, nmi and strict: no reschedule IPI and no NMI to a CPU outside
 * cpu_online_mask.  x86 refuses such an IPI (it WARNs and sends nothing),
 * an outgoing CPU's local APIC is soft-disabled right after it leaves the
 * mask, and the kernel runs no NMI handler there; so not sending loses no
 * wake-up that sending could have delivered.  Such CPUs do take spinlocks
 * - an incoming one before set_cpu_online() (vector_lock in
 * start_secondary(), rcu_cpu_starting()), an outgoing one once it left
 * the mask (rcu_report_dead() in the idle loop) - but with interrupts
 * off, where these backends never halt there (pvq_ipi_can_wait(),
 * pvq_nmi_reaches_us()): a waiter of ours there spins, and needs no kick.
 * (The kvm kick has no such check: on kvm those waiters halt, see
 * pvq_kvm_kick().)
 *
 * The check cannot go stale before the IPI, which would trip x86's WARN:
 * every kick comes from a lock or unlock path, with preemption off, from
 * the deferred-kick irq_work below, or from the stall watchdog's hard
 * interrupt; a CPU leaves cpu_online_mask only inside stop_machine(),
 * which must run on every online CPU, the kicker's included; and a kicker
 * outside the mask is in the middle of its own bring-up or teardown,
 * during which no other CPU can go offline (hotplug is serialized).
 */
static bool pvq_kick_target_online(int cpu)
{
	PVQ_DEBUG_WARN(preemptible());
	if (likely(cpu_online(cpu)))
		return true;
	pvq_stat_inc(kick_offline);
	return false;
}

/*
 * Kicks from NMI context.  An unlock in an NMI must kick like any other: a
 * lock that NMIs only trylock is taken in every context, and its halted
 * queue head waits for that kick.  But the reschedule IPI cannot be sent
 * from an NMI: on xAPIC an IPI is two register writes (ICR2, then ICR), and
 * an NMI that sends one between another sender's two writes redirects that
 * sender's IPI.  So the NMI records the target here and raises an irq_work
 * on its own CPU (a self-IPI, which needs no ICR2 and which irq_work
 * documents as NMI-safe); the work runs as a hard interrupt as soon as the
 * NMI returns and sends the IPIs.  The wake-up is late by one NMI exit,
 * never lost.
 */
struct pvq_nmi_kicks {
	struct irq_work work;
	int pending;			/* targets may be set */
	struct cpumask targets;
};

static void pvq_ring(int cpu);

/* Send the kicks deferred on this CPU; never from NMI context. */
static void pvq_send_deferred_kicks(struct pvq_nmi_kicks *k)
{
	int cpu;

	/*
	 * Clear the hint, then test-and-clear each target before its send:
	 * an NMI that records a target after our look sets the hint again
	 * after it (and queues the work again: it is no longer pending
	 * while it runs), so no target is left unsent.
	 */
	WRITE_ONCE(k->pending, 0);
	for_each_cpu(cpu, &k->targets)
		if (cpumask_test_and_clear_cpu(cpu, &k->targets))
			pvq_ring(cpu);
}

static void pvq_nmi_kicks_work(struct irq_work *work)
{
	pvq_send_deferred_kicks(container_of(work, struct pvq_nmi_kicks,
					     work));
}

static DEFINE_PER_CPU_ALIGNED(struct pvq_nmi_kicks, pvq_nmi_kicks) = {
	.work = IRQ_WORK_INIT_HARD(pvq_nmi_kicks_work),
};

static void pvq_defer_kick(int cpu)
{
	struct pvq_nmi_kicks *k = this_cpu_ptr(&pvq_nmi_kicks);

	/* Atomic: a sender may be testing and clearing on this CPU. */
	cpumask_set_cpu(cpu, &k->targets);
	WRITE_ONCE(k->pending, 1);
	pvq_stat_inc(kick_deferred);
	irq_work_queue(&k->work);
}

/*
 * A waiter spinning with interrupts off: the irq_work of a kick that an
 * NMI deferred on this CPU cannot run until it stops, and the CPU that
 * kick wakes may be the one it waits for (the NMI released the lock to a
 * halted queue head, and we are queued behind that head).  So it sends
 * them itself: outside NMI context an IPI is safe (senders keep
 * interrupts off between the two ICR writes, and only an NMI can come
 * between them).
 */
static void pvq_ipi_spinning(void)
{
	struct pvq_nmi_kicks *k = this_cpu_ptr(&pvq_nmi_kicks);

	if (unlikely(READ_ONCE(k->pending)) && !in_nmi())
		pvq_send_deferred_kicks(k);
}

/* ipi's doorbell: a reschedule IPI to an online CPU. */
static void pvq_ipi_ring(int cpu)
{
	if (pvq_kick_target_online(cpu))
		smp_send_reschedule(cpu);
}

static bool pvq_nmi_kick_from_nmi(int cpu);

static void pvq_ipi_kick(int cpu)
{
	if (likely(!in_nmi()))
		pvq_ring(cpu);
	else if (!pvq_nmi_kick_from_nmi(cpu))
		pvq_defer_kick(cpu);
}

#ifdef PVQ_NMI_KICK
/*
 * nmi: ipi, except that a waiter with interrupts off halts too, and its
 * kicker wakes it with an NMI (pv_nmi.c).  The kicker must know which of
 * the two its waiter waits for: each wait says so here before its check.
 * A wait can interrupt another on its CPU (a hard interrupt that waits,
 * with interrupts off, in the middle of a task's wait with them on): it
 * puts back the way of the wait it interrupted when it ends.
 */
static DEFINE_PER_CPU_ALIGNED(bool, pvq_woken_by_nmi);

static bool pvq_wait_way_begin(bool by_nmi)
{
	bool prev = this_cpu_read(pvq_woken_by_nmi);

	this_cpu_write(pvq_woken_by_nmi, by_nmi);
	/*
	 * Full barrier: the way before the check of the wait.  Pairs with
	 * the one in pvq_nmi_ring() between the kicker's change and its
	 * read of the way: a kicker that still reads the previous way made
	 * its change visible to our check, which then does not halt.
	 */
	smp_mb();
	return prev;
}

static void pvq_wait_way_end(bool prev)
{
	this_cpu_write(pvq_woken_by_nmi, prev);
	/*
	 * Full barrier, for the wait we interrupted: its kicker may have
	 * read our way, and sent its NMI to us; then its change is visible
	 * to that wait's check, which comes after this.
	 */
	smp_mb();
}

/*
 * nmi and strict: can an NMI end this CPU's halt with interrupts off, and
 * our handler close the window before it?  Not outside cpu_online_mask:
 * the kernel runs no NMI handler there (exc_nmi() returns at once, the
 * FRED entry too), so a kick that landed between the check and the hlt
 * would be lost, and its waiter halted for good.  Yet CPUs take spinlocks
 * there, with interrupts off (see pvq_kick_target_online()): such a
 * waiter spins.  The answer holds for a whole acquisition: a CPU enters
 * and leaves the mask only itself, with interrupts off, outside any lock
 * section (start_secondary(), take_cpu_down()).
 */
static bool pvq_nmi_reaches_us(void)
{
	return cpu_online(smp_processor_id()) && pvq_nmi_works();
}

/* nmi and strict: the waits that cannot halt. */
static bool pvq_nmi_cannot_wait(void)
{
	/* An NMI never halts: it would halt the kicker it may wait for. */
	return in_nmi() || (irqs_disabled() && !pvq_nmi_reaches_us());
}

static void pvq_nmi_wait(u8 *ptr, u8 val)
{
	bool prev;

	if (pvq_nmi_cannot_wait())
		return;
	prev = pvq_wait_way_begin(irqs_disabled());
	if (!irqs_disabled()) {
		pvq_ipi_wait(ptr, val);
	} else if (READ_ONCE(*ptr) == val) {
		pvq_mark_halted(ptr);
		/*
		 * The kicks deferred on this CPU (an NMI's unlock) wait for
		 * an interrupt that cannot come while we halt, and one of
		 * them may wake the CPU we wait for: send them first.
		 */
		pvq_ipi_spinning();
		pvq_nmi_wait_u8(ptr, val);
		pvq_mark_halted(NULL);
	}
	pvq_wait_way_end(prev);
}

/* nmi's and strict's doorbell: as the waiter said it waits. */
static void pvq_nmi_ring(int cpu)
{
	/*
	 * Full barrier: the change this kick announces before the read of
	 * the way.  Pairs with pvq_wait_way_begin() and _end().
	 */
	smp_mb();
	if (!READ_ONCE(per_cpu(pvq_woken_by_nmi, cpu))) {
		pvq_ipi_ring(cpu);
		return;
	}
	/*
	 * No NMI to a CPU outside cpu_online_mask (its waiters with
	 * interrupts off spin, pvq_nmi_reaches_us()): no mark either, which
	 * no handler there would claim.  Read barrier: the way before the
	 * mask.  A waiter that came online since set its bit before its way
	 * (and a full barrier between), so reading its way we see it online.
	 */
	smp_rmb();
	if (pvq_kick_target_online(cpu))
		pvq_nmi_send(cpu);
}

static bool pvq_nmi_can_wait(void)
{
	return !pvq_nmi_cannot_wait();
}

/*
 * A kick from NMI context to a waiter that an NMI wakes (nmi, strict):
 * sent at once where the APIC is in x2APIC mode, where an IPI is one MSR
 * write that no other sender's NMI can split (see pvq_defer_kick()).
 * Deferred, it would wait for an irq_work on this CPU, which cannot run
 * while this CPU spins with interrupts off: if it spins for the halted
 * waiter outside the PV slow path (a bit spinlock, a flag), neither ever
 * runs again.  On xAPIC the kick is still deferred, and that case stays
 * (Documentation/pv.rst, "NMI context").  A waiter that an IPI wakes (ipi
 * never sets the way) can wait: any interrupt ends its halt.  True if it
 * was sent (or the CPU is not online).
 */
static bool pvq_nmi_kick_from_nmi(int cpu)
{
	if (!x2apic_mode)
		return false;
	/* Full barrier, as in pvq_nmi_ring(): the change before the way. */
	smp_mb();
	if (!READ_ONCE(per_cpu(pvq_woken_by_nmi, cpu)))
		return false;
	smp_rmb();	/* The way before the mask, as in pvq_nmi_ring(). */
	if (likely(cpu_online(cpu)))
		pvq_nmi_send(cpu);
	else
		pvq_stat_inc(kick_offline);
	return true;
}

/*
 * strict: nmi, except that a wait ends only on a kick, as on a hypervisor
 * that unhalts a vCPU only for KVM_HC_KICK_CPU.  Waiters with interrupts
 * off halt too, as on KVM: in every context but NMI, and on every CPU
 * whose NMIs reach our handler (not during a CPU's bring-up and teardown,
 * pvq_nmi_reaches_us(), where KVM would halt).  Under ipi any interrupt (the timer
 * tick) ends a halt and the caller re-checks its condition, so a lost kick
 * costs only latency and goes unnoticed; here it halts its waiter for
 * good, and the torture module's stall watchdog reports it.  A correctness
 * tool: with a correct protocol every halted waiter is kicked.
 *
 * The kick is a per-CPU count (the message) plus a doorbell (the
 * reschedule IPI, or the NMI for a waiter with interrupts off).  A wait
 * reads the count before it checks *ptr, and halts until the count moves:
 * a kick that lands after that read, before the halt included, ends the
 * wait; one that landed before it made its change to *ptr visible first,
 * so the check sees it and there is no halt.  Nobody consumes a kick: a
 * softirq or hard interrupt that waits on another lock between the
 * kicker's count and its doorbell cannot take the kick away from the wait
 * it interrupted (it can only end that wait early, a spurious return,
 * which the contract allows).
 */
static DEFINE_PER_CPU_ALIGNED(atomic_t, pvq_strict_kicks);

/* Halt until the kick count moves from @seen, with interrupts off. */
static void pvq_strict_halt(atomic_t *kicks, int seen, bool by_nmi)
{
	while (atomic_read(kicks) == seen) {
		if (by_nmi) {
			/* As in pvq_nmi_wait().  Any NMI ends it: test again. */
			pvq_ipi_spinning();
			pvq_nmi_wait_u32((u32 *)&kicks->counter, seen);
		} else {
			/*
			 * Interrupts off from each test to the sti of
			 * safe_halt(): an IPI after the test still ends the
			 * hlt.  Any interrupt ends it: test again.
			 */
			safe_halt();
			local_irq_disable();
		}
	}
}

static void pvq_strict_wait(u8 *ptr, u8 val)
{
	atomic_t *kicks = this_cpu_ptr(&pvq_strict_kicks);
	unsigned long flags;
	bool prev;
	int seen;

	if (pvq_nmi_cannot_wait())
		return;
	prev = pvq_wait_way_begin(irqs_disabled());
	/*
	 * Acquire: the count before *ptr.  Pairs with the full barrier in
	 * pvq_strict_kick(): a kick we do not count yet is one whose change
	 * we may not see yet, and that kick moves the count later.
	 */
	seen = atomic_read_acquire(kicks);
	local_irq_save(flags);
	if (READ_ONCE(*ptr) == val) {
		pvq_mark_halted(ptr);
		pvq_strict_halt(kicks, seen, arch_irqs_disabled_flags(flags));
		pvq_mark_halted(NULL);
	}
	local_irq_restore(flags);
	pvq_wait_way_end(prev);
}

static void pvq_strict_kick(int cpu)
{
	/*
	 * Full barrier: what this kick announces (the released lock, the
	 * hand-over) is visible before the count moves.  Counted even for
	 * an offline CPU, which gets no IPI and waits for nothing.
	 */
	smp_mb__before_atomic();
	atomic_inc(per_cpu_ptr(&pvq_strict_kicks, cpu));
	/* Full barrier: the count before the doorbell, which the woken waiter sees. */
	smp_mb__after_atomic();
	pvq_ipi_kick(cpu);
}
#else
/* Without the NMI kick, a kick from NMI context is always deferred. */
static bool pvq_nmi_kick_from_nmi(int cpu)
{
	return false;
}
#endif /* PVQ_NMI_KICK */

/*
 * none: nothing halts.  The PV queued locks never get here: with none
 * they run native (pvq_pv_native, pv_ops.h).  The PV ticket lock does,
 * and spins through its hooks: it "can wait" (and returns at once).
 */
static bool pvq_none_can_wait(void)
{
	return true;
}

/* kvm and none defer nothing. */
static void pvq_nothing_deferred(void)
{
}

static void pvq_none_wait(u8 *ptr, u8 val)
{
}

static void pvq_none_kick(int cpu)
{
}

/*
 * kvm: halt, and let the KVM_HC_KICK_CPU hypercall unhalt us.  KVM wakes a
 * halted vCPU on that hypercall even with interrupts disabled, so unlike ipi
 * this backend halts in either case; only an NMI never halts (it would
 * halt the context it interrupted, which may be the kicker it waits for).
 */
static bool pvq_kvm_can_wait(void)
{
	return !in_nmi();
}

static void pvq_kvm_wait(u8 *ptr, u8 val)
{
	unsigned long flags;

	if (!pvq_kvm_can_wait())
		return;
	local_irq_save(flags);
	if (READ_ONCE(*ptr) != val)
		goto out;
	pvq_mark_halted(ptr);
	if (arch_irqs_disabled_flags(flags))
		halt();
	else
		safe_halt();
	pvq_mark_halted(NULL);
out:
	local_irq_restore(flags);
}

/*
 * A hypercall, no IPI: as good from NMI context as from any other.  And
 * to any possible CPU, online or not.  CPUs outside cpu_online_mask take
 * spinlocks with interrupts off: an incoming one before set_cpu_online()
 * (start_secondary()'s vector_lock, rcu_cpu_starting()'s rcu_node lock),
 * an outgoing one once it has left the mask (rcu_report_dead()).  On kvm
 * a contended waiter there halts with interrupts off, and only this kick
 * ends that halt: dropping it, as the IPI backends drop theirs, would halt
 * that CPU for good.  KVM unhalts whichever vCPU has the APIC id, whatever
 * the guest's online mask says (an APIC id no vCPU has is ignored).
 */
static void pvq_kvm_kick(int cpu)
{
	kvm_hypercall2(KVM_HC_KICK_CPU, 0, per_cpu(x86_cpu_to_apicid, cpu));
}

static const struct pvq_pv_ops pvq_pv_ipi = {
	.name = "ipi", .can_wait = pvq_ipi_can_wait,
	.wait = pvq_ipi_wait, .kick = pvq_ipi_kick,
	.spinning = pvq_ipi_spinning,
};

#ifdef PVQ_NMI_KICK
static const struct pvq_pv_ops pvq_pv_nmi = {
	.name = "nmi", .can_wait = pvq_nmi_can_wait,
	.wait = pvq_nmi_wait, .kick = pvq_ipi_kick,
	.spinning = pvq_ipi_spinning,
};

static const struct pvq_pv_ops pvq_pv_strict = {
	.name = "strict", .can_wait = pvq_nmi_can_wait,
	.wait = pvq_strict_wait, .kick = pvq_strict_kick,
	.spinning = pvq_ipi_spinning,
};
#endif

/* The doorbell of the backend in use, for a kick sent outside NMI context. */
static void pvq_ring(int cpu)
{
#ifdef PVQ_NMI_KICK
	if (pvq_pv != &pvq_pv_ipi) {
		pvq_nmi_ring(cpu);
		return;
	}
#endif
	pvq_ipi_ring(cpu);
}

static const struct pvq_pv_ops pvq_pv_none = {
	.name = "none", .can_wait = pvq_none_can_wait,
	.wait = pvq_none_wait, .kick = pvq_none_kick,
	.spinning = pvq_nothing_deferred,
};

static const struct pvq_pv_ops pvq_pv_kvm = {
	.name = "kvm", .can_wait = pvq_kvm_can_wait,
	.wait = pvq_kvm_wait, .kick = pvq_kvm_kick,
	.spinning = pvq_nothing_deferred,
};

/* ipi until pvq_pv_select() chooses: see pvq_pv_use(). */
const struct pvq_pv_ops *pvq_pv = &pvq_pv_ipi;
DEFINE_STATIC_CALL(pvq_pv_can_wait, pvq_ipi_can_wait);
DEFINE_STATIC_CALL(pvq_pv_wait, pvq_ipi_wait);
DEFINE_STATIC_CALL(pvq_pv_kick, pvq_ipi_kick);
DEFINE_STATIC_CALL(pvq_pv_spinning, pvq_ipi_spinning);
const char *pvq_pv_reason = "default";
/* Native until pvq_pv_select() chooses a backend that halts (pv_ops.h). */
DEFINE_STATIC_KEY_TRUE(pvq_pv_native);
int pvq_spin_threshold = PVQ_SPIN_THRESHOLD_DEFAULT;
int pvq_spin_threshold_ns = PVQ_SPIN_THRESHOLD_NS_DEFAULT;
int pvq_queue_spin_threshold = PVQ_QUEUE_SPIN_THRESHOLD_DEFAULT;

/*
 * The base of the KVM CPUID leaves, or 0 without KVM.  Found by hand:
 * kvm_para_has_feature() is not usable from a module in 6.1 (its helper is
 * not exported).  The leaves may sit at any 0x100 step of the range.
 */
static unsigned int pvq_kvm_cpuid_base(void)
{
	unsigned int base, eax, sig[3];

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR) || !kvm_para_available())
		return 0;
	for (base = KVM_CPUID_SIGNATURE; base < 0x40010000; base += 0x100) {
		cpuid(base, &eax, &sig[0], &sig[1], &sig[2]);
		if (!memcmp(sig, "KVMKVMKVM\0\0\0", 12))
			return base;
	}
	return 0;
}

static bool pvq_kvm_has_pv_unhalt(void)
{
	unsigned int base = pvq_kvm_cpuid_base();

	return base && (cpuid_eax(base + KVM_CPUID_FEATURES -
				  KVM_CPUID_SIGNATURE) &
			BIT(KVM_FEATURE_PV_UNHALT));
}

static bool pvq_kvm_hints_realtime(void)
{
	unsigned int base = pvq_kvm_cpuid_base();

	return base && (cpuid_edx(base + KVM_CPUID_FEATURES -
				  KVM_CPUID_SIGNATURE) &
			BIT(KVM_HINTS_REALTIME));
}

/*
 * "auto": no halting where it cannot pay (as upstream turns PV spinlocks
 * off): with one CPU nobody else can hold a lock we wait for; on bare
 * metal, or when the host dedicates a physical CPU to every vCPU
 * (KVM_HINTS_REALTIME), the holder always runs.  Without KVM's PV unhalt,
 * the NMI kick: with the IPI kick alone a waiter with interrupts off
 * (most of the kernel's own) cannot halt, and spins through a preempted
 * holder's time slice (Documentation/performance.rst, "The NMI kick").
 */
static const struct pvq_pv_ops *pvq_pv_auto(const char **reason)
{
	if (num_possible_cpus() == 1) {
		*reason = "one possible CPU: nothing to wait for";
		return &pvq_pv_none;
	}
	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR)) {
		*reason = "bare metal: lock holders are never preempted by a host";
		return &pvq_pv_none;
	}
	if (pvq_kvm_hints_realtime()) {
		*reason = "KVM_HINTS_REALTIME: vCPUs are never preempted";
		return &pvq_pv_none;
	}
	if (pvq_kvm_has_pv_unhalt()) {
		*reason = "the hypervisor offers KVM PV unhalt";
		return &pvq_pv_kvm;
	}
#ifdef PVQ_NMI_KICK
	*reason = "no KVM PV unhalt: kick with an IPI, or an NMI where interrupts are off";
	return &pvq_pv_nmi;
#else
	*reason = "no KVM PV unhalt: kick with an IPI (no NMI kick in this build)";
	return &pvq_pv_ipi;
#endif
}

#ifdef PVQ_NMI_KICK
/* The NMI kick: not where a waiter cannot halt for an NMI. */
static int pvq_nmi_check(const char *name, const struct pvq_pv_ops **ops,
			 const char **reason)
{
	const char *unsafe;

	unsafe = (*ops == &pvq_pv_nmi || *ops == &pvq_pv_strict) ?
		 pvq_nmi_unsafe_here() : NULL;
	if (unsafe && !strcmp(name, "auto")) {
		*reason = unsafe;
		*ops = &pvq_pv_ipi;
	} else if (unsafe) {
		*reason = unsafe;
		return -ENODEV;
	}
	return 0;
}
#else
static int pvq_nmi_check(const char *name, const struct pvq_pv_ops **ops,
			 const char **reason)
{
	return 0;
}
#endif

int pvq_pv_choose(const char *name, const struct pvq_pv_ops **ops,
		  const char **reason)
{
	*reason = "chosen by pv_backend";
	if (!strcmp(name, "auto"))
		*ops = pvq_pv_auto(reason);
	else if (!strcmp(name, "ipi"))
		*ops = &pvq_pv_ipi;
#ifdef PVQ_NMI_KICK
	else if (!strcmp(name, "nmi"))
		*ops = &pvq_pv_nmi;
	else if (!strcmp(name, "strict"))
		*ops = &pvq_pv_strict;
#else
	else if (!strcmp(name, "nmi") || !strcmp(name, "strict"))
		*ops = NULL;
#endif
	else if (!strcmp(name, "none"))
		*ops = &pvq_pv_none;
	else if (!strcmp(name, "kvm"))
		*ops = pvq_kvm_has_pv_unhalt() ? &pvq_pv_kvm : NULL;
	else
		return -EINVAL;
	if (!*ops) {
		*reason = strcmp(name, "kvm") ?
			  "this kernel is built without the NMI kick (PVQ_NMI_KICK)" :
			  "the hypervisor does not offer KVM PV unhalt";
		return -ENODEV;
	}
	return pvq_nmi_check(name, ops, reason);
}

#ifdef PVQ_NMI_KICK
/* Why the NMI kick is not in use, where it was asked for. */
static const char pvq_nmi_selftest_failed[] =
	"the NMI kick's self-test failed: an NMI in its window was not moved past it";
static const char pvq_nmi_selftest_failed_auto[] =
	"no KVM PV unhalt, NMI kick self-test failed: kick with an IPI";
static const char pvq_nmi_no_handler_auto[] =
	"no KVM PV unhalt, no NMI handler: kick with an IPI";

/* The NMI handler is registered (nmi, strict): pvq_pv_exit() removes it. */
static bool pvq_nmi_in_use;

/*
 * Before the first wait that an NMI must end (nmi, strict): register the
 * handler and run the kick's self-test.  Where either fails, auto's
 * choice falls back to the IPI kick; a backend asked for by name is
 * refused.
 */
static int pvq_nmi_start(const char *name, const struct pvq_pv_ops **ops,
			 const char **reason)
{
	int err;

	if (*ops != &pvq_pv_nmi && *ops != &pvq_pv_strict)
		return 0;
	err = pvq_nmi_init();
	if (!err) {
		err = pvq_nmi_selftest();
		if (err)
			pvq_nmi_exit();
	}
	if (!err) {
		pvq_nmi_in_use = true;
	} else if (*ops == &pvq_pv_nmi && !strcmp(name, "auto")) {
		/* auto's choice only: the IPI kick still works. */
		*reason = err == -EIO ? pvq_nmi_selftest_failed_auto :
			  pvq_nmi_no_handler_auto;
		*ops = &pvq_pv_ipi;
	} else {
		pvq_pv_reason = err == -EIO ? pvq_nmi_selftest_failed :
				"its NMI handler cannot be registered";
		return err;
	}
	return 0;
}

static void pvq_nmi_stop(void)
{
	if (pvq_nmi_in_use)
		pvq_nmi_exit();
}
#else
static int pvq_nmi_start(const char *name, const struct pvq_pv_ops **ops,
			 const char **reason)
{
	return 0;
}

static void pvq_nmi_stop(void)
{
}
#endif /* PVQ_NMI_KICK */

/* A backend was chosen, for good (pvq_pv_select()). */
static bool pvq_pv_chosen;

int pvq_pv_select(const char *name)
{
	const struct pvq_pv_ops *ops;
	const char *reason;
	int err;

	/*
	 * Once: a second choice would flip pvq_pv_native, or change the
	 * kick, under CPUs that hold or wait on the locks (PV to native
	 * drops the kick of a halted queue head; native to PV leaves a
	 * native head waiting for a pending byte that holds pass counts).
	 * A choice that failed changed nothing, and may be made again.
	 */
	if (WARN_ON_ONCE(pvq_pv_chosen))
		return -EBUSY;
	err = pvq_pv_choose(name, &ops, &reason);
	if (err) {
		/* Why it was refused, for the caller's message. */
		pvq_pv_reason = reason;
		return err;
	}
	err = pvq_nmi_start(name, &ops, &reason);
	if (err)
		return err;
	pvq_pv_reason = reason;
	pvq_pv_use(ops);
	pvq_pv_chosen = true;
	/* Once, before any PV lock is contended: see pv_ops.h. */
	if (ops == &pvq_pv_none)
		static_branch_enable(&pvq_pv_native);
	else
		static_branch_disable(&pvq_pv_native);
	return 0;
}

void pvq_pv_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu(pvq_nmi_kicks, cpu).work);
	pvq_nmi_stop();
}
