/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_ASM_APIC_H
#define _SHIM_ASM_APIC_H

#include <linux/percpu.h>
#include <linux/types.h>

/*
 * Each CPU's APIC id, which KVM_HC_KICK_CPU addresses.  Set by
 * shim/vcpu.c, and never the CPU number (see SHIM_APICID() in vcpu.h).
 */
DECLARE_PER_CPU(u16, x86_cpu_to_apicid);

#endif
