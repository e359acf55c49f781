// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko: module glue for the lock library.
 *
 * The algorithms (qspinlock.c, lock_stats.c, the headers) know nothing about
 * modules; this file exports their out-of-line entry points, reports the
 * build configuration at load, and exposes the lock event counters in
 * debugfs (/sys/kernel/debug/pvq_locks/).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "qspinlock.h"
#include "lock_stats.h"

#ifdef PVQ_QUEUE_SPINLOCK
EXPORT_SYMBOL_GPL(pvq_qspin_lock_slowpath);
#endif

#ifdef PVQ_LOCK_STATS
EXPORT_SYMBOL_GPL(pvq_lock_event_sum);
EXPORT_SYMBOL_GPL(pvq_lock_events_reset);
#endif
EXPORT_SYMBOL_GPL(pvq_lock_event_names);

static const char pvq_build_options[] =
#ifdef PVQ_QUEUE_SPINLOCK
	" QUEUE_SPINLOCK"
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
	pr_info("loaded, options:%s\n",
		pvq_build_options[0] ? pvq_build_options : " (baselines only)");
	pvq_debugfs_init();
	return 0;
}

static void __exit pvq_locks_exit(void)
{
	pvq_debugfs_exit();
}

module_init(pvq_locks_init);
module_exit(pvq_locks_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Queued, ticket and test-and-set spinlocks for comparison under vCPU overcommit");
