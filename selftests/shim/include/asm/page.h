/* SPDX-License-Identifier: GPL-2.0 */
/* The page size of x86, the only host the shim supports. */
#ifndef _SHIM_ASM_PAGE_H
#define _SHIM_ASM_PAGE_H

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)

#endif
