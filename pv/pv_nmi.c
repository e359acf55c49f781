// SPDX-License-Identifier: GPL-2.0
/*
 * The NMI kick.  On a hypervisor without PV unhalt (and under TCG), only
 * an interrupt ends a hlt: a waiter with interrupts off could not halt, and
 * spun through its preempted holder's time slice.  An NMI ends a hlt
 * whatever the interrupt flag is.  So such a waiter halts with interrupts
 * off (pv_nmi_halt.S), and its kicker sends it an NMI (this file).
 *
 * Three things make that safe:
 *
 * - No lost wake-up.  KVM closes the window between a waiter's last check
 *   and its hlt in the host (a kick before the hlt makes the hlt return).
 *   Here the guest closes it: any NMI that interrupts the window returns
 *   past the hlt, so the waiter checks again (pvq_nmi_handler()).
 *
 * - Only our NMIs are claimed, as far as that can be known.  perf and the
 *   watchdog send NMIs too, and NMIs coalesce.  A per-CPU mark says that
 *   an NMI of ours is on its way; at most one is in flight per CPU, so
 *   that every NMI that finds a fresh mark set may claim it.  One of ours
 *   can still come after its mark was claimed by another NMI (its
 *   kicker's vCPU was preempted between the mark and the send): the
 *   kernel would report it as unknown, so an unknown NMI soon after one
 *   of our sends is taken as ours, unless the kernel is set to panic on
 *   unknown NMIs (pvq_nmi_may_claim_unknown()).  An NMI carries no sender:
 *   what is left is in Documentation/pv.rst, "Only our NMIs are claimed".
 *
 * - No IPI from NMI context on xAPIC (an IPI is two register writes that
 *   another sender's NMI could split): kicks from NMI context are deferred
 *   by pv_backends.c, as for the reschedule IPI.  In x2APIC mode an IPI is
 *   one MSR write, and an NMI kick from NMI context is sent at once.
 *
 * How a module sends an NMI: through the apic driver, whose "apic" pointer
 * x86-64 exports to GPL modules (arch/x86/kernel/apic/apic_flat_64.c, in
 * 6.1 and 6.12 alike); ->send_IPI() with NMI_VECTOR sends in NMI delivery
 * mode, in xAPIC and x2APIC mode, as the kernel's NMI backtrace does.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/cc_platform.h>
#include <linux/cpuhotplug.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ktime.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/nmi.h>
#include <asm/ptrace.h>
#include <xen/xen.h>

#include "pv_nmi.h"
#include "lock_stats.h"

/* A CPU's NMI kicks, written by its kickers. */
struct pvq_nmi_mark {
	atomic64_t in_flight;	/* when the one in flight was sent, or 0 */
	atomic64_t last_sent;	/* when the last one was sent, or 0 */
};

static DEFINE_PER_CPU_ALIGNED(struct pvq_nmi_mark, pvq_nmi_marks);

static s64 pvq_nmi_now(void)
{
	return ktime_get_mono_fast_ns() | 1;	/* NMI-safe; never 0 */
}

/* One halt function of pv_nmi_halt.S, by its labels. */
struct pvq_nmi_window {
	const char *start;	/* from here ... */
	const char *insn;	/* ... to the hlt, included: the window */
	const char *woken;	/* after the hlt */
	bool selftest;		/* the self-test's, not a wait */
};

static const struct pvq_nmi_window pvq_nmi_windows[] = {
	{ pvq_nmi_halt_u8_window, pvq_nmi_halt_u8_insn,
	  pvq_nmi_halt_u8_woken, false },
	{ pvq_nmi_halt_u32_window, pvq_nmi_halt_u32_insn,
	  pvq_nmi_halt_u32_woken, false },
	{ pvq_nmi_selftest_start, pvq_nmi_selftest_insn,
	  pvq_nmi_selftest_woken, true },
};

enum pvq_nmi_target {
	PVQ_NMI_NOT_WAITING, PVQ_NMI_IN_WINDOW, PVQ_NMI_HALTED, PVQ_NMI_SELFTEST
};

/*
 * An NMI found a frame it does not know: the NMI kick cannot close its
 * window here, and waiters with interrupts off spin from now on
 * (pvq_nmi_works()).
 */
static bool pvq_nmi_broken;

bool pvq_nmi_works(void)
{
	return !READ_ONCE(pvq_nmi_broken);
}

/*
 * Tests: the window is held open this many pause loops, long enough that
 * an NMI kick lands in it now and then, even under emulation; and under
 * fault injection NMIs leave it alone.
 */
