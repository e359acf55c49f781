// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko: the lock library as a module, or built into a kernel whose
 * arch_spinlock_t it is (CONFIG_PVQ_SPINLOCKS, kernel/patches/: then the
 * same files build in, and the parameters are boot parameters
 * pvq_locks.<name>=).
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

#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "glue.h"
#include "lock_stats.h"

/*
 * Not GPL-only: built into the kernel, the slow paths (and the static key
 * that the PV unlock tests) are what spin_lock() and spin_unlock() inline,
 * in every module whatever its licence, as upstream exports
 * queued_spin_lock_slowpath.  A GPL-only
 * export would make modpost refuse any module that is not GPL and takes
 * a spinlock (selftests/vm/extmod/ checks that one builds and loads).
 * One #ifdef per option, so that each export comes with its patch of the
 * kernel series.
 */
#ifdef PVQ_QUEUE_SPINLOCK
EXPORT_SYMBOL(pvq_qspin_lock_slowpath);
#endif
#ifdef PVQ_PARAVIRT_SPINLOCKS
EXPORT_SYMBOL(pvq_pvticket_lock_slowpath);
EXPORT_SYMBOL(pvq_pvticket_unlock_slowpath);
EXPORT_SYMBOL(pvq_pv_native);
#endif
#ifdef PVQ_PV_QSPINLOCK
EXPORT_SYMBOL(pvq_pv_qspin_lock_slowpath);
EXPORT_SYMBOL(pvq_pv_qspin_unlock_slowpath);
#endif
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
EXPORT_SYMBOL(pvq_pv_qspin_unfair_lock_slowpath);
#endif
/* The counters' names are for the torture module only. */
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

#ifdef MODULE
static const char pvq_built_as[] = "loaded";
#else
static const char pvq_built_as[] = "built in as the kernel's arch_spinlock_t";
#endif

static const char pvq_build_options[] =
	PVQ_IF_BUILT(QUEUE_SPINLOCK, " QUEUE_SPINLOCK")
	PVQ_IF_BUILT(PARAVIRT_SPINLOCKS, " PARAVIRT_SPINLOCKS")
	PVQ_IF_BUILT(PARAVIRT_UNFAIR_LOCKS, " PARAVIRT_UNFAIR_LOCKS")
	PVQ_IF_BUILT(LOCK_STATS, " LOCK_STATS")
	PVQ_IF_BUILT(LOCK_DEBUG, " LOCK_DEBUG")
	"";

/*
 * Built into the kernel (CONFIG_PVQ_SPINLOCKS, kernel/patches/), the lock
 * is the kernel's own arch_spinlock_t and cannot refuse to load: a bad
 * pv_backend= falls back to auto, and no hash table is a panic.
 */
#ifdef MODULE
#define pvq_builtin_fallback(err)	(err)
#else
static int __init pvq_builtin_fallback(int err)
{
	if (err && pvq_pv_select("auto") == 0) {
		pr_err("built in: pv_backend falls back to auto\n");
		return 0;
	}
	return err;
}
#endif

/*
 * The PV qspinlock's hash of halted queue heads, before any lock halts.
 * #ifdef, not PVQ_BUILT(): without the PV qspinlock nothing declares it.
 */
static int __init pvq_locks_hash_init(void)
{
#ifdef PVQ_PV_QSPINLOCK
	return pvq_hash_init();
#else
	return 0;
#endif
}

static int __init pvq_locks_init(void)
{
	int err;

	pr_info("%s, options:%s\n", pvq_built_as,
		pvq_build_options[0] ? pvq_build_options : " (baselines only)");
	if (PVQ_BUILT(TORTURE_FAULTS)) {
		err = pvq_fault_init();
		if (err)
			return err;
	}
	if (PVQ_BUILT(PARAVIRT_SPINLOCKS)) {
		err = pvq_builtin_fallback(pvq_pv_params_init());
		if (err)
			return err;
	}
	err = pvq_locks_hash_init();
	if (err && PVQ_BUILT(PARAVIRT_SPINLOCKS))
		/*
		 * What the backend registered with the kernel (the NMI
		 * kick's handlers and hotplug state) goes with the failed
		 * load: the next NMI would call a handler in the module's
		 * freed memory.
		 */
		pvq_pv_exit();
	return err;
}

/* The counters in debugfs: only once debugfs exists (fs_initcall). */
static int __init pvq_locks_debugfs_init(void)
{
	if (PVQ_BUILT(LOCK_STATS))
		pvq_debugfs_init();
	return 0;
}

static void __exit pvq_locks_exit(void)
{
	if (PVQ_BUILT(LOCK_STATS))
		pvq_debugfs_exit();
#ifdef PVQ_PV_QSPINLOCK
	pvq_hash_exit();
#endif
	if (PVQ_BUILT(PARAVIRT_SPINLOCKS))
		pvq_pv_exit();
}

#ifdef MODULE
static int __init pvq_locks_module_init(void)
{
	int err = pvq_locks_init();

	if (!err)
		pvq_locks_debugfs_init();
	return err;
}

module_init(pvq_locks_module_init);
#else
/*
 * Built in: the backend is chosen and the hash table allocated before
 * smp_init() starts the CPUs that can contend (the slow paths cannot run
 * before that), and the boot parameters pvq_locks.<name>= are parsed by
 * then.
 */
static int __init pvq_locks_builtin_init(void)
{
	/*
	 * The backend is chosen, and pvq_pv_native flipped, once, while no
	 * other CPU can hold or wait on a lock: before smp_init().
	 */
	WARN_ONCE(num_online_cpus() > 1,
		  "pvq_locks: backend chosen with %u CPUs online\n",
		  num_online_cpus());
	if (pvq_locks_init())
		panic("pvq_locks: the kernel's spinlock cannot work");
	return 0;
}

early_initcall(pvq_locks_builtin_init);
fs_initcall(pvq_locks_debugfs_init);
#endif
module_exit(pvq_locks_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Queued, ticket and test-and-set spinlocks for comparison under vCPU overcommit");
