/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

/* The uapi header: __u8 .. __u64, which system headers may also want. */
#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i)	{ (i) }

typedef struct {
	s64 counter;
} atomic64_t;

/*
 * The kernel defines exactly one of __LITTLE_ENDIAN and __BIG_ENDIAN, and
 * the lock words pick their layout with #ifdef __LITTLE_ENDIAN.  glibc's
 * <endian.h> defines both on every host, so a big-endian build here would
 * silently get the little-endian layout: refuse it.
 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shim supports little-endian hosts only"
#endif
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif

#endif
