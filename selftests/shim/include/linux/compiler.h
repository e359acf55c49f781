/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

/* glibc defines __always_inline too; take its definition if it came first. */
#include <sys/cdefs.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define __aligned(x)		__attribute__((__aligned__(x)))
#define __section(s)		__attribute__((__section__(s)))
#define __cold			__attribute__((__cold__))
#define __noreturn		__attribute__((__noreturn__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __maybe_unused		__attribute__((__unused__))

#define barrier()	__asm__ __volatile__("" : : : "memory")

/*
 * Relaxed atomics: single-copy atomic and never torn, merged or invented,
 * which is what the kernel promises for these on aligned scalars, and what
 * lets ThreadSanitizer tell them from plain (racy) accesses.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), SHIM_DEP_ORDER(x, __ATOMIC_ACQUIRE))
#define WRITE_ONCE(x, val)						\
	__atomic_store_n(&(x), (val), SHIM_DEP_ORDER(x, __ATOMIC_RELEASE))

/*
 * ThreadSanitizer models neither fences nor address dependencies, both of
 * which the MCS queue relies on to publish a freshly initialised node:
 * smp_wmb(), then a relaxed store of a pointer to it (or of the tail that
 * encodes it), which the reader follows.  Under TSan, pointer-typed
 * READ_ONCE()/WRITE_ONCE() are therefore acquire/release (and
 * xchg_relaxed() is acq_rel, <linux/atomic.h>): a consume/publish pair TSan
 * can see.  Every integer access keeps its real, relaxed ordering, so TSan
 * still checks the lock-word hand-offs; what it cannot check is that the
 * smp_wmb() itself is present.
 */
#ifdef __SANITIZE_THREAD__
/* 5 is GCC's pointer_type_class; typeof keeps x unevaluated. */
#define SHIM_TSAN_POINTER(x)	(__builtin_classify_type((__typeof__(x))0) == 5)
#define SHIM_DEP_ORDER(x, order)					\
	(SHIM_TSAN_POINTER(x) ? (order) : __ATOMIC_RELAXED)
#else
#define SHIM_DEP_ORDER(x, order)	__ATOMIC_RELAXED
#endif

#endif
