/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_HARDIRQ_H
#define _SHIM_LINUX_HARDIRQ_H

/* in_nmi() and friends, which the kernel's <linux/hardirq.h> provides too. */
#include <linux/preempt.h>

#endif
