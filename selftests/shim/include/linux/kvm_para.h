/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's paravirtual interface (shim/vcpu.c plays the host).  The numbers
 * are the kernel's own, from the uapi headers: KVM_HC_* here, and
 * KVM_CPUID_*, KVM_FEATURE_*, KVM_HINTS_* in <asm/kvm_para.h>, which the
 * uapi header includes.
 */
#ifndef _SHIM_LINUX_KVM_PARA_H
#define _SHIM_LINUX_KVM_PARA_H

#include_next <linux/kvm_para.h>
#include <linux/bits.h>
#include <linux/types.h>

/*
 * The hypercall.  Only KVM_HC_KICK_CPU is modelled: (flags, APIC id)
 * unhalts the vCPU with that APIC id, online or not, as KVM does; an APIC
 * id that no vCPU has is ignored.  A hypercall without KVM in the shim's
 * CPUID aborts (there is no host to take it).
 */
long kvm_hypercall2(unsigned int nr, unsigned long p1, unsigned long p2);

/* The CPUID leaves carry KVM's signature (at any base). */
bool kvm_para_available(void);

#endif
