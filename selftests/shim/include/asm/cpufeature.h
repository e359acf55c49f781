/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The feature tests are asm/processor.h's boot_cpu_has() here, and there
 * is no X86_FEATURE_FRED: NMIs return through the "iret" frame (asm/ptrace.h).
 */
#ifndef _SHIM_ASM_CPUFEATURE_H
#define _SHIM_ASM_CPUFEATURE_H

#include <asm/processor.h>

/* A TDX guest (struct shim_machine's tdx_guest). */
#define X86_FEATURE_TDX_GUEST	(8 * 32 + 22)
#define cpu_feature_enabled(feature)	boot_cpu_has(feature)

#endif
