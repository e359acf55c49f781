// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kernel's PV backends: pv/pv_backends.c itself, built
 * against the shim and run on its model of the vCPUs under them
 * (shim/vcpu.c, vcpu.h).  A halt parks the CPU's thread; KVM_HC_KICK_CPU
 * unhalts the vCPU with that APIC id, and a kick that comes before the
 * halt ends it at once; a reschedule IPI is an interrupt, which ends
 * safe_halt() but not a halt with interrupts off.  The PV locks are linked
 * as they are and driven through their API only, as kernel code takes
 * them; contenders are threads registered as CPUs (unit_helpers.h).
 *
 * This is what the futex backend of the other PV tests cannot show: the
 * kvm backend halts with interrupts off, where nothing but its own kick
 * ends the halt, and CPUs outside cpu_online_mask take spinlocks too (an
 * incoming CPU before set_cpu_online(), an outgoing one once it left the
 * mask), so a waiter there must still be kicked.  The nmi and strict
 * backends halt with interrupts off too, and only an NMI ends that halt:
 * one that comes between the waiter's check and its hlt must not be lost
 * (pv/pv_nmi.c moves the waiter past the hlt; the shim models the window
 * and the instruction pointer the NMI handler sees).  Every wait is bounded:
 * a waiter nobody wakes fails its test after UNIT_TIMEOUT_MS.
 */
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kvm_para.h>
#include <asm/apic.h>
#include <asm/nmi.h>

/* A lost kick fails a test after this; all of them fit KSFT_TIMEOUT. */
#define UNIT_TIMEOUT_MS		3000

#include "kselftest_harness.h"
#include "unit_helpers.h"
#include "lock_stats.h"
#include "pv_ops.h"
#include "pv_nmi.h"
#include "vcpu.h"

#ifdef PVQ_LOCK_STATS
#define EXPECT_EVENT(ev, n)						\
	EXPECT_EQ((unsigned long)(n), pvq_lock_event_sum(PVQ_EV_##ev))
#define event_count(ev)		pvq_lock_event_sum(PVQ_EV_##ev)
#else
#define EXPECT_EVENT(ev, n)	do { } while (0)
#define event_count(ev)		0UL
#endif

/* CPUs that no test thread plays: kick targets only. */
#define IDLE_CPU		2
#define OFFLINE_CPU		3

/* A KVM guest: the leaves at @base, and the features and hints given. */
static void machine_kvm(unsigned int base, u32 features, u32 hints)
{
	shim_machine = (struct shim_machine){
		.hypervisor = true, .kvm_base = base,
		.kvm_features = features, .kvm_hints = hints,
	};
}

/* A guest of a hypervisor without KVM's PV unhalt (TCG, say). */
static void machine_no_kvm(void)
{
	shim_machine = (struct shim_machine){ .hypervisor = true };
}

/* A PV lock as the tests see it. */
struct pv_lock_type {
	const struct lock_adapter *ops;
	/* The same, with the whole acquisition under local_irq_disable(). */
	const struct lock_adapter *irqs_off;
	/* The byte its halted waiter waits on (pvq_pv_halted_on()). */
	u8 *(*halt_byte)(void *lock);
};

#define PV_LOCK_TYPE(type, byte)					\
static void type##_lock_irqs_off(void *lock)				\
{									\
	local_irq_disable();						\
	lock_adapter_##type.lock(lock);					\
}									\
									\
static void type##_unlock_irqs_on(void *lock)				\
{									\
	lock_adapter_##type.unlock(lock);				\
	local_irq_enable();						\
}									\
									\
static const struct lock_adapter type##_irqs_off_ops = {		\
	.name = #type " with interrupts off",				\
	.lock = type##_lock_irqs_off,					\
	.unlock = type##_unlock_irqs_on,				\
};									\
									\
static const struct pv_lock_type type##_type = {			\
	.ops = &lock_adapter_##type,					\
	.irqs_off = &type##_irqs_off_ops,				\
	.halt_byte = byte,						\
}

/* A pvticket waiter halts on the low byte of the head. */
static u8 *pvticket_halt_byte(void *lock)
{
	return (u8 *)&((struct pvq_pvticketlock *)lock)->tickets.head;
}

PV_LOCK_TYPE(pvticket, pvticket_halt_byte);

#ifdef PVQ_PV_QSPINLOCK
/* A queued lock's only contender is its queue head: it halts on ->locked. */
static u8 *qspin_halt_byte(void *lock)
{
	return &((struct pvq_qspinlock *)lock)->locked;
}

PV_LOCK_TYPE(pvqspinlock, qspin_halt_byte);
#endif
#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
PV_LOCK_TYPE(pvqspinlock_unfair, qspin_halt_byte);
#endif

union pv_lock {
	struct pvq_qspinlock q;
	struct pvq_pvticketlock t;
};

/* Spin loops before a waiter halts: small, so that waiters halt at once. */
#define UNIT_SPIN_THRESHOLD	64

/*
 * What the module's init does before any PV lock is used, spin thresholds
 * that make waiters halt at once, and a fresh lock.
 */
static int pv_locks_setup(const struct pv_lock_type *t, union pv_lock *lock)
{
#ifdef PVQ_PV_QSPINLOCK
	int ret = pvq_hash_init();

	if (ret)
		return ret;
#endif
	pvq_spin_threshold = UNIT_SPIN_THRESHOLD;
	pvq_queue_spin_threshold = UNIT_SPIN_THRESHOLD;
	t->ops->init(lock);
	pvq_lock_events_reset();
	return 0;
}

/* Start @c on @cpu and wait until it is halted on @lock, as @state says. */
static bool start_halted(struct contender *c, const struct pv_lock_type *t,
			 bool irqs_off, void *lock, int cpu,
			 enum shim_vcpu_state state)
{
	if (contender_start(c, irqs_off ? t->irqs_off : t->ops, lock, cpu,
			    false))
		return false;
	return poll_until(pvq_pv_halted_on(cpu) == t->halt_byte(lock) &&
			  shim_vcpu_state(cpu) == state);
}

/*
 * Hold one CPU's thread in halt() after the backend's last check, before
 * the vCPU halts: set halt_window_cpu, install hold_in_halt_window() as
 * shim_vcpu_halt_hook, wait for in_halt_window, act, set halt_window_done.
 */
