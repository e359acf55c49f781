/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock library's API: every lock this build contains, one header each,
 * all with the same verbs: init, lock, unlock, trylock, is_locked and
 * is_contended.
 *
 * PVQ_PV_QSPINLOCK is set when the PV queued spinlock is built (it needs
 * both QUEUE_SPINLOCK and PARAVIRT_SPINLOCKS).
 */
#ifndef PVQ_LOCKS_H
#define PVQ_LOCKS_H

#include "ticket.h"
#include "tas.h"
#ifdef PVQ_QUEUE_SPINLOCK
#include "qspinlock.h"
#endif
#ifdef PVQ_PARAVIRT_SPINLOCKS
#include "pv_ops.h"
#include "pvticket.h"
#endif
#if defined(PVQ_PARAVIRT_SPINLOCKS) && defined(PVQ_QUEUE_SPINLOCK)
#define PVQ_PV_QSPINLOCK
#include "pvqspinlock.h"
#endif
#ifdef PVQ_UNFAIR_LOCKS
#include "unfair.h"
#endif

#endif /* PVQ_LOCKS_H */
