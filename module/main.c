// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko: the lock library as a module.
 *
 * The algorithms (qspinlock/, pv/) know nothing about modules; the glue in
 * this folder does, one file per concern, each built only with its option
 * (Kbuild): this one exports the algorithms' out-of-line entry points,
 * reports the build configuration at load and runs the other concerns'
 * init and exit; pv_params.c and unfair_params.c take the tunables,
 * diag.c and diag_nodes.c print the stall diagnostics, faults.c injects
 * faults (TORTURE_FAULTS=y), debugfs.c shows the lock event counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "glue.h"
#include "lock_stats.h"

PVQ_IF_BUILT(QUEUE_SPINLOCK, EXPORT_SYMBOL_GPL(pvq_qspin_lock_slowpath);)
PVQ_IF_BUILT(PARAVIRT_SPINLOCKS,
	     EXPORT_SYMBOL_GPL(pvq_pvticket_lock_slowpath);
	     EXPORT_SYMBOL_GPL(pvq_pvticket_unlock_slowpath);)
PVQ_IF_BUILT(PV_QSPINLOCK,
	     EXPORT_SYMBOL_GPL(pvq_pv_qspin_lock_slowpath);
	     EXPORT_SYMBOL_GPL(pvq_pv_qspin_unlock_slowpath);)
PVQ_IF_BUILT(PARAVIRT_UNFAIR_LOCKS,
	     EXPORT_SYMBOL_GPL(pvq_pv_qspin_unfair_lock_slowpath);)
EXPORT_SYMBOL_GPL(pvq_lock_event_names);

int pvq_param_set_range(const char *val, const struct kernel_param *kp,
			unsigned int min, unsigned int max)
{
	int err = param_set_uint_minmax(val, kp, min, max);

	if (err)
		pr_err("%s=%s out of range [%u..%u]\n", kp->name, val, min,
		       max);
	return err;
}

static const char pvq_build_options[] =
	PVQ_IF_BUILT(QUEUE_SPINLOCK, " QUEUE_SPINLOCK")
	PVQ_IF_BUILT(PARAVIRT_SPINLOCKS, " PARAVIRT_SPINLOCKS")
	PVQ_IF_BUILT(PARAVIRT_UNFAIR_LOCKS, " PARAVIRT_UNFAIR_LOCKS")
	PVQ_IF_BUILT(LOCK_STATS, " LOCK_STATS")
	PVQ_IF_BUILT(LOCK_DEBUG, " LOCK_DEBUG")
	"";

static int __init pvq_locks_init(void)
{
	int err;

	pr_info("loaded, options:%s\n",
		pvq_build_options[0] ? pvq_build_options : " (baselines only)");
	if (PVQ_BUILT(TORTURE_FAULTS)) {
		err = pvq_fault_init();
		if (err)
			return err;
	}
	if (PVQ_BUILT(PARAVIRT_SPINLOCKS)) {
		err = pvq_pv_params_init();
		if (err)
			return err;
	}
	if (PVQ_BUILT(PV_QSPINLOCK)) {
		err = pvq_hash_init();
		if (err)
			return err;
	}
	if (PVQ_BUILT(LOCK_STATS))
		pvq_debugfs_init();
	return 0;
}

static void __exit pvq_locks_exit(void)
{
	if (PVQ_BUILT(LOCK_STATS))
		pvq_debugfs_exit();
	if (PVQ_BUILT(PV_QSPINLOCK))
		pvq_hash_exit();
	if (PVQ_BUILT(PARAVIRT_SPINLOCKS))
		pvq_pv_exit();
}

module_init(pvq_locks_init);
module_exit(pvq_locks_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Queued, ticket and test-and-set spinlocks for comparison under vCPU overcommit");
