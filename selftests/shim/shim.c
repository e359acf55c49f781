// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace shim: per-CPU areas and CPU registration.  See shim.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "shim.h"

__thread int shim_this_cpu = -1;
__thread int shim_in_nmi;
__thread int shim_irqs_off;
struct shim_rmw_count shim_rmws[SHIM_NR_CPUS];
uintptr_t shim_percpu_offset[SHIM_NR_CPUS];
unsigned long shim_warnings;

/* Every possible CPU starts online (<linux/cpumask.h>). */
struct cpumask shim_cpu_online_mask;

/* Which CPUs have a thread; two threads on one CPU would share its nodes. */
static int shim_cpu_taken[SHIM_NR_CPUS];

/*
 * Like the kernel's cpu_number.  It also makes sure the section exists, so
 * that the linker defines __start/__stop_shim_percpu in every program.
 */
DEFINE_PER_CPU(int, shim_cpu_number);

extern char __start_shim_percpu[], __stop_shim_percpu[];

void shim_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("shim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void shim_warn(const char *file, int line, const char *func)
{
	fflush(stdout);
	fprintf(stderr, "shim: WARNING: CPU: %d at %s:%d %s()\n",
		shim_this_cpu, file, line, func);
}

void shim_warn_msg(const char *file, int line, const char *func,
		   const char *fmt, ...)
{
	va_list ap;

	shim_warn(file, line, func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void shim_no_cpu(void)
{
	shim_die("lock or per-CPU code on a thread that is not a CPU: %s",
		 "call shim_register_cpu() first");
}

/*
 * Before main() and before any test forks: every child process inherits
 * the areas.  Each copy starts as the section's initial image, as in the
 * kernel, and copies are whole cache lines apart so that CPUs never share
 * a line through their per-CPU data.
 */
static void __attribute__((constructor(101))) shim_percpu_setup(void)
{
	size_t size = __stop_shim_percpu - __start_shim_percpu;
	size_t stride = (size + SHIM_CACHELINE - 1) & ~(size_t)(SHIM_CACHELINE - 1);
	char *area;
	int cpu;

	area = aligned_alloc(SHIM_CACHELINE, stride * SHIM_NR_CPUS);
	if (!area)
		shim_die("cannot allocate %zu bytes of per-CPU data",
			 stride * SHIM_NR_CPUS);
	for_each_possible_cpu(cpu) {
		memcpy(area + cpu * stride, __start_shim_percpu, size);
		shim_percpu_offset[cpu] = (uintptr_t)(area + cpu * stride) -
					  (uintptr_t)__start_shim_percpu;
		per_cpu(shim_cpu_number, cpu) = cpu;
		set_cpu_online(cpu, true);
	}
}

void shim_register_cpu(int cpu)
{
	if ((unsigned int)cpu >= SHIM_NR_CPUS)
		shim_die("%s(%d): CPUs are 0..%d", __func__, cpu,
			 SHIM_NR_CPUS - 1);
	if (shim_this_cpu >= 0)
		shim_die("%s(%d): this thread already is CPU %d", __func__,
			 cpu, shim_this_cpu);
	/*
	 * Acquire, paired with the release in shim_unregister_cpu(): a thread
	 * taking over a CPU sees everything the previous one left in its
	 * per-CPU data, as a migrated task would.
	 */
	if (__atomic_exchange_n(&shim_cpu_taken[cpu], 1, __ATOMIC_ACQUIRE))
		shim_die("%s(%d): another thread is CPU %d", __func__, cpu,
			 cpu);
	shim_this_cpu = cpu;
	if (per_cpu(shim_cpu_number, cpu) != cpu)
		shim_die("per-CPU area of CPU %d is corrupt", cpu);
}

void shim_unregister_cpu(void)
{
	int cpu = shim_cpu();

	shim_this_cpu = -1;
	__atomic_store_n(&shim_cpu_taken[cpu], 0, __ATOMIC_RELEASE);
}

u64 shim_clock_skew_ns;

u64 local_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec +
	       __atomic_load_n(&shim_clock_skew_ns, __ATOMIC_RELAXED);
}

int shim_kvcalloc_fails;

void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;
	void *p;

	if (__atomic_load_n(&shim_kvcalloc_fails, __ATOMIC_RELAXED))
		return NULL;
	if (__builtin_mul_overflow(n, size, &bytes) ||
	    bytes > SIZE_MAX - SHIM_CACHELINE)
		return NULL;
	/* aligned_alloc() wants a multiple of the alignment. */
	bytes = (bytes + SHIM_CACHELINE - 1) & ~(size_t)(SHIM_CACHELINE - 1);
	p = aligned_alloc(SHIM_CACHELINE, bytes ? bytes : SHIM_CACHELINE);
	if (p)
		memset(p, 0, bytes);
	return p;
}

void kvfree(const void *addr)
{
	free((void *)addr);
}

void shim_printk(const char *level, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "shim: kernel %s: ", level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

int param_set_uint_minmax(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(val, &end, 0);

	if (!*val || *end || v < min || v > max)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

int param_get_uint(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%u\n", *(unsigned int *)kp->arg);
}