static int halt_window_cpu = -1;
static int in_halt_window;
static int halt_window_done;

static void hold_in_halt_window(void)
{
	if (smp_processor_id() != halt_window_cpu ||
	    flag_read(&in_halt_window))
		return;
	flag_set(&in_halt_window);
	poll_until(flag_read(&halt_window_done));
}

/* Backend selection, from what CPUID says. */

/* What pvq_pv_select(@name) would take now, by name ("" if refused). */
static const char *chosen(const char *name, const char **reason)
{
	const struct pvq_pv_ops *ops;
	const char *why;

	if (pvq_pv_choose(name, &ops, reason ? reason : &why))
		return "";
	return ops->name;
}

TEST(kvm_selected_when_cpuid_offers_pv_unhalt)
{
	const char *reason;

	shim_register_cpu(UNIT_TEST_CPU);
	machine_kvm(KVM_CPUID_SIGNATURE, BIT(KVM_FEATURE_PV_UNHALT), 0);
	EXPECT_STREQ("kvm", chosen("kvm", NULL));
	EXPECT_STREQ("ipi", chosen("ipi", NULL));
	EXPECT_STREQ("kvm", chosen("auto", &reason));
	EXPECT_TRUE(!!strstr(reason, "PV unhalt"))
		TH_LOG("reason: %s", reason);

	/* KVM's leaves may sit at any 0x100 step of the range. */
	machine_kvm(KVM_CPUID_SIGNATURE + 0x200, BIT(KVM_FEATURE_PV_UNHALT),
		    0);
	EXPECT_STREQ("kvm", chosen("auto", NULL));
	EXPECT_STREQ("kvm", chosen("kvm", NULL));
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("kvm", pvq_pv->name);
	EXPECT_TRUE(!!strstr(pvq_pv_reason, "PV unhalt"))
		TH_LOG("reason: %s", pvq_pv_reason);
	/* The slow paths call the backend through these: kvm's own. */
	EXPECT_TRUE(static_call(pvq_pv_can_wait) == pvq_pv->can_wait);
	EXPECT_TRUE(static_call(pvq_pv_wait) == pvq_pv->wait);
	EXPECT_TRUE(static_call(pvq_pv_kick) == pvq_pv->kick);
	EXPECT_TRUE(static_call(pvq_pv_spinning) == pvq_pv->spinning);
	EXPECT_EQ(0UL, shim_warnings);
}

TEST(kvm_refused_without_pv_unhalt)
{
	const char *reason;

	shim_register_cpu(UNIT_TEST_CPU);
	/*
	 * KVM, but no PV unhalt: auto halts and kicks with IPIs, and with
	 * NMIs where the waiter has interrupts off.
	 */
	machine_kvm(KVM_CPUID_SIGNATURE, 0, 0);
	EXPECT_STREQ("strict", chosen("strict", NULL));
	EXPECT_EQ(-ENODEV, pvq_pv_select("kvm"));
	EXPECT_STREQ("nmi", chosen("auto", &reason));
	EXPECT_TRUE(!!strstr(reason, "an NMI where interrupts are off"))
		TH_LOG("reason: %s", reason);

	/* Another hypervisor (TCG): the same. */
	machine_no_kvm();
	EXPECT_EQ(-ENODEV, pvq_pv_select("kvm"));
	EXPECT_EQ(-EINVAL, pvq_pv_select("futex"));
	/* Refused choices changed nothing: one may still be made. */
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("nmi", pvq_pv->name);
	pvq_pv_exit();
}

/*
 * The backend is chosen once: another choice is refused with a warning
 * and changes nothing (it would flip pvq_pv_native, or change the kick,
 * under CPUs that hold or wait on the locks).
 */
TEST(backend_chosen_once)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	ASSERT_EQ(0, pvq_pv_select("ipi"));
	EXPECT_EQ(-EBUSY, pvq_pv_select("none"));
	EXPECT_EQ(-EBUSY, pvq_pv_select("nmi"));
	EXPECT_STREQ("ipi", pvq_pv->name);
	EXPECT_FALSE(pvq_pv_runs_native());
	EXPECT_NE(0UL, shim_warnings);
	EXPECT_EQ(0, shim_nmi_handlers_registered());
}

static int unit_nmi_ignore(unsigned int type, struct pt_regs *regs)
{
	return NMI_DONE;
}

/* Every NMI_LOCAL slot of the shim taken. */
static void fill_nmi_local(struct __test_metadata *_metadata)
{
	int i;

	for (i = 0; !register_nmi_handler(NMI_LOCAL, unit_nmi_ignore, 0,
					  "unit_full");
	     i++)
		ASSERT_LT(i, 64);
}

/*
 * Where the NMI handler cannot be registered, auto falls back to the IPI
 * kick; named, nmi fails with the error, and may then be chosen once the
 * handler can be registered.
 */
TEST(auto_without_an_nmi_handler_picks_ipi)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	fill_nmi_local(_metadata);
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("ipi", pvq_pv->name);
	EXPECT_TRUE(!!strstr(pvq_pv_reason, "no NMI handler"))
		TH_LOG("reason: %s", pvq_pv_reason);
	unregister_nmi_handler(NMI_LOCAL, "unit_full");
}

TEST(nmi_without_an_nmi_handler_is_refused)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	fill_nmi_local(_metadata);
	EXPECT_EQ(-EBUSY, pvq_pv_select("nmi"));
	unregister_nmi_handler(NMI_LOCAL, "unit_full");
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("nmi", pvq_pv->name);
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

TEST(auto_picks_none_where_halting_cannot_pay)
{
	shim_register_cpu(UNIT_TEST_CPU);
	/* Bare metal: no hypervisor bit, whatever the leaves say. */
	shim_machine = (struct shim_machine){
		.kvm_base = KVM_CPUID_SIGNATURE,
		.kvm_features = BIT(KVM_FEATURE_PV_UNHALT),
	};
	EXPECT_STREQ("none", chosen("auto", NULL));
	EXPECT_STREQ("", chosen("kvm", NULL));

	/* The host dedicates a physical CPU to every vCPU. */
	machine_kvm(KVM_CPUID_SIGNATURE, BIT(KVM_FEATURE_PV_UNHALT),
		    BIT(KVM_HINTS_REALTIME));
	EXPECT_STREQ("none", chosen("auto", NULL));
	/* Named, it is still available. */
	EXPECT_STREQ("kvm", chosen("kvm", NULL));
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("none", pvq_pv->name);
	EXPECT_TRUE(pvq_pv_runs_native());
}

