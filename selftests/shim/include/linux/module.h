/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What module/'s glue uses of <linux/module.h>, for a userspace build of
 * its load and unload (selftests/module_load_unit.c): module_init() and
 * module_exit() name functions the test calls, shim_module_init() and
 * shim_module_exit(); exports and descriptions are nothing.
 */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

#include <linux/kernel.h>
#include <linux/moduleparam.h>

#define __init
#define __exit
#define __initdata

#define EXPORT_SYMBOL(sym)		extern int shim_export_##sym
#define EXPORT_SYMBOL_GPL(sym)		extern int shim_export_gpl_##sym
#define MODULE_LICENSE(text)		extern int shim_module_license
#define MODULE_DESCRIPTION(text)	extern int shim_module_description

#define module_init(fn)		int shim_module_init(void) { return fn(); }
#define module_exit(fn)		void shim_module_exit(void) { fn(); }

int shim_module_init(void);
void shim_module_exit(void);

#endif
