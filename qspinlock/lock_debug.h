/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LOCK_DEBUG=y consistency checks.  Without it the condition is only
 * type-checked, never evaluated, so the fast paths stay untouched.
 *
 * And the hooks of TORTURE_FAULTS=y (a test build, made only from the make
 * command line): faults the lock library injects on purpose when loaded
 * with inject_fault= (module/faults.c), to prove that the torture module's
 * stall watchdog catches a lost wakeup or a broken queue.  Without it each
 * hook is a constant false and the lock paths compile exactly as before.
 */
#ifndef PVQ_LOCK_DEBUG_H
#define PVQ_LOCK_DEBUG_H

#include <linux/bug.h>
#include <linux/types.h>

#ifdef PVQ_LOCK_DEBUG
#define PVQ_DEBUG_WARN(cond)	WARN_ON_ONCE(cond)
#else
#define PVQ_DEBUG_WARN(cond)	BUILD_BUG_ON_INVALID(cond)
#endif

#ifdef PVQ_TORTURE_FAULTS
/*
 * PV lock @lock is about to kick a halted waiter: true to drop the kick.
 * @lock is only compared, never read: it may be freed already.
 */
bool pvq_fault_drop_kick(const void *lock);
/* The MCS hand-over of @lock is about to set *@locked: true to withhold it. */
bool pvq_fault_skip_handoff(const void *lock, int *locked);
#else
static inline bool pvq_fault_drop_kick(const void *lock)
{
	return false;
}

static inline bool pvq_fault_skip_handoff(const void *lock, int *locked)
{
	return false;
}
#endif

#endif /* PVQ_LOCK_DEBUG_H */