/* The kvm kick, lock aside. */

#define KVM_SETUP() do {						\
	shim_register_cpu(UNIT_TEST_CPU);				\
	machine_kvm(KVM_CPUID_SIGNATURE, BIT(KVM_FEATURE_PV_UNHALT), 0);	\
	ASSERT_EQ(0, pvq_pv_select("kvm"));				\
	ASSERT_STREQ("kvm", pvq_pv->name);				\
	pvq_lock_events_reset();					\
} while (0)

/*
 * Regression test (kicks to CPUs outside cpu_online_mask were dropped):
 * the hypercall goes to the kicked CPU's APIC id, online or not, and from
 * NMI context at once; no IPI is involved.
 */
TEST(kvm_kick_reaches_any_cpu_by_its_apic_id)
{
	int cpu;

	KVM_SETUP();
	set_cpu_online(OFFLINE_CPU, false);
	pvq_pv_kick(IDLE_CPU);
	pvq_pv_kick(OFFLINE_CPU);
	EXPECT_EQ(1UL, shim_vcpu_unhalts(IDLE_CPU));
	EXPECT_EQ(1UL, shim_vcpu_unhalts(OFFLINE_CPU))
		TH_LOG("the kick to CPU %d, not online, was dropped (kick_offline %lu)",
		       OFFLINE_CPU, event_count(kick_offline));
	EXPECT_EVENT(kick_offline, 0);

	shim_in_nmi = 1;
	pvq_pv_kick(IDLE_CPU);
	shim_in_nmi = 0;
	EXPECT_EQ(2UL, shim_vcpu_unhalts(IDLE_CPU));
	EXPECT_EVENT(kick_deferred, 0);

	for_each_possible_cpu(cpu) {
		EXPECT_EQ(0UL, shim_vcpu_ipis(cpu));
		if (cpu != IDLE_CPU && cpu != OFFLINE_CPU) {
			EXPECT_EQ(0UL, shim_vcpu_unhalts(cpu))
				TH_LOG("CPU %d was kicked", cpu);
		}
	}
	EXPECT_EQ(0UL, shim_vcpu_stray_kicks());
	EXPECT_EQ(0UL, shim_warnings);
}

/* kvm, with each PV lock. */

FIXTURE(kvm) {
	union pv_lock lock;
};

FIXTURE_VARIANT(kvm) {
	const struct pv_lock_type *type;
};

FIXTURE_VARIANT_ADD(kvm, pvticket) {
	.type = &pvticket_type,
};

#ifdef PVQ_PV_QSPINLOCK
FIXTURE_VARIANT_ADD(kvm, pvqspinlock) {
	.type = &pvqspinlock_type,
};
#endif

#ifdef PVQ_PARAVIRT_UNFAIR_LOCKS
FIXTURE_VARIANT_ADD(kvm, pvqspinlock_unfair) {
	.type = &pvqspinlock_unfair_type,
};
#endif

FIXTURE_SETUP(kvm)
{
	KVM_SETUP();
	ASSERT_EQ(0, pv_locks_setup(variant->type, &self->lock));
}

FIXTURE_TEARDOWN(kvm)
{
}

/*
 * Unlike ipi, kvm halts with interrupts off, and then only the kick
 * hypercall ends the halt: a reschedule IPI stays pending.  This is why a
 * kick that is dropped leaves its waiter halted for good.
 */
TEST_F(kvm, irqs_off_waiter_halts_until_kicked)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	t->ops->lock(&self->lock);
	ASSERT_TRUE(start_halted(&c, t, true, &self->lock, 1,
				 SHIM_VCPU_HALTED_IRQS_OFF))
		TH_LOG("CPU 1: halted on %p (the lock's byte %p), state %d",
		       pvq_pv_halted_on(1), t->halt_byte(&self->lock),
		       shim_vcpu_state(1));
	smp_send_reschedule(1);
	EXPECT_TRUE(stays_false(flag_read(&c.acquired) ||
				shim_vcpu_halts(1) != 1 ||
				shim_vcpu_state(1) != SHIM_VCPU_HALTED_IRQS_OFF))
		TH_LOG("the IPI ended the halt: %lu halts, state %d",
		       shim_vcpu_halts(1), shim_vcpu_state(1));

	t->ops->unlock(&self->lock);
	/* The kick is part of the unlock. */
	EXPECT_EQ(1UL, shim_vcpu_unhalts(1));
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(1UL, shim_vcpu_ipis(1));
	EXPECT_EQ(0UL, shim_vcpu_stray_kicks());
	EXPECT_EQ(0UL, shim_warnings);
}

/*
 * Regression test (the kvm kick skipped CPUs outside cpu_online_mask): a
 * CPU that is coming up takes spinlocks before set_cpu_online() (6.1's
 * start_secondary() takes vector_lock, rcu_cpu_starting() an rcu_node
 * lock), and one going down after it left the mask (rcu_report_dead()),
 * all with interrupts off.  A waiter there halts on kvm, and the unlock's
 * kick must reach it.  Dropped, it halts for good.
 */
TEST_F(kvm, irqs_off_waiter_on_cpu_not_online_is_kicked)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;
	bool took;

	t->ops->lock(&self->lock);
	set_cpu_online(1, false);
	ASSERT_TRUE(start_halted(&c, t, true, &self->lock, 1,
				 SHIM_VCPU_HALTED_IRQS_OFF))
		TH_LOG("CPU 1: halted on %p (the lock's byte %p), state %d",
		       pvq_pv_halted_on(1), t->halt_byte(&self->lock),
		       shim_vcpu_state(1));

	t->ops->unlock(&self->lock);
	took = poll_until(flag_read(&c.acquired));
	ASSERT_TRUE(took)
		TH_LOG("CPU 1, not online, still halted: %lu kicks reached it, kick_offline %lu",
		       shim_vcpu_unhalts(1), event_count(kick_offline));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(1UL, shim_vcpu_unhalts(1));
	EXPECT_EQ(0UL, shim_vcpu_ipis(1));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_offline, 0);
}

