/* SPDX-License-Identifier: GPL-2.0 */
/* No kprobes in userspace: the blacklist entry is only a declaration. */
#ifndef _SHIM_LINUX_KPROBES_H
#define _SHIM_LINUX_KPROBES_H

#define NOKPROBE_SYMBOL(fname)	extern int shim_nokprobe_##fname

#endif
