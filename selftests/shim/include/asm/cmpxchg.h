/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xchg(), xadd() and cmpxchg() on any naturally aligned scalar or pointer (1, 2, 4
 * or 8 bytes), with the kernel's orderings: the plain forms are fully
 * ordered, the suffixed ones mean what they say, and a failed cmpxchg
 * orders nothing.  Both return the value found in memory.
 *
 * "Fully ordered" is __ATOMIC_SEQ_CST: on x86, the only host the shim
 * supports (<asm/processor.h>), that is a LOCK-prefixed instruction, a full
 * barrier, exactly like the kernel's x86 versions.
 *
 * Under ThreadSanitizer, xchg_relaxed() is acq_rel on every type, for the
 * smp_wmb() before the MCS tail exchange (a u16) and the address dependency
 * on the old tail after it; cmpxchg_relaxed() is acq_rel on pointers only,
 * like pointer-typed READ_ONCE()/WRITE_ONCE() (SHIM_DEP_ORDER in
 * <linux/compiler.h>).
 */
#ifndef _SHIM_ASM_CMPXCHG_H
#define _SHIM_ASM_CMPXCHG_H

#include <linux/compiler.h>

#include "../../shim.h"

#define __shim_xchg(ptr, x, order) ({					\
	shim_count_rmw();						\
	__atomic_exchange_n((ptr), (x), (order));			\
})

#define __shim_cmpxchg(ptr, old, new, success, failure) ({		\
	__typeof__(*(ptr)) __old = (old);				\
									\
	shim_count_rmw();						\
	__atomic_compare_exchange_n((ptr), &__old, (new), false,	\
				    (success), (failure));		\
	__old;								\
})

#define xchg(ptr, x)		__shim_xchg(ptr, x, __ATOMIC_SEQ_CST)
/* x86's xadd(): fully ordered fetch-and-add of any width, returns the old value. */
#define xadd(ptr, inc) ({						\
	shim_count_rmw();						\
	__atomic_fetch_add((ptr), (inc), __ATOMIC_SEQ_CST);		\
})
#ifndef __SANITIZE_THREAD__
#define xchg_relaxed(ptr, x)	__shim_xchg(ptr, x, __ATOMIC_RELAXED)
#else
#define xchg_relaxed(ptr, x)	__shim_xchg(ptr, x, __ATOMIC_ACQ_REL)
#endif

#define cmpxchg(ptr, old, new)						\
	__shim_cmpxchg(ptr, old, new, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define cmpxchg_acquire(ptr, old, new)					\
	__shim_cmpxchg(ptr, old, new, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
#define cmpxchg_release(ptr, old, new)					\
	__shim_cmpxchg(ptr, old, new, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define cmpxchg_relaxed(ptr, old, new)					\
	__shim_cmpxchg(ptr, old, new,					\
		       SHIM_DEP_ORDER(*(ptr), __ATOMIC_ACQ_REL),	\
		       SHIM_DEP_ORDER(*(ptr), __ATOMIC_ACQUIRE))
/*
 * Atomic against this CPU only (x86: cmpxchg without LOCK, one
 * instruction, so an NMI comes wholly before or after it).  Not counted as
 * a cache-line RMW.  A single-stepped test (shim/vcpu.c) steps it as one.
 */
#define cmpxchg_local(ptr, old, new) ({					\
	__typeof__(*(ptr)) __old = (old);				\
									\
	__atomic_compare_exchange_n((ptr), &__old, (new), false,	\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
	__old;								\
})

#endif
