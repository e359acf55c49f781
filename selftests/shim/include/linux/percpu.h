/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU variables, the kernel's way: the definitions form a template
 * section, each CPU gets a copy of it (shim.c), and a per-CPU pointer is the
 * template address plus that CPU's offset.  The template itself is never
 * used directly.
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H

#include <asm/cmpxchg.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/smp.h>

#include "../../shim.h"

#define __shim_percpu		__section("shim_percpu")
#define __shim_percpu_aligned	__section("shim_percpu") __aligned(SHIM_CACHELINE)

#define DECLARE_PER_CPU(type, name)	extern __shim_percpu __typeof__(type) name
#define DEFINE_PER_CPU(type, name)	__shim_percpu __typeof__(type) name
#define DECLARE_PER_CPU_ALIGNED(type, name)				\
	extern __shim_percpu_aligned __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name)				\
	__shim_percpu_aligned __typeof__(type) name

#define per_cpu_ptr(ptr, cpu)						\
	((__typeof__(ptr))((uintptr_t)(ptr) + shim_cpu_offset(cpu)))
#define this_cpu_ptr(ptr)	per_cpu_ptr(ptr, smp_processor_id())
#define per_cpu(var, cpu)	(*per_cpu_ptr(&(var), cpu))

/* Plain read-modify-writes of our own copy: not atomic, as in the kernel. */
#define raw_cpu_add(pcp, val)	((void)(*this_cpu_ptr(&(pcp)) += (val)))
#define __this_cpu_dec(pcp)	((void)(*this_cpu_ptr(&(pcp)) -= 1))
#define __this_cpu_inc(pcp)	((void)(*this_cpu_ptr(&(pcp)) += 1))
#define __this_cpu_read(pcp)	(*this_cpu_ptr(&(pcp)))
#define __this_cpu_write(pcp, val)	((void)(*this_cpu_ptr(&(pcp)) = (val)))
/* One untorn store to our own copy, which other CPUs may read. */
#define this_cpu_write(pcp, val)	WRITE_ONCE(*this_cpu_ptr(&(pcp)), (val))
/*
 * Safe against the contexts nested on this CPU in the kernel; a "CPU" here
 * is one thread, and the shim's nested contexts run on it in turn.
 */
#define this_cpu_read(pcp)	READ_ONCE(*this_cpu_ptr(&(pcp)))
/* Atomic against this CPU's interrupts and NMIs only, as on x86. */
#define this_cpu_cmpxchg(pcp, old, new)					\
	cmpxchg_local(this_cpu_ptr(&(pcp)), (old), (new))
#define this_cpu_dec(pcp)	__this_cpu_dec(pcp)

#endif
