# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lock-events.sh - the lock library's event counters, for the guest
# scripts (tools/vmrun installs it as /vmrun/lock-events.sh; busybox sh).
#
# The module (pvq_locks.ko, LOCK_STATS=y) keeps them in one file,
# /sys/kernel/debug/pvq_locks/lock_events ("name value" lines, reset by a
# write).  Built into the kernel (CONFIG_PVQ_LOCK_STATS), they are the
# kernel's lock events: a file per counter,
# /sys/kernel/debug/lock_event_counts/pvq_<name>, reset with every other
# lock event by a write to .reset_counts.  The same "name value" lines
# come out of both.

LOCK_EVENTS_MODULE=/sys/kernel/debug/pvq_locks/lock_events
LOCK_EVENTS_KERNEL=/sys/kernel/debug/lock_event_counts

# Where the counters are: "module", "kernel", or "none" (LOCK_STATS=n).
lock_events_source() {
	if [ -f $LOCK_EVENTS_MODULE ]; then
		echo module
	elif [ -f $LOCK_EVENTS_KERNEL/pvq_slowpath ]; then
		echo kernel
	else
		echo none
	fi
}

# One "name value" line per counter; nothing without counters.
lock_events_show() {
	case $(lock_events_source) in
	module)
		cat $LOCK_EVENTS_MODULE
		;;
	kernel)
		for f in "$LOCK_EVENTS_KERNEL"/pvq_*; do
			name=${f##*/}
			echo "${name#pvq_} $(cat "$f")"
		done
		;;
	esac
}

# Zero every counter.
lock_events_reset() {
	case $(lock_events_source) in
	module) echo reset >$LOCK_EVENTS_MODULE ;;
	kernel) echo reset >$LOCK_EVENTS_KERNEL/.reset_counts ;;
	esac
}