#define PVQ_NMI_OPEN_LOOPS	20000
static bool pvq_nmi_window_held;
static bool pvq_nmi_window_left;
/* NMIs that found the window open, and left it so. */
static atomic_t pvq_nmi_window_missed = ATOMIC_INIT(0);

int pvq_nmi_open_window(bool open)
{
	WRITE_ONCE(pvq_nmi_window_held, open);
	WRITE_ONCE(pvq_nmi_window_left, open);
	return atomic_read(&pvq_nmi_window_missed);
}

void pvq_nmi_hold_window(bool hold)
{
	WRITE_ONCE(pvq_nmi_window_held, hold);
}

static unsigned long pvq_nmi_open_loops(void)
{
	return READ_ONCE(pvq_nmi_window_held) ? PVQ_NMI_OPEN_LOOPS : 0;
}

bool pvq_nmi_wait_u8(u8 *ptr, u8 val)
{
	return pvq_nmi_halt_u8(ptr, val, pvq_nmi_open_loops());
}

bool pvq_nmi_wait_u32(u32 *ptr, u32 val)
{
	return pvq_nmi_halt_u32(ptr, val, pvq_nmi_open_loops());
}

/*
 * The hardware frame an NMI from kernel mode returns through on x86-64
 * without FRED: entry_64.S copies the frame the CPU pushed twice, against
 * nested NMIs, and pt_regs ends in the "outermost" copy, which is only
 * read to repeat the NMI; IRET pops the "iret" copy, right above pt_regs.
 */
struct pvq_nmi_iret_frame {
	unsigned long ip, cs, flags, sp, ss;
};

/*
 * How far from the "iret" frame a nested NMI points its stack pointer: at
 * the NMI's own stack, right around that frame (entry_64.S).
 */
#define PVQ_NMI_NESTED_SP_NEAR	256

/*
 * The "iret" frame is not the interrupted context's: a nested NMI's
 * (repeat_nmi, on this NMI's stack), which then copies the "outermost"
 * frame, ours; or a layout this code does not know (a future kernel,
 * another hypervisor's NMI path), where the window cannot be closed: say
 * so once, and let waiters with interrupts off spin from now on.
 */
static void pvq_nmi_frame_not_ours(struct pvq_nmi_iret_frame *iret,
				   struct pt_regs *regs)
{
	unsigned long sp = READ_ONCE(iret->sp);

	if (sp - (unsigned long)iret < PVQ_NMI_NESTED_SP_NEAR ||
	    (unsigned long)iret - sp < PVQ_NMI_NESTED_SP_NEAR)
		return;
	if (!READ_ONCE(pvq_nmi_broken)) {
		WRITE_ONCE(pvq_nmi_broken, true);
		WARN_ONCE(1, "pvq_locks: NMI frame of unknown layout (ip %lx sp %lx, pt_regs ip %lx sp %lx): waiters with interrupts off spin from now on\n",
			  READ_ONCE(iret->ip), sp, regs->ip, regs->sp);
	}
}

/*
 * Resume the context this NMI interrupted (kernel mode: in a window) at
 * @to.  Setting regs->ip alone is not enough: without FRED it changes only
 * the "outermost" copy, and the waiter went on to its hlt.  With FRED,
 * ERETS pops pt_regs themselves.
 *
 * The "iret" copy can change under us: any IRET in the handler chain (a
 * page fault in an earlier handler, a debug exception, a kprobe; on SEV-ES
 * the whole handler) lets a nested NMI in, and it rewrites the whole
 * "iret" frame to return to repeat_nmi on the NMI stack, which copies the
 * "outermost" frame into it and runs the handlers again.  So the
 * "outermost" copy is set first: a nested NMI from then on returns to @to
 * through repeat_nmi.  Then the "iret" copy's RIP moves, in one local
 * cmpxchg, only if it still holds the interrupted address: a nested NMI
 * rewrites the frame either wholly before that instruction (RIP is
 * repeat_nmi: no match) or wholly after it (repeat_nmi copies ours).
 * Its code segment and stack pointer must be the interrupted ones too, or
 * it is not the frame we take it for.
 */
static void pvq_nmi_resume_at(struct pt_regs *regs, unsigned long to)
{
	struct pvq_nmi_iret_frame *iret = (void *)(regs + 1);
	unsigned long from = regs->ip;

	WRITE_ONCE(regs->ip, to);
#ifdef X86_FEATURE_FRED
	if (cpu_feature_enabled(X86_FEATURE_FRED))
		return;
#endif
	if (READ_ONCE(iret->cs) != regs->cs || READ_ONCE(iret->sp) != regs->sp) {
		pvq_nmi_frame_not_ours(iret, regs);
		return;
	}
	cmpxchg_local(&iret->ip, from, to);
}

