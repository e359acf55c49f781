// SPDX-License-Identifier: GPL-2.0
/*
 * vcpu_preempted_check.ko: is this kernel's vcpu_is_preempted() the x86
 * paravirt one, pv_ops.lock.vcpu_is_preempted (which KVM points at its
 * steal-time check), or the generic one of <linux/sched.h>, which always
 * says "running" and so blinds mutex and rwsem owner spinning, osq_lock
 * and the scheduler in an overcommitted guest?
 *
 * Build time: x86 defines the macro vcpu_is_preempted when it supplies
 * its own, so without that macro this file does not compile: building
 * it against a kernel is the test.  -DVCPU_PREEMPTED_ALLOW_GENERIC
 * builds it anyway, to see what such a kernel does at run time.
 *
 * Load time: one line with what vcpu_is_preempted() resolves to (the
 * function pv_ops.lock.vcpu_is_preempted holds, by name: the kernel
 * needs KALLSYMS), X86_FEATURE_VCPUPREEMPT (set at boot iff that
 * function is not the native one; clear, every call site is patched to
 * return false) and vcpu_is_preempted(cpu) of each online CPU; then
 * PASS, or FAIL and the load fails.
 *
 * What a TCG guest can show: the paravirt path is compiled in and wired
 * up (the op is set, and the feature bit agrees with it).  It cannot
 * show a preempted vCPU: TCG offers no KVM steal time, so the op stays
 * the native one and every CPU reads "running".  Under KVM with steal
 * time the op is KVM's and a CPU may read "preempted".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <asm/cpufeature.h>
#include <asm/paravirt.h>

#ifndef CONFIG_PARAVIRT
#error "an x86 kernel with CONFIG_PARAVIRT is needed"
#endif

/* Tested right after <linux/sched.h>, which falls back when it is unset. */
#ifdef vcpu_is_preempted
#define VPC_ARCH	1
#else
#define VPC_ARCH	0
#ifndef VCPU_PREEMPTED_ALLOW_GENERIC
#error "vcpu_is_preempted() is the generic one of <linux/sched.h>: always false"
#endif
#endif

#define VPC_NATIVE_OP	"__raw_callee_save___native_vcpu_is_preempted"

/* One character per online CPU: '1' preempted, '0' running. */
static char vpc_seen[NR_CPUS + 1] __initdata;

static int __init vpc_init(void)
{
	void *func = pv_ops.lock.vcpu_is_preempted.func;
	char op[KSYM_SYMBOL_LEN] = "(not set)";
	const char *why = NULL;
	bool native, feature;
	int cpu, n = 0, preempted = 0;

	if (func)
		snprintf(op, sizeof(op), "%ps", func);
	native = !strcmp(op, VPC_NATIVE_OP);
	feature = boot_cpu_has(X86_FEATURE_VCPUPREEMPT);

	for_each_online_cpu(cpu) {
		bool p = vcpu_is_preempted(cpu);

		preempted += p;
		vpc_seen[n++] = p ? '1' : '0';
	}

	pr_info("vcpu_is_preempted() -> %s; pv_ops.lock.vcpu_is_preempted = %s; X86_FEATURE_VCPUPREEMPT %d (%s); online CPUs %s\n",
		VPC_ARCH ? "pv_vcpu_is_preempted()" :
			   "the generic one (always false)",
		op, feature, feature ? "calls the op" : "patched to false",
		vpc_seen);

	if (!VPC_ARCH)
		why = "vcpu_is_preempted() is the generic one";
	else if (!func)
		why = "pv_ops.lock.vcpu_is_preempted is not set";
	else if (feature == native)
		/* paravirt_set_cap() sets the bit at boot iff the op is not native. */
		why = "X86_FEATURE_VCPUPREEMPT disagrees with the op";
	else if (native && preempted)
		why = "the native op said a vCPU was preempted";

	if (why) {
		pr_err("FAIL: %s\n", why);
		return -EINVAL;
	}
	pr_info("PASS: vcpu_is_preempted() is the paravirt op (%s)\n", op);
	return 0;
}

static void __exit vpc_exit(void)
{
}

module_init(vpc_init);
module_exit(vpc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Which vcpu_is_preempted() the kernel has (test)");
