/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Static calls, as a function pointer read on every call: the kernel
 * patches the call instruction instead, but the function called is the
 * same, and a test that updates a call between two runs sees what the
 * kernel would.
 */
#ifndef _SHIM_LINUX_STATIC_CALL_H
#define _SHIM_LINUX_STATIC_CALL_H

#include <linux/compiler.h>
#include <linux/static_call_types.h>

#define DEFINE_STATIC_CALL(name, func)	typeof(func) *shim_static_call_##name = func
#define static_call_update(name, func) \
	__atomic_store_n(&shim_static_call_##name, (func), __ATOMIC_RELAXED)

#endif /* _SHIM_LINUX_STATIC_CALL_H */
