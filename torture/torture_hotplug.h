/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qspinlock_torture: CPU hotplug during a run (onoff_interval_ms).
 *
 * One kthread takes a random hot-pluggable CPU offline, waits, brings it
 * back, waits, and so on, while the writers hammer the lock: the lock must
 * stay correct when the CPUs under it come and go.  Stopping it brings back
 * every CPU it took offline.  See Documentation/torture.rst.
 */
#ifndef PVQ_TORTURE_HOTPLUG_H
#define PVQ_TORTURE_HOTPLUG_H

#include <linux/types.h>

/* Bounds of the onoff_interval_ms (ms) and onoff_holdoff (s) parameters. */
#define TORTURE_ONOFF_MAX_MS		60000
#define TORTURE_ONOFF_MAX_HOLDOFF	3600

/*
 * Start the hotplug thread (nothing to do for @interval_ms == 0): first
 * operation after @holdoff_secs, then one every @interval_ms.  @type
 * prefixes its messages, as on every torture line; @verbose 1 reports
 * failed operations, 2 every operation.
 */
int torture_onoff_start(const char *type, int interval_ms, int holdoff_secs,
			int verbose);

/*
 * Stop the thread (waiting for an operation in flight) and bring every CPU
 * it took offline back online.  Idempotent; call before the final report.
 */
void torture_onoff_stop(void);

/* CPUs that this run took offline and could not bring back (0 normally). */
unsigned int torture_onoff_left(void);

/*
 * Append " offl=OK/TRIED onl=OK/TRIED offl_left=N" to the string in @buf
 * (of @size bytes) when hotplug was on; leave it alone otherwise.
 */
void torture_onoff_format(char *buf, size_t size);

#endif /* PVQ_TORTURE_HOTPLUG_H */
