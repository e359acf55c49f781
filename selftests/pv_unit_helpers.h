/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the PV unit tests (pvqspinlock_unit, pvticket_unit),
 * on top of unit_helpers.h and the futex backend's test hooks.
 */
#ifndef PV_UNIT_HELPERS_H
#define PV_UNIT_HELPERS_H

#include "unit_helpers.h"
#include "pv_futex.h"

/*
 * Stop one CPU's thread in the backend's check-to-sleep window: install
 * hold_in_window() as pvq_futex_window_hook with window_cpu set, wait for
 * in_window, act, then set window_done to let it go to sleep.
 */
static int window_cpu = -1;
static int in_window;
static int window_done;

static void hold_in_window(void)
{
	if (smp_processor_id() != window_cpu || flag_read(&in_window))
		return;
	flag_set(&in_window);
	poll_until(flag_read(&window_done));
}

#endif /* PV_UNIT_HELPERS_H */