/*
 * The unlock, and its kick, land after the waiter's last check and before
 * its halt: KVM keeps the kick (pv_unhalted), the halt ends at once.  A
 * model of the machine that forgot it would fail here, not only the lock.
 */
TEST_F(kvm, kick_between_check_and_halt_is_kept)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	t->ops->lock(&self->lock);
	halt_window_cpu = 1;
	shim_vcpu_halt_hook = hold_in_halt_window;
	ASSERT_EQ(0, contender_start(&c, t->irqs_off, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(flag_read(&in_halt_window)));
	/* Past its check: it waits for the byte to change. */
	EXPECT_TRUE(pvq_pv_halted_on(1) == t->halt_byte(&self->lock));
	EXPECT_EQ(0UL, shim_vcpu_halts(1));

	t->ops->unlock(&self->lock);
	EXPECT_EQ(1UL, shim_vcpu_unhalts(1));
	flag_set(&halt_window_done);
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)))
		TH_LOG("the kick before the halt was lost: %lu halts, %lu slept, state %d",
		       shim_vcpu_halts(1), shim_vcpu_sleeps(1),
		       shim_vcpu_state(1));
	ASSERT_TRUE(contender_finish(&c));
	/* One halt, which ended without sleeping. */
	EXPECT_EQ(1UL, shim_vcpu_halts(1));
	EXPECT_EQ(0UL, shim_vcpu_sleeps(1));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(0UL, shim_warnings);
}

/* ipi, nmi and strict, lock aside: to CPUs that do not wait. */

FIXTURE(ipi_kick) {
};

FIXTURE_VARIANT(ipi_kick) {
	const char *backend;
};

FIXTURE_VARIANT_ADD(ipi_kick, ipi) {
	.backend = "ipi",
};

FIXTURE_VARIANT_ADD(ipi_kick, nmi) {
	.backend = "nmi",
};

FIXTURE_VARIANT_ADD(ipi_kick, strict) {
	.backend = "strict",
};

FIXTURE_SETUP(ipi_kick)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	ASSERT_EQ(0, pvq_pv_select(variant->backend));
	pvq_lock_events_reset();
}

FIXTURE_TEARDOWN(ipi_kick)
{
}

/*
 * x86 refuses a reschedule IPI to a CPU that is not online, with a
 * warning (so does the shim): the IPI backends leave it out, and count it.
 */
TEST_F(ipi_kick, kick_to_cpu_not_online_sends_no_ipi)
{
	set_cpu_online(OFFLINE_CPU, false);
	pvq_pv_kick(OFFLINE_CPU);
	EXPECT_EQ(0UL, shim_vcpu_ipis(OFFLINE_CPU));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_offline, 1);

	pvq_pv_kick(IDLE_CPU);
	EXPECT_EQ(1UL, shim_vcpu_ipis(IDLE_CPU));
	EXPECT_EQ(0UL, shim_vcpu_unhalts(IDLE_CPU) +
		       shim_vcpu_unhalts(OFFLINE_CPU));
	EXPECT_EQ(0UL, shim_warnings);
	EXPECT_EVENT(kick_offline, 1);

	/* The shim's IPI itself refuses, as x86 does. */
	TH_LOG("on purpose: the shim warns of a reschedule IPI to CPU %d",
	       OFFLINE_CPU);
	smp_send_reschedule(OFFLINE_CPU);
	EXPECT_EQ(0UL, shim_vcpu_ipis(OFFLINE_CPU));
	EXPECT_EQ(1UL, shim_warnings);
}

/*
 * From NMI context the kick is deferred to an irq_work, which sends the
 * IPIs when this CPU takes its interrupt, to online CPUs only.
 */
TEST_F(ipi_kick, nmi_kick_is_sent_by_the_irq_work)
{
	set_cpu_online(OFFLINE_CPU, false);
	/* The NMI comes while interrupts are off: the work must wait. */
	local_irq_disable();
	shim_in_nmi = 1;
	pvq_pv_kick(IDLE_CPU);
	pvq_pv_kick(OFFLINE_CPU);
	shim_in_nmi = 0;
	EXPECT_EQ(0UL, shim_vcpu_ipis(IDLE_CPU));
	EXPECT_EVENT(kick_deferred, 2);

	local_irq_enable();
	EXPECT_EQ(1UL, shim_vcpu_ipis(IDLE_CPU));
	EXPECT_EQ(0UL, shim_vcpu_ipis(OFFLINE_CPU));
	EXPECT_EVENT(kick_offline, 1);
	EXPECT_EQ(0UL, shim_warnings);
	/* Nothing left in flight. */
	pvq_pv_exit();
}

/*
 * A waiter spinning with interrupts off sends the kicks that an NMI
 * deferred on its CPU itself (the irq_work cannot run meanwhile).
 */
TEST_F(ipi_kick, spinning_sends_deferred_kicks)
{
	local_irq_disable();
	shim_in_nmi = 1;
	pvq_pv_kick(IDLE_CPU);
	/* Not from NMI context. */
	pvq_pv_spinning();
	shim_in_nmi = 0;
	EXPECT_EQ(0UL, shim_vcpu_ipis(IDLE_CPU));

	pvq_pv_spinning();
	EXPECT_EQ(1UL, shim_vcpu_ipis(IDLE_CPU));
	/* The work finds nothing left to send. */
	local_irq_enable();
	EXPECT_EQ(1UL, shim_vcpu_ipis(IDLE_CPU));
	EXPECT_EVENT(kick_deferred, 1);
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/* The NMI kick, lock aside. */

#define NMI_SETUP() do {						\
	shim_register_cpu(UNIT_TEST_CPU);				\
	machine_no_kvm();						\
	ASSERT_EQ(0, pvq_pv_select("nmi"));				\
	pvq_lock_events_reset();					\
} while (0)

/*
 * A kicker reads how its waiter waits: a CPU that is not waiting with
 * interrupts off gets a reschedule IPI, as on ipi.  An NMI kick (one that
 * raced with the end of its wait) is claimed by our handler when the CPU
 * takes it, and counted as a kick to a CPU that was not waiting; a second
 * one while the first NMI is on its way sends none.
 */
