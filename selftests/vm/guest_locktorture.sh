#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# guest_locktorture.sh - a vmrun guest script (busybox sh): the upstream
# locktorture, one torture_type after the other, on the guest kernel's own
# locks.  Run by kernel_tests.sh through tools/vmrun --guest-script.
#
#   LT_TYPES    torture types, e.g. "spin_lock spin_lock_irq rw_lock"
#   LT_SECS     seconds each type runs before rmmod prints its result
#   LT_PARAMS   more locktorture parameters (optional)
#   LT_MODULES  more modules (file names in /modules) to load and unload
#               first, each marked "locktorture-run: insmod NAME status N"
#               (optional; a failed load fails the script)
#
# Each type's output lies between the console lines
# "locktorture-run: start TYPE" and "locktorture-run: done TYPE status N".
# With CONFIG_PVQ_LOCK_STATS the kernel's lock event counters are reset
# before each type and printed after it as "pvq-events: TYPE NAME VALUE",
# after a line saying where they were read ("pvq-events-source: kernel":
# the kernel's lock_event_counts; "module": pvq_locks.ko's own file).
# First, the mode of each of the lock's tunables ("pvq-param: NAME MODE")
# and whether writing pass_bound its own value succeeded
# ("pvq-param-write: pass_bound status N").

# shellcheck source=tools/lib/lock-events.sh
. /vmrun/lock-events.sh

mark() {
	echo "<5>locktorture-run: $*" >/dev/kmsg
}

print_events() {
	lock_events_show >/tmp/events
	while read -r name value; do
		echo "<5>pvq-events: $1 $name $value" >/dev/kmsg
	done </tmp/events
}

# The boot ran "quiet": show what the lock library and lockdep said.
dmesg | grep -E 'pvq_locks:|Lock dependency validator' | while read -r line; do
	echo "<5>boot-log: ${line#*] }" >/dev/kmsg
done

echo "<5>pvq-events-source: $(lock_events_source)" >/dev/kmsg

params=/sys/module/pvq_locks/parameters
if [ -d $params ]; then
	for f in "$params"/*; do
		echo "<5>pvq-param: ${f##*/} $(stat -c %a "$f")" >/dev/kmsg
	done
	if [ -f $params/pass_bound ]; then
		value=$(cat $params/pass_bound)
		rc=0
		echo "$value" 2>/dev/null >$params/pass_bound || rc=1
		echo "<5>pvq-param-write: pass_bound status $rc" >/dev/kmsg
	fi
fi

status=0
for ko in $LT_MODULES; do
	insmod "/modules/$ko" && rmmod "${ko%.ko}"
	rc=$?
	mark "insmod $ko status $rc"
	[ $rc -eq 0 ] || status=1
done

insmod /modules/torture.ko || exit 1
for t in $LT_TYPES; do
	mark "start $t"
	lock_events_reset
	# shellcheck disable=SC2086 # one parameter per word
	insmod /modules/locktorture.ko torture_type="$t" stat_interval=0 \
		$LT_PARAMS
	rc=$?
	if [ $rc -eq 0 ]; then
		sleep "$LT_SECS"
		rmmod locktorture
		rc=$?
	fi
	print_events "$t"
	mark "done $t status $rc"
	[ $rc -eq 0 ] || status=1
done
rmmod torture
# A lockdep kernel: is lockdep still on (no splat turned it off)?
if [ -f /proc/lockdep_stats ]; then
	echo "<5>lockdep-state: $(grep debug_locks /proc/lockdep_stats)" >/dev/kmsg
fi
exit $status
