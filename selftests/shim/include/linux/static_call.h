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

#define DECLARE_STATIC_CALL(name, func)	extern typeof(func) *shim_static_call_##name
#define DEFINE_STATIC_CALL(name, func)	typeof(func) *shim_static_call_##name = func
#define static_call(name) \
	(*__atomic_load_n(&shim_static_call_##name, __ATOMIC_RELAXED))
#define static_call_update(name, func) \
	__atomic_store_n(&shim_static_call_##name, (func), __ATOMIC_RELAXED)

#endif /* _SHIM_LINUX_STATIC_CALL_H */
