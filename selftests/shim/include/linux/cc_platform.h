/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_CC_PLATFORM_H
#define _SHIM_LINUX_CC_PLATFORM_H

#include <linux/types.h>

/* The one attribute the NMI kick asks for: SEV-ES (shim_machine.sev_es). */
enum cc_attr {
	CC_ATTR_GUEST_STATE_ENCRYPT,
};

bool cc_platform_has(enum cc_attr attr);

#endif
