/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queued spinlock: the 32-bit lock word.
 *
 * Layout (for fewer than 16K CPUs):
 *
 *   bits  0- 7: locked byte   (0 free, PVQ_LOCKED_VAL held)
 *   bits  8-15: pending byte  (only bit 8 is used)
 *   bits 16-17: tail index    (nesting level of the tail's MCS node)
 *   bits 18-31: tail cpu + 1  (0: nobody is queued)
 *
 * Giving "pending" a whole byte lets the pending waiter take the lock with a
 * single 16-bit store (locked = 1, pending = 0), and lets a new queue tail be
 * published with a single 16-bit exchange of the upper half.
 */
#ifndef PVQ_QSPINLOCK_TYPES_H
#define PVQ_QSPINLOCK_TYPES_H

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

struct pvq_qspinlock {
	union {
		atomic_t val;
#ifdef __LITTLE_ENDIAN
		struct {
			u8 locked;
			u8 pending;
		};
		struct {
			u16 locked_pending;
			u16 tail;
		};
#else
		struct {
			u16 tail;
			u16 locked_pending;
		};
		struct {
			u8 reserved[2];
			u8 pending;
			u8 locked;
		};
#endif
	};
};

#define PVQ_QSPINLOCK_UNLOCKED	{ .val = ATOMIC_INIT(0) }

#define PVQ_FIELD_MASK(name) \
	(((1U << PVQ_##name##_BITS) - 1) << PVQ_##name##_OFFSET)

#define PVQ_LOCKED_OFFSET	0
#define PVQ_LOCKED_BITS		8
#define PVQ_LOCKED_MASK		PVQ_FIELD_MASK(LOCKED)

#define PVQ_PENDING_OFFSET	(PVQ_LOCKED_OFFSET + PVQ_LOCKED_BITS)
#define PVQ_PENDING_BITS	8
#define PVQ_PENDING_MASK	PVQ_FIELD_MASK(PENDING)

#define PVQ_TAIL_IDX_OFFSET	(PVQ_PENDING_OFFSET + PVQ_PENDING_BITS)
#define PVQ_TAIL_IDX_BITS	2
#define PVQ_TAIL_IDX_MASK	PVQ_FIELD_MASK(TAIL_IDX)

#define PVQ_TAIL_CPU_OFFSET	(PVQ_TAIL_IDX_OFFSET + PVQ_TAIL_IDX_BITS)
#define PVQ_TAIL_CPU_BITS	(32 - PVQ_TAIL_CPU_OFFSET)
#define PVQ_TAIL_CPU_MASK	PVQ_FIELD_MASK(TAIL_CPU)

#define PVQ_TAIL_OFFSET		PVQ_TAIL_IDX_OFFSET
#define PVQ_TAIL_MASK		(PVQ_TAIL_IDX_MASK | PVQ_TAIL_CPU_MASK)

#define PVQ_LOCKED_PENDING_MASK	(PVQ_LOCKED_MASK | PVQ_PENDING_MASK)

#define PVQ_LOCKED_VAL		(1U << PVQ_LOCKED_OFFSET)
#define PVQ_PENDING_VAL		(1U << PVQ_PENDING_OFFSET)

/*
 * The PV queued locks split the pending byte: its lowest bit is the queue
 * head's reservation (PVQ_PENDING_VAL: stealers stay out), the seven above
 * count the steals past the queue since the last acquisition through it
 * (pass_bound, pv/pvqspinlock.c).  The native lock never sets them.
 */
#define PVQ_PASSES_OFFSET	(PVQ_PENDING_OFFSET + 1)
#define PVQ_PASSES_BITS		(PVQ_PENDING_BITS - 1)
#define PVQ_PASSES_MASK		PVQ_FIELD_MASK(PASSES)
#define PVQ_PASS_VAL		(1U << PVQ_PASSES_OFFSET)
#define PVQ_PASSES_MAX		((1U << PVQ_PASSES_BITS) - 1)

/* One MCS node per nesting context: task, softirq, hardirq, NMI. */
#define PVQ_MAX_NODES		(1 << PVQ_TAIL_IDX_BITS)

#endif /* PVQ_QSPINLOCK_TYPES_H */
