// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's PV backends: kvm, ipi, strict and none.  See pv_ops.h for
 * the contract and Documentation/pv.rst for why each one cannot lose a kick.
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kvm_para.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/apic.h>
#include <asm/processor.h>

#include "pv_ops.h"
#include "lock_debug.h"
#include "lock_stats.h"

/* What each CPU is halted on (NULL: not in wait()), for stall reports. */
static DEFINE_PER_CPU(u8 *, pvq_halted_on);

u8 *pvq_pv_halted_on(int cpu)
{
	return READ_ONCE(per_cpu(pvq_halted_on, cpu));
}

static void pvq_mark_halted(u8 *ptr)
{
	this_cpu_write(pvq_halted_on, ptr);
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
	if (irqs_disabled())
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
 * An offline CPU waits for nothing (a CPU goes offline only between two
 * lock sections, see Documentation/pv.rst), and must not get an IPI: x86
 * WARNs on a reschedule IPI to an offline CPU.  The check cannot go stale
 * before the kick: every kick comes from a lock or unlock path, with
 * preemption off, or from the stall watchdog's hard interrupt, and a CPU
 * leaves cpu_online_mask only inside stop_machine(), which needs this CPU
 * too.
 */
static bool pvq_kick_target_online(int cpu)
{
	PVQ_DEBUG_WARN(preemptible());
	if (likely(cpu_online(cpu)))
		return true;
	pvq_stat_inc(kick_offline);
	return false;
}

static void pvq_ipi_kick(int cpu)
{
	/*
	 * Not from NMI context: an xAPIC IPI is two register writes (ICR2,
	 * then ICR), so an IPI sent from an NMI that interrupted another
	 * sender between them would redirect that sender's IPI.  Nothing is
	 * lost: a lock released in NMI context is taken in NMI context only
	 * (an NMI can interrupt any other holder on its CPU), and its waiters
	 * never halt, since wait() above does not with interrupts off.
	 */
	if (in_nmi())
		return;
	if (pvq_kick_target_online(cpu))
		smp_send_reschedule(cpu);
}

/*
 * strict: ipi, except that a wait ends only on a kick, as on a hypervisor
 * that unhalts a vCPU only for KVM_HC_KICK_CPU.  Under ipi any interrupt
 * (the timer tick) ends a halt and the caller re-checks its condition, so a
 * lost kick costs only latency and goes unnoticed; here it halts its waiter
 * for good, and the torture module's stall watchdog reports it.  A
 * correctness tool: with a correct protocol every halted waiter is kicked.
 *
 * The kick is a per-CPU flag (the message) plus the reschedule IPI (the
 * doorbell); the waiter consumes the flag before every halt, so a kick that
 * lands before the halt, or even before the wait, is never lost.  A flag
 * left by a kick whose waiter had already gone ends the next wait at once:
 * a spurious return, which the contract allows.
 */
static DEFINE_PER_CPU(int, pvq_strict_kicked);

static void pvq_strict_wait(u8 *ptr, u8 val)
{
	int *kicked = this_cpu_ptr(&pvq_strict_kicked);

	/* As ipi: nothing could wake us, so the caller keeps spinning. */
	if (irqs_disabled())
		return;
	local_irq_disable();
	if (READ_ONCE(*ptr) == val) {
		pvq_mark_halted(ptr);
		/*
		 * Full barrier (xchg): the kicker made its change visible
		 * before it set the flag (see pvq_strict_kick()), so once we
		 * have consumed the flag the caller's re-check sees the
		 * change.  With interrupts off from the test to the sti of
		 * safe_halt(), an IPI after the test still ends the hlt.
		 */
		while (!xchg(kicked, 0)) {
			safe_halt();	/* any interrupt ends it: test again */
			local_irq_disable();
		}
		pvq_mark_halted(NULL);
	}
	local_irq_enable();
}

static void pvq_strict_kick(int cpu)
{
	/*
	 * Full barrier (xchg): what this kick announces (the released lock,
	 * the hand-over) is visible before the flag, and the flag before the
	 * IPI, so the woken waiter finds both.  Set even for an offline CPU,
	 * which gets no IPI: a stale flag costs one spurious return.
	 */
	(void)xchg(per_cpu_ptr(&pvq_strict_kicked, cpu), 1);
	pvq_ipi_kick(cpu);
}

/* none: pure spinning, to measure what the PV hooks cost by themselves. */
static void pvq_none_wait(u8 *ptr, u8 val)
{
}

static void pvq_none_kick(int cpu)
{
}

/*
 * kvm: halt, and let the KVM_HC_KICK_CPU hypercall unhalt us.  KVM wakes a
 * halted vCPU on that hypercall even with interrupts disabled, so unlike ipi
 * this backend halts in either case.
 */
static void pvq_kvm_wait(u8 *ptr, u8 val)
{
	unsigned long flags;

	if (in_nmi())
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

static void pvq_kvm_kick(int cpu)
{
	if (pvq_kick_target_online(cpu))
		kvm_hypercall2(KVM_HC_KICK_CPU, 0,
			       per_cpu(x86_cpu_to_apicid, cpu));
}

static const struct pvq_pv_ops pvq_pv_ipi = {
	.name = "ipi", .wait = pvq_ipi_wait, .kick = pvq_ipi_kick,
};

static const struct pvq_pv_ops pvq_pv_strict = {
	.name = "strict", .wait = pvq_strict_wait, .kick = pvq_strict_kick,
};

static const struct pvq_pv_ops pvq_pv_none = {
	.name = "none", .wait = pvq_none_wait, .kick = pvq_none_kick,
};

static const struct pvq_pv_ops pvq_pv_kvm = {
	.name = "kvm", .wait = pvq_kvm_wait, .kick = pvq_kvm_kick,
};

const struct pvq_pv_ops *pvq_pv = &pvq_pv_ipi;
int pvq_spin_threshold = PVQ_SPIN_THRESHOLD_DEFAULT;

/*
 * KVM_FEATURE_PV_UNHALT, found through CPUID: kvm_para_has_feature() is not
 * usable from a module in 6.1 (its helper is not exported).  The KVM leaves
 * may sit at any 0x100 step of the hypervisor range.
 */
static bool pvq_kvm_has_pv_unhalt(void)
{
	unsigned int base, eax, sig[3];

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR) || !kvm_para_available())
		return false;
	for (base = KVM_CPUID_SIGNATURE; base < 0x40010000; base += 0x100) {
		cpuid(base, &eax, &sig[0], &sig[1], &sig[2]);
		if (!memcmp(sig, "KVMKVMKVM\0\0\0", 12))
			return cpuid_eax(base + 1) & BIT(KVM_FEATURE_PV_UNHALT);
	}
	return false;
}

int pvq_pv_select(const char *name)
{
	bool kvm = pvq_kvm_has_pv_unhalt();

	if (!strcmp(name, "auto"))
		pvq_pv = kvm ? &pvq_pv_kvm : &pvq_pv_ipi;
	else if (!strcmp(name, "ipi"))
		pvq_pv = &pvq_pv_ipi;
	else if (!strcmp(name, "strict"))
		pvq_pv = &pvq_pv_strict;
	else if (!strcmp(name, "none"))
		pvq_pv = &pvq_pv_none;
	else if (!strcmp(name, "kvm"))
		pvq_pv = kvm ? &pvq_pv_kvm : NULL;
	else
		return -EINVAL;
	if (!pvq_pv) {
		pvq_pv = &pvq_pv_ipi;
		return -ENODEV;
	}
	return 0;
}
