/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ticket spinlock: the 32-bit lock word alone, for headers that need the
 * type but not the functions (the kernel's arch_spinlock_t).
 */
#ifndef PVQ_TICKET_TYPES_H
#define PVQ_TICKET_TYPES_H

/*
 * atomic_t and ATOMIC_INIT() come from <linux/types.h>: this header is
 * included where the kernel's spinlock_t is defined, before <linux/atomic.h>
 * can be.
 */
#include <linux/types.h>
#include <asm/byteorder.h>

#if !defined(__LITTLE_ENDIAN) && !defined(__BIG_ENDIAN)
#error "byte order unknown: the lock-word layout depends on it"
#endif

struct pvq_ticketlock {
	union {
		atomic_t val;
#ifdef __LITTLE_ENDIAN
		struct {
			u16 head;	/* ticket now being served */
			u16 tail;	/* next ticket to hand out */
		};
#else
		struct {
			u16 tail;
			u16 head;
		};
#endif
	};
};

#define PVQ_TICKETLOCK_UNLOCKED	{ .val = ATOMIC_INIT(0) }

#define PVQ_TICKET_TAIL_SHIFT	16
#define PVQ_TICKET_ONE		(1U << PVQ_TICKET_TAIL_SHIFT)

#endif /* PVQ_TICKET_TYPES_H */
