/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_SMP_H
#define _SHIM_LINUX_SMP_H

#include "../../shim.h"

#define smp_processor_id()	shim_cpu()

#endif
