/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_MATH64_H
#define _SHIM_LINUX_MATH64_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "../../shim.h"

/*
 * a * b / c with a 128-bit intermediate.  The kernel's x86-64 version is
 * mulq + divq, which raises a divide error when the quotient does not fit
 * in 64 bits: abort here instead of silently truncating.
 */
static __always_inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	unsigned __int128 q = (unsigned __int128)a * b / c;

	if (unlikely(q >> 64))
		shim_die("%s(%llu, %llu, %llu): quotient overflows 64 bits",
			 __func__, a, b, c);
	return (u64)q;
}

/* The kernel has this in <linux/math.h>, which <linux/math64.h> includes. */
#define DIV_ROUND_UP_ULL(ll, d)						\
	(((unsigned long long)(ll) + (d) - 1) / (d))

#endif
