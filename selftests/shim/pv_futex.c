// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace PV backends: a CPU "halts" by parking its thread on a futex,
 * and a kick wakes that thread.  See pv_futex.h, and pv/pv_ops.h for the
 * contract.
 *
 * The futex word is a per-CPU sequence number, never the value the lock
 * waits on: the waiter reads it before checking *ptr, and sleeps only if
 * it is unchanged, so a kick (bump, then FUTEX_WAKE) that lands anywhere
 * after that read - between the check and the sleep included - is never
 * lost.  A kick that came before the read is forgotten, as the contract
 * allows; real hardware may remember it (KVM's pv_unhalted), which could
 * only hide a lost kick from the tests, never cause one.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "pv_use.h"
#include "pv_futex.h"

struct pvq_futex_cpu {
	u32 seq;		/* the futex word: every kick bumps it */
	u8 *halted_on;		/* parked waiting for this byte to change */
	unsigned long waits;
	unsigned long parks;
	unsigned long kicks;
};

static DEFINE_PER_CPU_ALIGNED(struct pvq_futex_cpu, pvq_futex_cpus);

void (*pvq_futex_entry_hook)(void);
void (*pvq_futex_window_hook)(void);

/* Counters are read by other threads while they change. */
static void pvq_futex_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* A test's hook, if any: read once, it may be set at any time. */
#define pvq_futex_call_hook(hook) do {					\
	__typeof__(hook) __fn = READ_ONCE(hook);			\
									\
	if (__fn)							\
		__fn();							\
} while (0)

static long pvq_futex(u32 *uaddr, int op, u32 val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/*
 * As the kernel's ipi backend: no halting in NMI context, nor with
 * interrupts off (shim.h), where no kick could wake the CPU.
 */
static bool pvq_futex_can_wait(void)
{
	return !shim_in_nmi && !shim_irqs_off;
}

static void pvq_futex_wait(u8 *ptr, u8 val)
{
	struct pvq_futex_cpu *c = this_cpu_ptr(&pvq_futex_cpus);
	u32 seq;

	pvq_futex_call_hook(pvq_futex_entry_hook);
	pvq_futex_count(&c->waits);
	if (!pvq_futex_can_wait())
		return;			/* the caller keeps spinning */
	/*
	 * Acquire, before the check: a kick bumps the sequence after making
	 * the change it announces.  If we see the bump we see the change and
	 * do not sleep; if the bump comes later, FUTEX_WAIT finds the word
	 * moved and returns at once, or sleeps first and gets the wake-up.
	 */
	seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	if (READ_ONCE(*ptr) != val)
		return;

	pvq_futex_call_hook(pvq_futex_window_hook);
	pvq_futex_count(&c->parks);
	WRITE_ONCE(c->halted_on, ptr);
	/* EAGAIN (kicked meanwhile) and EINTR are allowed spurious returns. */
	pvq_futex(&c->seq, FUTEX_WAIT_PRIVATE, seq);
	WRITE_ONCE(c->halted_on, NULL);
}

static void pvq_futex_kick(int cpu)
{
	struct pvq_futex_cpu *c = per_cpu_ptr(&pvq_futex_cpus, cpu);

	pvq_futex_count(&c->kicks);
	/* Release: the change the kick announces is visible first. */
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_RELEASE);
	pvq_futex(&c->seq, FUTEX_WAKE_PRIVATE, 1);
}

/* none: pure spinning, to see what the PV hooks cost by themselves. */
static bool pvq_none_can_wait(void)
{
	return true;
}

static void pvq_none_wait(u8 *ptr, u8 val)
{
	pvq_futex_count(&this_cpu_ptr(&pvq_futex_cpus)->waits);
}

static void pvq_none_kick(int cpu)
{
	pvq_futex_count(&per_cpu_ptr(&pvq_futex_cpus, cpu)->kicks);
}

/* A futex wake-up can be sent from any context: nothing is deferred. */
static void pvq_futex_spinning(void)
{
}

static const struct pvq_pv_ops pvq_pv_futex = {
	.name = "futex", .can_wait = pvq_futex_can_wait,
	.wait = pvq_futex_wait, .kick = pvq_futex_kick,
	.spinning = pvq_futex_spinning,
};

static const struct pvq_pv_ops pvq_pv_none = {
	.name = "none", .can_wait = pvq_none_can_wait,
	.wait = pvq_none_wait, .kick = pvq_none_kick,
	.spinning = pvq_futex_spinning,
};

const struct pvq_pv_ops *pvq_pv = &pvq_pv_futex;
DEFINE_STATIC_CALL(pvq_pv_can_wait, pvq_futex_can_wait);
DEFINE_STATIC_CALL(pvq_pv_wait, pvq_futex_wait);
DEFINE_STATIC_CALL(pvq_pv_kick, pvq_futex_kick);
DEFINE_STATIC_CALL(pvq_pv_spinning, pvq_futex_spinning);
/*
 * pv_ops.h: true while nothing halts.  The kernel starts native and flips
 * it at load; here the default backend halts, so it starts false.
 */
struct static_key_true pvq_pv_native = { false };
const char *pvq_pv_reason = "userspace";
int pvq_spin_threshold = PVQ_FUTEX_SPIN_THRESHOLD;
int pvq_queue_spin_threshold = PVQ_FUTEX_SPIN_THRESHOLD;
int pvq_spin_threshold_ns = PVQ_SPIN_THRESHOLD_NS_DEFAULT;

/* The kernel's names: kvm and ipi exist, but cannot work in userspace. */
int pvq_pv_select(const char *name)
{
	if (!strcmp(name, "auto") || !strcmp(name, "futex"))
		pvq_pv_use(&pvq_pv_futex);
	else if (!strcmp(name, "none"))
		pvq_pv_use(&pvq_pv_none);
	else if (!strcmp(name, "kvm") || !strcmp(name, "ipi"))
		return -ENODEV;
	else
		return -EINVAL;
	if (pvq_pv == &pvq_pv_none)
		static_branch_enable(&pvq_pv_native);
	else
		static_branch_disable(&pvq_pv_native);
	return 0;
}

/* Nothing is ever deferred here. */
void pvq_pv_exit(void)
{
}

unsigned long pvq_futex_waits(int cpu)
{
	return READ_ONCE(per_cpu_ptr(&pvq_futex_cpus, cpu)->waits);
}

unsigned long pvq_futex_parks(int cpu)
{
	return READ_ONCE(per_cpu_ptr(&pvq_futex_cpus, cpu)->parks);
}

unsigned long pvq_futex_kicks(int cpu)
{
	return READ_ONCE(per_cpu_ptr(&pvq_futex_cpus, cpu)->kicks);
}

u8 *pvq_pv_halted_on(int cpu)
{
	return READ_ONCE(per_cpu_ptr(&pvq_futex_cpus, cpu)->halted_on);
}

bool pvq_futex_parked(int cpu)
{
	return pvq_pv_halted_on(cpu);
}

void pvq_futex_reset(void)
{
	struct pvq_futex_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&pvq_futex_cpus, cpu);
		WRITE_ONCE(c->waits, 0);
		WRITE_ONCE(c->parks, 0);
		WRITE_ONCE(c->kicks, 0);
	}
}
