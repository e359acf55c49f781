// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko: module glue for the lock library.
 *
 * The algorithms (qspinlock.c, lock_stats.c, the headers) know nothing about
 * modules; this file exports their out-of-line entry points, reports the
 * build configuration at load, takes the PV parameters (pv_backend,
 * spin_threshold), and exposes the lock event counters in debugfs
 * (/sys/kernel/debug/pvq_locks/).  A TORTURE_FAULTS=y build also injects
 * faults into the locks on request (inject_fault).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>

#include "pvq_locks.h"
#include "pvq_diag.h"
#include "lock_stats.h"
#include "qspinlock_types.h"
#ifdef PVQ_QUEUE_SPINLOCK
#include "qspinlock_internal.h"
#endif

#ifdef PVQ_QUEUE_SPINLOCK
EXPORT_SYMBOL_GPL(pvq_qspin_lock_slowpath);
#endif
#ifdef PVQ_PV_QSPINLOCK
EXPORT_SYMBOL_GPL(pvq_pvqspin_lock_slowpath);
EXPORT_SYMBOL_GPL(pvq_pvqspin_unlock_slowpath);
#endif
#define PVQ_SPIN_THRESHOLD_MAX	(1 << 30)

#ifdef PVQ_PARAVIRT_SPINLOCKS
/*
 * An int tunable, writable at run time, that refuses values outside
 * [min, max] with -EINVAL and a message (at load and when written).
 */
struct pvq_ranged_int {
	const char *name;
	int *val;
	int min, max;
};

static int pvq_ranged_int_set(const char *val, const struct kernel_param *kp)
{
	const struct pvq_ranged_int *r = kp->arg;
	int n;

	if (kstrtoint(val, 0, &n) || n < r->min || n > r->max) {
		pr_err("%s=%s out of range [%d..%d]\n", r->name, val, r->min,
		       r->max);
		return -EINVAL;
	}
	WRITE_ONCE(*r->val, n);
	return 0;
}

static int pvq_ranged_int_get(char *buf, const struct kernel_param *kp)
{
	const struct pvq_ranged_int *r = kp->arg;

	return sysfs_emit(buf, "%d\n", READ_ONCE(*r->val));
}

static const struct kernel_param_ops pvq_ranged_int_ops = {
	.set = pvq_ranged_int_set,
	.get = pvq_ranged_int_get,
};

