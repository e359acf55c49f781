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
	/* x86: spinlock_t wraps the kernel's own 32-bit queued lock word. */
	return atomic_read(&l->spin.rlock.raw_lock.val);
}

static void ticket_torture_init(union torture_lock *l)
{
	pvq_ticket_init(&l->ticket);
}

static void ticket_torture_lock(union torture_lock *l)
{
	pvq_ticket_lock(&l->ticket);
}

static void ticket_torture_unlock(union torture_lock *l)
{
	pvq_ticket_unlock(&l->ticket);
}

static u32 ticket_torture_word(union torture_lock *l)
{
	return atomic_read(&l->ticket.val);
}

static void tas_torture_init(union torture_lock *l)
{
	pvq_tas_init(&l->tas);
}

static void tas_torture_lock(union torture_lock *l)
{
	pvq_tas_lock(&l->tas);
}

static void tas_torture_unlock(union torture_lock *l)
{
	pvq_tas_unlock(&l->tas);
}

static u32 tas_torture_word(union torture_lock *l)
{
	return atomic_read(&l->tas.val);
}

#ifdef PVQ_QUEUE_SPINLOCK
static void qspin_torture_init(union torture_lock *l)
{
	pvq_qspin_init(&l->qspin);
}

static void qspin_torture_lock(union torture_lock *l)
{
	pvq_qspin_lock(&l->qspin);
}

static void qspin_torture_unlock(union torture_lock *l)
{
	pvq_qspin_unlock(&l->qspin);
}

static u32 qspin_torture_word(union torture_lock *l)
{
	return atomic_read(&l->qspin.val);
}
#endif

#ifdef PVQ_PARAVIRT_SPINLOCKS
static void pvticket_torture_init(union torture_lock *l)
{
	pvq_pvticket_init(&l->pvticket);
}

static void pvticket_torture_lock(union torture_lock *l)
{
	pvq_pvticket_lock(&l->pvticket);
}

static void pvticket_torture_unlock(union torture_lock *l)
{
	pvq_pvticket_unlock(&l->pvticket);
}

static u32 pvticket_torture_word(union torture_lock *l)
{
	return atomic_read(&l->pvticket.tickets.val);
}
#endif

#ifdef PVQ_PV_QSPINLOCK
static void pvqspin_torture_lock(union torture_lock *l)
{
	pvq_pvqspin_lock(&l->qspin);
}

static void pvqspin_torture_unlock(union torture_lock *l)
{
	pvq_pvqspin_unlock(&l->qspin);
}

#define pvqspin_torture_init	qspin_torture_init
#define pvqspin_torture_word	qspin_torture_word
#endif

#ifdef PVQ_UNFAIR_LOCKS
static void unfair_torture_lock(union torture_lock *l)
{
	pvq_unfair_lock(&l->qspin);
}

static void unfair_torture_unlock(union torture_lock *l)
{
	pvq_unfair_unlock(&l->qspin);
}

#define unfair_torture_init	qspin_torture_init
#define unfair_torture_word	qspin_torture_word
#endif

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
	TORTURE_OPS("ticket", ticket, false),
	TORTURE_OPS("tas", tas, false),
#ifdef PVQ_PARAVIRT_SPINLOCKS
	TORTURE_OPS("pvticket", pvticket, false),
#endif
#ifdef PVQ_QUEUE_SPINLOCK
	TORTURE_OPS("qspinlock", qspin, true),
#endif
#ifdef PVQ_PV_QSPINLOCK
	TORTURE_OPS("pvqspinlock", pvqspin, true),
#endif
#ifdef PVQ_UNFAIR_LOCKS
	TORTURE_OPS("pvqspinlock_unfair", unfair, true),
#endif
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
