/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diagnostics of the lock library, for the torture module's stall report:
 * they print, so they live in the module glue (module/diag.c), not in the
 * algorithm files.
 */
#ifndef PVQ_DIAG_H
#define PVQ_DIAG_H

#include <linux/types.h>

/* Print a queued-spinlock word decoded: locked, pending, tail cpu/idx. */
void pvq_diag_print_qspinlock_word(const char *prefix, u32 val);

/* Print every CPU's MCS nodes in use (and their PV state), and halted CPUs. */
void pvq_diag_print_queues(const char *prefix);

/*
 * Kick every online CPU, to rescue waiters after a lost wakeup.  In a fault
 * build (TORTURE_FAULTS=y) first disarm the injected fault and do the MCS
 * hand-over it withheld, so that the torture run can end.
 */
void pvq_diag_kick_all(void);

#endif /* PVQ_DIAG_H */
