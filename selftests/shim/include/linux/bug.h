/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H

#include <linux/compiler.h>

#include "../../shim.h"

#define BUILD_BUG_ON(cond)						\
	do {								\
		_Static_assert(!(cond), "BUILD_BUG_ON(" #cond ")");	\
	} while (0)

/* Type-check @e without evaluating it. */
#define BUILD_BUG_ON_INVALID(e)	((void)sizeof((long)(e)))

/*
 * Print once per call site, but count every hit in shim_warnings, so that a
 * test can fail on a warning that the log would show only once.
 */
#define WARN_ON_ONCE(cond) ({						\
	static bool __warned;						\
	bool __ret = !!(cond);						\
									\
	if (unlikely(__ret)) {						\
		__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED);\
		if (!__atomic_exchange_n(&__warned, true,		\
					 __ATOMIC_RELAXED))		\
			shim_warn(__FILE__, __LINE__, __func__);	\
	}								\
	__ret;								\
})

/* The same, with the kernel's message after the location; returns @cond. */
#define WARN_ONCE(cond, fmt, ...) ({					\
	static bool __warned;						\
	bool __ret = !!(cond);						\
									\
	if (unlikely(__ret)) {						\
		__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED);\
		if (!__atomic_exchange_n(&__warned, true,		\
					 __ATOMIC_RELAXED))		\
			shim_warn_msg(__FILE__, __LINE__, __func__,	\
				      fmt, ##__VA_ARGS__);		\
	}								\
	__ret;								\
})

#endif
