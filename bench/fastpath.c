// SPDX-License-Identifier: GPL-2.0
/*
 * Uncontended fast-path cost: TSC cycles per lock+unlock pair, one thread,
 * one lock, never contended.
 *
 * The lock types are the project's own fast paths (the inline functions of
 * qspinlock/ and pv/ headers), compiled with the same flags and against the
 * same kernel-header shim as selftests/.  Their out-of-line slow paths are
 * stubs that abort (stubs.c): an uncontended lock must never leave its fast
 * path, and the stubs make the benchmark check that premise.
 *
 * References:
 *   floor        one atomic read-modify-write (xchg) plus one release
 *                store, the least any lock can do; every result is also
 *                given as a multiple of it
 *   floor-shim   the same two operations through the shim's atomic_t
 *                helpers, which check on every call that the thread is a
 *                registered CPU: what that check adds to every shim lock
 *   pthread      glibc's pthread_spin_lock/unlock (out-of-line calls)
 *
 * Method: each repetition times a block of @pairs lock+unlock pairs with
 * "lfence; rdtsc" before and "rdtscp; lfence" after (no instruction of the
 * block can move across either end) and divides by @pairs, so that the
 * fences and the loop cost next to nothing per pair.  Repetitions take the
 * types in turn, so that a disturbance of the machine (another process, a
 * frequency change) spreads over all of them instead of hitting one.  The
 * thread is pinned to the CPU it started on.  Reported: median, minimum and
 * maximum over the repetitions, in TSC cycles (the TSC counts at a fixed
 * rate, not core cycles: compare the ratios).
 *
 *   fastpath [-r repetitions] [-n pairs] [-c file.csv]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "pvq_locks.h"

#include "shim.h"

#define DEFAULT_REPS	21
#define DEFAULT_PAIRS	100000
#define MAX_REPS	1001

static __always_inline u64 tsc_begin(void)
{
	u32 lo, hi;

	/* lfence first: earlier instructions finish before the read. */
	asm volatile("lfence\n\trdtsc\n\tlfence"
		     : "=a" (lo), "=d" (hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static __always_inline u64 tsc_end(void)
{
	u32 lo, hi, aux;

	/* rdtscp waits for the block; lfence keeps later work out of it. */
	asm volatile("rdtscp\n\tlfence"
		     : "=a" (lo), "=d" (hi), "=c" (aux) : : "memory");
	return ((u64)hi << 32) | lo;
}

/*
 * One timed block per type: every type gets the same loop in its own
 * function.  They are only called through the types[] table, so none is
 * inlined into another and no two types' code can interleave.
 */
#define DEFINE_PAIRS(name, type, init, lock, unlock)			\
static u64 pairs_##name(long n)						\
{									\
	static type l __aligned(64);					\
	u64 t0, t1;							\
	long i;								\
									\
	init(&l);							\
	t0 = tsc_begin();						\
	for (i = 0; i < n; i++) {					\
		lock(&l);						\
		unlock(&l);						\
	}								\
	t1 = tsc_end();							\
	return t1 - t0;							\
}

static __always_inline void floor_init(int *w)
{
	__atomic_store_n(w, 0, __ATOMIC_RELAXED);
}

static __always_inline void floor_lock(int *w)
{
	(void)__atomic_exchange_n(w, 1, __ATOMIC_ACQUIRE);
}

static __always_inline void floor_unlock(int *w)
{
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
}

static __always_inline void shim_floor_init(atomic_t *v)
{
	atomic_set(v, 0);
}

static __always_inline void shim_floor_lock(atomic_t *v)
{
	int old = 0;

	(void)atomic_try_cmpxchg_acquire(v, &old, 1);
}

static __always_inline void shim_floor_unlock(atomic_t *v)
{
	atomic_set_release(v, 0);
}

static void pthread_init(pthread_spinlock_t *l)
{
	if (pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE))
		shim_die("pthread_spin_init failed");
}

DEFINE_PAIRS(floor, int, floor_init, floor_lock, floor_unlock)
DEFINE_PAIRS(floor_shim, atomic_t, shim_floor_init, shim_floor_lock,
	     shim_floor_unlock)
/* Every built type of lock_types_list.h. */
#define PVQ_LOCK_TYPE(name, prefix, lock, option)			\
	PVQ_IF_BUILT(option, DEFINE_PAIRS(name, lock, pvq_##prefix##_init,	\
					  pvq_##prefix##_lock,		\
					  pvq_##prefix##_unlock))
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
DEFINE_PAIRS(pthread, pthread_spinlock_t, pthread_init, pthread_spin_lock,
	     pthread_spin_unlock)

struct lock_type {
	const char *name;
	const char *what;
	u64 (*pairs)(long n);
	double *per_pair;	/* one value per repetition */
};

#define TYPE(n, w)	{ .name = #n, .what = w, .pairs = pairs_##n }

static struct lock_type types[] = {
	/* The floor comes first: the "x floor" column divides by it. */
	{ .name = "floor", .what = "xchg + release store (raw builtins)",
	  .pairs = pairs_floor },
	{ .name = "floor-shim", .what = "cmpxchg + release store (shim atomic_t)",
	  .pairs = pairs_floor_shim },
#define PVQ_LOCK_TYPE(name, prefix, lock, option)			\
	PVQ_BUILT_ITEM(option,						\
		TYPE(name, "pvq_" #prefix "_lock + _unlock (" #lock ")"))
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
	TYPE(pthread, "glibc pthread_spin_lock/unlock (reference)"),
};

#define NR_TYPES	(sizeof(types) / sizeof(*types))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @v in place. */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void pin_to_this_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "fastpath: cannot pin to CPU %d: %s\n", cpu,
			strerror(errno));
}

static void measure(int reps, long pairs)
{
	unsigned int t;
	int r;

	/* Warm-up: page in the code and the locks, settle the clock. */
	for (t = 0; t < NR_TYPES; t++)
		types[t].pairs(pairs);
	for (r = 0; r < reps; r++)
		for (t = 0; t < NR_TYPES; t++)
			types[t].per_pair[r] =
				(double)types[t].pairs(pairs) / pairs;
}

static void print_results(int reps, long pairs, FILE *csv)
{
	double floor_median = 0;
	unsigned int t;

	printf("Uncontended lock+unlock, TSC cycles per pair ");
	printf("(%d repetitions of %ld pairs; lower is better)\n\n", reps, pairs);
	printf("| lock | median | min | max | x floor | what |\n");
	printf("|---|---:|---:|---:|---:|---|\n");
	if (csv)
		fprintf(csv, "lock,median,min,max,x_floor\n");
	for (t = 0; t < NR_TYPES; t++) {
		double *v = types[t].per_pair;
		double med = median(v, reps);

		if (t == 0)
			floor_median = med;
		printf("| %s | %.1f | %.1f | %.1f | %.2f | %s |\n",
		       types[t].name, med, v[0], v[reps - 1],
		       med / floor_median, types[t].what);
		if (csv)
			fprintf(csv, "%s,%.2f,%.2f,%.2f,%.3f\n", types[t].name,
				med, v[0], v[reps - 1], med / floor_median);
	}
}

static void die_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-r repetitions (1..%d, default %d)] [-n pairs per repetition (default %d)] [-c file.csv]\n",
		prog, MAX_REPS, DEFAULT_REPS, DEFAULT_PAIRS);
	exit(2);
}

