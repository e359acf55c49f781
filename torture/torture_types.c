// SPDX-License-Identifier: GPL-2.0
/*
 * qspinlock_torture: one ops table per lock type.
 *
 * Callers hold preemption disabled across lock..unlock (the pvq_* locks
 * require it, like arch_spin_lock(); spin_lock() nests it harmlessly).
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "torture.h"

/* The running kernel's own spinlock_t: the anchor every table starts from. */
static void spin_torture_init(union torture_lock *l)
{
	spin_lock_init(&l->spin);
}

static void spin_torture_lock(union torture_lock *l)
	__acquires(&l->spin)
{
	spin_lock(&l->spin);
}

static void spin_torture_unlock(union torture_lock *l)
	__releases(&l->spin)
{
	spin_unlock(&l->spin);
}

static u32 spin_torture_word(union torture_lock *l)
{
	/*
	 * x86: spinlock_t wraps the kernel's own 32-bit lock word: upstream's
	 * queued spinlock, or in a make-kernel kernel whichever of our locks
	 * it was built with (a ticket lock's word has no .val of its own).
	 */
	BUILD_BUG_ON(sizeof(arch_spinlock_t) != sizeof(u32));
	return READ_ONCE(*(u32 *)&l->spin.rlock.raw_lock);
}

/*
 * Every type of lock_types_list.h: its verbs on its member of the union,
 * and its raw word (every type's lock is one 32-bit word).  The word has
 * the queued-spinlock layout when the lock is a struct pvq_qspinlock.
 */
#define TORTURE_VERB(type, verbs, verb)					\
static void type##_torture_##verb(union torture_lock *l)		\
{									\
	verbs##_##verb(&l->type);					\
}

#define PVQ_LOCK_TYPE(type, prefix, lock_t, option)			\
	PVQ_IF_BUILT(option,						\
TORTURE_VERB(type, pvq_##prefix, init)					\
TORTURE_VERB(type, pvq_##prefix, lock)					\
TORTURE_VERB(type, pvq_##prefix, unlock)				\
									\
static u32 type##_torture_word(union torture_lock *l)			\
{									\
	BUILD_BUG_ON(sizeof(lock_t) != sizeof(u32));			\
	return READ_ONCE(*(u32 *)&l->type);				\
})
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE

#define TORTURE_OPS(type, prefix, is_queued) {				\
	.name = type,							\
	.init = prefix##_torture_init,					\
	.lock = prefix##_torture_lock,					\
	.unlock = prefix##_torture_unlock,				\
	.word = prefix##_torture_word,					\
	.queued = is_queued,						\
}

static const struct torture_lock_ops torture_ops[] = {
	TORTURE_OPS("spin_lock", spin, true),
#define PVQ_LOCK_TYPE(name, prefix, lock, option)			\
	PVQ_BUILT_ITEM(option, TORTURE_OPS(#name, name,			\
		__builtin_types_compatible_p(lock, struct pvq_qspinlock)))
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
};

const struct torture_lock_ops *torture_find_ops(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(torture_ops); i++)
		if (!strcmp(name, torture_ops[i].name))
			return &torture_ops[i];
	return NULL;
}

const char *torture_type_names(void)
{
	static char names[128];
	unsigned int i;
	size_t len = 0;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(torture_ops); i++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? " " : "", torture_ops[i].name);
	return names;
}
