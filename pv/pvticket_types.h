/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual ticket lock: the lock word alone, for headers that need the
 * type but not the functions (the kernel's arch_spinlock_t).
 */
#ifndef PVQ_PVTICKET_TYPES_H
#define PVQ_PVTICKET_TYPES_H

#include "../qspinlock/ticket_types.h"

#define PVQ_PVTICKET_INC	2
#define PVQ_PVTICKET_SLOW_FLAG	1	/* in the head */

/* Same word as the ticket lock: head in the low half, tail in the high. */
struct pvq_pvticketlock {
	struct pvq_ticketlock tickets;
};

#define PVQ_PVTICKETLOCK_UNLOCKED	{ .tickets = PVQ_TICKETLOCK_UNLOCKED }

#endif /* PVQ_PVTICKET_TYPES_H */
