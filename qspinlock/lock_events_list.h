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
