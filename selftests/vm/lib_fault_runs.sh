#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lib_fault_runs.sh - runs INSIDE the guest (busybox sh), started by
# selftests/vm/fault_injection.sh through tools/vmrun --guest-script.
#
# Each line "LIB PARAMS|TORTURE PARAMS[|CPU]" of $FAULT_RUNS is one run:
# reload pvq_locks.ko with LIB PARAMS (its inject_fault= and pv_backend=
# are load parameters), then, if that worked and TORTURE PARAMS is not
# empty, one qspinlock_torture.ko run, loaded from CPU when that is given
# (where a module's init runs decides where its unpinned timers go).  Markers "fault-run N ..." go through printk,
# like vmrun's own, so that the host can cut the console into runs and read
# each step's status; the verdicts are the host's.  insmod and rmmod errors
# are not printed: the kernel's own messages say more, and tty output could
# split a marker line on the console.

set -u
# Module parameters are split on blanks but must never be globbed.
set -f

MODDIR=${VMRUN_MODULES:-/modules}

mark() {
	echo "<5>fault-run $*" >/dev/kmsg
}

is_loaded() {
	grep -q "^$1 " /proc/modules
}

unload() {
	if is_loaded "$1"; then
		rmmod "$1" 2>/dev/null
		return
	fi
	return 0
}

# $lib and $torture are parameter lists: they must split into words.
# shellcheck disable=SC2086
one_run() {
	n=$1
	lib=$2
	torture=$3
	cpu=$4
	mark "$n start: lib: $lib; torture: $torture${cpu:+; loaded from CPU $cpu}"
	unload qspinlock_torture
	unload pvq_locks
	mark "$n unload status $?"
	insmod "$MODDIR/pvq_locks.ko" $lib 2>/dev/null
	rc=$?
	mark "$n lib status $rc"
	if [ "$rc" -eq 0 ] && [ -n "$torture" ]; then
		if [ -n "$cpu" ]; then
			taskset -c "$cpu" insmod "$MODDIR/qspinlock_torture.ko" $torture 2>/dev/null
		else
			insmod "$MODDIR/qspinlock_torture.ko" $torture 2>/dev/null
		fi
		mark "$n torture status $?"
		unload qspinlock_torture
		mark "$n rmmod status $?"
	fi
	mark "$n done"
}

n=0
while IFS='|' read -r lib torture cpu; do
	[ -n "$lib$torture" ] || continue
	n=$((n + 1))
	one_run "$n" "$lib" "$torture" "$cpu"
done <<EOF
$FAULT_RUNS
EOF
exit 0
