// SPDX-License-Identifier: GPL-2.0
/*
 * nongpl_spinlock.ko: a module that declares a licence that is not GPL
 * compatible and takes a spinlock, as a vendor driver does.  spin_lock()
 * and spin_unlock() inline calls to the arch lock's slow paths, so a
 * kernel whose slow paths are exported GPL-only cannot build it (modpost:
 * "GPL-incompatible module ... uses GPL-only symbol").  Loaded, it
 * contends one lock from every online CPU at once (in the IPI of
 * on_each_cpu(), interrupts off) and checks that no increment made under
 * the lock was lost; the load fails with -EIO if one was.
 *
 * The source is GPL-2.0 like the rest of the tree; only the licence it
 * declares to the kernel is not: that is what the test is about.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#define NONGPL_ROUNDS	20000

static DEFINE_SPINLOCK(nongpl_lock);
static unsigned long nongpl_count;

/* Every CPU at once: the lock is contended, so the slow paths run. */
static void nongpl_hammer(void *unused)
{
	int i;

	for (i = 0; i < NONGPL_ROUNDS; i++) {
		spin_lock(&nongpl_lock);
		/* Not atomic on purpose: only the lock keeps it exact. */
		WRITE_ONCE(nongpl_count, READ_ONCE(nongpl_count) + 1);
		spin_unlock(&nongpl_lock);
	}
}

static int __init nongpl_init(void)
{
	unsigned long want;

	/*
	 * No CPU comes or goes during the test (cpus_read_lock() is
	 * GPL-only, so a module like this one cannot hold hotplug off).
	 */
	want = (unsigned long)num_online_cpus() * NONGPL_ROUNDS;
	on_each_cpu(nongpl_hammer, NULL, 1);
	if (nongpl_count != want) {
		pr_err("FAIL: %lu increments under the lock, expected %lu\n",
		       nongpl_count, want);
		return -EIO;
	}
	pr_info("PASS: %lu increments under one spinlock from every CPU\n",
		nongpl_count);
	return 0;
}

static void __exit nongpl_exit(void)
{
}

module_init(nongpl_init);
module_exit(nongpl_exit);

MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("A non-GPL module that takes a spinlock (test)");
