/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory barriers and ordered accesses, as C11 fences and __atomic builtins.
 *
 * ThreadSanitizer does not model fences (GCC refuses them with
 * -fsanitize=thread).  Under TSan the barriers take their x86 definitions,
 * the host the shim supports: smp_rmb() and smp_wmb() are compiler barriers
 * (x86 keeps loads in order, and stores in order), smp_mb__before_atomic()
 * and smp_mb__after_atomic() too (every x86 atomic RMW is a LOCK-prefixed
 * full barrier), and smp_store_mb() is an xchg.  The publications that
 * rely on smp_wmb()/smp_rmb() are modelled as release/acquire instead (see
 * SHIM_DEP_ORDER in <linux/compiler.h>), and smp_cond_load_acquire() spins
 * with acquire loads.  A bare smp_mb() has no such stand-in; the lock
 * sources do not use one, and a new use fails to build under TSan rather
 * than going unchecked.
 */
#ifndef _SHIM_ASM_BARRIER_H
#define _SHIM_ASM_BARRIER_H

#include <linux/compiler.h>
#include <asm/processor.h>

#ifndef __SANITIZE_THREAD__
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
/* Both stronger than needed: each also orders loads against stores. */
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()
#define smp_store_mb(var, value)					\
	do {								\
		WRITE_ONCE(var, value);					\
		smp_mb();						\
	} while (0)
#else
/*
 * ThreadSanitizer does not take fences (GCC refuses them under
 * -fsanitize=thread): a fully ordered RMW on a private word is the same
 * instruction on x86 (a LOCK-prefixed op, as the kernel's smp_mb() is),
 * and to TSan an atomic like any other.
 */
#define smp_mb()							\
	do {								\
		static __thread int __shim_mb_word;			\
									\
		(void)__atomic_fetch_add(&__shim_mb_word, 0,		\
					 __ATOMIC_SEQ_CST);		\
	} while (0)
#define smp_rmb()	barrier()
#define smp_wmb()	barrier()
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define smp_store_mb(var, value)					\
	do {								\
		(void)__atomic_exchange_n(&(var), (value),		\
					  __ATOMIC_SEQ_CST);		\
	} while (0)
#endif

#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

/* Spin until @cond_expr, which may use VAL, the value last read from @ptr. */
#define __shim_cond_load(ptr, cond_expr, order) ({			\
	__typeof__(ptr) __PTR = (ptr);					\
	__typeof__(*(ptr)) VAL;						\
									\
	for (;;) {							\
		VAL = __atomic_load_n(__PTR, (order));			\
		if (cond_expr)						\
			break;						\
		cpu_relax();						\
	}								\
	VAL;								\
})

#define smp_cond_load_relaxed(ptr, cond_expr)				\
	__shim_cond_load(ptr, cond_expr,				\
			 SHIM_DEP_ORDER(*(ptr), __ATOMIC_ACQUIRE))

#ifndef __SANITIZE_THREAD__
/*
 * The kernel's generic version: a relaxed spin, then an acquire fence to
 * order what follows after the load that ended it.
 */
#define smp_cond_load_acquire(ptr, cond_expr) ({			\
	__typeof__(*(ptr)) __VAL =					\
		smp_cond_load_relaxed(ptr, cond_expr);			\
	smp_rmb();							\
	__VAL;								\
})
#else
#define smp_cond_load_acquire(ptr, cond_expr)				\
	__shim_cond_load(ptr, cond_expr, __ATOMIC_ACQUIRE)
#endif

#endif
