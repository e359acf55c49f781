/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Torture statistics: a log-linear wait-time histogram and fairness figures.
 *
 * Pure integer code with no module glue, so the userspace stress test and
 * the kernel torture module report the same numbers the same way.
 */
#ifndef PVQ_TORTURE_STATS_H
#define PVQ_TORTURE_STATS_H

#include <linux/types.h>

/*
 * Values below 2^PVQ_HIST_SUB_BITS have a bucket each; above that, every
 * power of two is split into 2^PVQ_HIST_SUB_BITS buckets, so a bucket's
 * width is at most 1/8 of its value (12.5% resolution) up to 2^63 ns.
 */
#define PVQ_HIST_SUB_BITS	3
#define PVQ_HIST_SUB		(1 << PVQ_HIST_SUB_BITS)
#define PVQ_HIST_BUCKETS	((64 - PVQ_HIST_SUB_BITS + 1) * PVQ_HIST_SUB)

struct pvq_wait_hist {
	u64 count;
	u64 max;
	u32 bucket[PVQ_HIST_BUCKETS];
};

unsigned int pvq_hist_bucket(u64 value);
u64 pvq_hist_bucket_upper(unsigned int bucket);
void pvq_hist_record(struct pvq_wait_hist *hist, u64 value);
void pvq_hist_merge(struct pvq_wait_hist *into, const struct pvq_wait_hist *from);
u64 pvq_hist_percentile(const struct pvq_wait_hist *hist, unsigned int permille);

/* Jain's fairness index of @n counts, scaled by 1000 (1000 = perfectly even). */
unsigned int pvq_jain_milli(const u64 *counts, unsigned int n);

#endif /* PVQ_TORTURE_STATS_H */
