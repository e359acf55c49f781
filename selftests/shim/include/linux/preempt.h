/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calling context, as the shim knows it (shim.h): a test marks NMI
 * context with shim_in_nmi, and a thread registered as a CPU runs lock
 * code as the kernel does, with preemption off.  A thread that is not a
 * CPU is preemptible (lock code there aborts, see shim.h).
 */
#ifndef _SHIM_LINUX_PREEMPT_H
#define _SHIM_LINUX_PREEMPT_H

#include "../../shim.h"

#define in_nmi()	(shim_in_nmi != 0)
#define preemptible()	(shim_this_cpu < 0)

#endif
