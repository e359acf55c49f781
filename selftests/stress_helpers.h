/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the threaded userspace tests (lock_stress, unfair_starvation) share:
 * the clock, busy work, pinning threads to a few CPUs, and waiting for the
 * workers to finish.  Include after <pthread.h>, <sched.h>, the shim's
 * <asm/processor.h> and kselftest.h, with _GNU_SOURCE defined.
 */
#ifndef PVQ_STRESS_HELPERS_H
#define PVQ_STRESS_HELPERS_H

#include <string.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: the same clock as the shim's local_clock(). */
static inline u64 stress_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A few hundred cycles that the compiler cannot drop or merge. */
static inline void stress_spin_work(unsigned int loops)
{
	while (loops--)
		cpu_relax();
}

/*
 * The first @want CPUs we may run on, in @set; how many there are (0: no
 * pinning, because @want is 0 or our affinity cannot be read).
 */
static inline unsigned int stress_pick_cpus(unsigned int want, cpu_set_t *set)
{
	unsigned int cpu, n = 0;
	cpu_set_t allowed;

	if (!want || sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	CPU_ZERO(set);
	for (cpu = 0; cpu < CPU_SETSIZE && n < want; cpu++) {
		if (CPU_ISSET(cpu, &allowed)) {
			CPU_SET(cpu, set);
			n++;
		}
	}
	return n;
}

/* Pin thread @tid (our "cpu" @id) to @set; a failure is only reported. */
static inline void stress_pin(pthread_t tid, const cpu_set_t *set,
			      unsigned int id)
{
	int err = pthread_setaffinity_np(tid, sizeof(*set), set);

	if (err)
		ksft_print_msg("cpu %u: pthread_setaffinity_np: %s\n", id,
			       strerror(err));
}

/* Wait up to @limit_ms until *@finished reaches @threads; false if not. */
static inline bool stress_wait_finished(unsigned int *finished,
					unsigned int threads,
					unsigned int limit_ms)
{
	u64 end = stress_now_ns() + limit_ms * 1000000ull;

	while (__atomic_load_n(finished, __ATOMIC_ACQUIRE) < threads) {
		if (stress_now_ns() > end)
			return false;
		usleep(1000);
	}
	return true;
}

#endif /* PVQ_STRESS_HELPERS_H */
