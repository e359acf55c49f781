/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

/*
 * The uapi header: the kernel's own error numbers.  (Not glibc's
 * <errno.h>, which includes <linux/errno.h> itself.)
 */
#include_next <linux/errno.h>

#endif
