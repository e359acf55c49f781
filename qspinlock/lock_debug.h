/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LOCK_DEBUG=y consistency checks.  Without it the condition is only
 * type-checked, never evaluated, so the fast paths stay untouched.
 */
#ifndef PVQ_LOCK_DEBUG_H
#define PVQ_LOCK_DEBUG_H

#include <linux/bug.h>

#ifdef PVQ_LOCK_DEBUG
#define PVQ_DEBUG_WARN(cond)	WARN_ON_ONCE(cond)
#else
#define PVQ_DEBUG_WARN(cond)	BUILD_BUG_ON_INVALID(cond)
#endif

#endif /* PVQ_LOCK_DEBUG_H */