#define PVQ_RANGED_PARAM(pname, var, lo, hi)				\
	static const struct pvq_ranged_int pvq_param_##pname = {	\
		.name = #pname, .val = &(var), .min = (lo), .max = (hi),\
	};								\
	module_param_cb(pname, &pvq_ranged_int_ops,			\
			(void *)&pvq_param_##pname, 0644)
#endif

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
EXPORT_SYMBOL_GPL(pvq_unfair_lock_slowpath);

PVQ_RANGED_PARAM(starvation_bound_us, pvq_starvation_bound_us, 0, 1000000);
MODULE_PARM_DESC(starvation_bound_us, "Unfair mode: a queue head waits this long (us) before it blocks lock stealing (0..1000000, default 50)");

PVQ_RANGED_PARAM(steal_spin, pvq_steal_spin, 1, PVQ_SPIN_THRESHOLD_MAX);
MODULE_PARM_DESC(steal_spin, "Unfair mode: loops a contender spins stealing before it queues (1..2^30, default 128)");

PVQ_RANGED_PARAM(steal_budget, pvq_steal_budget, 0, PVQ_STEAL_BUDGET_MAX);
MODULE_PARM_DESC(steal_budget, "Unfair mode: steals past queued waiters a CPU may make before it must queue itself (0..2^30, default 8; 0: never pass a queue)");
#endif

#ifdef PVQ_PARAVIRT_SPINLOCKS
EXPORT_SYMBOL_GPL(pvq_pvticket_lock_slowpath);
EXPORT_SYMBOL_GPL(pvq_pvticket_unlock_slowpath);

static char *pv_backend = "auto";
module_param(pv_backend, charp, 0444);
MODULE_PARM_DESC(pv_backend, "PV halt/kick backend: auto (kvm if the hypervisor offers PV unhalt, else ipi), kvm, ipi, strict (ipi, but only a kick ends a wait), none");

/* Writable at run time, so one boot can compare several thresholds. */
PVQ_RANGED_PARAM(spin_threshold, pvq_spin_threshold, 1, PVQ_SPIN_THRESHOLD_MAX);
MODULE_PARM_DESC(spin_threshold, "Spin loops before a PV waiter halts (1..2^30, default 32768)");

static int pvq_pv_init(void)
{
	int err = pvq_pv_select(pv_backend);

	if (err == -EINVAL)
		pr_err("unknown pv_backend '%s'; valid: auto kvm ipi strict none\n",
		       pv_backend);
	else if (err == -ENODEV)
		pr_err("pv_backend=%s unavailable: the hypervisor does not offer KVM PV unhalt\n",
		       pv_backend);
	if (err)
		return err;
	pr_info("pv backend %s (%s), spin_threshold %d\n", pvq_pv->name,
		pvq_pv_reason, pvq_spin_threshold);
	return 0;
}

static void pvq_pv_fini(void)
{
	pvq_pv_exit();
}
#else
static int pvq_pv_init(void)
{
	return 0;
}

static void pvq_pv_fini(void)
{
}
#endif

#ifdef PVQ_TORTURE_FAULTS
/*
 * Test builds only (make TORTURE_FAULTS=y): break the lock protocol on
 * purpose, through the hooks in the lock paths (lock_debug.h), so that
 * qspinlock_torture's stall watchdog must report a stall.  Its rescue,
 * pvq_diag_kick_all(), disarms the fault and undoes the damage, so that
 * the run can end and the library be unloaded; reloading it re-arms.
 */
enum pvq_fault_type {
	PVQ_FAULT_NONE,
	PVQ_FAULT_DROP_KICK,		/* a halted waiter is never kicked */
	PVQ_FAULT_SKIP_HANDOFF,		/* the next MCS node never becomes head */
	PVQ_NR_FAULTS
};

/* NULL: the locks this fault breaks are not in this build. */
static const char *const pvq_fault_names[PVQ_NR_FAULTS] = {
	[PVQ_FAULT_NONE] = "none",
#ifdef PVQ_PARAVIRT_SPINLOCKS
	[PVQ_FAULT_DROP_KICK] = "drop_kick",
#endif
#ifdef PVQ_QUEUE_SPINLOCK
	[PVQ_FAULT_SKIP_HANDOFF] = "skip_handoff",
#endif
};

/*
 * How often: one fault stalls a lock for good, so these only set how soon
 * a run hits the first one (well under a second at 2x overcommit on the
 * strict backend, see Documentation/torture.rst).
 */
#define PVQ_FAULT_DROP_KICK_EVERY	16
#define PVQ_FAULT_SKIP_HANDOFF_EVERY	16

static char *inject_fault = "none";
module_param(inject_fault, charp, 0444);
MODULE_PARM_DESC(inject_fault, "TEST BUILDS ONLY: none; drop_kick (drop every 16th kick of a PV lock); skip_handoff (withhold every 16th MCS hand-over)");

static int pvq_fault;			/* the armed fault; NONE once rescued */
static atomic_t pvq_fault_chances;	/* kicks or hand-overs seen */
static atomic_t pvq_fault_injected;	/* ... and broken */
static int *pvq_fault_withheld;		/* ->locked of the withheld hand-over */

/* Is @fault armed, and is this its turn? */
static bool pvq_fault_due(int fault, int every)
{
	return READ_ONCE(pvq_fault) == fault &&
	       !(atomic_inc_return_relaxed(&pvq_fault_chances) % every);
}

bool pvq_fault_drop_kick(void)
{
	if (!pvq_fault_due(PVQ_FAULT_DROP_KICK, PVQ_FAULT_DROP_KICK_EVERY))
		return false;
	atomic_inc(&pvq_fault_injected);
	return true;
}

bool pvq_fault_skip_handoff(int *locked)
{
	if (!pvq_fault_due(PVQ_FAULT_SKIP_HANDOFF,
			   PVQ_FAULT_SKIP_HANDOFF_EVERY))
		return false;
	/* One withheld hand-over at a time: the rescue has one slot. */
	if (cmpxchg(&pvq_fault_withheld, NULL, locked))
		return false;
	/*
	 * Full barrier (the cmpxchg): our slot entry is visible before we
	 * look at the fault again; the rescue disarms before it empties the
	 * slot.  So if it disarmed too early for us to see the entry, we see
	 * the disarming and take the hand-over back, unless the rescue has
	 * emptied the slot already: then it does the hand-over.
	 */
	if (READ_ONCE(pvq_fault) != PVQ_FAULT_SKIP_HANDOFF &&
	    cmpxchg(&pvq_fault_withheld, locked, NULL) == locked)
		return false;
	atomic_inc(&pvq_fault_injected);
	return true;
}

/* The stall watchdog's rescue: no more faults; hand over what was withheld. */
static void pvq_fault_rescue(void)
{
	int *locked;

	if (!strcmp(inject_fault, "none"))
		return;
	WRITE_ONCE(pvq_fault, PVQ_FAULT_NONE);
	/* Full barrier (xchg): disarmed before we look; see above. */
	locked = xchg(&pvq_fault_withheld, NULL);
	if (locked) {
		/*
		 * Release: the successor becomes queue head.  The owner that
		 * withheld the hand-over set the locked byte before its slot
		 * entry, which our xchg read, so the successor sees the lock
		 * word as the normal hand-over would have shown it.
		 */
		smp_store_release(locked, 1);
	}
	pr_alert("inject_fault=%s: %d faults injected; disarmed%s\n",
		 inject_fault, atomic_read(&pvq_fault_injected),
		 locked ? ", withheld hand-over done" : "");
}

static int pvq_fault_init(void)
{
	char valid[64] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < PVQ_NR_FAULTS; i++) {
		if (!pvq_fault_names[i])
			continue;
		if (!strcmp(inject_fault, pvq_fault_names[i])) {
			WRITE_ONCE(pvq_fault, i);
			pr_alert("FAULT INJECTION BUILD: inject_fault=%s\n",
				 inject_fault);
			return 0;
		}
		len += scnprintf(valid + len, sizeof(valid) - len, " %s",
				 pvq_fault_names[i]);
	}
	pr_err("unknown inject_fault '%s'; valid in this build:%s\n",
	       inject_fault, valid);
	return -EINVAL;
}
#else
static void pvq_fault_rescue(void)
{
}

