/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pvqspinlock sources test PVQ_<option>, which their out-of-tree
 * build defines on the compiler command line.  Here the options are this
 * kernel's Kconfig symbols: map them, once, for asm/pvq/ and
 * kernel/locking/pvq/ (whose Makefile includes this file first).
 */
#ifndef _ASM_X86_PVQ_CONFIG_H
#define _ASM_X86_PVQ_CONFIG_H

#ifdef CONFIG_QUEUE_SPINLOCK
#define PVQ_QUEUE_SPINLOCK 1
#endif
#ifdef CONFIG_PARAVIRT_SPINLOCKS
#define PVQ_PARAVIRT_SPINLOCKS 1
#endif
#ifdef CONFIG_PVQ_PV_QSPINLOCK
#define PVQ_PV_QSPINLOCK 1
#endif
#ifdef CONFIG_PVQ_NMI_KICK
#define PVQ_NMI_KICK 1
#endif
#ifdef CONFIG_PARAVIRT_UNFAIR_LOCKS
#define PVQ_PARAVIRT_UNFAIR_LOCKS 1
#endif
#ifdef CONFIG_PVQ_LOCK_STATS
#define PVQ_LOCK_STATS 1
#endif
#ifdef CONFIG_PVQ_LOCK_DEBUG
#define PVQ_LOCK_DEBUG 1
#endif
#ifdef CONFIG_PVQ_TORTURE_HOOKS
#define PVQ_TORTURE_HOOKS 1
#endif
#ifdef CONFIG_PVQ_TORTURE_FAULTS
#define PVQ_TORTURE_FAULTS 1
#endif
#ifdef CONFIG_PVQ_WRITABLE_TUNABLES
#define PVQ_WRITABLE_TUNABLES 1
#endif

#endif /* _ASM_X86_PVQ_CONFIG_H */
