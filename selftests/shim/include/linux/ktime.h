/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_KTIME_H
#define _SHIM_LINUX_KTIME_H

#include <time.h>

#include <linux/time64.h>
#include <linux/types.h>

/* Added to every clock of the shim: a test moves time forward with it. */
extern u64 shim_clock_skew_ns;

/* The kernel's NMI-safe monotonic clock: CLOCK_MONOTONIC here. */
static inline u64 ktime_get_mono_fast_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec +
	       __atomic_load_n(&shim_clock_skew_ns, __ATOMIC_RELAXED);
}

#endif
