/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomic_t and the few atomic operations the lock sources use, with the
 * kernel's ordering semantics: a failed cmpxchg orders nothing, the
 * _acquire/_relaxed suffixes mean what they say, and the unsuffixed
 * value-returning operations are fully ordered (see <asm/cmpxchg.h>).
 * Every read-modify-write is counted for its CPU (shim_rmws, shim.h).
 */
#ifndef _SHIM_LINUX_ATOMIC_H
#define _SHIM_LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/cmpxchg.h>

#include "../../shim.h"

/*
 * Every lock, trylock and init of every lock type starts with an atomic_t
 * operation: checking here makes lock code on a thread that is not a CPU
 * abort at once, not only when it happens to reach the slow path.
 */
#define shim_on_cpu()	((void)shim_cpu())

static __always_inline int atomic_read(const atomic_t *v)
{
	shim_on_cpu();
	return READ_ONCE(v->counter);
}

static __always_inline int atomic_read_acquire(const atomic_t *v)
{
	shim_on_cpu();
	return smp_load_acquire(&v->counter);
}

static __always_inline void atomic_set(atomic_t *v, int i)
{
	shim_on_cpu();
	WRITE_ONCE(v->counter, i);
}

static __always_inline void atomic_set_release(atomic_t *v, int i)
{
	shim_on_cpu();
	smp_store_release(&v->counter, i);
}

static __always_inline bool
atomic_try_cmpxchg_acquire(atomic_t *v, int *old, int new)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline bool
atomic_try_cmpxchg_relaxed(atomic_t *v, int *old, int new)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static __always_inline bool atomic_try_cmpxchg(atomic_t *v, int *old, int new)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static __always_inline int atomic_cmpxchg_relaxed(atomic_t *v, int old,
						  int new)
{
	shim_on_cpu();
	return cmpxchg_relaxed(&v->counter, old, new);
}

static __always_inline int atomic_fetch_or(int i, atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST);
}

static __always_inline int atomic_fetch_or_acquire(int i, atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_fetch_or(&v->counter, i, __ATOMIC_ACQUIRE);
}

static __always_inline int atomic_fetch_add_acquire(int i, atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	return __atomic_fetch_add(&v->counter, i, __ATOMIC_ACQUIRE);
}

/* Unordered, as the kernel's void atomic RMWs are (smp_mb__*_atomic()). */
static __always_inline void atomic_or(int i, atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	__atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST);
}

static __always_inline void atomic_andnot(int i, atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	__atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST);
}

static __always_inline void atomic_inc(atomic_t *v)
{
	shim_on_cpu();
	shim_count_rmw();
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

#define atomic_cond_read_relaxed(v, c)	smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c)	smp_cond_load_acquire(&(v)->counter, (c))

/* atomic64_t: what the NMI kick's marks use (pv/pv_nmi.c). */
static __always_inline s64 atomic64_read(const atomic64_t *v)
{
	return READ_ONCE(v->counter);
}

static __always_inline void atomic64_set(atomic64_t *v, s64 i)
{
	WRITE_ONCE(v->counter, i);
}

static __always_inline s64 atomic64_xchg(atomic64_t *v, s64 i)
{
	shim_count_rmw();
	return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST);
}

static __always_inline bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old,
						 s64 new)
{
	shim_count_rmw();
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

#endif
