/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NMI handlers (shim/vcpu.c), registered per type as in the kernel.  A
 * vCPU takes an NMI sent to it (apic->send_IPI(cpu, NMI_VECTOR)) where
 * vcpu.h says; it runs the NMI_LOCAL handlers and, when none claims the
 * NMI, the NMI_UNKNOWN ones; an NMI that nobody claims is counted
 * (shim_vcpu_unknown_nmis()), where the kernel would report it.
 */
#ifndef _SHIM_ASM_NMI_H
#define _SHIM_ASM_NMI_H

#define NMI_LOCAL	0
#define NMI_UNKNOWN	1

#define NMI_DONE	0
#define NMI_HANDLED	1

struct pt_regs;
typedef int (*nmi_handler_t)(unsigned int type, struct pt_regs *regs);

int shim_register_nmi_handler(unsigned int type, nmi_handler_t fn,
			      const char *name);
void unregister_nmi_handler(unsigned int type, const char *name);

#define register_nmi_handler(type, fn, flags, name)			\
	shim_register_nmi_handler((type), (fn), (name))

/* The kernel's settings the built-in glue reads; never set here. */
extern int unknown_nmi_panic;

#endif
