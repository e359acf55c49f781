/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual halt/kick: the two operations the PV locks need from the
 * (virtual) machine, behind one small ops table chosen at load time.
 *
 * can_wait():     may the calling context halt in wait() at all?  False in
 *                 NMI context on every backend, and with interrupts off on
 *                 ipi (no IPI could wake it; nmi and strict wake such a
 *                 waiter with an NMI, kvm with its hypercall).  A PV lock asks
 *                 before it runs its halt protocol (halted states, hash
 *                 entries, slowpath flags, waiter records): a waiter that
 *                 cannot halt spins like a native one and costs its
 *                 unlocker nothing.  The answer is fixed for one lock
 *                 acquisition (its context and interrupt state are).
 * wait(ptr, val): halt this vCPU if *ptr == val.  May return spuriously at
 *                 any time (a kick meant for an earlier wait, any interrupt,
 *                 or a backend that cannot halt right now); callers re-check
 *                 their condition in a loop.
 * kick(cpu):      wake @cpu if it is halted in wait(); harmless otherwise.
 *                 Callable from any context, NMI included.
 * spinning():     called now and then by a waiter that cannot wait: a
 *                 backend that defers kicks sent from NMI context to an
 *                 interrupt (ipi, nmi, strict) sends this CPU's deferred
 *                 kicks here, since that interrupt cannot come while we spin
 *                 with interrupts off (the kicked CPU may hold the lock
 *                 we spin for only once it has run).
 *
 * A kick that arrives between the waiter's last check and its halt must not
 * be lost: every backend checks *ptr with interrupts off and halts in a way
 * that a pending kick still wakes (see pv_backends.c), or that the kick's
 * NMI moves past (pv_nmi.c).
 */
#ifndef PVQ_PV_OPS_H
#define PVQ_PV_OPS_H

#include <linux/jump_label.h>
#include <linux/static_call_types.h>
#include <linux/types.h>

typedef bool pvq_pv_can_wait_fn(void);
typedef void pvq_pv_wait_fn(u8 *ptr, u8 val);
typedef void pvq_pv_kick_fn(int cpu);
typedef void pvq_pv_spinning_fn(void);

struct pvq_pv_ops {
	const char *name;
	pvq_pv_can_wait_fn *can_wait;
	pvq_pv_wait_fn *wait;
	pvq_pv_kick_fn *kick;
	pvq_pv_spinning_fn *spinning;
};

/*
 * How long a PV ticketlock waiter spins before it halts: spin_threshold
 * loops or spin_threshold_ns, whichever ends first (module parameters).
 * The PV ticketlock series (Raghavendra K T, "Paravirtualized ticket
 * spinlocks", V9, June 2013) counted loops, SPIN_THRESHOLD = 2^15 of
 * them: about 170 us on the Xeon X7560 (2.27 GHz, PAUSE about 10 cycles)
 * its results were measured on.  A loop is a poor unit of time: PAUSE takes about 140
 * cycles since Skylake, and under QEMU's TCG every PAUSE leaves the
 * translated code, so 2^15 loops lasted tens of milliseconds and the lock
 * collapsed (Documentation/pv.rst, "The PV ticketlock's spin").  The time
 * keeps the series' intent; the loop count stays its default.
 */
#define PVQ_SPIN_THRESHOLD_DEFAULT	(1 << 15)
#define PVQ_SPIN_THRESHOLD_NS_DEFAULT	(170 * 1000)
extern int pvq_spin_threshold;
extern int pvq_spin_threshold_ns;

/*
 * Spin loops before a PV queued waiter or queue head halts (fair and
 * unfair); the module parameter queue_spin_threshold sets it.  Halting
 * sooner than the ticketlock paid under overcommit: at 256 both PV queued
 * locks ran 10-40% faster at 2x and 4x than at 32768, with fewer than
 * one halt in 100 acquisitions (Documentation/performance.rst).
 */