TEST(nmi_kick_to_a_cpu_that_does_not_wait)
{
	int self = UNIT_TEST_CPU;
	u8 byte = 0;

	NMI_SETUP();
	local_irq_disable();
	/* A wait with interrupts off whose byte had changed: no halt. */
	pvq_pv_wait(&byte, 1);
	EXPECT_EQ(0UL, shim_vcpu_halts(self));
	pvq_pv_kick(self);
	EXPECT_EQ(0UL, shim_vcpu_nmis(self));
	/* The IPI stays pending: interrupts are off. */
	EXPECT_EQ(1UL, shim_vcpu_ipis(self));

	pvq_nmi_send(self);
	pvq_nmi_send(self);
	EXPECT_EQ(1UL, shim_vcpu_nmis(self))
		TH_LOG("the second kick sent another NMI");
	EXPECT_EVENT(nmi_kick_sent, 1);
	EXPECT_EVENT(nmi_kick_in_flight, 1);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EQ(1UL, shim_vcpu_nmis_taken(self));
	EXPECT_EQ(0UL, shim_vcpu_unknown_nmis(self));
	EXPECT_EVENT(nmi_kick_not_waiting, 1);
	/* Claimed: the next kick sends again. */
	pvq_nmi_send(self);
	EXPECT_EQ(2UL, shim_vcpu_nmis(self));
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	local_irq_enable();
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/*
 * NMIs coalesce, and another NMI may claim our mark before our NMI comes
 * (its kicker was preempted between the mark and the send): that NMI of
 * ours then finds no mark.  Soon after a send it is taken as ours; an
 * NMI nobody sent stays unknown.
 */
TEST(nmi_kick_late_nmi_is_not_unknown)
{
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	pvq_nmi_send(self);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	/* The same NMI again, after its mark was claimed. */
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EQ(0UL, shim_vcpu_unknown_nmis(self));
	EXPECT_EVENT(nmi_kick_late, 1);

	usleep(PVQ_NMI_LOST_NS / 1000 + 100000);
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EQ(1UL, shim_vcpu_unknown_nmis(self))
		TH_LOG("an NMI long after our last kick was claimed");
	EXPECT_EVENT(nmi_kick_late, 1);
	local_irq_enable();
	pvq_pv_exit();
}

/*
 * The self-test at selection: an NMI sent in a window of its own is moved
 * past it, and claimed (no unknown NMI); the kick's handlers stay.
 */
TEST(nmi_self_test_passes_and_its_nmi_is_claimed)
{
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	EXPECT_EQ(1UL, shim_vcpu_selftest_nmis(self));
	EXPECT_EQ(0UL, shim_vcpu_unknown_nmis(self));
	EXPECT_TRUE(pvq_nmi_works());
	EXPECT_EQ(2, shim_nmi_handlers_registered());
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/*
 * An NMI frame of a layout the handler does not know (a future kernel,
 * another hypervisor's NMI path): it cannot move the return past the
 * window.  The self-test sees that: auto takes the IPI kick instead, and
 * a named nmi is refused, its handlers gone.
 */
TEST(nmi_self_test_fails_on_an_unknown_frame_layout)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	shim_nmi_frame_unknown = 1;
	ASSERT_EQ(0, pvq_pv_select("auto"));
	EXPECT_STREQ("ipi", pvq_pv->name);
	EXPECT_TRUE(!!strstr(pvq_pv_reason, "self-test failed"))
		TH_LOG("reason: %s", pvq_pv_reason);
	EXPECT_EQ(0, shim_nmi_handlers_registered());
	EXPECT_NE(0UL, shim_warnings);
	shim_nmi_frame_unknown = 0;
}

TEST(nmi_named_is_refused_when_its_self_test_fails)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	shim_nmi_frame_unknown = 1;
	EXPECT_EQ(-EIO, pvq_pv_select("nmi"));
	EXPECT_TRUE(!!strstr(pvq_pv_reason, "self-test failed"))
		TH_LOG("reason: %s", pvq_pv_reason);
	EXPECT_EQ(0, shim_nmi_handlers_registered());
	EXPECT_EQ(0, shim_cpuhp_states_set_up());
	shim_nmi_frame_unknown = 0;
}

/*
 * Where hlt cannot wait for an NMI (Xen PV: privileged; TDX and SEV-ES: a
 * #VE or #VC, during which an NMI is not in the window), auto takes the
 * IPI kick and says why, and a named nmi or strict is refused.
 */
TEST(nmi_refused_where_hlt_cannot_wait_for_an_nmi)
{
	static const char *const why[] = { "Xen PV", "TDX", "SEV-ES" };
	const char *reason;
	int i;

	shim_register_cpu(UNIT_TEST_CPU);
	for (i = 0; i < 3; i++) {
		machine_no_kvm();
		shim_machine.xen_pv = i == 0;
		shim_machine.tdx_guest = i == 1;
		shim_machine.sev_es = i == 2;
		EXPECT_STREQ("ipi", chosen("auto", &reason));
		EXPECT_TRUE(!!strstr(reason, why[i]))
			TH_LOG("%s: reason %s", why[i], reason);
		EXPECT_STREQ("", chosen("nmi", NULL));
		EXPECT_STREQ("", chosen("strict", NULL));
		EXPECT_STREQ("ipi", chosen("ipi", NULL));
	}
	EXPECT_EQ(-ENODEV, pvq_pv_select("nmi"));
	EXPECT_TRUE(!!strstr(pvq_pv_reason, "SEV-ES"))
		TH_LOG("reason: %s", pvq_pv_reason);
	EXPECT_EQ(0, shim_nmi_handlers_registered());
}

/*
 * After the self-test, an NMI in a window with a frame the handler does
 * not know (neither the interrupted context's nor a nested NMI's): it
 * warns once, and waiters with interrupts off spin from then on.
 */
