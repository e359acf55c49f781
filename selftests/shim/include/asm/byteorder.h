/* SPDX-License-Identifier: GPL-2.0 */
/* Byte order: <linux/types.h> of the shim settles it (little-endian only). */
#ifndef _SHIM_ASM_BYTEORDER_H
#define _SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#endif
