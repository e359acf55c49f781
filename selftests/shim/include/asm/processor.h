/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_ASM_PROCESSOR_H
#define _SHIM_ASM_PROCESSOR_H

#include <linux/compiler.h>

#if !defined(__x86_64__) && !defined(__i386__)
#error "the shim's cpu_relax() is x86 only"
#endif

/*
 * PAUSE, plus a compiler barrier: the kernel's cpu_relax() is an asm with
 * a memory clobber, and spin loops may rely on it to re-read memory.
 */
static __always_inline void cpu_relax(void)
{
	__builtin_ia32_pause();
	barrier();
}

#endif
