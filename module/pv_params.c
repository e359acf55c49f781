// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko, PARAVIRT_SPINLOCKS=y: the PV layer's parameters.  The
 * halt/kick backend is chosen once, at load; the spin threshold may be
 * written at run time, so that one boot can compare several.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/panic.h>
#ifdef PVQ_NMI_KICK
#include <asm/nmi.h>
#endif

#include "glue.h"
#ifdef PVQ_NMI_KICK
#include "pv_nmi.h"
#endif
#ifdef PVQ_PV_QSPINLOCK
#include "pvqspinlock_hooks.h"
#endif

#define PVQ_SPIN_THRESHOLD_MAX	(1 << 30)
#define PVQ_SPIN_THRESHOLD_NS_MAX	1000000000

static char *pv_backend = "auto";
module_param(pv_backend, charp, 0444);
MODULE_PARM_DESC(pv_backend, "PV halt/kick backend: auto (none with one CPU, on bare metal or with KVM_HINTS_REALTIME; else kvm if the hypervisor offers PV unhalt, else nmi, or ipi where no NMI handler can be registered), kvm, ipi, nmi (ipi, and waiters with interrupts off halt and are woken by an NMI), strict (nmi, but only a kick ends a wait), none");

PVQ_RANGED_PARAM(spin_threshold, pvq_spin_threshold, 1, PVQ_SPIN_THRESHOLD_MAX);
MODULE_PARM_DESC(spin_threshold, "Spin loops before a PV ticketlock waiter halts, at most (1..2^30, default 32768)");

PVQ_RANGED_PARAM(spin_threshold_ns, pvq_spin_threshold_ns, 1,
		 PVQ_SPIN_THRESHOLD_NS_MAX);
MODULE_PARM_DESC(spin_threshold_ns, "Nanoseconds a PV ticketlock waiter spins before it halts, at most (1..10^9, default 170000: the PV ticketlock series' 2^15 loops on its hardware)");

PVQ_RANGED_PARAM(queue_spin_threshold, pvq_queue_spin_threshold, 1,
		 PVQ_SPIN_THRESHOLD_MAX);
MODULE_PARM_DESC(queue_spin_threshold, "Spin loops before a PV queued waiter or queue head halts, fair and unfair (1..2^30, default 256)");

#ifdef PVQ_PV_QSPINLOCK
PVQ_RANGED_PARAM(pass_bound, pvq_pass_bound, 0, PVQ_PASSES_MAX);
MODULE_PARM_DESC(pass_bound, "PV qspinlock, fair and unfair: steals past a queue counted before nobody may steal until a queue head has the lock (0..127, default 127; 0: no bound, for measurement)");

PVQ_RANGED_PARAM(pass_scale, pvq_pass_scale, 1, PVQ_PASS_SCALE_MAX);
MODULE_PARM_DESC(pass_scale, "PV qspinlock: each CPU counts one of this many steals past a queue against pass_bound (1..1024, default 16)");

PVQ_RANGED_PARAM(fair_bound_us, pvq_fair_bound_us, 0, 1000000);
MODULE_PARM_DESC(fair_bound_us, "Fair PV qspinlock: a queue head lets contenders take the free lock until it has been starved this long (us), then blocks stealing (0..1000000, default 10; 0: at once)");

PVQ_RANGED_PARAM(fair_steal_spin, pvq_fair_steal_spin, 0,
		 PVQ_FAIR_STEAL_SPIN_MAX);
MODULE_PARM_DESC(fair_steal_spin, "Fair PV qspinlock: loops a contender keeps trying to take the free lock, while a queue waits and its head has not blocked stealing, before it queues (0..2^30, default 128; 0: the one attempt on queueing only)");
#endif

#if defined(PVQ_NMI_KICK) && defined(MODULE)
/*
 * A module cannot read the kernel's unknown_nmi_panic and
 * panic_on_unrecovered_nmi (they are not exported): where either is set,
 * set this to 0, or an NMI sent to ask for a crash dump soon after an NMI
 * kick would be taken for a late kick and swallowed.
 */
static bool nmi_claim_late = true;
module_param(nmi_claim_late, bool, PVQ_TUNABLE_MODE);
MODULE_PARM_DESC(nmi_claim_late, "NMI kick: take an unknown NMI within 500 ms of a kick to its CPU as a late kick (default 1; set 0 where the kernel panics on unknown NMIs: unknown_nmi_panic, panic_on_unrecovered_nmi)");

bool pvq_nmi_may_claim_unknown(void)
{
	return READ_ONCE(nmi_claim_late);
}
#elif defined(PVQ_NMI_KICK)
/* Built in: as the kernel is set now (sysctl kernel.unknown_nmi_panic...). */
bool pvq_nmi_may_claim_unknown(void)
{
	return !READ_ONCE(unknown_nmi_panic) &&
	       !READ_ONCE(panic_on_unrecovered_nmi);
}
#endif

#ifdef MODULE
static const bool pvq_nopvspin;
#else
/*
 * Built in: the kernel's "nopvspin" boot parameter means what it means for
 * upstream's lock (no PV spinlock: the native one), i.e. pv_backend=none.
 * Upstream parses it in its own qspinlock.c, which this kernel does not
 * build.
 */
static bool pvq_nopvspin __initdata;

static int __init pvq_parse_nopvspin(char *arg)
{
	pvq_nopvspin = true;
	return 0;
}
early_param("nopvspin", pvq_parse_nopvspin);
#endif

int __init pvq_pv_params_init(void)
{
	int err;

	if (pvq_nopvspin) {
		pv_backend = "none";
		err = pvq_pv_select(pv_backend);
		pvq_pv_reason = "nopvspin";
	} else {
		err = pvq_pv_select(pv_backend);
	}

	if (err == -EINVAL)
		pr_err("unknown pv_backend '%s'; valid: auto kvm ipi nmi strict none\n",
		       pv_backend);
	else if (err == -ENODEV)
		pr_err("pv_backend=%s unavailable: %s\n", pv_backend,
		       pvq_pv_reason);
	else if (err)
		pr_err("pv_backend=%s refused: %s (%d)\n", pv_backend,
		       pvq_pv_reason, err);
	if (err)
		return err;
	pr_info("pv backend %s (%s), spin_threshold %d (%d ns), queue_spin_threshold %d\n",
		pvq_pv->name, pvq_pv_reason, pvq_spin_threshold,
		pvq_spin_threshold_ns, pvq_queue_spin_threshold);
	return 0;
}
