// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_fastpath.ko: the uncontended cost of every built lock type, inside
 * the kernel: TSC cycles per lock+unlock pair, one CPU, one lock, never
 * contended.
 *
 * bench/fastpath.c measures the same inline fast paths in userspace,
 * through the shim.  This module measures them as the kernel compiles
 * them, with the static key of the PV backend (pv/pv_ops.h) really
 * patched: what a PV type costs where nothing halts (pv_backend=none,
 * nopvspin), against the native qspinlock.  Run it in a guest of two or
 * more vCPUs (with one, TCG emulates atomics without their locking):
 * tools/kfastpath does.
 *
 * Method, as fastpath.c: each repetition times a block of @pairs pairs,
 * between "lfence; rdtsc" and "rdtscp; lfence" (rdtsc_ordered()), with
 * interrupts off, for every type in turn, so that a disturbance spreads
 * over all of them.  The module prints, per type,
 *
 *   pvq_fastpath: TYPE median M.MM min M.MM max M.MM cycles/pair
 *
 * then "pvq_fastpath: done", and stays loaded until rmmod.  A parameter
 * out of range fails the load with -EINVAL and a message.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/msr.h>

#include "pvq_locks.h"

#define KFASTPATH_MAX_PAIRS	10000000
#define KFASTPATH_MAX_REPS	1001

static int pairs = 100000;
module_param(pairs, int, 0444);
MODULE_PARM_DESC(pairs, "lock+unlock pairs per timed block (1..10000000, default 100000)");

static int reps = 21;
module_param(reps, int, 0444);
MODULE_PARM_DESC(reps, "timed blocks per type (1..1001, default 21)");

/* One timed block of @n pairs on a lock of its own, from a fresh init. */
#define KFASTPATH_BLOCK(name, type, prefix)				\
static u64 kfastpath_##name(int n)					\
{									\
	static type lock ____cacheline_aligned;				\
	unsigned long flags;						\
	u64 t0, t1;							\
	int i;								\
									\
	pvq_##prefix##_init(&lock);					\
	local_irq_save(flags);						\
	t0 = rdtsc_ordered();						\
	for (i = 0; i < n; i++) {					\
		pvq_##prefix##_lock(&lock);				\
		pvq_##prefix##_unlock(&lock);				\
	}								\
	t1 = rdtsc_ordered();						\
	local_irq_restore(flags);					\
	return t1 - t0;							\
}

#define PVQ_LOCK_TYPE(name, prefix, lock, option)			\
	PVQ_IF_BUILT(option, KFASTPATH_BLOCK(name, lock, prefix))
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE

struct kfastpath_type {
	const char *name;
	u64 (*block)(int n);
};

/* Only called through this table: no type's loop is inlined into another. */
static const struct kfastpath_type kfastpath_types[] = {
#define PVQ_LOCK_TYPE(name, prefix, lock, option)			\
	PVQ_BUILT_ITEM(option, { #name, kfastpath_##name })
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
};

#define KFASTPATH_NR_TYPES	ARRAY_SIZE(kfastpath_types)

static int kfastpath_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* @cycles of one block, per pair, in hundredths of a cycle. */
static u64 kfastpath_per_pair(u64 cycles)
{
	return div_u64(cycles * 100, pairs);
}

static void kfastpath_report(const char *name, u64 *cycles)
{
	u64 med, lo, hi;

	sort(cycles, reps, sizeof(*cycles), kfastpath_cmp, NULL);
	med = kfastpath_per_pair(cycles[reps / 2]);
	lo = kfastpath_per_pair(cycles[0]);
	hi = kfastpath_per_pair(cycles[reps - 1]);
	pr_info("%s median %llu.%02llu min %llu.%02llu max %llu.%02llu cycles/pair\n",
		name, med / 100, med % 100, lo / 100, lo % 100, hi / 100,
		hi % 100);
}

static int kfastpath_check(const char *name, int val, int max)
{
	if (val >= 1 && val <= max)
		return 0;
	pr_err("%s=%d out of range [1..%d]\n", name, val, max);
	return -EINVAL;
}

static int __init kfastpath_init(void)
{
	unsigned int t;
	u64 *cycles;
	int r;

	if (kfastpath_check("pairs", pairs, KFASTPATH_MAX_PAIRS) ||
	    kfastpath_check("reps", reps, KFASTPATH_MAX_REPS))
		return -EINVAL;
	cycles = kcalloc(KFASTPATH_NR_TYPES * reps, sizeof(*cycles),
			 GFP_KERNEL);
	if (!cycles)
		return -ENOMEM;
	for (r = 0; r < reps; r++)
		for (t = 0; t < KFASTPATH_NR_TYPES; t++)
			cycles[t * reps + r] = kfastpath_types[t].block(pairs);
	for (t = 0; t < KFASTPATH_NR_TYPES; t++)
		kfastpath_report(kfastpath_types[t].name, &cycles[t * reps]);
	kfree(cycles);
	pr_info("done\n");
	return 0;
}

static void __exit kfastpath_exit(void)
{
}

module_init(kfastpath_init);
module_exit(kfastpath_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Uncontended lock+unlock cost of every built lock type, in the kernel");
