#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that qspinlock_torture's detectors work, with a fault-injection
# build (make TORTURE_FAULTS=y):
#  - inject_fault=exclusion lets every 64th critical section run without
#    the lock: each torture type must report FAILURE (exclusion failures or
#    lost updates) instead of SUCCESS;
#  - inject_fault=stall makes one writer keep the lock: the stall watchdog
#    must report STALL with the lock word, and FAILURE, within stall_secs;
#  - inject_fault=irq_exclusion lets every 16th interrupt-context section
#    run without its lock (the writers keep theirs): the checks of the
#    interrupt-context sections must report FAILURE (one type suffices).
#
# Host side: boots one guest at 2x overcommit and prints TAP.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
modules=
types=
secs=2
vcpus=4
host_cpus=0-1

usage() {
	echo "usage: $0 --modules DIR --types \"T1 T2\" [--secs N] [--vcpus N] [--host-cpus LIST]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--modules) modules=${2:-}; shift ;;
	--types) types=${2:-}; shift ;;
	--secs) secs=${2:-}; shift ;;
	--vcpus) vcpus=${2:-}; shift ;;
	--host-cpus) host_cpus=${2:-}; shift ;;
	*) usage ;;
	esac
	shift
done
[ -n "$modules" ] && [ -n "$types" ] || usage
[[ $secs =~ ^[1-9][0-9]*$ && $vcpus =~ ^[1-9][0-9]*$ ]] || usage

outdir=$ROOT/out/fault-injection
mkdir -p "$outdir"
console=$outdir/console.log
runs=()
stall_secs=3
for t in $types; do
	runs+=(--run "torture_type=$t runtime_secs=$secs stat_interval=0 inject_fault=exclusion")
done
for t in $types; do
	runs+=(--run "torture_type=$t runtime_secs=60 stall_secs=$stall_secs stat_interval=0 inject_fault=stall")
done
irq_type=${types%% *}
runs+=(--run "torture_type=$irq_type runtime_secs=$secs stat_interval=0 irq_mode=hardirq inject_fault=irq_exclusion")

# vmrun must fail here (the runs report FAILURE); what matters is each verdict.
"$ROOT/tools/vmrun" --modules "$modules" --vcpus "$vcpus" --host-cpus "$host_cpus" \
	--timeout $((120 + ${#runs[@]} / 2 * (secs + stall_secs + 30))) --quiet \
	--outdir "$outdir" --console "$console" "${runs[@]}"
vmrun_rc=$?

echo "TAP version 13"
n=0
set -- $types
echo "1..$((2 * $# + 2))"
fail=0
for t in $types; do
	n=$((n + 1))
	summary=$(grep -a "$t-torture: summary:" "$console" | head -n 1)
	if grep -aq "$t-torture: --- End of test: FAILURE" "$console" &&
	   [[ $summary =~ result=FAILURE ]] &&
	   ! [[ $summary =~ fail=0\ lost=0 ]]; then
		counts=$(grep -oE 'fail=[0-9]+ lost=[0-9]+' <<<"$summary")
		echo "ok $n fault exclusion detected: $t ($counts)"
	else
		echo "not ok $n fault exclusion detected: $t # no FAILURE report"
		fail=1
	fi
done
# The second run of each type is the stall run: its report must show the
# watchdog's STALL line, the lock word, and FAILURE.
for t in $types; do
	n=$((n + 1))
	log=$(sed -n "/$t-torture: FAULT INJECTION BUILD: inject_fault=stall/,/$t-torture: --- End of test/p" "$console")
	if grep -aq "$t-torture: STALL: no lock acquired" <<<"$log" &&
	   grep -aqE "$t-torture: lock 0: (lock )?word" <<<"$log" &&
	   grep -aq "$t-torture: --- End of test: FAILURE" <<<"$log"; then
		echo "ok $n stall detected: $t"
	else
		echo "not ok $n stall detected: $t # no STALL report with lock word and FAILURE"
		fail=1
	fi
done
# The last run: only interrupt-context sections skip their lock.
n=$((n + 1))
log=$(sed -n "/$irq_type-torture: FAULT INJECTION BUILD: inject_fault=irq_exclusion/,/$irq_type-torture: --- End of test/p" "$console")
summary=$(grep -a "$irq_type-torture: summary:" <<<"$log" | head -n 1)
if grep -aq "$irq_type-torture: --- End of test: FAILURE" <<<"$log" &&
   [[ $summary =~ result=FAILURE ]] && ! [[ $summary =~ fail=0\ lost=0 ]] &&
   ! [[ $summary =~ hardirq_acq=0 ]]; then
	counts=$(grep -oE 'fail=[0-9]+ lost=[0-9]+' <<<"$summary")
	echo "ok $n fault irq_exclusion detected: $irq_type ($counts)"
else
	echo "not ok $n fault irq_exclusion detected: $irq_type # no FAILURE report"
	fail=1
fi
n=$((n + 1))
if [ "$vmrun_rc" -ne 0 ] && [ "$vmrun_rc" -ne 124 ]; then
	echo "ok $n vmrun reports the failure (exit $vmrun_rc)"
else
	echo "not ok $n vmrun reports the failure # exit $vmrun_rc"
	fail=1
fi
exit $fail
