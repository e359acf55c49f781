// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko, LOCK_STATS=y: the lock event counters in debugfs
 * (/sys/kernel/debug/pvq_locks/lock_events), and for the torture report.
 * Built into the kernel, the kernel's lock events hold them (lock_stats.h):
 * only the exports are left here.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "glue.h"
#include "lock_stats.h"

EXPORT_SYMBOL_GPL(pvq_lock_event_sum);
EXPORT_SYMBOL_GPL(pvq_lock_events_reset);

#ifdef PVQ_KERNEL_LOCK_EVENTS

/* Built in: the kernel's lock_event_counts/pvq_* show and reset them. */
void pvq_debugfs_init(void)
{
}

void pvq_debugfs_exit(void)
{
}

#else

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

void pvq_debugfs_init(void)
{
	pvq_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("lock_events", 0600, pvq_debugfs_dir, NULL,
			    &pvq_events_fops);
}

void pvq_debugfs_exit(void)
{
	debugfs_remove_recursive(pvq_debugfs_dir);
}

#endif /* PVQ_KERNEL_LOCK_EVENTS */
