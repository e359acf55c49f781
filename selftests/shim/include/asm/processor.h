/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_ASM_PROCESSOR_H
#define _SHIM_ASM_PROCESSOR_H

#include <stdbool.h>

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

/*
 * CPUID, as the shim's machine answers it (shim/vcpu.c, shim_machine
 * in vcpu.h): the hypervisor bit and KVM's leaves.  Any other leaf or
 * feature is not modelled, and asking for one aborts.
 */
void shim_cpuid(unsigned int op, unsigned int *eax, unsigned int *ebx,
		unsigned int *ecx, unsigned int *edx);
bool shim_boot_cpu_has(unsigned int feature);

/* CPUID.1:ECX bit 31, in the kernel's word 4 of the feature bits. */
#define X86_FEATURE_HYPERVISOR	(4 * 32 + 31)
#define boot_cpu_has(feature)	shim_boot_cpu_has(feature)

static inline void cpuid(unsigned int op, unsigned int *eax,
			 unsigned int *ebx, unsigned int *ecx,
			 unsigned int *edx)
{
	shim_cpuid(op, eax, ebx, ecx, edx);
}

static inline unsigned int cpuid_eax(unsigned int op)
{
	unsigned int eax, ebx, ecx, edx;

	shim_cpuid(op, &eax, &ebx, &ecx, &edx);
	return eax;
}

static inline unsigned int cpuid_edx(unsigned int op)
{
	unsigned int eax, ebx, ecx, edx;

	shim_cpuid(op, &eax, &ebx, &ecx, &edx);
	return edx;
}

#endif