TEST(nmi_frame_of_unknown_layout_warns_and_waiters_spin)
{
	unsigned long window = (unsigned long)pvq_nmi_halt_u8_window;
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	EXPECT_TRUE(pvq_pv_can_wait());
	shim_nmi_frame_unknown = 1;
	apic->send_IPI(self, NMI_VECTOR);
	shim_nmi_take_pending(window);
	shim_nmi_frame_unknown = 0;
	EXPECT_NE(0UL, shim_warnings);
	EXPECT_FALSE(pvq_nmi_works());
	EXPECT_FALSE(pvq_pv_can_wait())
		TH_LOG("a waiter with interrupts off may still halt for an NMI");
	local_irq_enable();
	/* With interrupts on, the IPI kick still works. */
	EXPECT_TRUE(pvq_pv_can_wait());
	pvq_pv_exit();
}

/*
 * A mark older than PVQ_NMI_LOST_NS claims nothing: its NMI is taken as
 * lost (the next kicker sends again), and an NMI that comes now, be it
 * ours, that late, or another's, is left to the kernel, which reports it
 * as unknown.  (A stale mark claimed every NMI for as long as it stayed.)
 */
TEST(nmi_stale_mark_claims_nothing)
{
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	pvq_nmi_send(self);
	__atomic_add_fetch(&shim_clock_skew_ns, PVQ_NMI_LOST_NS + 1000000,
			   __ATOMIC_RELAXED);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EQ(1UL, shim_vcpu_unknown_nmis(self))
		TH_LOG("an NMI was claimed for a mark %lld ms old",
		       (long long)(PVQ_NMI_LOST_NS / 1000000 + 1));
	EXPECT_EVENT(nmi_kick_not_waiting, 0);
	EXPECT_EVENT(nmi_kick_late, 0);
	/* The next kick sends again. */
	pvq_nmi_send(self);
	EXPECT_EQ(2UL, shim_vcpu_nmis(self));
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EVENT(nmi_kick_not_waiting, 1);
	local_irq_enable();
	pvq_pv_exit();
}

/*
 * Where the kernel panics on unknown NMIs (unknown_nmi_panic: how a
 * hypervisor's "inject NMI" asks for a crash dump), an unknown NMI soon
 * after a kick is not taken for a late kick: it is the kernel's.
 */
TEST(nmi_unknown_left_to_a_kernel_that_panics_on_them)
{
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	pvq_nmi_send(self);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	shim_unknown_nmi_panics = 1;
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(0UL, shim_nmi_take_pending(0));
	EXPECT_EQ(1UL, shim_vcpu_unknown_nmis(self))
		TH_LOG("the diagnostic NMI was swallowed as a late kick");
	EXPECT_EVENT(nmi_kick_late, 0);
	shim_unknown_nmi_panics = 0;
	local_irq_enable();
	pvq_pv_exit();
}

/*
 * An NMI that interrupts the window, at any point, ends the wait: it
 * returns past the hlt through the frame IRET pops (the shim lays the
 * NMI's stack out as x86-64's entry code does), not only through pt_regs.
 */
TEST(nmi_in_the_window_moves_past_the_hlt)
{
	unsigned long window = (unsigned long)pvq_nmi_halt_u8_window;
	unsigned long insn = (unsigned long)pvq_nmi_halt_u8_insn;
	unsigned long woken = (unsigned long)pvq_nmi_halt_u8_woken;
	unsigned long elsewhere = (unsigned long)&window;
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	/* Not ours (no mark): moved all the same, and left unknown. */
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(woken, shim_nmi_take_pending(window));
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(woken, shim_nmi_take_pending(insn));
	/* In the hlt, or elsewhere: returns where it was. */
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(woken, shim_nmi_take_pending(woken));
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(elsewhere, shim_nmi_take_pending(elsewhere));
	EXPECT_EQ(4UL, shim_vcpu_unknown_nmis(self));

	/* Under fault injection the window stays open. */
	pvq_nmi_open_window(true);
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(insn, shim_nmi_take_pending(insn));
	pvq_nmi_open_window(false);
	/* Held open without the fault (nmi_window_held), it is closed. */
	pvq_nmi_hold_window(true);
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(woken, shim_nmi_take_pending(insn));
	pvq_nmi_hold_window(false);
	/* Each NMI that closed the window, and only those, is counted. */
	EXPECT_EVENT(nmi_window, 3);
	local_irq_enable();
	pvq_pv_exit();
}

/* ipi, nmi and strict, with each PV lock. */

FIXTURE(ipi) {
	union pv_lock lock;
};

FIXTURE_VARIANT(ipi) {
	const char *backend;
	const struct pv_lock_type *type;
};

FIXTURE_VARIANT_ADD(ipi, ipi_pvticket) {
	.backend = "ipi", .type = &pvticket_type,
};

FIXTURE_VARIANT_ADD(ipi, nmi_pvticket) {
	.backend = "nmi", .type = &pvticket_type,
};

FIXTURE_VARIANT_ADD(ipi, strict_pvticket) {
	.backend = "strict", .type = &pvticket_type,
};

#ifdef PVQ_PV_QSPINLOCK
FIXTURE_VARIANT_ADD(ipi, ipi_pvqspinlock) {
	.backend = "ipi", .type = &pvqspinlock_type,
};

FIXTURE_VARIANT_ADD(ipi, nmi_pvqspinlock) {
	.backend = "nmi", .type = &pvqspinlock_type,
};

FIXTURE_VARIANT_ADD(ipi, strict_pvqspinlock) {
	.backend = "strict", .type = &pvqspinlock_type,
};
#endif

FIXTURE_SETUP(ipi)
{
	shim_register_cpu(UNIT_TEST_CPU);
	machine_no_kvm();
	ASSERT_EQ(0, pvq_pv_select(variant->backend));
	ASSERT_EQ(0, pv_locks_setup(variant->type, &self->lock));
}

FIXTURE_TEARDOWN(ipi)
{
}

/* With interrupts on, the waiter halts with "sti; hlt", and the IPI ends it. */
TEST_F(ipi, waiter_halts_and_the_ipi_wakes_it)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	t->ops->lock(&self->lock);
	ASSERT_TRUE(start_halted(&c, t, false, &self->lock, 1,
				 SHIM_VCPU_HALTED_IRQS_ON))
		TH_LOG("CPU 1: halted on %p (the lock's byte %p), state %d",
		       pvq_pv_halted_on(1), t->halt_byte(&self->lock),
		       shim_vcpu_state(1));
	t->ops->unlock(&self->lock);
	EXPECT_EQ(1UL, shim_vcpu_ipis(1));
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(0UL, shim_vcpu_unhalts(1));
	EXPECT_EQ(0UL, shim_warnings);
}

