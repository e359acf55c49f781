/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU's interrupt flag, and halting (shim/vcpu.c models the machine).
 *
 * shim_irqs_off (shim.h) is the calling CPU's IF flag, cleared.  An
 * interrupt sent to a CPU (a reschedule IPI, or the self-IPI of
 * irq_work_queue()) stays pending while that CPU has interrupts off, and
 * is taken where they come back on: local_irq_enable(), a
 * local_irq_restore() that turns them on, safe_halt().  A thread cannot be
 * interrupted at an arbitrary instruction here, so a CPU running with
 * interrupts on takes what is pending when it next disables them, as if
 * it had been interrupted just before.
 *
 * The saved flags are the IF bit of EFLAGS, as on x86.
 */
#ifndef _SHIM_LINUX_IRQFLAGS_H
#define _SHIM_LINUX_IRQFLAGS_H

#include <linux/types.h>

#include "../../shim.h"

#define X86_EFLAGS_IF	(1UL << 9)

/* Run the calling CPU's pending interrupts, if it has interrupts on. */
void shim_irq_take_pending(void);

static inline void local_irq_disable(void)
{
	if (!shim_irqs_off)
		shim_irq_take_pending();
	shim_irqs_off = 1;
}

static inline void local_irq_enable(void)
{
	shim_irqs_off = 0;
	shim_irq_take_pending();
}

#define local_irq_save(flags) do {					\
	(flags) = shim_irqs_off ? 0 : X86_EFLAGS_IF;			\
	local_irq_disable();						\
} while (0)

#define local_irq_restore(flags) do {					\
	if ((flags) & X86_EFLAGS_IF)					\
		local_irq_enable();					\
	else								\
		shim_irqs_off = 1;					\
} while (0)

#define irqs_disabled()	(shim_irqs_off != 0)

static inline bool arch_irqs_disabled_flags(unsigned long flags)
{
	return !(flags & X86_EFLAGS_IF);
}

/*
 * x86's "hlt" and "sti; hlt" (<asm/irqflags.h> in the kernel), under KVM:
 * the CPU's thread parks until something ends the halt.  halt() keeps the
 * interrupt flag as it is, and with interrupts off only a KVM kick
 * (KVM_HC_KICK_CPU) ends it; safe_halt() enables interrupts first, so a
 * pending or new interrupt ends it too, and returns with them on.  A kick
 * sent before the halt is remembered and ends it at once (KVM's
 * pv_unhalted).
 */
void halt(void);
void safe_halt(void);

#endif