static int pvq_fault_init(void)
{
	return 0;
}
#endif /* PVQ_TORTURE_FAULTS */

#ifdef PVQ_PV_QSPINLOCK
static int pvq_hash_init(void)
{
	return pvq_pv_hash_init();
}

static void pvq_hash_exit(void)
{
	pvq_pv_hash_exit();
}
#else
static int pvq_hash_init(void)
{
	return 0;
}

static void pvq_hash_exit(void)
{
}
#endif

#ifdef PVQ_LOCK_STATS
EXPORT_SYMBOL_GPL(pvq_lock_event_sum);
EXPORT_SYMBOL_GPL(pvq_lock_events_reset);
#endif
EXPORT_SYMBOL_GPL(pvq_lock_event_names);

void pvq_diag_print_qspinlock_word(const char *prefix, u32 val)
{
	u32 tail = val & PVQ_TAIL_MASK;

	pr_alert("%slock word %#010x: locked=%u pending=%u tail=%s%d/%u\n",
		 prefix, val, val & PVQ_LOCKED_MASK,
		 (val & PVQ_PENDING_MASK) >> PVQ_PENDING_OFFSET,
		 tail ? "cpu " : "none ",
		 tail ? (int)(tail >> PVQ_TAIL_CPU_OFFSET) - 1 : 0,
		 (tail & PVQ_TAIL_IDX_MASK) >> PVQ_TAIL_IDX_OFFSET);
}
EXPORT_SYMBOL_GPL(pvq_diag_print_qspinlock_word);

#ifdef PVQ_QUEUE_SPINLOCK
static void pvq_diag_print_node(const char *prefix, int cpu, int idx)
{
	struct pvq_mcs_node *node = per_cpu_ptr(&pvq_mcs_nodes[idx], cpu);

#ifdef PVQ_PARAVIRT_SPINLOCKS
	static const char *const states[] = { "running", "halted", "hashed" };
	u8 state = READ_ONCE(node->state);

	pr_alert("%scpu %d node %d: locked=%d next=%s%d state=%s\n", prefix,
		 cpu, idx, READ_ONCE(node->locked),
		 node->next ? "cpu " : "none ",
		 node->next ? READ_ONCE(node->next->cpu) : 0,
		 state < ARRAY_SIZE(states) ? states[state] : "?");
#else
	pr_alert("%scpu %d node %d: locked=%d next=%s\n", prefix, cpu, idx,
		 READ_ONCE(node->locked), node->next ? "set" : "none");
#endif
}

