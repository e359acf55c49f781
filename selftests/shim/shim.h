/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: threads play CPUs.
 *
 * A thread becomes "CPU n" by calling shim_register_cpu(n); from then on
 * smp_processor_id() returns n and this_cpu_ptr() resolves to CPU n's copy
 * of every per-CPU variable.  Each per-CPU variable lives in the ELF section
 * "shim_percpu" (see <linux/percpu.h>); at startup shim.c makes
 * SHIM_NR_CPUS copies of that section, and per_cpu_ptr(p, cpu) is p moved by
 * CPU cpu's offset, exactly like the kernel's __per_cpu_offset[].
 *
 * Lock code running on a thread that is not a CPU aborts with a message:
 * in the kernel it would be running with preemption enabled, and here it
 * would share another thread's per-CPU queue nodes.
 */
#ifndef SHIM_H
#define SHIM_H

#include <stdint.h>

#include <linux/compiler.h>
#include <linux/kconfig.h>

#define SHIM_NR_CPUS	CONFIG_NR_CPUS
#define SHIM_CACHELINE	64

extern __thread int shim_this_cpu;
extern uintptr_t shim_percpu_offset[SHIM_NR_CPUS];

/*
 * The calling thread's context, as far as the PV locks care: a test sets
 * these around code that plays an NMI handler, or a section with
 * interrupts off.  The userspace backend answers pvq_pv_can_wait() from
 * them as the kernel's ipi backend does (pv_futex.h).
 */
extern __thread int shim_in_nmi;
extern __thread int shim_irqs_off;

/*
 * Atomic read-modify-writes issued by each CPU (xchg, xadd, cmpxchg, the
 * atomic_t RMWs), successful or not: each one takes its cache line
 * exclusive, so tests measure the traffic a lock path causes with it.
 * Only the CPU's own thread writes its counter.
 */
struct shim_rmw_count {
	unsigned long n;
} __aligned(SHIM_CACHELINE);
extern struct shim_rmw_count shim_rmws[SHIM_NR_CPUS];

static inline void shim_count_rmw(void)
{
#ifndef SHIM_NO_RMW_COUNT	/* the fast-path benchmark measures without it */
	int cpu = shim_this_cpu;
	unsigned long *n;

	if (cpu < 0 || cpu >= SHIM_NR_CPUS)
		return;
	n = &shim_rmws[cpu].n;
	__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
#endif
}

static inline unsigned long shim_rmws_of(int cpu)
{
	return __atomic_load_n(&shim_rmws[cpu].n, __ATOMIC_RELAXED);
}

void shim_register_cpu(int cpu);
void shim_unregister_cpu(void);

__noreturn __cold __printf(1, 2) void shim_die(const char *fmt, ...);
__noreturn __cold void shim_no_cpu(void);

/* WARN_ON_ONCE() and WARN_ONCE() hits so far (<linux/bug.h>). */
extern unsigned long shim_warnings;
__cold void shim_warn(const char *file, int line, const char *func);
__cold __printf(4, 5) void shim_warn_msg(const char *file, int line,
					 const char *func, const char *fmt, ...);

/* The calling thread's CPU; aborts on a thread that never registered. */
static inline int shim_cpu(void)
{
	int cpu = shim_this_cpu;

	if (unlikely(cpu < 0))
		shim_no_cpu();
	return cpu;
}

/* Offset of @cpu's copy from the template; a bad CPU (say, a corrupt tail) aborts. */
static inline uintptr_t shim_cpu_offset(int cpu)
{
	if (unlikely((unsigned int)cpu >= SHIM_NR_CPUS))
		shim_die("per-CPU access for CPU %d (CPUs are 0..%d)",
			 cpu, SHIM_NR_CPUS - 1);
	return shim_percpu_offset[cpu];
}

#endif /* SHIM_H */
