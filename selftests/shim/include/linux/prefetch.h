/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SHIM_LINUX_PREFETCH_H
#define _SHIM_LINUX_PREFETCH_H

/* Prefetch for writing: we are about to own the line. */
#define prefetchw(x)	__builtin_prefetch((x), 1)

#endif