/*
 * ipi, with interrupts off: nothing could wake it, so it never halts
 * (can_wait() says so before the halt protocol), it spins, and nobody
 * kicks it.  nmi and strict: it halts, and only the kick's NMI wakes it.
 */
TEST_F(ipi, irqs_off_waiter_never_halts)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	if (strcmp(variant->backend, "ipi"))
		SKIP(return, "%s halts with interrupts off", variant->backend);

	t->ops->lock(&self->lock);
	ASSERT_EQ(0, contender_start(&c, t->irqs_off, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(t->ops->is_contended(&self->lock)));
	/* Thousands of spin thresholds' worth. */
	EXPECT_TRUE(stays_false(shim_vcpu_halts(1) || pvq_pv_halted_on(1)))
		TH_LOG("CPU 1 halted with interrupts off: %lu halts, state %d",
		       shim_vcpu_halts(1), shim_vcpu_state(1));
	EXPECT_FALSE(flag_read(&c.acquired));

	t->ops->unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(0UL, shim_vcpu_halts(1));
	EXPECT_EQ(0UL, shim_vcpu_ipis(1));
	EXPECT_EQ(0UL, shim_warnings);
}

TEST_F(ipi, irqs_off_waiter_halts_until_the_nmi)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	if (!strcmp(variant->backend, "ipi"))
		SKIP(return, "ipi never halts with interrupts off");
	t->ops->lock(&self->lock);
	ASSERT_TRUE(start_halted(&c, t, true, &self->lock, 1,
				 SHIM_VCPU_HALTED_IRQS_OFF))
		TH_LOG("CPU 1: halted on %p (the lock's byte %p), state %d",
		       pvq_pv_halted_on(1), t->halt_byte(&self->lock),
		       shim_vcpu_state(1));
	/* A reschedule IPI stays pending. */
	smp_send_reschedule(1);
	EXPECT_TRUE(stays_false(flag_read(&c.acquired) ||
				shim_vcpu_state(1) != SHIM_VCPU_HALTED_IRQS_OFF))
		TH_LOG("the IPI ended the halt: state %d", shim_vcpu_state(1));

	t->ops->unlock(&self->lock);
	EXPECT_EQ(1UL, shim_vcpu_nmis(1));
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)))
		TH_LOG("CPU 1 still halted: %lu NMIs sent, %lu taken",
		       shim_vcpu_nmis(1), shim_vcpu_nmis_taken(1));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(0UL, shim_vcpu_unknown_nmis(1));
	EXPECT_EVENT(nmi_kick_woke, 1);
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/*
 * The unlock and its NMI land after the waiter's check, before its hlt:
 * the NMI returns past the hlt (pv_nmi.c), and the waiter checks again.
 * With the window left open (inject_fault=nmi_window) the same NMI is
 * lost, and the waiter halts until another one comes: what the window
 * fix prevents, seen by this test.
 */
static void nmi_kick_in_the_window(struct __test_metadata *_metadata,
				   const struct pv_lock_type *t,
				   union pv_lock *lock, bool open)
{
	struct contender c;
	bool took;

	pvq_nmi_open_window(open);
	t->ops->lock(lock);
	halt_window_cpu = 1;
	shim_vcpu_halt_hook = hold_in_halt_window;
	ASSERT_EQ(0, contender_start(&c, t->irqs_off, lock, 1, false));
	ASSERT_TRUE(poll_until(flag_read(&in_halt_window)));
	/* Past its check: it waits for the byte to change. */
	EXPECT_TRUE(pvq_pv_halted_on(1) == t->halt_byte(lock));
	EXPECT_EQ(0UL, shim_vcpu_halts(1));

	t->ops->unlock(lock);
	EXPECT_EQ(1UL, shim_vcpu_nmis(1));
	flag_set(&halt_window_done);
	if (!open) {
		took = poll_until(flag_read(&c.acquired));
		ASSERT_TRUE(took)
			TH_LOG("the NMI before the hlt was lost: %lu halts, %lu slept, state %d",
			       shim_vcpu_halts(1), shim_vcpu_sleeps(1),
			       shim_vcpu_state(1));
		/* No halt: the NMI moved it past the hlt. */
		EXPECT_EQ(0UL, shim_vcpu_sleeps(1));
	} else {
		EXPECT_TRUE(poll_until(shim_vcpu_sleeps(1) == 1));
		EXPECT_TRUE(stays_false(flag_read(&c.acquired)))
			TH_LOG("woke without a second NMI");
		/* The stall watchdog's rescue: close it, kick again. */
		pvq_nmi_open_window(false);
		pvq_pv_kick(1);
		ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	}
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(lock));
	EXPECT_EQ(0UL, shim_vcpu_unknown_nmis(1));
	EXPECT_EQ(0UL, shim_warnings);
}

TEST_F(ipi, nmi_between_check_and_hlt_is_not_lost)
{
	if (!strcmp(variant->backend, "ipi"))
		SKIP(return, "ipi never halts with interrupts off");
	nmi_kick_in_the_window(_metadata, variant->type, &self->lock, false);
	pvq_pv_exit();
}

TEST_F(ipi, nmi_between_check_and_hlt_lost_with_the_window_open)
{
	if (!strcmp(variant->backend, "ipi"))
		SKIP(return, "ipi never halts with interrupts off");
	nmi_kick_in_the_window(_metadata, variant->type, &self->lock, true);
	pvq_pv_exit();
}

/*
 * A kick from NMI context to a waiter halted with interrupts off: in
 * x2APIC mode its NMI goes at once, while this CPU keeps interrupts off
 * (deferred, it waited for this CPU's irq_work, which cannot run while
 * the CPU spins with interrupts off, perhaps for that very waiter).
 */