/*
 * Where the NMI found this CPU: between a waiter's check and its hlt (the
 * window), in the hlt (the NMI ended it: the return address is the woken
 * label), or elsewhere.  In the window, any NMI, ours or not, moves the
 * return address past the hlt: a spurious return from the wait, which the
 * callers allow, instead of a hlt that only the next NMI would end.
 */
static enum pvq_nmi_target pvq_nmi_leave_window(struct pt_regs *regs)
{
	const struct pvq_nmi_window *w;
	unsigned long ip = regs->ip;

	for (w = pvq_nmi_windows; w < pvq_nmi_windows +
	     ARRAY_SIZE(pvq_nmi_windows); w++) {
		if (ip == (unsigned long)w->woken)
			return PVQ_NMI_HALTED;
		if (ip >= (unsigned long)w->start &&
		    ip <= (unsigned long)w->insn) {
			if (w->selftest) {
				pvq_nmi_resume_at(regs, (unsigned long)w->woken);
				return PVQ_NMI_SELFTEST;
			}
			if (!READ_ONCE(pvq_nmi_window_left)) {
				pvq_nmi_resume_at(regs, (unsigned long)w->woken);
				pvq_stat_inc(nmi_window);
			} else {
				atomic_inc(&pvq_nmi_window_missed);
			}
			return PVQ_NMI_IN_WINDOW;
		}
	}
	return PVQ_NMI_NOT_WAITING;
}

static int pvq_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	atomic64_t *sent = this_cpu_ptr(&pvq_nmi_marks.in_flight);
	enum pvq_nmi_target target = pvq_nmi_leave_window(regs);
	s64 mark = atomic64_read(sent);

	/* The self-test's own NMI (pvq_nmi_selftest()). */
	if (target == PVQ_NMI_SELFTEST)
		return NMI_HANDLED;
	/*
	 * Ours if the mark is set, and fresh: a mark older than
	 * PVQ_NMI_LOST_NS is of an NMI taken as lost (its kicker's
	 * successors send again), and claiming any NMI for it would hide
	 * NMIs that are not ours for as long as it stays.  The exchange is
	 * a full barrier, after which the waiter's check sees what its
	 * kicker changed before it set the mark (pvq_nmi_send()).  A nested
	 * NMI runs no handler: it makes this one run them all again once it
	 * returns (repeat_nmi).
	 */
	if (!mark || pvq_nmi_now() - mark >= PVQ_NMI_LOST_NS ||
	    !atomic64_try_cmpxchg(sent, &mark, 0))
		return NMI_DONE;
	if (target == PVQ_NMI_NOT_WAITING)
		pvq_stat_inc(nmi_kick_not_waiting);
	else
		pvq_stat_inc(nmi_kick_woke);
	return NMI_HANDLED;
}

/*
 * No NMI handler claimed this one (the local handlers have run, this one
 * too, and left the window already).  One of ours sent to this CPU lately
 * whose mark another NMI claimed: take it, rather than let the kernel
 * report an unknown NMI.  Not where the kernel is set to panic on unknown
 * NMIs: there an unknown NMI is the way to ask for a crash dump (a
 * hypervisor's "inject NMI"), and a late kick of ours that panics is the
 * price (Documentation/pv.rst).
 */
static int pvq_nmi_late_handler(unsigned int type, struct pt_regs *regs)
{
	s64 last = atomic64_read(this_cpu_ptr(&pvq_nmi_marks.last_sent));

	if (!last || pvq_nmi_now() - last >= PVQ_NMI_LOST_NS ||
	    !pvq_nmi_may_claim_unknown())
		return NMI_DONE;
	pvq_stat_inc(nmi_kick_late);
	return NMI_HANDLED;
}

/*
 * No kprobes on the NMI's way to the frame update (nor in the window,
 * pv_nmi_halt.S): a probe's int3 returns with an IRET, which unmasks
 * NMIs, and runs its handlers in NMI context.  The update is safe against
 * nested NMIs, but the fewer, the better.
 */
NOKPROBE_SYMBOL(pvq_nmi_resume_at);
NOKPROBE_SYMBOL(pvq_nmi_leave_window);
NOKPROBE_SYMBOL(pvq_nmi_handler);
NOKPROBE_SYMBOL(pvq_nmi_late_handler);

