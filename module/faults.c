// SPDX-License-Identifier: GPL-2.0
/*
 * pvq_locks.ko, TORTURE_FAULTS=y (a test build, made only from the make
 * command line): faults injected into the lock paths on request.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "glue.h"
#include "lock_debug.h"
#include "pv_nmi.h"

/*
 * Test builds only (make TORTURE_FAULTS=y): break the lock protocol on
 * purpose, through the hooks in the lock paths (lock_debug.h), so that
 * qspinlock_torture's stall watchdog must report a stall.  Its rescue,
 * pvq_diag_kick_all(), disarms the fault and undoes the damage, so that
 * the run can end and the library be unloaded; reloading it re-arms.
 */
enum pvq_fault_type {
	PVQ_FAULT_NONE,
	PVQ_FAULT_DROP_KICK,		/* a halted waiter is never kicked */
	PVQ_FAULT_SKIP_HANDOFF,		/* the next MCS node never becomes head */
	PVQ_FAULT_NMI_WINDOW,		/* an NMI kick before the hlt is lost */
	PVQ_FAULT_NMI_WINDOW_HELD,	/* no fault: the window held open */
	PVQ_NR_FAULTS
};

/* NULL: the locks this fault breaks are not in this build. */
static const char *const pvq_fault_names[PVQ_NR_FAULTS] = {
	[PVQ_FAULT_NONE] = "none",
	PVQ_BUILT_ITEM(PARAVIRT_SPINLOCKS, [PVQ_FAULT_DROP_KICK] = "drop_kick")
	PVQ_BUILT_ITEM(QUEUE_SPINLOCK, [PVQ_FAULT_SKIP_HANDOFF] = "skip_handoff")
#ifdef MODULE
	/*
	 * Every NMI-kick wait of this CPU-wide window, not one lock's: in a
	 * module, only the torture module's locks wait there.
	 */
	PVQ_BUILT_ITEM(NMI_KICK, [PVQ_FAULT_NMI_WINDOW] = "nmi_window")
	/*
	 * Not a fault: the same window held open, which NMIs close as they
	 * always do.  A run must succeed, with NMIs counted in the window.
	 */
	PVQ_BUILT_ITEM(NMI_KICK,
		       [PVQ_FAULT_NMI_WINDOW_HELD] = "nmi_window_held")
#endif
};

/*
 * How often: one fault stalls a lock for good, so these only set how soon
 * a run hits the first one (well under a second at 2x overcommit on the
 * strict backend, see Documentation/torture.rst).
 */
#define PVQ_FAULT_DROP_KICK_EVERY	16
#define PVQ_FAULT_SKIP_HANDOFF_EVERY	16

static char *inject_fault = "none";
module_param(inject_fault, charp, 0444);
MODULE_PARM_DESC(inject_fault, "TEST BUILDS ONLY: none; drop_kick (drop every 16th kick of a PV lock); skip_handoff (withhold every 16th MCS hand-over); module only: nmi_window (NMIs leave the NMI kick's window open), nmi_window_held (the window held open, not a fault); built into the kernel: of locks in module memory only");

static int pvq_fault;			/* the armed fault; NONE once rescued */
static atomic_t pvq_fault_chances;	/* kicks or hand-overs seen */
static atomic_t pvq_fault_injected;	/* ... and broken */
static int *pvq_fault_withheld;		/* ->locked of the withheld hand-over */

/*
 * May a fault break @lock?  In pvq_locks.ko every lock is one that
 * qspinlock_torture set up.  Built into the kernel (CONFIG_PVQ_TORTURE_FAULTS),
 * where every spinlock_t is ours, only locks in module memory, i.e. the
 * torture's (locktorture's torture_spinlock): the first hand-over withheld
 * on a lock that printk or the console needs would hang the guest before
 * any stall report could come out, and which lock that is would be chance.
 * Only the address is compared: the lock may be gone (an unlock's kick).
 */
static bool pvq_fault_may_break(const void *lock)
{
#ifdef MODULE
	return true;
#else
	return is_module_address((unsigned long)lock);
#endif
}

