/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

/* memcmp(), strcmp() and friends: libc's, which behave as the kernel's. */
#include <string.h>

#endif
