/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Switching the PV backend: for the code that chooses it (pv_backends.c)
 * and the tests that swap it between runs, not for the lock's users.  Its
 * own header because <linux/static_call.h>, which static_call_update()
 * needs, cannot be included where the lock's headers are (pv_ops.h).
 */
#ifndef PVQ_PV_USE_H
#define PVQ_PV_USE_H

#include <linux/static_call.h>

#include "pv_ops.h"

/*
 * Make @ops the backend in use: pvq_pv and the static calls.  Patching a
 * call sleeps: in process context, and before any PV lock is contended
 * (pvq_pv_select()), or between two tests in userspace.
 */
static inline void pvq_pv_use(const struct pvq_pv_ops *ops)
{
	pvq_pv = ops;
	static_call_update(pvq_pv_can_wait, ops->can_wait);
	static_call_update(pvq_pv_wait, ops->wait);
	static_call_update(pvq_pv_kick, ops->kick);
	static_call_update(pvq_pv_spinning, ops->spinning);
}

#endif /* PVQ_PV_USE_H */
