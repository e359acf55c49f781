// SPDX-License-Identifier: GPL-2.0
/*
 * pv_unhalt_check.ko: KVM's PV spinlock interface as a guest sees it, for
 * the testbed that brings it to QEMU's TCG (qemu/patches/, -cpu
 * max,kvm-pv-unhalt=on; Documentation/testbeds.rst).
 *
 * expect=pvunhalt (the default), each check one line "pv_unhalt_check:
 * ok NAME" or "pv_unhalt_check: not ok NAME: WHY":
 *  - CPUID 0x40000000 holds KVM's signature and 0x40000001 the
 *    KVM_FEATURE_PV_UNHALT bit, and no other feature or hint;
 *  - KVM_HC_KICK_CPU, by vmcall and by vmmcall, returns 0 and wakes a
 *    CPU halted with interrupts off (which stays halted until then);
 *  - a kick to a running CPU makes its next hlt return at once, and is
 *    used up by it (the hlt after that halts until the next kick);
 *  - a hypercall of another number returns -KVM_ENOSYS.
 * expect=none: CPUID 0x40000000 and 0x40000001 hold nothing of KVM's.
 * dump=1: CPU 0's CPUID leaves, one "pv_unhalt_check: cpuid" line each,
 * for the host to compare between QEMU binaries.
 *
 * The load fails (-EINVAL) if any check failed.  A CPU that a kick did not
 * wake is rescued with an NMI (claimed by this module), so that a broken
 * kick fails the test instead of hanging the guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include <asm/apic.h>
#include <linux/kvm_para.h>
#include <asm/kvm_para.h>
#include <asm/nmi.h>
#include <asm/processor.h>

static char *expect = "pvunhalt";
module_param(expect, charp, 0444);
MODULE_PARM_DESC(expect, "pvunhalt: KVM's PV unhalt must be there; none: nothing of KVM's");

static bool dump;
module_param(dump, bool, 0444);
MODULE_PARM_DESC(dump, "Print CPU 0's CPUID leaves");

static int pvu_failed;

static void pvu_ok(const char *name)
{
	pr_info("ok %s\n", name);
}

static __printf(2, 3) void pvu_not_ok(const char *name, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("not ok %s: %pV\n", name, &vaf);
	va_end(args);
	pvu_failed++;
}

/* --- CPUID ---------------------------------------------------------- */

static void pvu_cpuid_leaves(u32 leaf, u32 regs[4])
{
	cpuid_count(leaf, 0, &regs[0], &regs[1], &regs[2], &regs[3]);
}

static void pvu_check_cpuid_kvm(void)
{
	u32 sig[4], feat[4];

	pvu_cpuid_leaves(KVM_CPUID_SIGNATURE, sig);
	pvu_cpuid_leaves(KVM_CPUID_FEATURES, feat);
	if (memcmp(&sig[1], "KVMKVMKVM\0\0\0", 12) || sig[0] < KVM_CPUID_FEATURES)
		pvu_not_ok("cpuid 0x40000000 is KVM's",
			   "eax=%#x ebx=%#x ecx=%#x edx=%#x", sig[0], sig[1],
			   sig[2], sig[3]);
	else
		pvu_ok("cpuid 0x40000000 is KVM's");
	if (feat[0] != BIT(KVM_FEATURE_PV_UNHALT) || feat[3])
		pvu_not_ok("cpuid 0x40000001: PV unhalt, nothing else",
			   "eax=%#x (want %#lx) edx=%#x (want 0)", feat[0],
			   BIT(KVM_FEATURE_PV_UNHALT), feat[3]);
	else
		pvu_ok("cpuid 0x40000001: PV unhalt, nothing else");
}

static void pvu_check_cpuid_none(void)
{
	u32 sig[4], feat[4];

	pvu_cpuid_leaves(KVM_CPUID_SIGNATURE, sig);
	pvu_cpuid_leaves(KVM_CPUID_FEATURES, feat);
	if (!memcmp(&sig[1], "KVMKVMKVM\0\0\0", 12) || feat[0] || feat[3])
		pvu_not_ok("cpuid 0x40000000-1 hold nothing of KVM's",
			   "signature %.12s, features %#x, hints %#x",
			   (char *)&sig[1], feat[0], feat[3]);
	else
		pvu_ok("cpuid 0x40000000-1 hold nothing of KVM's");
}

