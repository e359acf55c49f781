/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an NMI handler sees of the interrupted context: its instruction
 * pointer, which shim/vcpu.c models for the NMI kick's halt window only.
 */
#ifndef _SHIM_ASM_PTRACE_H
#define _SHIM_ASM_PTRACE_H

struct pt_regs {
	unsigned long ip;
};

#endif
