/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_CPUMASK_H
#define _SHIM_LINUX_CPUMASK_H

#include "../../shim.h"

/* Every CPU slot has a per-CPU area, registered or not. */
#define for_each_possible_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < SHIM_NR_CPUS; (cpu)++)

#endif
