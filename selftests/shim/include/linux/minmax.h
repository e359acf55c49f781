/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

/*
 * Like the kernel's, min() and max() refuse operands of different types
 * (comparing the pointers warns), so a signedness mix-up fails to build
 * here as it would there.
 */
#define __shim_cmp(x, y, op) ({						\
	__typeof__(x) __x = (x);					\
	__typeof__(y) __y = (y);					\
	(void)(&__x == &__y);						\
	__x op __y ? __x : __y;						\
})

#define min(x, y)	__shim_cmp(x, y, <)
#define max(x, y)	__shim_cmp(x, y, >)
#define min_t(type, x, y)	__shim_cmp((type)(x), (type)(y), <)
#define max_t(type, x, y)	__shim_cmp((type)(x), (type)(y), >)

#endif
