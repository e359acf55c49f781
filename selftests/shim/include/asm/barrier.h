/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory barriers and ordered accesses, as C11 fences and __atomic builtins.
 *
 * ThreadSanitizer does not model fences (GCC refuses them with
 * -fsanitize=thread).  Under TSan, smp_cond_load_acquire() spins with
 * acquire loads instead of ending in a fence, and smp_wmb() is only a
 * compiler barrier: the publications that follow it carry its ordering
 * (see SHIM_DEP_ORDER in <linux/compiler.h>).  smp_mb() and smp_rmb() have
 * no such stand-in; the lock sources do not use them, and a new use fails
 * to build under TSan rather than going unchecked.
 */
#ifndef _SHIM_ASM_BARRIER_H
#define _SHIM_ASM_BARRIER_H

#include <linux/compiler.h>
#include <asm/processor.h>

#ifndef __SANITIZE_THREAD__
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
/* Stronger than a store-store barrier (it also orders earlier loads). */
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#else
#define smp_wmb()	barrier()
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
