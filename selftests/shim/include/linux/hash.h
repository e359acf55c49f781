/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_HASH_H
#define _SHIM_LINUX_HASH_H

#include <linux/compiler.h>
#include <linux/types.h>

/*
 * Multiplicative (Fibonacci) hashing: multiply by 2^64 / phi, rounded to
 * odd, and keep the top @bits bits, which depend on every input bit.  Not
 * the kernel's constant, but the same method, so aligned pointers (whose
 * low bits are all zero) still spread over the whole table.
 */
#define SHIM_GOLDEN_RATIO_64	0x9e3779b97f4a7c15ull

static __always_inline u32 hash_64(u64 val, unsigned int bits)
{
	/* A shift by 64 would be undefined: a 0-bit hash is always 0. */
	if (!bits)
		return 0;
	return (u32)((val * SHIM_GOLDEN_RATIO_64) >> (64 - bits));
}

static __always_inline u32 hash_ptr(const void *ptr, unsigned int bits)
{
	return hash_64((unsigned long)ptr, bits);
}

#endif
