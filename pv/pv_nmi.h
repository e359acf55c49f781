/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NMI kick (pv_nmi.c): a waiter with interrupts off halts, and an NMI
 * sent by its kicker wakes it, on any x86 hypervisor and under TCG.  Used
 * by the nmi and strict backends (pv_backends.c) for their interrupts-off
 * waiters; the ones with interrupts on keep the reschedule IPI.
 */
#ifndef PVQ_PV_NMI_H
#define PVQ_PV_NMI_H

#include <linux/time64.h>
#include <linux/types.h>

/*
 * An NMI kick that was sent this long ago and has not come is lost: it was
 * sent to a CPU that INIT then reset for its bring-up, which forgets a
 * pending NMI.  A kicker then sends another one.  Under overcommit a vCPU
 * may not run for many milliseconds; an NMI of ours that comes later than
 * this, after another NMI claimed its mark, is reported by the kernel as
 * unknown.
 */
#define PVQ_NMI_LOST_NS		(500 * NSEC_PER_MSEC)

/*
 * With interrupts off, halt if *ptr == val, until an NMI; true if it
 * halted (or was about to), false if *ptr had changed.  Any NMI ends it,
 * a kick's that comes before the hlt included (pv_nmi_halt.S).
 */
bool pvq_nmi_wait_u8(u8 *ptr, u8 val);
bool pvq_nmi_wait_u32(u32 *ptr, u32 val);

/*
 * pv_nmi_halt.S: the halts themselves (open_loops: see there), and their
 * labels, for the NMI handler: from _window to _insn (the hlt) included
 * is the window; _woken is the instruction after the hlt.
 */
bool pvq_nmi_halt_u8(u8 *ptr, u8 val, unsigned long open_loops);
bool pvq_nmi_halt_u32(u32 *ptr, u32 val, unsigned long open_loops);
extern const char pvq_nmi_halt_u8_window[], pvq_nmi_halt_u8_insn[],
	pvq_nmi_halt_u8_woken[];
extern const char pvq_nmi_halt_u32_window[], pvq_nmi_halt_u32_insn[],
	pvq_nmi_halt_u32_woken[];

/*
 * Send @cpu an NMI kick, unless one of ours is already on its way there.
 * From NMI context only in x2APIC mode (see pvq_defer_kick()); only to a CPU in
 * cpu_online_mask: the kernel runs no NMI handler on any other, so its
 * waiters never halt with interrupts off on nmi and strict
 * (pv_backends.c).  The caller made its change visible first (a full
 * barrier).
 */
void pvq_nmi_send(int cpu);

/*
 * From the glue (module/): may an unknown NMI soon after an NMI kick be
 * taken as a late kick of ours?  Not where the kernel panics on unknown
 * NMIs (unknown_nmi_panic, panic_on_unrecovered_nmi): the kernel reads
 * them; a module, which cannot, has a parameter.  Called in NMI context.
 */
bool pvq_nmi_may_claim_unknown(void);

/*
 * May a waiter halt with interrupts off and be woken by an NMI here?
 * pvq_nmi_unsafe_here(): why not on this platform, or NULL.
 * pvq_nmi_selftest(): 0 if an NMI sent to this CPU in a test window was
 * moved past it, as a waiter's NMI must be past its hlt; -EIO if not
 * (called with the handlers registered).  pvq_nmi_works(): false once an
 * NMI found a frame of a layout this code does not know (it warns once).
 */
const char *pvq_nmi_unsafe_here(void);
int pvq_nmi_selftest(void);
bool pvq_nmi_works(void);
bool pvq_nmi_selftest_window(u32 *icr, unsigned long loops, u32 cmd,
			     u32 icr_msr);
extern const char pvq_nmi_selftest_start[], pvq_nmi_selftest_insn[],
	pvq_nmi_selftest_woken[];

/* The NMI handlers: registered before the first NMI kick, removed last. */
int pvq_nmi_init(void);
void pvq_nmi_exit(void);

/*
 * Fault injection (inject_fault=nmi_window, and the unit tests): hold
 * the window between the check and the hlt open, and leave it open to
 * NMIs: the lost wake-up the window fix prevents.  Returns how many NMIs
 * found it open so far.
 */
int pvq_nmi_open_window(bool open);

/*
 * Tests (inject_fault=nmi_window_held, and the unit tests): hold the window
 * open, with NMIs closing it as always: no wake-up may be lost, and the
 * nmi_window event counts the NMIs that landed in it.
 */
void pvq_nmi_hold_window(bool hold);

#endif /* PVQ_PV_NMI_H */
