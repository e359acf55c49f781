// SPDX-License-Identifier: GPL-2.0
/*
 * Torture statistics: see torture_stats.h.
 */
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "torture_stats.h"

unsigned int pvq_hist_bucket(u64 value)
{
	unsigned int msb, sub;

	if (value < PVQ_HIST_SUB)
		return value;
	/* msb >= PVQ_HIST_SUB_BITS here; keep the bits just below it. */
	msb = fls64(value) - 1;
	sub = (value >> (msb - PVQ_HIST_SUB_BITS)) & (PVQ_HIST_SUB - 1);
	return (msb - PVQ_HIST_SUB_BITS + 1) * PVQ_HIST_SUB + sub;
}

/* The largest value that falls into @bucket. */
u64 pvq_hist_bucket_upper(unsigned int bucket)
{
	unsigned int octave = bucket / PVQ_HIST_SUB;
	u64 sub = bucket % PVQ_HIST_SUB;
	unsigned int shift;

	if (!octave)
		return sub;
	shift = octave - 1;
	return (((PVQ_HIST_SUB + sub + 1) << shift) - 1);
}

void pvq_hist_record(struct pvq_wait_hist *hist, u64 value)
{
	hist->bucket[pvq_hist_bucket(value)]++;
	hist->count++;
	hist->max = max(hist->max, value);
}

void pvq_hist_merge(struct pvq_wait_hist *into, const struct pvq_wait_hist *from)
{
	unsigned int i;

	for (i = 0; i < PVQ_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
	into->count += from->count;
	into->max = max(into->max, from->max);
}

/*
 * The value below which @permille per mille of the samples fall, rounded up
 * to its bucket's upper bound but never above the largest sample seen.
 */
u64 pvq_hist_percentile(const struct pvq_wait_hist *hist, unsigned int permille)
{
	u64 rank, seen = 0;
	unsigned int i;

	if (!hist->count)
		return 0;
	/* Smallest rank r (1-based) with r >= count * permille / 1000. */
	rank = max_t(u64, 1, DIV_ROUND_UP_ULL(hist->count * permille, 1000));
	for (i = 0; i < PVQ_HIST_BUCKETS; i++) {
		seen += hist->bucket[i];
		if (seen >= rank)
			return min(pvq_hist_bucket_upper(i), hist->max);
	}
	return hist->max;
}

/*
 * The index does not change when every count is scaled alike, so counts are
 * shifted below 2^PVQ_JAIN_BITS first: then, for up to 2^(63 - 2 *
 * PVQ_JAIN_BITS) counts, n * sum_sq fits in 64 bits and sum * 1000 too,
 * and the quotient is taken of the exact 128-bit product.  The shift costs
 * a relative error below 2^-PVQ_JAIN_BITS.
 */
#define PVQ_JAIN_BITS	20

unsigned int pvq_jain_milli(const u64 *counts, unsigned int n)
{
	u64 sum = 0, sum_sq = 0, top = 0, c;
	unsigned int i, shift;

	if (!n || n > (1U << (63 - 2 * PVQ_JAIN_BITS)))
		return 0;
	for (i = 0; i < n; i++)
		top = max(top, counts[i]);
	shift = max(fls64(top), PVQ_JAIN_BITS) - PVQ_JAIN_BITS;
	for (i = 0; i < n; i++) {
		c = counts[i] >> shift;
		sum += c;
		sum_sq += c * c;
	}
	if (!sum_sq)
		return 0;
	/* (sum^2 / n) / sum_sq = sum^2 / (n * sum_sq) */
	return mul_u64_u64_div_u64(sum, sum * 1000, n * sum_sq);
}