/* Subleaves of the leaves that have them. */
static u32 pvu_subleaves(u32 leaf)
{
	switch (leaf) {
	case 0x4: case 0x7: case 0xb: case 0xd: case 0x12: case 0x14:
	case 0x1f:
		return 4;
	}
	return 1;
}

static void pvu_dump_range(u32 first, u32 last)
{
	u32 leaf, sub, r[4];

	for (leaf = first; leaf <= last && leaf - first < 0x40; leaf++) {
		for (sub = 0; sub < pvu_subleaves(leaf); sub++) {
			cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]);
			pr_info("cpuid %#010x.%u: %08x %08x %08x %08x\n", leaf,
				sub, r[0], r[1], r[2], r[3]);
		}
	}
}

static void pvu_dump_cpuid(void *unused)
{
	pvu_dump_range(0, cpuid_eax(0));
	pvu_dump_range(KVM_CPUID_SIGNATURE, KVM_CPUID_FEATURES);
	pvu_dump_range(0x80000000, cpuid_eax(0x80000000));
}

/* --- Hypercalls ------------------------------------------------------- */

/* KVM's hypercall by the instruction named, not the one Linux patched in. */
static long pvu_vmcall(unsigned long nr, unsigned long a0, unsigned long a1)
{
	long ret;

	asm volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1)
		     : "memory");
	return ret;
}

static long pvu_vmmcall(unsigned long nr, unsigned long a0, unsigned long a1)
{
	long ret;

	asm volatile("vmmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1)
		     : "memory");
	return ret;
}

struct pvu_insn {
	const char *name;
	long (*call)(unsigned long nr, unsigned long a0, unsigned long a1);
};

static const struct pvu_insn pvu_insns[] = {
	{ "vmcall", pvu_vmcall },
	{ "vmmcall", pvu_vmmcall },
};

static void pvu_check_enosys(const struct pvu_insn *insn)
{
	static const unsigned long nrs[] = { KVM_HC_SCHED_YIELD, 0xdead };
	char name[64];
	long ret;
	int i;

	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		ret = insn->call(nrs[i], 0, 0);
		snprintf(name, sizeof(name), "%s %#lx returns -KVM_ENOSYS",
			 insn->name, nrs[i]);
		if (ret != -KVM_ENOSYS)
			pvu_not_ok(name, "returned %ld", ret);
		else
			pvu_ok(name);
	}
}

/* --- Halts and kicks ------------------------------------------------- */

/*
 * The halting CPU runs a kthread bound to it: with interrupts off it says
 * where it is (state), halts, and counts the halts that ended (resumed).
 */
enum pvu_step { PVU_IDLE, PVU_HALT_NOW, PVU_RUN_THEN_HALT_TWICE, PVU_EXIT };

static struct {
	int cpu;
	enum pvu_step step;		/* the main CPU's order */
	int ready;			/* the halter took the order */
	int kicked;			/* PVU_RUN_THEN_HALT_TWICE: go on */
	int halts;			/* halts begun, interrupts off */
	int resumed;			/* halts that ended */
	int rescue;			/* NMIs now are ours: claim them */
	struct completion done;
} pvu;

/* Any interrupt that comes is taken before the halts begin. */
static void pvu_clear_stale_kick(void)
{
	/* sti; hlt: ends at the next interrupt, or at once for a kick. */
	local_irq_disable();
	safe_halt();
}

static void pvu_halt_irqs_off(void)
{
	WRITE_ONCE(pvu.halts, READ_ONCE(pvu.halts) + 1);
	/* The count before the hlt, for the main CPU's wait. */
	smp_mb();
	halt();
	WRITE_ONCE(pvu.resumed, READ_ONCE(pvu.resumed) + 1);
}

