/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock library's API: every lock type, one header each, all with the
 * same verbs (init, lock, unlock, trylock, is_locked, is_contended), and
 * the helpers that generate code for each built type from
 * lock_types_list.h.  The headers are self-contained and included whatever
 * the build options; only the out-of-line slow paths of a type whose
 * option is off are missing.
 */
#ifndef PVQ_LOCKS_H
#define PVQ_LOCKS_H

#include "qspinlock_types.h"
#include "pv_ops.h"

/* Include every type's header, at file scope, before any generated code. */
#define PVQ_LOCK_TYPE(name, prefix, lock, option)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE

/*
 * PVQ_IF_BUILT(option, code...): @code if PVQ_<option> is defined (as 1, by
 * scripts/config.mk's -D), else nothing.  <linux/kconfig.h>'s IS_ENABLED()
 * trick, as a selector of code rather than a value, and with a prefix of
 * our own so that the host kernel's CONFIG_* cannot answer.
 */
#define PVQ_ALWAYS			1
#define __PVQ_PLACEHOLDER_1		0,
#define __pvq_second_arg(ignored, val, ...)	val
#define __pvq_is_built(x)		___pvq_is_built(x)
#define ___pvq_is_built(val)		____pvq_is_built(__PVQ_PLACEHOLDER_##val)
#define ____pvq_is_built(arg1_or_junk)	__pvq_second_arg(arg1_or_junk 1, 0)
#define __pvq_if(cond, ...)		___pvq_if(cond, __VA_ARGS__)
#define ___pvq_if(cond, ...)		__pvq_if_##cond(__VA_ARGS__)
#define __pvq_if_1(...)			__VA_ARGS__
#define __pvq_if_0(...)
#define PVQ_IF_BUILT(option, ...) \
	__pvq_if(__pvq_is_built(PVQ_##option), __VA_ARGS__)
/* 1 if PVQ_<option> is defined, else 0: for if (PVQ_BUILT(...)). */
#define PVQ_BUILT(option)		__pvq_is_built(PVQ_##option)
/* PVQ_BUILT_ITEM(option, item): "item," in an initializer, if built. */
#define PVQ_BUILT_ITEM(option, ...) \
	PVQ_IF_BUILT(option, __VA_ARGS__, /* the item's comma */)

/*
 * Does a type of this option halt and get kicked (pv_ops.h)?  One line per
 * option that builds a lock type.
 */
#define PVQ_HALTS_ALWAYS		0
#define PVQ_HALTS_QUEUE_SPINLOCK	0
#define PVQ_HALTS_PARAVIRT_SPINLOCKS	1
#define PVQ_HALTS_PV_QSPINLOCK		1
#define PVQ_HALTS_PARAVIRT_UNFAIR_LOCKS	1
/* PVQ_IF_HALTS(option, code...): @code if a built type of @option halts. */
#define PVQ_IF_HALTS(option, ...) \
	__pvq_if2(__pvq_is_built(PVQ_##option), PVQ_HALTS_##option, __VA_ARGS__)
#define __pvq_if2(built, halts, ...)	___pvq_if2(built, halts, __VA_ARGS__)
#define ___pvq_if2(built, halts, ...)	__pvq_if_##built##halts(__VA_ARGS__)
#define __pvq_if_11(...)		__VA_ARGS__
#define __pvq_if_10(...)
#define __pvq_if_01(...)
#define __pvq_if_00(...)

#endif /* PVQ_LOCKS_H */