#define PVQ_QUEUE_SPIN_THRESHOLD_DEFAULT	256
extern int pvq_queue_spin_threshold;

/* The backend in use; set once at load, before any PV lock is used. */
extern const struct pvq_pv_ops *pvq_pv;

/*
 * The slow paths call the backend through static calls, not through
 * pvq_pv: a direct call, patched once when the backend is chosen, where
 * an indirect one would be a retpoline on CPUs that need them.  Where the
 * backend is defined (pv_backends.c), so are they, and pv_use.h switches
 * them.  This header reaches <asm/spinlock.h>, so it takes only the
 * declarations (static_call_types.h): <linux/static_call.h> pulls in
 * headers that themselves need spinlock_t.
 */
DECLARE_STATIC_CALL(pvq_pv_can_wait, pvq_pv_can_wait_fn);
DECLARE_STATIC_CALL(pvq_pv_wait, pvq_pv_wait_fn);
DECLARE_STATIC_CALL(pvq_pv_kick, pvq_pv_kick_fn);
DECLARE_STATIC_CALL(pvq_pv_spinning, pvq_pv_spinning_fn);

/*
 * True while the backend is "none" (nothing halts: bare metal, one CPU,
 * dedicated vCPUs, nopvspin), and before a backend is chosen.  The PV
 * queued locks then run as the native qspinlock: store unlock, native slow
 * path, no hash, no kick, as upstream patches its PV lock ops to the native
 * ones there.  A static key, so that the choice costs the fast path no load
 * and no test: pvq_pv_select() flips it once, before any PV lock is
 * contended (in a built-in kernel, before the other CPUs start).
 */
DECLARE_STATIC_KEY_TRUE(pvq_pv_native);

static __always_inline bool pvq_pv_runs_native(void)
{
	return static_branch_likely(&pvq_pv_native);
}

static inline bool pvq_pv_can_wait(void)
{
	return static_call(pvq_pv_can_wait)();
}

static inline void pvq_pv_wait(u8 *ptr, u8 val)
{
	static_call(pvq_pv_wait)(ptr, val);
}

static inline void pvq_pv_kick(int cpu)
{
	static_call(pvq_pv_kick)(cpu);
}

static inline void pvq_pv_spinning(void)
{
	static_call(pvq_pv_spinning)();
}

/*
 * Choose the backend: "auto", "kvm", "ipi", "nmi" (ipi, and a waiter with
 * interrupts off halts too, woken by an NMI), "strict" (nmi whose wait
 * ends only on a kick) or "none".  "auto" picks none where halting cannot pay
 * (one possible CPU, bare metal, a KVM host that hints its vCPUs are never
 * preempted), as upstream's kvm_spinlock_init() does, else kvm when the
 * hypervisor offers PV unhalt, else nmi (ipi if its NMI handler cannot be
 * registered).  Returns 0, -EINVAL for an unknown name, -ENODEV when the
 * named backend cannot work on this hardware or hypervisor, or the error
 * of registering the NMI handler (nmi, strict).  Once: a second call,
 * after one that succeeded, changes nothing and returns -EBUSY (with a
 * warning).  pvq_pv_reason says why the backend in use was picked.
 */
int pvq_pv_select(const char *name);
extern const char *pvq_pv_reason;

/*
 * Which backend pvq_pv_select(@name) would take here, and why, without
 * taking it (no NMI handler registered, nothing changed): 0, or -EINVAL /
 * -ENODEV as pvq_pv_select().
 */
int pvq_pv_choose(const char *name, const struct pvq_pv_ops **ops,
		  const char **reason);

/* Before unload: no deferred kick may be left in flight. */
void pvq_pv_exit(void);

/* Diagnostics: the byte @cpu is halted on in wait(), or NULL. */
u8 *pvq_pv_halted_on(int cpu);

#endif /* PVQ_PV_OPS_H */
