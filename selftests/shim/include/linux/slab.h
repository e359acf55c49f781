/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

#include <linux/types.h>

typedef unsigned int gfp_t;

/* Userspace allocations may sleep, and never come from atomic reserves. */
#define GFP_KERNEL	((gfp_t)0)

/*
 * Zeroed and cache-line aligned (shim.c): like kmalloc() of a power-of-two
 * size, or vmalloc(), which kvcalloc() may return.  NULL on overflow of
 * n * size, as in the kernel.
 */
void *kvcalloc(size_t n, size_t size, gfp_t flags);
/* Non-zero: every kvcalloc() fails, as under memory pressure (tests). */
extern int shim_kvcalloc_fails;
void kvfree(const void *addr);

#endif
