/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq_work (shim/vcpu.c): irq_work_queue() puts the work on the calling
 * CPU's list and sends that CPU an interrupt (the kernel's self-IPI); the
 * works run, with interrupts off, when the CPU takes that interrupt
 * (<linux/irqflags.h>).  Callable from NMI context, as in the kernel.
 * Every work runs in hard interrupt context here (IRQ_WORK_INIT_HARD's
 * flag only matters to PREEMPT_RT kernels).
 */
#ifndef _SHIM_LINUX_IRQ_WORK_H
#define _SHIM_LINUX_IRQ_WORK_H

#include <linux/container_of.h>
#include <linux/types.h>

struct irq_work {
	struct irq_work *shim_next;	/* on its CPU's list while queued */
	unsigned int shim_flags;	/* SHIM_IRQ_WORK_* */
	void (*func)(struct irq_work *work);
};

/* Queued and not yet started (the kernel's IRQ_WORK_PENDING). */
#define SHIM_IRQ_WORK_PENDING	1U
/* Queued or running (IRQ_WORK_BUSY): what irq_work_sync() waits for. */
#define SHIM_IRQ_WORK_BUSY	2U

#define IRQ_WORK_INIT_HARD(_func)	{ .func = (_func) }

/* False if @work was pending already: it will run once for both. */
bool irq_work_queue(struct irq_work *work);
/* Wait until @work is neither pending nor running. */
void irq_work_sync(struct irq_work *work);

#endif
