/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvq_locks.ko's glue, between its files: one file per concern, each built
 * only with the option it serves (Kbuild).  main.c calls a concern only
 * under if (PVQ_BUILT(option)), so that without the option the call, and
 * the reference to the missing object, compile away.
 */
#ifndef PVQ_GLUE_H
#define PVQ_GLUE_H

#include <linux/moduleparam.h>

#include "pvq_locks.h"

/*
 * Who may change a tunable after boot.  The module's are writable: its
 * tests change a threshold between two runs.  As the kernel's own lock
 * they are boot parameters (pvq_locks.<name>=), read-only at run time: a
 * lock policy that changes under every held and waited-for spinlock of the
 * system is a debugging facility, which PVQ_WRITABLE_TUNABLES turns on.
 */
#if defined(MODULE) || defined(PVQ_WRITABLE_TUNABLES)
#define PVQ_TUNABLE_MODE	0644
#else
#define PVQ_TUNABLE_MODE	0444
#endif

/*
 * A tunable, an unsigned int in [@min, @max]: anything else is refused
 * with -EINVAL and a message, at load and when written
 * (param_set_uint_minmax(), which stores it).
 */
int pvq_param_set_range(const char *val, const struct kernel_param *kp,
			unsigned int min, unsigned int max);

#define PVQ_RANGED_PARAM(pname, var, lo, hi)				\
static int pvq_param_##pname##_set(const char *val,			\
				   const struct kernel_param *kp)	\
{									\
	return pvq_param_set_range(val, kp, lo, hi);			\
}									\
									\
static const struct kernel_param_ops pvq_param_##pname##_ops = {	\
	.set = pvq_param_##pname##_set,					\
	.get = param_get_uint,						\
};									\
module_param_cb(pname, &pvq_param_##pname##_ops, &(var), PVQ_TUNABLE_MODE)

/* pv_params.c (PARAVIRT_SPINLOCKS): pv_backend, spin_threshold. */
int pvq_pv_params_init(void);

/* faults.c (TORTURE_FAULTS): inject_fault, and the stall rescue. */
int pvq_fault_init(void);
void pvq_fault_rescue(void);

/* diag_nodes.c (QUEUE_SPINLOCK): @cpu's MCS nodes in use. */
void pvq_diag_print_nodes(const char *prefix, int cpu);

/* debugfs.c (LOCK_STATS): /sys/kernel/debug/pvq_locks/lock_events. */
void pvq_debugfs_init(void);
void pvq_debugfs_exit(void);

#endif /* PVQ_GLUE_H */
