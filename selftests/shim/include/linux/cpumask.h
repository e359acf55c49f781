/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_CPUMASK_H
#define _SHIM_LINUX_CPUMASK_H

#include <limits.h>

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "../../shim.h"

/* Every CPU slot has a per-CPU area, registered or not. */
#define nr_cpu_ids	((unsigned int)SHIM_NR_CPUS)

#define for_each_possible_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < SHIM_NR_CPUS; (cpu)++)

#define SHIM_BITS_PER_LONG	(sizeof(long) * CHAR_BIT)

struct cpumask {
	unsigned long bits[(SHIM_NR_CPUS + SHIM_BITS_PER_LONG - 1) /
			   SHIM_BITS_PER_LONG];
};

static __always_inline unsigned long *shim_cpumask_word(int cpu,
							struct cpumask *mask)
{
	/* A bad CPU number would write outside the mask: abort instead. */
	(void)shim_cpu_offset(cpu);
	return &mask->bits[cpu / SHIM_BITS_PER_LONG];
}

#define shim_cpumask_bit(cpu)	(1UL << ((cpu) % SHIM_BITS_PER_LONG))

/*
 * Atomic but unordered, like the kernel's set_bit()/clear_bit(): callers
 * that need ordering add a barrier or a fully ordered atomic.
 */
static __always_inline void cpumask_set_cpu(int cpu, struct cpumask *mask)
{
	__atomic_fetch_or(shim_cpumask_word(cpu, mask), shim_cpumask_bit(cpu),
			  __ATOMIC_RELAXED);
}

static __always_inline void cpumask_clear_cpu(int cpu, struct cpumask *mask)
{
	__atomic_fetch_and(shim_cpumask_word(cpu, mask),
			   ~shim_cpumask_bit(cpu), __ATOMIC_RELAXED);
}

static __always_inline bool cpumask_test_cpu(int cpu,
					     const struct cpumask *mask)
{
	const unsigned long *word;

	word = shim_cpumask_word(cpu, (struct cpumask *)mask);
	return __atomic_load_n(word, __ATOMIC_RELAXED) & shim_cpumask_bit(cpu);
}

/* Fully ordered, like the kernel's test_and_clear_bit(). */
static __always_inline bool cpumask_test_and_clear_cpu(int cpu,
						       struct cpumask *mask)
{
	return __atomic_fetch_and(shim_cpumask_word(cpu, mask),
				  ~shim_cpumask_bit(cpu), __ATOMIC_SEQ_CST) &
	       shim_cpumask_bit(cpu);
}

/* The first CPU after @n in @mask, or nr_cpu_ids. */
static __always_inline unsigned int cpumask_next(int n,
						 const struct cpumask *mask)
{
	unsigned int cpu;

	for (cpu = n + 1; cpu < nr_cpu_ids; cpu++)
		if (cpumask_test_cpu(cpu, mask))
			return cpu;
	return nr_cpu_ids;
}

/* Bits may change under the walk; each is read once, atomically. */
#define for_each_cpu(cpu, mask)						\
	for ((cpu) = -1;						\
	     (cpu) = cpumask_next((cpu), (mask)),			\
	     (unsigned int)(cpu) < nr_cpu_ids;)

#define num_possible_cpus()	nr_cpu_ids

/*
 * Every possible CPU starts online (shim.c); a test takes one out of the
 * mask with set_cpu_online(), as the kernel does around a CPU's bring-up
 * and teardown.  Nothing else changes: its thread may go on running lock
 * code, as an incoming or outgoing CPU does.
 */
extern struct cpumask shim_cpu_online_mask;
#define cpu_online_mask		((const struct cpumask *)&shim_cpu_online_mask)
#define cpu_online(cpu)		cpumask_test_cpu((cpu), cpu_online_mask)

static inline void set_cpu_online(unsigned int cpu, bool online)
{
	if (online)
		cpumask_set_cpu(cpu, &shim_cpu_online_mask);
	else
		cpumask_clear_cpu(cpu, &shim_cpu_online_mask);
}

#endif
