/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_LOG2_H
#define _SHIM_LINUX_LOG2_H

#include <linux/bitops.h>
#include <linux/compiler.h>

/* Floor of log2(n); -1 for 0, as the kernel's runtime version gives. */
#define ilog2(n)	(fls64((u64)(n)) - 1)

/* The kernel leaves n == 0 undefined; here it gives 1. */
static __always_inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << fls64(n - 1);
}

#endif
