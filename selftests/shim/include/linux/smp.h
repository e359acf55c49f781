/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_SMP_H
#define _SHIM_LINUX_SMP_H

#include "../../shim.h"

#define smp_processor_id()	shim_cpu()

/*
 * Send @cpu a reschedule IPI (shim/vcpu.c): an interrupt that ends its
 * safe_halt(), never its halt() with interrupts off.  As on x86, an IPI to
 * a CPU that is not online is refused with a warning.
 */
void smp_send_reschedule(int cpu);

#endif
