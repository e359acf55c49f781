// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the torture statistics (torture/torture_stats.c): the
 * log-linear histogram, its percentiles and Jain's fairness index, which
 * lock_stress and the torture module both report.
 */
#include <stdlib.h>

#include "torture_stats.h"

#include "kselftest_harness.h"

/* The smallest value that falls into @bucket. */
static u64 bucket_lower(unsigned int bucket)
{
	return bucket ? pvq_hist_bucket_upper(bucket - 1) + 1 : 0;
}

TEST(hist_small_values_have_a_bucket_each)
{
	u64 v;

	for (v = 0; v < 2 * PVQ_HIST_SUB; v++) {
		EXPECT_EQ(v, pvq_hist_bucket(v));
		EXPECT_EQ(v, pvq_hist_bucket_upper(v));
	}
}

/* Every bucket's range holds exactly its values, within 12.5% width. */
TEST(hist_buckets_tile_u64)
{
	unsigned int b;

	for (b = 0; b < PVQ_HIST_BUCKETS; b++) {
		u64 lo = bucket_lower(b), hi = pvq_hist_bucket_upper(b);

		ASSERT_LE(lo, hi) TH_LOG("bucket %u", b);
		EXPECT_EQ(b, pvq_hist_bucket(lo)) TH_LOG("bucket %u", b);
		EXPECT_EQ(b, pvq_hist_bucket(hi)) TH_LOG("bucket %u", b);
		if (lo >= PVQ_HIST_SUB)
			EXPECT_LE(hi - lo, lo / PVQ_HIST_SUB)
				TH_LOG("bucket %u: %llu..%llu", b, lo, hi);
	}
	EXPECT_EQ(~0ull, pvq_hist_bucket_upper(PVQ_HIST_BUCKETS - 1));
}

TEST(hist_percentiles)
{
	struct pvq_wait_hist *h = calloc(1, sizeof(*h));
	struct pvq_wait_hist *h2 = calloc(1, sizeof(*h2));
	u64 v, p50;

	ASSERT_TRUE(h && h2);
	EXPECT_EQ(0u, pvq_hist_percentile(h, 500));
	for (v = 1; v <= 1000; v++)
		pvq_hist_record(v & 1 ? h : h2, v);
	pvq_hist_merge(h, h2);
	EXPECT_EQ(1000u, h->count);
	EXPECT_EQ(1000u, h->max);
	/* Rounded up to the bucket's top: at most 12.5% above. */
	p50 = pvq_hist_percentile(h, 500);
	EXPECT_GE(p50, 500u);
	EXPECT_LE(p50, 500u + 500u / PVQ_HIST_SUB);
	EXPECT_EQ(1u, pvq_hist_percentile(h, 1));
	/* Never above the largest sample. */
	EXPECT_EQ(1000u, pvq_hist_percentile(h, 999));
	EXPECT_EQ(1000u, pvq_hist_percentile(h, 1000));
	free(h);
	free(h2);
}

/*
 * pvq_jain_milli() rounds sum^2 / n down before scaling by 1000, so very
 * small counts read low ({ 0, 9, 0, 0 } gives 246, not 250); real runs have
 * thousands of acquisitions per thread, and so do these counts.
 */
TEST(jain_index)
{
	const u64 even[] = { 7000, 7000, 7000, 7000 };
	const u64 one[] = { 0, 9000, 0, 0 };
	const u64 ramp[] = { 1000, 2000, 3000, 4000 };
	const u64 none[] = { 0, 0 };

	EXPECT_EQ(1000u, pvq_jain_milli(even, 4));
	/* One thread got everything: 1/n. */
	EXPECT_EQ(250u, pvq_jain_milli(one, 4));
	/* 10^2 / (4 * 30) = 0.8333 */
	EXPECT_EQ(833u, pvq_jain_milli(ramp, 4));
	EXPECT_EQ(0u, pvq_jain_milli(none, 2));
}

TEST_HARNESS_MAIN