static long number(const char *s, long lo, long hi, const char *prog)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die_usage(prog);
	return v;
}

int main(int argc, char **argv)
{
	int reps = DEFAULT_REPS, opt;
	long pairs = DEFAULT_PAIRS;
	const char *csv_path = NULL;
	FILE *csv = NULL;
	unsigned int t;

	while ((opt = getopt(argc, argv, "r:n:c:h")) != -1) {
		switch (opt) {
		case 'r':
			reps = number(optarg, 1, MAX_REPS, argv[0]);
			break;
		case 'n':
			pairs = number(optarg, 1, 100000000, argv[0]);
			break;
		case 'c':
			csv_path = optarg;
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc)
		die_usage(argv[0]);

	for (t = 0; t < NR_TYPES; t++) {
		types[t].per_pair = calloc(reps, sizeof(double));
		if (!types[t].per_pair)
			shim_die("out of memory");
	}
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv)
			shim_die("%s: %s", csv_path, strerror(errno));
	}

	pin_to_this_cpu();
	/* The lock code expects to run on a CPU (preemption disabled). */
	shim_register_cpu(0);
	measure(reps, pairs);
	shim_unregister_cpu();
	print_results(reps, pairs, csv);
	if (csv && fclose(csv))
		shim_die("%s: %s", csv_path, strerror(errno));
	return 0;
}
