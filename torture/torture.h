/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qspinlock_torture: the lock types under test, behind one set of verbs.
 */
#ifndef PVQ_TORTURE_H
#define PVQ_TORTURE_H

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pvq_locks.h"

/* Storage for any lock type under test: a member per built type. */
union torture_lock {
	spinlock_t spin;		/* the running kernel's own lock */
#define PVQ_LOCK_TYPE(name, prefix, lock, option) \
	PVQ_IF_BUILT(option, lock name;)
#include "lock_types_list.h"
#undef PVQ_LOCK_TYPE
};

struct torture_lock_ops {
	const char *name;
	void (*init)(union torture_lock *lock);
	void (*lock)(union torture_lock *lock);
	void (*unlock)(union torture_lock *lock);
	/* Raw lock word, for diagnostics. */
	u32 (*word)(union torture_lock *lock);
	/* The word has the queued-spinlock layout (decoded in stall reports). */
	bool queued;
};

/* One lock under test, on its own cache line with its checking state. */
struct torture_slot {
	union torture_lock lock;
	int holder;			/* id of the context inside, -1 when free */
	unsigned long count;		/* plain counter: lost updates show */
} ____cacheline_aligned_in_smp;

/*
 * The checks of one critical section, shared by the writers and the
 * interrupt-context sections.  Entering @slot as @id: nobody else may be
 * inside.  Returns 1 (one failure) if somebody is, else 0; *@count gets
 * the counter, whose plain increment torture_slot_leave() spreads over the
 * section, so that any overlap of two holders shows as a lost update too.
 */
static inline int torture_slot_enter(struct torture_slot *slot, int id,
				     unsigned long *count)
{
	int fail = READ_ONCE(slot->holder) != -1;

	WRITE_ONCE(slot->holder, id);
	*count = READ_ONCE(slot->count);
	return fail;
}

/* Leaving @slot: still ours (else 1, one failure), and the counter update. */
static inline int torture_slot_leave(struct torture_slot *slot, int id,
				     unsigned long count)
{
	int fail = READ_ONCE(slot->holder) != id;

	WRITE_ONCE(slot->count, count + 1);
	WRITE_ONCE(slot->holder, -1);
	return fail;
}

/* Lost updates: how far the counters are from the acquisitions counted. */
static inline u64 torture_lost(u64 taken, u64 counted)
{
	return taken > counted ? taken - counted : counted - taken;
}

/* Work that the compiler cannot remove, of roughly constant cost per loop. */
static inline void torture_work(int loops)
{
	int i;

	for (i = 0; i < loops; i++)
		barrier();
}

/* @n slots, each lock initialised by @ops and free; NULL without memory. */
struct torture_slot *torture_slots_alloc(const struct torture_lock_ops *ops,
					 int n);

const struct torture_lock_ops *torture_find_ops(const char *name);
/* Space-separated names of every built type, for messages. */
const char *torture_type_names(void);

#endif /* PVQ_TORTURE_H */
