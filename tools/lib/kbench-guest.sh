#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kbench-guest.sh - a vmrun guest script (busybox sh): the workloads of
# make kbench, one after the other, each for KB_SECS seconds.  tools/kbench
# boots K guests at once with this script; each workload starts in its own
# time slot of the host's wall clock, so every guest runs the same workload
# at the same time (the guest's clock comes from the host's RTC).
#
#   KB_WORKLOADS  the workloads in order, e.g. "dbench futex locktorture"
#   KB_SECS       seconds each workload runs
#   KB_T0         host epoch second at which the first slot starts
#                 (0: start at once, one after the other)
#   KB_SLOT       seconds from one slot's start to the next's
#   KB_PROFILE    1: sample every CPU with perf record (cpu-clock, 250 Hz)
#                 while each workload runs, and print the symbols that
#                 took at least 1% of the samples as "kbench-profile:
#                 WORKLOAD <perf report line>" (tools/kbench --profile)
#
# The workloads (Documentation/kbench.rst says why each, and what it
# measures):
#   dbench       dbench on a tmpfs, 2 clients per vCPU (MB/s)
#   hackbench    rt-tests hackbench, one group per vCPU, repeated for
#                KB_SECS (messages/s from its own "Time:" lines)
#   futex        perf bench futex hash, one thread per vCPU (ops/s)
#   memory       stress-ng brk, one process per vCPU growing and shrinking
#                its heap and touching every new page (page allocation and
#                freeing, page faults): the ebizzy substitute (bogo ops/s)
#   locktorture  the upstream locktorture, torture_type=spin_lock, default
#                writers (2 per vCPU), on the kernel's own lock (writes/s)
#   locktorture_irq  the same with torture_type=spin_lock_irq: its writers
#                wait with interrupts off, as most of the kernel's own
#                waiters do (writes/s)
#
# Output, on the console through printk (whole lines), between
#   "kbench: begin WORKLOAD late N" and
#   "kbench: end WORKLOAD status RC elapsed SECONDS":
#   "kbench-out: WORKLOAD <line of the tool's own output>" and, with
#   CONFIG_PVQ_LOCK_STATS, "kbench-events: WORKLOAD NAME VALUE" (the lock
#   event counters over the workload, reset before it).
# tools/lib/kbench-console.awk parses them; a workload whose status is not
# 0 or whose output has no result fails its cell.

# shellcheck source=tools/lib/lock-events.sh
. /vmrun/lock-events.sh
cpus=$(nproc)
out=/tmp/kbench.out

mark() {
	echo "<5>kbench: $*" >/dev/kmsg
}

# Seconds since boot in hundredths, from /proc/uptime ("123.45 ...").
uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//; s/^$/0/'
}

# Hundredths of a second $1 as seconds: 345 -> 3.45.
fmt_cs() {
	echo "$(($1 / 100)).$(printf '%02d' $(($1 % 100)))"
}

print_lines() {
	while IFS= read -r line; do
		echo "<5>$1: $2 $line" >/dev/kmsg
	done <"$3"
}

run_dbench() {
	mkdir -p /tmp/dbench
	dbench -t "$KB_SECS" -D /tmp/dbench -c /usr/share/dbench/client.txt \
		$((2 * cpus))
	rc=$?
	rm -rf /tmp/dbench
	return $rc
}

# hackbench runs a fixed number of messages: repeat it for KB_SECS.
run_hackbench() {
	end=$(($(date +%s) + KB_SECS))
	echo "kbench-params: groups $cpus loops 20"
	while [ "$(date +%s)" -lt $end ]; do
		hackbench -g "$cpus" -l 20 || return 1
	done
}

run_futex() {
	perf bench futex hash -r "$KB_SECS" -t "$cpus"
}

run_memory() {
	stress-ng --brk "$cpus" --timeout "$KB_SECS" --metrics-brief
}

# run_locktorture TYPE: locktorture's torture_type TYPE for KB_SECS.
run_locktorture() {
	grep -q '^torture ' /proc/modules || insmod /modules/torture.ko ||
		return 1
	dmesg -c >/dev/null
	start=$(uptime_cs)
	insmod /modules/locktorture.ko torture_type="$1" stat_interval=0 ||
		return 1
	sleep "$KB_SECS"
	rmmod locktorture || return 1
	stop=$(uptime_cs)
	echo "kbench-elapsed: $(fmt_cs $((stop - start)))"
	dmesg | grep -E 'Writes: |End of test'
}

# Sleep until epoch second $1; print how late we are (0 if not).
wait_until() {
	now=$(date +%s)
	if [ "$now" -lt "$1" ]; then
		sleep $(($1 - now))
		echo 0
	else
		echo $((now - $1))
	fi
}

# perf record of every CPU while the workload runs: started before it,
# and waited for (under emulation perf takes seconds to start sampling),
# stopped after it with SIGTERM (a background job of a script ignores
# SIGINT).  The profile run is not measured, so the delay costs nothing.
profile_start() {
	[ "${KB_PROFILE:-0}" = 1 ] || return 0
	# Debian's kernels default to 3, which leaves perf record -a only
	# the idle loop, even as root.
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	rm -f /tmp/perf.data
	perf record -a -F 250 -e cpu-clock -o /tmp/perf.data >/tmp/perf.log 2>&1 &
	profile_pid=$!
	i=0
	while [ ! -s /tmp/perf.data ] && [ $i -lt 20 ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 1
}

profile_stop() {
	[ "${KB_PROFILE:-0}" = 1 ] || return 0
	kill -TERM "$profile_pid" 2>/dev/null
	wait "$profile_pid" 2>/dev/null
	perf report -i /tmp/perf.data --stdio --no-children --sort comm,sym \
		--percent-limit 1 -q 2>/tmp/perf.log | sed 's/^ *//; /^$/d' |
		head -n 30 >/tmp/kbench.profile
	[ -s /tmp/kbench.profile ] || { echo "no samples:"; tail -n 3 /tmp/perf.log; } >/tmp/kbench.profile
	print_lines kbench-profile "$1" /tmp/kbench.profile
}

slot=0
status=0
# tools/kbench times the next group's boots from this line.
mark "guest ready at $(date +%s) s: $cpus cpus, workloads $KB_WORKLOADS, $KB_SECS s each"
for w in $KB_WORKLOADS; do
	late=0
	[ "${KB_T0:-0}" -gt 0 ] && late=$(wait_until $((KB_T0 + slot * KB_SLOT)))
	slot=$((slot + 1))
	lock_events_reset
	mark "begin $w late $late"
	profile_start
	start=$(uptime_cs)
	case $w in
	dbench) run_dbench ;;
	hackbench) run_hackbench ;;
	futex) run_futex ;;
	memory) run_memory ;;
	locktorture) run_locktorture spin_lock ;;
	locktorture_irq) run_locktorture spin_lock_irq ;;
	*) echo "unknown workload $w"; false ;;
	esac >$out 2>&1
	rc=$?
	stop=$(uptime_cs)
	profile_stop "$w"
	print_lines kbench-out "$w" $out
	lock_events_show >/tmp/kbench.events
	print_lines kbench-events "$w" /tmp/kbench.events
	mark "end $w status $rc elapsed $(fmt_cs $((stop - start)))"
	[ $rc -eq 0 ] || status=1
done
exit $status
