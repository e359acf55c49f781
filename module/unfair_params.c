// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko, PARAVIRT_UNFAIR_LOCKS=y: the unfair lock's stealing policy
 * and starvation bound (Documentation/unfair.rst), writable at run time.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "glue.h"

PVQ_RANGED_PARAM(unfair_bound_us, pvq_starvation_bound_us, 0, 1000000);
MODULE_PARM_DESC(unfair_bound_us, "Unfair mode: a queue head waits this long (us) before it blocks lock stealing (0..1000000, default 50)");

PVQ_RANGED_PARAM(unfair_steal_spin, pvq_steal_spin, 1, 1 << 30);
MODULE_PARM_DESC(unfair_steal_spin, "Unfair mode: loops a contender spins stealing before it queues (1..2^30, default 128)");

PVQ_RANGED_PARAM(unfair_steal_budget, pvq_steal_budget, 0,
		 PVQ_STEAL_BUDGET_MAX);
MODULE_PARM_DESC(unfair_steal_budget, "Unfair mode: steals past queued waiters a CPU may make before it must queue itself (0..2^30, default 1024; 0: never pass a queue)");
