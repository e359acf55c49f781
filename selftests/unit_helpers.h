/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the lock unit tests: contender threads that each play one
 * CPU, a log of the order in which they got the lock, and bounded polling.
 *
 * Only the test's own thread may use the harness's ASSERT/EXPECT macros
 * (they longjmp), so helper threads just publish their progress in flags
 * that the test polls.  Every wait is bounded: a broken lock fails the
 * test instead of hanging it.
 */
#ifndef UNIT_HELPERS_H
#define UNIT_HELPERS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include "shim.h"
/* The lock under test, type-erased so one contender serves every type. */
#include "lock_adapters.h"

#ifndef UNIT_TIMEOUT_MS
#define UNIT_TIMEOUT_MS	5000
#endif
/* How long "X does not happen" is watched for. */
#define UNIT_QUIET_MS	50

/* The test's own thread is CPU 0; contenders are CPUs 1 and up. */
#define UNIT_TEST_CPU	0

static inline u64 unit_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* Poll @cond until it holds or @ms pass; the last value of @cond. */
#define poll_ms(cond, ms) ({						\
	u64 __end = unit_now_ms() + (ms);				\
	bool __ok;							\
									\
	while (!(__ok = !!(cond)) && unit_now_ms() < __end)		\
		usleep(50);						\
	__ok;								\
})

#define poll_until(cond)	poll_ms(cond, UNIT_TIMEOUT_MS)
/* True if @cond stayed false for UNIT_QUIET_MS. */
#define stays_false(cond)	(!poll_ms(cond, UNIT_QUIET_MS))

#define flag_read(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define flag_set(p)		__atomic_store_n((p), 1, __ATOMIC_RELEASE)

struct contender {
	pthread_t tid;
	const struct lock_adapter *ops;
	void *lock;
	int cpu;
	bool hold;		/* keep the lock until ->release is set */
	/* Written by the contender, read by the test. */
	int started;
	int acquired;
	int done;
	/* Written by the test. */
	int release;
};

/* CPUs in the order they acquired; appended inside the critical section. */
static int unit_order[SHIM_NR_CPUS];
static int unit_order_len;

static void *contender_fn(void *arg)
{
	struct contender *c = arg;
	int slot;

	shim_register_cpu(c->cpu);
	flag_set(&c->started);
	c->ops->lock(c->lock);
	/* Atomic, so that a lock that breaks exclusion still logs sanely. */
	slot = __atomic_fetch_add(&unit_order_len, 1, __ATOMIC_RELAXED);
	if (slot < SHIM_NR_CPUS)
		unit_order[slot] = c->cpu;
	flag_set(&c->acquired);
	if (c->hold)
		poll_until(flag_read(&c->release));
	c->ops->unlock(c->lock);
	shim_unregister_cpu();
	flag_set(&c->done);
	return NULL;
}

/* Start a contender on @cpu; it returns once the thread exists. */
static inline int contender_start(struct contender *c,
				  const struct lock_adapter *ops, void *lock,
				  int cpu, bool hold)
{
	*c = (struct contender){ .ops = ops, .lock = lock, .cpu = cpu,
				 .hold = hold };
	return pthread_create(&c->tid, NULL, contender_fn, c);
}

/* Let a holding contender unlock, and wait (bounded) for it to finish. */
static inline bool contender_finish(struct contender *c)
{
	flag_set(&c->release);
	if (!poll_until(flag_read(&c->done)))
		return false;
	return pthread_join(c->tid, NULL) == 0;
}

static inline int unit_order_count(void)
{
	return __atomic_load_n(&unit_order_len, __ATOMIC_ACQUIRE);
}

/* Finish @n contenders; false if any of them did not. */
static inline bool contenders_finish(struct contender *c, int n)
{
	bool ok = true;

	while (n--)
		ok &= contender_finish(c++);
	return ok;
}

/* Did CPUs @first, @first + 1, ... acquire, in that order, and nobody else? */
static inline bool order_is_sequential(int first, int n)
{
	int i;

	if (unit_order_count() != n)
		return false;
	for (i = 0; i < n; i++)
		if (unit_order[i] != first + i)
			return false;
	return true;
}

/* The acquisition order as text, for TH_LOG(). */
static inline const char *unit_order_str(void)
{
	static char buf[4 * SHIM_NR_CPUS + 1];
	int i, len = 0, n = unit_order_count();

	buf[0] = '\0';
	for (i = 0; i < n && i < SHIM_NR_CPUS; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %d",
				unit_order[i]);
	return buf;
}

/*
 * Run @fn in a child process: true if it died of SIGABRT and said @msg on
 * stderr.  (TEST_SIGNAL(..., SIGABRT) cannot express this: the harness
 * takes any SIGABRT for a failed ASSERT.)
 */
static inline bool aborts_saying(void (*fn)(void), const char *msg)
{
	char buf[512] = "";
	int pipefd[2], status;
	ssize_t len = 0, n;
	pid_t pid;

	if (pipe(pipefd))
		return false;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		dup2(pipefd[1], STDERR_FILENO);
		fn();
		_exit(0);
	}
	close(pipefd[1]);
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
	       strstr(buf, msg);
}

#endif /* UNIT_HELPERS_H */