static void pvq_diag_print_nodes(const char *prefix, int cpu)
{
	int idx, used = READ_ONCE(per_cpu_ptr(&pvq_mcs_nodes[0], cpu)->count);

	/* Cannot happen (see Documentation/pv.rst); say so loudly if it does. */
	if (used && !cpu_online(cpu))
		pr_alert("%scpu %d is OFFLINE with %d MCS nodes in use\n",
			 prefix, cpu, used);
	for (idx = 0; idx < min(used, PVQ_MAX_NODES); idx++)
		pvq_diag_print_node(prefix, cpu, idx);
}
#else
static void pvq_diag_print_nodes(const char *prefix, int cpu)
{
}
#endif

#ifdef PVQ_PARAVIRT_SPINLOCKS
static void pvq_diag_print_halted(const char *prefix, int cpu)
{
	if (pvq_pv_halted_on(cpu))
		pr_alert("%scpu %d halted in pv wait\n", prefix, cpu);
}
#else
static void pvq_diag_print_halted(const char *prefix, int cpu)
{
}
#endif

void pvq_diag_print_queues(const char *prefix)
{
	int cpu;

	/* Offline CPUs too: a waiter stranded on one would show here. */
	for_each_possible_cpu(cpu) {
		pvq_diag_print_nodes(prefix, cpu);
		pvq_diag_print_halted(prefix, cpu);
	}
}
EXPORT_SYMBOL_GPL(pvq_diag_print_queues);

void pvq_diag_kick_all(void)
{
	int __maybe_unused cpu;

	pvq_fault_rescue();	/* first: the kicks also wake its victims */
#ifdef PVQ_PARAVIRT_SPINLOCKS
	for_each_online_cpu(cpu)
		pvq_pv_kick(cpu);
#endif
}
EXPORT_SYMBOL_GPL(pvq_diag_kick_all);

static const char pvq_build_options[] =
#ifdef PVQ_QUEUE_SPINLOCK
	" QUEUE_SPINLOCK"
#endif
#ifdef PVQ_PARAVIRT_SPINLOCKS
	" PARAVIRT_SPINLOCKS"
#endif
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
	" PARAVIRT_UNFAIR_LOCKS"
#endif
#ifdef PVQ_LOCK_STATS
	" LOCK_STATS"
#endif
#ifdef PVQ_LOCK_DEBUG
	" LOCK_DEBUG"
#endif
	"";

#ifdef PVQ_LOCK_STATS

static struct dentry *pvq_debugfs_dir;

/* One "name value" line per counter. */
static int pvq_events_show(struct seq_file *m, void *unused)
{
	int ev;

	for (ev = 0; ev < PVQ_NR_LOCK_EVENTS; ev++)
		seq_printf(m, "%s %lu\n", pvq_lock_event_names[ev],
			   pvq_lock_event_sum(ev));
	return 0;
}

static int pvq_events_open(struct inode *inode, struct file *file)
{
	return single_open(file, pvq_events_show, NULL);
}

/* Writing anything resets every counter. */
static ssize_t pvq_events_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	pvq_lock_events_reset();
	return count;
}

static const struct file_operations pvq_events_fops = {
	.owner		= THIS_MODULE,
	.open		= pvq_events_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= pvq_events_write,
};

static void pvq_debugfs_init(void)
{
	pvq_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("lock_events", 0600, pvq_debugfs_dir, NULL,
			    &pvq_events_fops);
}

static void pvq_debugfs_exit(void)
{
	debugfs_remove_recursive(pvq_debugfs_dir);
}

#else

static void pvq_debugfs_init(void)
{
}

static void pvq_debugfs_exit(void)
{
}

#endif /* PVQ_LOCK_STATS */

static int __init pvq_locks_init(void)
{
	int err;

	pr_info("loaded, options:%s\n",
		pvq_build_options[0] ? pvq_build_options : " (baselines only)");
	err = pvq_fault_init();
	if (err)
		return err;
	err = pvq_pv_init();
	if (err)
		return err;
	err = pvq_hash_init();
	if (err)
		return err;
	pvq_debugfs_init();
	return 0;
}

static void __exit pvq_locks_exit(void)
{
	pvq_debugfs_exit();
	pvq_hash_exit();
	pvq_pv_fini();
}

module_init(pvq_locks_init);
module_exit(pvq_locks_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Queued, ticket and test-and-set spinlocks for comparison under vCPU overcommit");
