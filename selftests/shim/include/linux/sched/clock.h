/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_SCHED_CLOCK_H
#define _SHIM_LINUX_SCHED_CLOCK_H

#include <linux/time64.h>
#include <linux/types.h>

/*
 * Nanoseconds of CLOCK_MONOTONIC (shim.c).  The kernel's local_clock() is
 * per-CPU and may drift between CPUs; this one never does, which only
 * makes the time-valued lock events more exact.
 */
u64 local_clock(void);

/*
 * Added to every local_clock() reading: a test makes the clock jump, as a
 * vCPU sees it jump when the host did not run it for a while.
 */
extern u64 shim_clock_skew_ns;

#endif
