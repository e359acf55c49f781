/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The halt of a waiter that only an NMI can wake (interrupts off), as two
 * functions whose every instruction is known to pv_nmi.c's NMI handler:
 *
 *	bool pvq_nmi_halt_u8(u8 *ptr, u8 val, unsigned long open_loops);
 *	bool pvq_nmi_halt_u32(u32 *ptr, u32 val, unsigned long open_loops);
 *
 * Called with interrupts off.  Halt if *ptr == val; return true if we
 * halted (or were about to), false if *ptr had changed.  A kick that
 * changes *ptr and then sends its NMI after our compare, before the hlt
 * has begun, would be lost (the NMI comes and goes, and hlt then waits for
 * the next one): so every NMI that interrupts us between the window label
 * and the hlt itself returns to the woken label instead (pv_nmi.c), and
 * the caller checks again.  An NMI that comes while the hlt runs ends it,
 * and returns to the woken label by itself.
 *
 * open_loops is 0 but under fault injection (inject_fault=nmi_window),
 * which holds the window open that long, with the NMI handler told to
 * leave it alone: the lost wake-up that the tests must then catch.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>

.macro PVQ_NMI_HALT size, reg, cmp
SYM_FUNC_START(pvq_nmi_halt_\size)
SYM_INNER_LABEL(pvq_nmi_halt_\size\()_window, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR	/* pv_nmi.c's table points here: no branch */
	xorl	%eax, %eax
	\cmp	\reg, (%rdi)
	jne	.Lpvq_changed_\size
.Lpvq_open_\size:
	testq	%rdx, %rdx
	jz	.Lpvq_halt_\size
	pause
	decq	%rdx
	jmp	.Lpvq_open_\size
.Lpvq_halt_\size:
SYM_INNER_LABEL(pvq_nmi_halt_\size\()_insn, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	hlt
SYM_INNER_LABEL(pvq_nmi_halt_\size\()_woken, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	movl	$1, %eax
.Lpvq_changed_\size:
	RET
SYM_FUNC_END(pvq_nmi_halt_\size)
/*
 * No kprobe here: it runs the probed instruction out of line, where an NMI
 * that lands is not seen to be in the window.
 */
_ASM_NOKPROBE(pvq_nmi_halt_\size)
.endm

	.text
PVQ_NMI_HALT u8, %sil, cmpb
PVQ_NMI_HALT u32, %esi, cmpl

/*
 *	bool pvq_nmi_selftest_window(u32 *icr, unsigned long loops, u32 cmd,
 *				     u32 icr_msr);
 *
 * The NMI kick's self-test (pv_nmi.c), with interrupts off: in a window of
 * its own, this CPU sends itself an NMI (@cmd, the self-NMI command,
 * stored to @icr, the xAPIC's interrupt command register, or, @icr NULL,
 * written to the x2APIC's ICR, MSR @icr_msr), then spins @loops pause
 * loops.  The NMI handler moves it past the window as it moves a waiter
 * past its hlt: true if it did, false if the loops ran out (the NMI never
 * came, or came back into the window: the handler could not find the
 * frame that IRET pops).
 */
SYM_FUNC_START(pvq_nmi_selftest_window)
SYM_INNER_LABEL(pvq_nmi_selftest_start, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	testq	%rdi, %rdi
	jz	.Lpvq_selftest_x2apic
	movl	%edx, (%rdi)
	jmp	.Lpvq_selftest_spin
.Lpvq_selftest_x2apic:
	/* wrmsr: %ecx is @icr_msr already; the destination is "self". */
	movl	%edx, %eax
	xorl	%edx, %edx
	wrmsr
.Lpvq_selftest_spin:
	pause
	decq	%rsi
SYM_INNER_LABEL(pvq_nmi_selftest_insn, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	jnz	.Lpvq_selftest_spin
SYM_INNER_LABEL(pvq_nmi_selftest_woken, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	/* Here with loops left: the NMI moved us. */
	xorl	%eax, %eax
	testq	%rsi, %rsi
	setnz	%al
	RET
SYM_FUNC_END(pvq_nmi_selftest_window)
_ASM_NOKPROBE(pvq_nmi_selftest_window)