void pvq_nmi_send(int cpu)
{
	struct pvq_nmi_mark *mark = per_cpu_ptr(&pvq_nmi_marks, cpu);
	atomic64_t *sent = &mark->in_flight;
	s64 now = pvq_nmi_now();
	s64 old = atomic64_read(sent);

	do {
		/*
		 * One of ours is on its way, and its handler has not run
		 * (the mark is still set): it runs after our change is
		 * visible (the caller's full barrier, then our read; the
		 * handler's exchange, then the waiter's check), and the
		 * waiter checks again after it.  No second NMI needed.
		 */
		if (old && now - old < PVQ_NMI_LOST_NS) {
			pvq_stat_inc(nmi_kick_in_flight);
			return;
		}
	} while (!atomic64_try_cmpxchg(sent, &old, now));
	atomic64_set(&mark->last_sent, now);
	/* The cmpxchg is a full barrier: the marks before the NMI. */
	pvq_stat_inc(nmi_kick_sent);
	apic->send_IPI(cpu, NMI_VECTOR);
}

/*
 * Where a waiter must not halt with interrupts off and wait for an NMI,
 * why; else NULL.  Xen PV: a raw hlt is privileged there (#GP).  TDX: hlt
 * is a #VE, handled by a hypercall, and an NMI that comes during it is
 * not in the window.  SEV-ES: hlt is a #VC, the same, and NMIs nest
 * there for the whole handler.
 */
const char *pvq_nmi_unsafe_here(void)
{
	if (xen_pv_domain())
		return "Xen PV: hlt is privileged";
	if (cpu_feature_enabled(X86_FEATURE_TDX_GUEST))
		return "TDX: hlt is a #VE";
	if (cc_platform_has(CC_ATTR_GUEST_STATE_ENCRYPT))
		return "SEV-ES: hlt is a #VC";
	return NULL;
}

/*
 * Pause loops the self-test waits for its NMI: milliseconds on hardware,
 * tens of milliseconds under TCG (every pause leaves the translated code).
 */
#define PVQ_NMI_SELFTEST_LOOPS	100000
#define PVQ_NMI_SELFTEST_TRIES	3

/*
 * Before the first wait that an NMI must end (the handlers registered):
 * send this CPU an NMI in a test window and see it moved past the window,
 * as a waiter's must be past its hlt.  -EIO if it was not, three times:
 * the handler does not find the frame that IRET pops, or no NMI comes.
 */
int pvq_nmi_selftest(void)
{
	u32 *icr = x2apic_mode ? NULL : (u32 *)(APIC_BASE + APIC_ICR);
	unsigned long flags;
	bool moved = false;
	int try;

	for (try = 0; try < PVQ_NMI_SELFTEST_TRIES && !moved; try++) {
		local_irq_save(flags);
		moved = pvq_nmi_selftest_window(icr, PVQ_NMI_SELFTEST_LOOPS,
						APIC_DEST_SELF | APIC_DM_NMI,
						APIC_BASE_MSR + (APIC_ICR >> 4));
		local_irq_restore(flags);
	}
	return moved && pvq_nmi_works() ? 0 : -EIO;
}

/*
 * A CPU about to come up.  No NMI of ours is on its way to it: kickers
 * send none to a CPU outside cpu_online_mask, and its bring-up (INIT)
 * forgets a pending one.  But its mark may still be set: the kernel runs
 * no NMI handler on a CPU outside the mask (exc_nmi() returns at once),
 * so nobody claimed the mark of an NMI that came as it went down.  Left
 * set, it would make its kickers drop their kicks as in flight, for
 * PVQ_NMI_LOST_NS, while it halts.
 */
static int pvq_nmi_cpu_prepare(unsigned int cpu)
{
	atomic64_set(&per_cpu(pvq_nmi_marks, cpu).in_flight, 0);
	return 0;
}

static int pvq_nmi_hp_state;

int pvq_nmi_init(void)
{
	int err;

	err = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "pvq/nmi_kick",
					pvq_nmi_cpu_prepare, NULL);
	if (err < 0)
		return err;
	pvq_nmi_hp_state = err;
	err = register_nmi_handler(NMI_LOCAL, pvq_nmi_handler, 0, "pvq_kick");
	if (err)
		goto out_hp;
	err = register_nmi_handler(NMI_UNKNOWN, pvq_nmi_late_handler, 0,
				   "pvq_kick_late");
	if (!err)
		return 0;
	unregister_nmi_handler(NMI_LOCAL, "pvq_kick");
out_hp:
	cpuhp_remove_state_nocalls(pvq_nmi_hp_state);
	return err;
}

void pvq_nmi_exit(void)
{
	/* Each waits for a handler that is running (the lists are RCU). */
	unregister_nmi_handler(NMI_UNKNOWN, "pvq_kick_late");
	unregister_nmi_handler(NMI_LOCAL, "pvq_kick");
	cpuhp_remove_state_nocalls(pvq_nmi_hp_state);
}