static int pvu_halter(void *unused)
{
	enum pvu_step step;

	while (!kthread_should_stop()) {
		step = READ_ONCE(pvu.step);
		if (step == PVU_IDLE || READ_ONCE(pvu.ready)) {
			usleep_range(1000, 2000);
			continue;
		}
		if (step == PVU_EXIT)
			break;
		pvu_clear_stale_kick();
		local_irq_disable();
		WRITE_ONCE(pvu.ready, 1);
		if (step == PVU_RUN_THEN_HALT_TWICE) {
			while (!READ_ONCE(pvu.kicked))
				cpu_relax();
			pvu_halt_irqs_off();	/* the kick came first: returns */
		}
		pvu_halt_irqs_off();
		local_irq_enable();
		complete(&pvu.done);
	}
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static int pvu_nmi(unsigned int type, struct pt_regs *regs)
{
	return READ_ONCE(pvu.rescue) && smp_processor_id() == pvu.cpu ?
	       NMI_HANDLED : NMI_DONE;
}

/* Wait up to @ms (and a little more) for *@count to reach @value. */
static bool pvu_wait_for(int *count, int value, unsigned int ms)
{
	while (READ_ONCE(*count) < value && ms--)
		usleep_range(1000, 2000);
	return READ_ONCE(*count) >= value;
}

/* A kick did not wake it: NMIs do, so that the guest goes on. */
static void pvu_rescue(void)
{
	WRITE_ONCE(pvu.rescue, 1);
	do {
		apic->send_IPI(pvu.cpu, NMI_VECTOR);
	} while (!wait_for_completion_timeout(&pvu.done,
					      msecs_to_jiffies(100)));
	WRITE_ONCE(pvu.rescue, 0);
}

static long pvu_kick(const struct pvu_insn *insn)
{
	return insn->call(KVM_HC_KICK_CPU, 0, per_cpu(x86_cpu_to_apicid,
						      pvu.cpu));
}

/*
 * Kick the halter with @insn: it must have ended @resumed halts within
 * 2 s, else it is rescued and @name fails with @why.  True if it did; the
 * hypercall's result in *@ret.
 */
static bool pvu_kick_wakes(const struct pvu_insn *insn, const char *name,
			   int resumed, const char *why, long *ret)
{
	*ret = pvu_kick(insn);
	if (pvu_wait_for(&pvu.resumed, resumed, 2000))
		return true;
	pvu_not_ok(name, "returned %ld; %s", *ret, why);
	pvu_rescue();
	return false;
}

/* The halter is done with its order: @name passes if the kick returned 0. */
static void pvu_finish(const char *name, long ret)
{
	wait_for_completion(&pvu.done);
	if (ret)
		pvu_not_ok(name, "returned %ld", ret);
	else
		pvu_ok(name);
}

static void pvu_order(enum pvu_step step)
{
	reinit_completion(&pvu.done);
	WRITE_ONCE(pvu.halts, 0);
	WRITE_ONCE(pvu.resumed, 0);
	WRITE_ONCE(pvu.kicked, 0);
	WRITE_ONCE(pvu.ready, 0);
	WRITE_ONCE(pvu.step, step);
}

/*
 * A CPU halted with interrupts off stays halted (200 ms) until the kick,
 * which returns 0 and wakes it.  A stray kick of the guest's own locks
 * could end that halt early: tried up to three times.
 */
static void pvu_check_kick_halted(const struct pvu_insn *insn)
{
	char name[80];
	int attempt;
	long ret;

	snprintf(name, sizeof(name),
		 "%s KVM_HC_KICK_CPU wakes a CPU halted with interrupts off",
		 insn->name);
	for (attempt = 0; attempt < 3; attempt++) {
		pvu_order(PVU_HALT_NOW);
		if (!pvu_wait_for(&pvu.halts, 1, 5000)) {
			pvu_not_ok(name, "CPU %d never got to its halt", pvu.cpu);
			return;
		}
		msleep(200);
		if (READ_ONCE(pvu.resumed) == 0)
			break;
		wait_for_completion(&pvu.done);
	}
	if (attempt == 3) {
		pvu_not_ok(name, "CPU %d did not stay halted with interrupts off",
			   pvu.cpu);
		return;
	}
	if (pvu_kick_wakes(insn, name, 1, "still halted 2 s later", &ret))
		pvu_finish(name, ret);
}

/*
 * A kick to a running CPU: its next hlt, with interrupts off, returns at
 * once; the hlt after that halts until the next kick (the first used the
 * kick up).
 */
static void pvu_check_kick_running(const struct pvu_insn *insn)
{
	char name[80];
	long ret, first;

	snprintf(name, sizeof(name),
		 "%s KVM_HC_KICK_CPU to a running CPU: its next hlt returns, once",
		 insn->name);
	pvu_order(PVU_RUN_THEN_HALT_TWICE);
	if (!pvu_wait_for(&pvu.ready, 1, 5000)) {
		pvu_not_ok(name, "CPU %d never started", pvu.cpu);
		return;
	}
	ret = pvu_kick(insn);
	WRITE_ONCE(pvu.kicked, 1);
	if (!pvu_wait_for(&pvu.resumed, 1, 2000)) {
		pvu_not_ok(name, "returned %ld; the hlt after the kick did not return",
			   ret);
		pvu_rescue();
		return;
	}
	first = ret;
	/* The second hlt: halted until the next kick. */
	msleep(200);
	if (READ_ONCE(pvu.resumed) != 1) {
		pvu_not_ok(name, "the kick was not used up: the second hlt returned too");
		wait_for_completion(&pvu.done);
		return;
	}
	if (pvu_kick_wakes(insn, name, 2,
			   "the second kick did not wake the second hlt", &ret))
		pvu_finish(name, first ? first : ret);
}

static void pvu_check_kicks(void)
{
	struct task_struct *t;
	int i, err;

	if (num_online_cpus() < 2 || !cpu_online(0)) {
		pvu_not_ok("kicks", "need CPU 0 and another online");
		return;
	}
	/*
	 * The halter has a CPU of its own, and we keep off it: it halts
	 * with interrupts off there, until we kick it.
	 */
	pvu.cpu = cpumask_last(cpu_online_mask);
	err = set_cpus_allowed_ptr(current, cpumask_of(0));
	if (err) {
		pvu_not_ok("kicks", "cannot move to CPU 0 (%d)", err);
		return;
	}
	init_completion(&pvu.done);
	err = register_nmi_handler(NMI_LOCAL, pvu_nmi, 0, "pvu_rescue");
	if (err) {
		pvu_not_ok("kicks", "no NMI handler (%d)", err);
		return;
	}
	t = kthread_create_on_cpu(pvu_halter, NULL, pvu.cpu, "pvu_halter/%u");
	if (IS_ERR(t)) {
		pvu_not_ok("kicks", "no kthread (%ld)", PTR_ERR(t));
		goto out;
	}
	wake_up_process(t);
	for (i = 0; i < ARRAY_SIZE(pvu_insns); i++) {
		pvu_check_kick_halted(&pvu_insns[i]);
		pvu_check_kick_running(&pvu_insns[i]);
	}
	WRITE_ONCE(pvu.step, PVU_EXIT);
	kthread_stop(t);
out:
	unregister_nmi_handler(NMI_LOCAL, "pvu_rescue");
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static int __init pvu_init(void)
{
	int i;

	if (dump)
		smp_call_function_single(0, pvu_dump_cpuid, NULL, 1);
	if (!strcmp(expect, "none")) {
		pvu_check_cpuid_none();
	} else if (!strcmp(expect, "pvunhalt")) {
		pvu_check_cpuid_kvm();
		for (i = 0; i < ARRAY_SIZE(pvu_insns); i++)
			pvu_check_enosys(&pvu_insns[i]);
		pvu_check_kicks();
	} else {
		pr_err("expect=%s: valid: pvunhalt none\n", expect);
		return -EINVAL;
	}
	pr_info("%s: %d failed\n", pvu_failed ? "FAIL" : "PASS", pvu_failed);
	return pvu_failed ? -EINVAL : 0;
}

static void __exit pvu_exit(void)
{
}

module_init(pvu_init);
module_exit(pvu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KVM's PV unhalt interface, as the guest sees it (test)");
