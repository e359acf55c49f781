/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace PV backends (pv_futex.c), and what the tests may ask them.
 *
 * "futex" (the default): wait() parks the calling CPU's thread on a futex
 * word of its own, a sequence number that every kick() to that CPU bumps.
 * Like the kernel's ipi backend it cannot halt in NMI context or with
 * interrupts off (shim_in_nmi, shim_irqs_off in shim.h): can_wait() says
 * no there, and wait() returns at once.
 * "none": wait() returns at once and kick() does nothing, like the
 * kernel's none backend, and as there the PV queued locks run native
 * (pvq_pv_native, pv_ops.h).  pvq_pv_select() chooses ("auto" is "futex").
 *
 * Both count, per CPU, the wait() calls, the parks (waits that passed the
 * *ptr == val check and went to sleep) and the kicks received.  The hooks
 * let a test act on the waiter's own thread at the two moments that
 * matter; they are NULL outside tests.
 */
#ifndef SHIM_PV_FUTEX_H
#define SHIM_PV_FUTEX_H

#include <linux/types.h>

/* Small, so that the tests and the stress test really halt and kick. */
#define PVQ_FUTEX_SPIN_THRESHOLD	(1 << 10)

unsigned long pvq_futex_waits(int cpu);
unsigned long pvq_futex_parks(int cpu);
unsigned long pvq_futex_kicks(int cpu);
/* Between its check and its wake-up: asleep, or about to be. */
bool pvq_futex_parked(int cpu);
/* The byte it is parked on, or NULL (the kernel backends' diagnostic). */
u8 *pvq_pv_halted_on(int cpu);
/* Zero every CPU's counters (not the futex words). */
void pvq_futex_reset(void);

/*
 * Called on the waiting thread: on entry to wait(), where a kernel backend
 * can still take an interrupt; and after the check passed, just before the
 * sleep, where a kick must not be lost.
 */
extern void (*pvq_futex_entry_hook)(void);
extern void (*pvq_futex_window_hook)(void);

#endif /* SHIM_PV_FUTEX_H */
