// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko's load and unload: the module glue itself (module/main.c,
 * pv_params.c, unfair_params.c), built against the shim with the kernel's
 * PV backends (pv/pv_backends.c, pv_nmi.c) on the shim's vCPUs.  What a
 * module registers with the kernel at load (NMI handlers, a CPU hotplug
 * state) must be gone when the load fails and when it unloads: the kernel
 * would call a handler left behind in the module's freed memory at the
 * next NMI.  The shim counts what is registered.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kselftest_harness.h"
#include "unit_helpers.h"
#include "pv_ops.h"
#include "vcpu.h"

/* debugfs.c is not built here: the counters' files are the kernel's. */
void pvq_debugfs_init(void)
{
}

void pvq_debugfs_exit(void)
{
}

/* A guest of a hypervisor without KVM's PV unhalt: auto picks nmi. */
static void machine_no_kvm(void)
{
	shim_machine = (struct shim_machine){ .hypervisor = true };
}

/*
 * The hash table cannot be allocated: the load fails, after the backend
 * (nmi) registered its NMI handlers and hotplug state.  They must go with
 * it (they stayed: a use after free at the next NMI).
 */
TEST(failed_load_leaves_nothing_registered)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	shim_kvcalloc_fails = 1;
	EXPECT_EQ(-ENOMEM, shim_module_init());
	shim_kvcalloc_fails = 0;
	EXPECT_EQ(0, shim_nmi_handlers_registered())
		TH_LOG("NMI handlers left registered by the failed load");
	EXPECT_EQ(0, shim_cpuhp_states_set_up())
		TH_LOG("CPU hotplug state left set up by the failed load");
}

TEST(load_then_unload_leaves_nothing_registered)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	ASSERT_EQ(0, shim_module_init());
	EXPECT_STREQ("nmi", pvq_pv->name);
	EXPECT_EQ(2, shim_nmi_handlers_registered());
	EXPECT_EQ(1, shim_cpuhp_states_set_up());
	shim_module_exit();
	EXPECT_EQ(0, shim_nmi_handlers_registered());
	EXPECT_EQ(0, shim_cpuhp_states_set_up());
}

/*
 * The backend is chosen once: a second choice would flip the native
 * static key under CPUs that hold or wait on the locks.
 */
TEST(backend_chosen_once)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	ASSERT_EQ(0, shim_module_init());
	EXPECT_EQ(-EBUSY, pvq_pv_select("none"));
	EXPECT_STREQ("nmi", pvq_pv->name);
	EXPECT_FALSE(pvq_pv_runs_native());
	shim_module_exit();
}

TEST_HARNESS_MAIN
