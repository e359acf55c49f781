/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_PANIC_H
#define _SHIM_LINUX_PANIC_H

/* The kernel's setting the built-in glue reads; never set here. */
extern int panic_on_unrecovered_nmi;

#endif
