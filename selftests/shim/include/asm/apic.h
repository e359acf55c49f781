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

/* The vector that asks for NMI delivery, as in <asm/irq_vectors.h>. */
#define NMI_VECTOR	0x02

/*
 * What the NMI kick's self-test hands its window (<asm/apicdef.h>): the
 * shim's window (vcpu.c) sends its NMI through apic->send_IPI() instead.
 */
#define APIC_BASE	0xfee00000UL
#define APIC_ICR	0x300
#define APIC_DEST_SELF	0x40000
#define APIC_DM_NMI	0x00400
#define APIC_BASE_MSR	0x800

/*
 * The APIC driver: only ->send_IPI(cpu, NMI_VECTOR), an NMI to @cpu
 * (shim/vcpu.c); any other vector aborts.
 */
struct apic {
	void (*send_IPI)(int cpu, int vector);
};

extern struct apic *apic;

/* The local APIC is in x2APIC mode (tests set it; 0 by default: xAPIC). */
extern int x2apic_mode;

#endif
