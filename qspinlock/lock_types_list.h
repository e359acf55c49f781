/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock types, in report order: each one's header, then one
 *
 *   PVQ_LOCK_TYPE(name, prefix, lock, option)
 *
 *   name    its torture, stress and benchmark type name
 *   prefix  of its verbs: pvq_<prefix>_init(), _lock(), _unlock(),
 *           _trylock(), _is_locked(), _is_contended()
 *   lock    its lock structure (a 32-bit lock word)
 *   option  the build option it needs (ALWAYS: none); the preprocessor
 *           symbol is PVQ_<option>
 *
 * Included several times with different definitions of PVQ_LOCK_TYPE
 * (pvq_locks.h), like lock_events_list.h, so that the torture ops table,
 * the stress, unit-test and fast-path adapters are all generated from this
 * one list; scripts/config.mk reads PVQ_TYPES from the same lines (one
 * PVQ_LOCK_TYPE per line).  The first inclusion (pvq_locks.h) includes
 * every header; later ones find them already included.  The kernel's own
 * spinlock_t is torture-only and not listed.
 */
#include "ticket.h"
PVQ_LOCK_TYPE(ticket,             ticket,          struct pvq_ticketlock,   ALWAYS)
#include "tas.h"
PVQ_LOCK_TYPE(tas,                tas,             struct pvq_taslock,      ALWAYS)
#include "pvticket.h"
PVQ_LOCK_TYPE(pvticket,           pvticket,        struct pvq_pvticketlock, PARAVIRT_SPINLOCKS)
#include "qspinlock.h"
PVQ_LOCK_TYPE(qspinlock,          qspin,           struct pvq_qspinlock,    QUEUE_SPINLOCK)
#include "pvqspinlock.h"
PVQ_LOCK_TYPE(pvqspinlock,        pv_qspin,        struct pvq_qspinlock,    PV_QSPINLOCK)
#include "pvqspinlock_unfair.h"
PVQ_LOCK_TYPE(pvqspinlock_unfair, pv_qspin_unfair, struct pvq_qspinlock,    PARAVIRT_UNFAIR_LOCKS)
