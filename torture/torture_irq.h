/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qspinlock_torture: locks taken from softirq, hardirq and NMI context
 * (irq_mode), so that the nesting levels of the queued locks' MCS nodes
 * are really used.  See torture_irq.c and Documentation/torture.rst.
 */
#ifndef PVQ_TORTURE_IRQ_H
#define PVQ_TORTURE_IRQ_H

#include <linux/types.h>

#include "torture.h"

enum torture_irq_mode {
	TORTURE_IRQ_NONE,
	TORTURE_IRQ_HARDIRQ,
	TORTURE_IRQ_SOFTIRQ,
	TORTURE_IRQ_MIXED,	/* softirq + hardirq + NMI */
};

/* The contexts that take locks of their own set. */
enum torture_irq_ctx {
	TORTURE_CTX_SOFTIRQ,
	TORTURE_CTX_HARDIRQ,
	TORTURE_CTX_NMI,
	TORTURE_NR_IRQ_CTX
};

struct torture_irq_totals {
	u64 acq[TORTURE_NR_IRQ_CTX];	/* acquisitions per context */
	u64 ns[TORTURE_NR_IRQ_CTX];	/* time in sections (nested ones too) */
	u64 towers;			/* nesting towers built */
	u64 failures;			/* exclusion failures seen */
	u64 lost;			/* |acquisitions - counter total| */
};

/* The mode named @name, or -EINVAL. */
int torture_irq_parse(const char *name);
/* Space-separated valid irq_mode names, for messages. */
const char *torture_irq_mode_names(void);

/*
 * Allocate the lock sets and start the interrupt sources of @mode on every
 * online CPU; the critical sections take @cs_loops work loops.  @fault
 * (fault-injection builds): enter some sections without the lock.  On
 * failure the caller still calls torture_irq_stop() and torture_irq_free().
 */
int torture_irq_start(const struct torture_lock_ops *ops, int mode,
		      int cs_loops, bool fault);
/*
 * Stop every interrupt source and wait up to @secs for the handlers to
 * leave.  Returns false if some could not: then the module pinned itself,
 * and the lock sets stay allocated.
 */
bool torture_irq_stop(int secs);
void torture_irq_free(void);

/* Totals so far; lost is only meaningful after torture_irq_stop(). */
void torture_irq_sum(struct torture_irq_totals *t);
/* Acquisitions in every context so far, for the stall watchdog. */
u64 torture_irq_progress(void);
/* Interrupt sources are running. */
bool torture_irq_active(void);
/* The stall report: every interrupt-context lock word. */
void torture_irq_report_stall(const char *prefix);

#endif /* PVQ_TORTURE_IRQ_H */
