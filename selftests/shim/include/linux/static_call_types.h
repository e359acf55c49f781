/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The declaring half of static calls (static_call.h defines and updates
 * them): here a static call is a function pointer read on every call.
 */
#ifndef _SHIM_LINUX_STATIC_CALL_TYPES_H
#define _SHIM_LINUX_STATIC_CALL_TYPES_H

#define DECLARE_STATIC_CALL(name, func)	extern typeof(func) *shim_static_call_##name
#define static_call(name) \
	(*__atomic_load_n(&shim_static_call_##name, __ATOMIC_RELAXED))

#endif /* _SHIM_LINUX_STATIC_CALL_TYPES_H */
