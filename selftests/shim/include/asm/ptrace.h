/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an NMI handler sees of the interrupted context: the hardware frame
 * (instruction pointer, code segment, flags, stack pointer and segment),
 * which shim/vcpu.c models for the NMI kick's halt window only.  As
 * x86-64's entry code lays them out for an NMI from kernel mode, these end
 * in the "outermost" copy of the hardware frame, and the NMI returns
 * through another copy right above them (shim_nmi_take_pending()).
 */
#ifndef _SHIM_ASM_PTRACE_H
#define _SHIM_ASM_PTRACE_H

struct pt_regs {
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

#endif
