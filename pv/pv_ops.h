/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paravirtual halt/kick: the two operations the PV locks need from the
 * (virtual) machine, behind one small ops table chosen at load time.
 *
 * wait(ptr, val): halt this vCPU if *ptr == val.  May return spuriously at
 *                 any time (a kick meant for an earlier wait, any interrupt,
 *                 or a backend that cannot halt right now); callers re-check
 *                 their condition in a loop.
 * kick(cpu):      wake @cpu if it is halted in wait(); harmless otherwise.
 *
 * A kick that arrives between the waiter's last check and its halt must not
 * be lost: every backend checks *ptr with interrupts off and halts in a way
 * that a pending kick still wakes (see pv_backends.c).
 */
#ifndef PVQ_PV_OPS_H
#define PVQ_PV_OPS_H

#include <linux/types.h>

struct pvq_pv_ops {
	const char *name;
	void (*wait)(u8 *ptr, u8 val);
	void (*kick)(int cpu);
};

/*
 * Spin loops before a PV waiter halts (both PV locks).  The default is the
 * 2013 series' SPIN_THRESHOLD; the module parameter spin_threshold sets it.
 */
#define PVQ_SPIN_THRESHOLD_DEFAULT	(1 << 15)
extern int pvq_spin_threshold;

/* The backend in use; set once at load, before any PV lock is used. */
extern const struct pvq_pv_ops *pvq_pv;

static inline void pvq_pv_wait(u8 *ptr, u8 val)
{
	pvq_pv->wait(ptr, val);
}

static inline void pvq_pv_kick(int cpu)
{
	pvq_pv->kick(cpu);
}

/*
 * Choose the backend: "auto" (kvm when the hypervisor offers PV unhalt,
 * else ipi), "kvm", "ipi", "strict" (ipi whose wait ends only on a kick)
 * or "none".  Returns 0, -EINVAL for an unknown name, or -ENODEV when the
 * named backend cannot work on this machine.
 */
int pvq_pv_select(const char *name);

/* Diagnostics: the byte @cpu is halted on in wait(), or NULL. */
u8 *pvq_pv_halted_on(int cpu);

#endif /* PVQ_PV_OPS_H */
