/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_CACHE_H
#define _SHIM_LINUX_CACHE_H

#include "../../shim.h"

#define SMP_CACHE_BYTES	SHIM_CACHELINE

#endif
