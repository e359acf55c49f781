// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the shim's kernel primitives that the PV locks brought in:
 * xchg/cmpxchg on every width, the new atomic_t operations, log2, the
 * pointer hash, cpumasks and the online mask, kvcalloc() and WARN_ONCE().
 * The lock tests trust these; here they are checked against the kernel's
 * definitions.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "kselftest_harness.h"
#include "unit_helpers.h"

/* cmpxchg returns what it found, and stores only on a match. */
#define CHECK_CMPXCHG(type, a, b, c) do {				\
	__typeof__(type) __a = (a), __b = (b), __c = (c), __v = __a;	\
									\
	EXPECT_TRUE(cmpxchg(&__v, __b, __c) == __a);			\
	EXPECT_TRUE(__v == __a);					\
	EXPECT_TRUE(cmpxchg_acquire(&__v, __a, __b) == __a);		\
	EXPECT_TRUE(__v == __b);					\
	EXPECT_TRUE(cmpxchg_release(&__v, __b, __c) == __b);		\
	EXPECT_TRUE(__v == __c);					\
	EXPECT_TRUE(cmpxchg_relaxed(&__v, __c, __a) == __c);		\
	EXPECT_TRUE(__v == __a);					\
	EXPECT_TRUE(xchg(&__v, __b) == __a);				\
	EXPECT_TRUE(xchg_relaxed(&__v, __c) == __b);			\
	EXPECT_TRUE(__v == __c);					\
} while (0)

TEST(cmpxchg_and_xchg_on_every_width)
{
	static int objs[3];

	CHECK_CMPXCHG(u8, 1, 3, 0xff);
	CHECK_CMPXCHG(u16, 0x100, 0xffff, 2);
	CHECK_CMPXCHG(u32, 7, 0x80000000u, 9);
	CHECK_CMPXCHG(u64, 1ull << 40, ~0ull, 5);
	CHECK_CMPXCHG(int *, &objs[0], &objs[1], NULL);
}

TEST(atomic_t_operations)
{
	atomic_t v = ATOMIC_INIT(0x10);
	int old = 0x11;

	shim_register_cpu(UNIT_TEST_CPU);
	EXPECT_EQ(0x10, atomic_fetch_or(0x3, &v));
	EXPECT_EQ(0x13, atomic_read(&v));
	/* A failed try_cmpxchg hands back what it found. */
	EXPECT_FALSE(atomic_try_cmpxchg(&v, &old, 0));
	EXPECT_EQ(0x13, old);
	EXPECT_TRUE(atomic_try_cmpxchg(&v, &old, 0x20));
	EXPECT_EQ(0x20, atomic_read(&v));
	EXPECT_EQ(0x20, atomic_cmpxchg_relaxed(&v, 0x21, 0));
	EXPECT_EQ(0x20, atomic_cmpxchg_relaxed(&v, 0x20, 0x30));
	EXPECT_EQ(0x30, atomic_read(&v));
}

TEST(log2_helpers)
{
	EXPECT_EQ(0, ilog2(1));
	EXPECT_EQ(1, ilog2(3));
	EXPECT_EQ(8, ilog2(256));
	EXPECT_EQ(63, ilog2(~0ull));
	EXPECT_EQ(1UL, roundup_pow_of_two(1));
	EXPECT_EQ(4UL, roundup_pow_of_two(3));
	EXPECT_EQ(256UL, roundup_pow_of_two(256));
	EXPECT_EQ(512UL, roundup_pow_of_two(257));
	EXPECT_EQ(1UL << 63, roundup_pow_of_two((1UL << 62) + 1));
}

/* Cache-line-aligned pointers must still use the whole table. */
TEST(hash_ptr_spreads_aligned_pointers)
{
	static char area[256 * 64] __aligned(64);
	bool used[256] = { false };
	int i, n = 0;
	u32 h;

	EXPECT_EQ(0u, hash_ptr(area, 0));
	for (i = 0; i < 256; i++) {
		h = hash_ptr(area + 64 * i, 8);
		ASSERT_LT(h, 256u);
		n += !used[h];
		used[h] = true;
	}
	/* A random function fills about 1 - 1/e of the slots: 162. */
	EXPECT_GT(n, 128) TH_LOG("only %d of 256 slots used", n);
}

TEST(cpumask_set_clear_walk)
{
	static struct cpumask mask;
	int cpu, seen = 0, last = -1;

	EXPECT_EQ((unsigned int)SHIM_NR_CPUS, nr_cpu_ids);
	cpumask_set_cpu(0, &mask);
	cpumask_set_cpu(3, &mask);
	cpumask_set_cpu(SHIM_NR_CPUS - 1, &mask);
	cpumask_clear_cpu(3, &mask);
	EXPECT_TRUE(cpumask_test_cpu(0, &mask));
	EXPECT_FALSE(cpumask_test_cpu(3, &mask));
	for_each_cpu(cpu, &mask) {
		EXPECT_GT(cpu, last);
		last = cpu;
		seen++;
	}
	EXPECT_EQ(2, seen);
	EXPECT_EQ(SHIM_NR_CPUS - 1, last);
	/* Returns the old bit, and clears it. */
	EXPECT_TRUE(cpumask_test_and_clear_cpu(0, &mask));
	EXPECT_FALSE(cpumask_test_cpu(0, &mask));
	EXPECT_FALSE(cpumask_test_and_clear_cpu(0, &mask));
}

/* Every possible CPU starts online; set_cpu_online() moves one. */
TEST(cpu_online_mask_starts_full)
{
	int cpu, online = 0;

	for_each_possible_cpu(cpu)
		online += cpu_online(cpu);
	EXPECT_EQ(SHIM_NR_CPUS, online);
	EXPECT_EQ((unsigned int)SHIM_NR_CPUS, num_possible_cpus());
	set_cpu_online(5, false);
	EXPECT_FALSE(cpu_online(5));
	EXPECT_TRUE(cpu_online(4) && cpu_online(6));
	set_cpu_online(5, true);
	EXPECT_TRUE(cpu_online(5));
}

TEST(kvcalloc_aligned_zeroed_checked)
{
	unsigned char *p = kvcalloc(3, 100, GFP_KERNEL);
	int i;

	ASSERT_TRUE(!!p);
	EXPECT_EQ(0UL, (uintptr_t)p % 64);
	for (i = 0; i < 300; i++)
		ASSERT_EQ(0, p[i]);
	kvfree(p);
	EXPECT_TRUE(!kvcalloc(SIZE_MAX / 2, 4, GFP_KERNEL));
}

TEST(local_clock_counts_nanoseconds)
{
	u64 t0 = local_clock();

	usleep(2000);
	EXPECT_GE(local_clock() - t0, 2000000ull);
	EXPECT_LT(local_clock() - t0, 2000000000ull);
}

static bool warn_here(bool cond)
{
	return WARN_ONCE(cond, "shim_unit: warned %d\n", 42);
}

/* Counts every hit, prints once, returns the condition. */
TEST(warn_once_counts_every_hit)
{
	EXPECT_FALSE(warn_here(false));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_TRUE(warn_here(true));
	EXPECT_TRUE(warn_here(true));
	EXPECT_EQ(2UL, shim_warnings);
}

TEST_HARNESS_MAIN
