/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every built lock type behind one interface of void * verbs, generated
 * from lock_types_list.h: what lock_stress, unfair_starvation and the unit
 * tests' contenders drive.  lock_adapter_<name> is the type <name> (e.g.
 * lock_adapter_qspinlock); lock_adapters[] lists them in report order.
 */
#ifndef LOCK_ADAPTERS_H
#define LOCK_ADAPTERS_H

#include <stdbool.h>

#include <linux/compiler.h>

#include "pvq_locks.h"

struct lock_adapter {
	const char *name;
	void (*init)(void *lock);
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	bool (*trylock)(void *lock);
	bool (*is_locked)(void *lock);
	bool (*is_contended)(void *lock);
	bool halts;		/* a PV lock: it halts and is kicked */
};

/* type##_adapt_<verb>(void *): <verbs>_<verb>(), e.g. pvq_qspin_lock() */
#define LOCK_ADAPT(type, verbs, verb)					\
static inline void type##_adapt_##verb(void *l)				\
{									\
	verbs##_##verb(l);						\
}

#define LOCK_ADAPT_BOOL(type, verbs, verb)				\
static inline bool type##_adapt_##verb(void *l)				\
{									\
	return verbs##_##verb(l);					\
}

#define PVQ_LOCK_TYPE(type, prefix, lock_t, option)			\
	PVQ_IF_BUILT(option,						\
LOCK_ADAPT(type, pvq_##prefix, init)						\
LOCK_ADAPT(type, pvq_##prefix, lock)						\
LOCK_ADAPT(type, pvq_##prefix, unlock)					\
LOCK_ADAPT_BOOL(type, pvq_##prefix, trylock)					\
LOCK_ADAPT_BOOL(type, pvq_##prefix, is_locked)				\
LOCK_ADAPT_BOOL(type, pvq_##prefix, is_contended)				\
									\
static const struct lock_adapter lock_adapter_##type __maybe_unused = {	\
	.name = #type,							\
	.init = type##_adapt_init,					\
	.lock = type##_adapt_lock,					\
	.unlock = type##_adapt_unlock,					\
	.trylock = type##_adapt_trylock,				\
	.is_locked = type##_adapt_is_locked,				\
	.is_contended = type##_adapt_is_contended,			\
	.halts = PVQ_HALTS_##option,					\
};)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE

static const struct lock_adapter *const lock_adapters[] __maybe_unused = {
#define PVQ_LOCK_TYPE(name, prefix, lock, option) \
	PVQ_BUILT_ITEM(option, &lock_adapter_##name)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
};

#endif /* LOCK_ADAPTERS_H */
