/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU hotplug states (shim/vcpu.c): the dynamic "prepare" state only,
 * whose startup callback runs before a CPU comes up.  A test brings a CPU
 * down and up with shim_cpu_down() and shim_cpu_up() (shim/vcpu.h).
 */
#ifndef _SHIM_LINUX_CPUHOTPLUG_H
#define _SHIM_LINUX_CPUHOTPLUG_H

enum cpuhp_state {
	CPUHP_BP_PREPARE_DYN = 1,
};

/* A state number (> 0), or -EBUSY when the shim's slots are full. */
int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int cpu),
			      int (*teardown)(unsigned int cpu));
void cpuhp_remove_state_nocalls(enum cpuhp_state state);

#endif
