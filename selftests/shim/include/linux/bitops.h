/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <linux/compiler.h>
#include <linux/types.h>

/* 1-based index of the most significant set bit; 0 for 0. */
static __always_inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif
