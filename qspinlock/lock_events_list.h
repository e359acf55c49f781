/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock event counters, one PVQ_LOCK_EVENT(name) per line.  Included
 * several times with different definitions of PVQ_LOCK_EVENT, so the enum,
 * the names and every report are generated from this single list.
 */
PVQ_LOCK_EVENT(slowpath)	/* qspinlock acquisitions that left the fast path */
PVQ_LOCK_EVENT(pending)		/* acquired through the pending bit, not queued */
PVQ_LOCK_EVENT(node_idx1)	/* queued with MCS node 1 (task context) */
PVQ_LOCK_EVENT(node_idx2)	/* queued with MCS node 2 (first nested context) */
PVQ_LOCK_EVENT(node_idx3)	/* queued with MCS node 3 */
PVQ_LOCK_EVENT(node_idx4)	/* queued with MCS node 4 (fourth nesting) */
PVQ_LOCK_EVENT(nest_overflow)	/* a fifth nesting level spun on trylock instead */
/* Paravirtual queued spinlock (PARAVIRT_SPINLOCKS=y) */
PVQ_LOCK_EVENT(lock_stealing)	/* PV slow path entry took a free lock past the queue */
PVQ_LOCK_EVENT(wait_node)	/* a queued waiter halted */
PVQ_LOCK_EVENT(wait_early)	/* ... early, because its predecessor was halted */
PVQ_LOCK_EVENT(wait_head)	/* the queue head halted for the first time */
PVQ_LOCK_EVENT(wait_again)	/* the queue head halted again in one acquisition */
PVQ_LOCK_EVENT(kick_unlock)	/* unlock found the slow value and kicked the head */
PVQ_LOCK_EVENT(kick_wake)	/* a halted waiter woke to find what it waited for */
PVQ_LOCK_EVENT(spurious)	/* a halted waiter woke with nothing changed */
PVQ_LOCK_EVENT(hash_hops)	/* extra hash-table slots probed past the first */
PVQ_LOCK_EVENT(kick_latency_ns)	/* total ns from kick to the kicked CPU running */
PVQ_LOCK_EVENT(kick_offline)	/* a kick dropped: its target CPU was offline (expect 0) */
PVQ_LOCK_EVENT(kick_deferred)	/* a kick from NMI context, sent by an irq_work after it */
PVQ_LOCK_EVENT(nmi_kick_sent)	/* an NMI kick sent (nmi, strict: a waiter with interrupts off) */
PVQ_LOCK_EVENT(nmi_kick_in_flight) /* ... not sent: one of ours was on its way to that CPU */
PVQ_LOCK_EVENT(nmi_kick_woke)	/* an NMI kick found its CPU halted, or about to halt */
PVQ_LOCK_EVENT(nmi_kick_not_waiting) /* ... found it not waiting (harmless) */
PVQ_LOCK_EVENT(nmi_kick_late)	/* ... came after another NMI had claimed it (harmless) */
PVQ_LOCK_EVENT(nmi_window)	/* an NMI found a waiter about to hlt: it returns past it */
PVQ_LOCK_EVENT(pass_bound)	/* a steal refused: the queue was passed pass_bound times */
/* Unfair PV queued spinlock (PARAVIRT_UNFAIR_LOCKS=y) */
PVQ_LOCK_EVENT(unfair_steal)	/* a contender stole the lock before queueing */
PVQ_LOCK_EVENT(steal_block)	/* a starving queue head blocked stealing */
PVQ_LOCK_EVENT(steal_budget_out) /* a contender queued: its steals past waiters were spent */
/* Paravirtual ticket lock (PARAVIRT_SPINLOCKS=y) */
PVQ_LOCK_EVENT(taken_slow)	/* pvticket acquisitions that halted at least once */
PVQ_LOCK_EVENT(released_slow)	/* pvticket unlocks that saw the slowpath flag */
PVQ_LOCK_EVENT(released_slow_kicked) /* ... and kicked the next ticket's CPU */
PVQ_LOCK_EVENT(time_blocked_ns)	/* total ns pvticket waiters spent halted */