/* Is @fault armed for @lock, and is this its turn? */
static bool pvq_fault_due(int fault, int every, const void *lock)
{
	return READ_ONCE(pvq_fault) == fault && pvq_fault_may_break(lock) &&
	       !(atomic_inc_return_relaxed(&pvq_fault_chances) % every);
}

bool pvq_fault_drop_kick(const void *lock)
{
	if (!pvq_fault_due(PVQ_FAULT_DROP_KICK, PVQ_FAULT_DROP_KICK_EVERY,
			   lock))
		return false;
	atomic_inc(&pvq_fault_injected);
	return true;
}

bool pvq_fault_skip_handoff(const void *lock, int *locked)
{
	if (!pvq_fault_due(PVQ_FAULT_SKIP_HANDOFF,
			   PVQ_FAULT_SKIP_HANDOFF_EVERY, lock))
		return false;
	/* One withheld hand-over at a time: the rescue has one slot. */
	if (cmpxchg(&pvq_fault_withheld, NULL, locked))
		return false;
	/*
	 * Full barrier (the cmpxchg): our slot entry is visible before we
	 * look at the fault again; the rescue disarms before it empties the
	 * slot.  So if it disarmed too early for us to see the entry, we see
	 * the disarming and take the hand-over back, unless the rescue has
	 * emptied the slot already: then it does the hand-over.
	 */
	if (READ_ONCE(pvq_fault) != PVQ_FAULT_SKIP_HANDOFF &&
	    cmpxchg(&pvq_fault_withheld, locked, NULL) == locked)
		return false;
	atomic_inc(&pvq_fault_injected);
	return true;
}

/* The stall watchdog's rescue: no more faults; hand over what was withheld. */
void pvq_fault_rescue(void)
{
	int *locked;

	if (!strcmp(inject_fault, "none"))
		return;
	WRITE_ONCE(pvq_fault, PVQ_FAULT_NONE);
	/* The NMIs that the open window let pass are its faults. */
	if (PVQ_BUILT(NMI_KICK) &&
	    !strcmp(inject_fault, "nmi_window"))
		atomic_add(pvq_nmi_open_window(false), &pvq_fault_injected);
	if (PVQ_BUILT(NMI_KICK) &&
	    !strcmp(inject_fault, "nmi_window_held"))
		pvq_nmi_hold_window(false);
	/* Full barrier (xchg): disarmed before we look; see above. */
	locked = xchg(&pvq_fault_withheld, NULL);
	if (locked) {
		/*
		 * Release: the successor becomes queue head.  The owner that
		 * withheld the hand-over set the locked byte before its slot
		 * entry, which our xchg read, so the successor sees the lock
		 * word as the normal hand-over would have shown it.
		 */
		smp_store_release(locked, 1);
	}
	pr_alert("inject_fault=%s: %d faults injected; disarmed%s\n",
		 inject_fault, atomic_read(&pvq_fault_injected),
		 locked ? ", withheld hand-over done" : "");
}

int pvq_fault_init(void)
{
	char valid[64] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < PVQ_NR_FAULTS; i++) {
		if (!pvq_fault_names[i])
			continue;
		if (!strcmp(inject_fault, pvq_fault_names[i])) {
			WRITE_ONCE(pvq_fault, i);
			if (PVQ_BUILT(NMI_KICK) &&
			    i == PVQ_FAULT_NMI_WINDOW)
				pvq_nmi_open_window(true);
			if (PVQ_BUILT(NMI_KICK) &&
			    i == PVQ_FAULT_NMI_WINDOW_HELD)
				pvq_nmi_hold_window(true);
			pr_alert("FAULT INJECTION BUILD: inject_fault=%s\n",
				 inject_fault);
			return 0;
		}
		len += scnprintf(valid + len, sizeof(valid) - len, " %s",
				 pvq_fault_names[i]);
	}
	pr_err("unknown inject_fault '%s'; valid in this build:%s\n",
	       inject_fault, valid);
	return -EINVAL;
}