TEST_F(ipi, nmi_kick_from_nmi_context_sent_at_once_on_x2apic)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	if (!strcmp(variant->backend, "ipi"))
		SKIP(return, "ipi never halts with interrupts off");
	x2apic_mode = 1;
	t->ops->lock(&self->lock);
	ASSERT_TRUE(start_halted(&c, t, true, &self->lock, 1,
				 SHIM_VCPU_HALTED_IRQS_OFF));
	local_irq_disable();
	shim_in_nmi = 1;
	t->ops->unlock(&self->lock);
	shim_in_nmi = 0;
	EXPECT_TRUE(poll_until(flag_read(&c.acquired)))
		TH_LOG("CPU 1 still halted while this CPU has interrupts off: %lu NMIs",
		       shim_vcpu_nmis(1));
	EXPECT_EQ(1UL, shim_vcpu_nmis(1));
	EXPECT_EVENT(kick_deferred, 0);
	local_irq_enable();
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/*
 * A CPU coming up or going down takes spinlocks outside cpu_online_mask
 * with interrupts off, and the kernel runs no NMI handler there: an NMI
 * kick that landed between its check and its hlt would not be moved past
 * the hlt, and the waiter would halt for good.  So on nmi and strict such
 * a waiter spins (can_wait() says so), and nobody sends it an NMI.
 */
TEST_F(ipi, irqs_off_waiter_on_cpu_not_online_spins)
{
	const struct pv_lock_type *t = variant->type;
	struct contender c;

	if (!strcmp(variant->backend, "ipi"))
		SKIP(return, "ipi never halts with interrupts off");
	t->ops->lock(&self->lock);
	shim_cpu_down(1);
	ASSERT_EQ(0, contender_start(&c, t->irqs_off, &self->lock, 1, false));
	ASSERT_TRUE(poll_until(t->ops->is_contended(&self->lock)));
	EXPECT_TRUE(stays_false(shim_vcpu_halts(1) || pvq_pv_halted_on(1)))
		TH_LOG("CPU 1, not online, halted with interrupts off: %lu halts",
		       shim_vcpu_halts(1));
	t->ops->unlock(&self->lock);
	ASSERT_TRUE(poll_until(flag_read(&c.acquired)));
	ASSERT_TRUE(contender_finish(&c));
	EXPECT_FALSE(t->ops->is_locked(&self->lock));
	EXPECT_EQ(0UL, shim_vcpu_halts(1));
	EXPECT_EQ(0UL, shim_vcpu_nmis(1));
	EXPECT_EQ(0UL, shim_vcpu_ipis(1));
	EXPECT_EVENT(kick_offline, 0);
	EXPECT_EQ(0UL, shim_warnings);
	pvq_pv_exit();
}

/*
 * An NMI kick to a CPU that then went down before it came: no handler
 * claimed its mark.  When the CPU comes back the mark is cleared, or the
 * next kick would be dropped as one in flight, and its waiter would halt
 * until PVQ_NMI_LOST_NS had passed.
 */
TEST(nmi_mark_cleared_when_a_cpu_comes_up)
{
	NMI_SETUP();
	local_irq_disable();
	pvq_nmi_send(IDLE_CPU);
	shim_cpu_down(IDLE_CPU);
	shim_cpu_up(IDLE_CPU);
	pvq_nmi_send(IDLE_CPU);
	EXPECT_EQ(2UL, shim_vcpu_nmis(IDLE_CPU))
		TH_LOG("the kick after the CPU came up was dropped as in flight");
	EXPECT_EVENT(nmi_kick_in_flight, 0);
	local_irq_enable();
	pvq_pv_exit();
}

/* The NMI handlers run on an online CPU only, as in the kernel. */
TEST(nmi_to_a_cpu_not_online_runs_no_handler)
{
	unsigned long window = (unsigned long)pvq_nmi_halt_u8_window;
	int self = UNIT_TEST_CPU;

	NMI_SETUP();
	local_irq_disable();
	shim_cpu_down(self);
	apic->send_IPI(self, NMI_VECTOR);
	EXPECT_EQ(window, shim_nmi_take_pending(window));
	EXPECT_EQ(1UL, shim_vcpu_offline_nmis(self));
	EXPECT_EVENT(nmi_window, 0);
	shim_cpu_up(self);
	local_irq_enable();
	pvq_pv_exit();
}

/*
 * A nested NMI can come at any instruction of the handler chain (any IRET
 * in it unmasks NMIs: a page fault in an earlier handler, a debug
 * exception, a kprobe), and rewrites the whole "iret" frame to return to
 * repeat_nmi on the NMI stack.  The shim single-steps the handlers of an
 * NMI that lands in the window, ours or not, and nests one after each
 * instruction in turn: every time the waiter must resume past the hlt, on
 * its own stack, and the nested NMI must be run (repeat_nmi).  A frame
 * half ours and half the nested NMI's is an IRET to the woken label on the
 * NMI stack: an oops in the kernel, a warning in the shim.
 */
static void nest_at_every_step(struct __test_metadata *_metadata, bool ours)
{
	unsigned long window = (unsigned long)pvq_nmi_halt_u8_window;
	unsigned long woken = (unsigned long)pvq_nmi_halt_u8_woken;
	int self = UNIT_TEST_CPU;
	unsigned long step, taken, ip;

	NMI_SETUP();
	local_irq_disable();
	for (step = 1; ; step++) {
		if (ours)
			pvq_nmi_send(self);
		else
			apic->send_IPI(self, NMI_VECTOR);
		taken = shim_vcpu_nmis_taken(self);
		shim_nmi_nest_at(step);
		ip = shim_nmi_take_pending(window);
		ASSERT_EQ(woken, ip)
			TH_LOG("nested after instruction %lu: resumed at %#lx",
			       step, ip);
		ASSERT_EQ(0UL, shim_warnings)
			TH_LOG("nested after instruction %lu", step);
		ASSERT_EQ(taken + 1, shim_vcpu_nmis_taken(self));
		if (!shim_nmi_nested())
			break;
	}
	/* Not vacuous: the handlers were stepped through. */
	EXPECT_GT(step, 10UL);
	ksft_print_msg("a nested NMI after each of %lu instructions\n", step);
	fflush(stdout);
	local_irq_enable();
	pvq_pv_exit();
}

TEST(nested_nmi_at_any_instruction_of_our_kick)
{
	nest_at_every_step(_metadata, true);
}

TEST(nested_nmi_at_any_instruction_of_a_foreign_nmi)
{
	nest_at_every_step(_metadata, false);
}

TEST_HARNESS_MAIN
