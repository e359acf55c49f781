/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch_spinlock_t from the pvqspinlock locks (CONFIG_PVQ_SPINLOCKS): the
 * lock word of the lock the options select.  Every one is 32 bits, as
 * the upstream qspinlock is, so lockref's cmpxchg of lock and count
 * still fits in 64 bits.
 *
 * The lock is chosen here, once, with the header of its verbs
 * (PVQ_ARCH_SPINLOCK_H) and their prefix (pvq_arch_spin()), which
 * asm/pvq_spinlock.h uses: arch/x86/boot/compressed undefines
 * CONFIG_PARAVIRT_SPINLOCKS after this header may have been included,
 * and the verbs must always be those of this word.
 */
#ifndef _ASM_X86_PVQ_SPINLOCK_TYPES_H
#define _ASM_X86_PVQ_SPINLOCK_TYPES_H

#include <asm/pvq_config.h>

#if defined(CONFIG_PARAVIRT_UNFAIR_LOCKS)
#include <asm/pvq/qspinlock_types.h>
#define pvq_arch_spinlock		pvq_qspinlock
#define __ARCH_SPIN_LOCK_UNLOCKED	PVQ_QSPINLOCK_UNLOCKED
#define PVQ_ARCH_SPINLOCK_H		"asm/pvq/pvqspinlock_unfair.h"
#define pvq_arch_spin(verb)		pvq_pv_qspin_unfair_##verb
#elif defined(CONFIG_PVQ_PV_QSPINLOCK)
#include <asm/pvq/qspinlock_types.h>
#define pvq_arch_spinlock		pvq_qspinlock
#define __ARCH_SPIN_LOCK_UNLOCKED	PVQ_QSPINLOCK_UNLOCKED
#define PVQ_ARCH_SPINLOCK_H		"asm/pvq/pvqspinlock.h"
#define pvq_arch_spin(verb)		pvq_pv_qspin_##verb
#elif defined(CONFIG_QUEUE_SPINLOCK)
#include <asm/pvq/qspinlock_types.h>
#define pvq_arch_spinlock		pvq_qspinlock
#define __ARCH_SPIN_LOCK_UNLOCKED	PVQ_QSPINLOCK_UNLOCKED
#define PVQ_ARCH_SPINLOCK_H		"asm/pvq/qspinlock.h"
#define pvq_arch_spin(verb)		pvq_qspin_##verb
#elif defined(CONFIG_PARAVIRT_SPINLOCKS)
#include <asm/pvq/pvticket_types.h>
#define pvq_arch_spinlock		pvq_pvticketlock
#define __ARCH_SPIN_LOCK_UNLOCKED	PVQ_PVTICKETLOCK_UNLOCKED
#define PVQ_ARCH_SPINLOCK_H		"asm/pvq/pvticket.h"
#define pvq_arch_spin(verb)		pvq_pvticket_##verb
#else
#include <asm/pvq/ticket_types.h>
#define pvq_arch_spinlock		pvq_ticketlock
#define __ARCH_SPIN_LOCK_UNLOCKED	PVQ_TICKETLOCK_UNLOCKED
#define PVQ_ARCH_SPINLOCK_H		"asm/pvq/ticket.h"
#define pvq_arch_spin(verb)		pvq_ticket_##verb
#endif

/* The name the arch interface (linux/spinlock_types_raw.h) wants. */
typedef struct pvq_arch_spinlock arch_spinlock_t;

#endif /* _ASM_X86_PVQ_SPINLOCK_TYPES_H */
