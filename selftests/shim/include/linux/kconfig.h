/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every file (-include), as Kbuild does with the real
 * <linux/kconfig.h>: the Kconfig symbols the lock sources use.  It includes
 * nothing, so a test's own feature macros (_GNU_SOURCE) still take effect.
 */
#ifndef _SHIM_LINUX_KCONFIG_H
#define _SHIM_LINUX_KCONFIG_H

/* How many threads can play CPUs (shim.h's SHIM_NR_CPUS). */
#define CONFIG_NR_CPUS	64

#endif
