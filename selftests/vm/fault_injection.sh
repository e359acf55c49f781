#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that qspinlock_torture's detectors work, with a fault-injection
# build (make TORTURE_FAULTS=y):
#  - inject_fault=exclusion lets every 64th critical section run without
#    the lock: each torture type must report FAILURE (exclusion failures or
#    lost updates) instead of SUCCESS;
#  - inject_fault=stall makes one writer keep the lock: the stall watchdog
#    must report STALL with the lock word, and FAILURE, within stall_secs.
# and the lock library's own faults (pvq_locks.ko inject_fault=, reloaded
# for each run by lib_fault_runs.sh in the same guest), on the strict PV
# backend, where only a kick ends a halt:
#  - drop_kick (every 16th kick of a PV lock is dropped), for pvqspinlock,
#    pvqspinlock_unfair and pvticket, and skip_handoff (every 16th MCS
#    hand-over is withheld), for the queued types: the watchdog must report
#    STALL and FAILURE, its rescue must undo the fault (the library says how
#    many it injected) and the module must unload; once more for drop_kick
#    on pvqspinlock with a run that ends before the watchdog could fire: the
#    writers left in the lock after the end must be reported the same way;
#  - nmi_window (the NMI kick's window between a waiter's check and its
#    hlt left open to NMIs), for pvqspinlock with every lock taken with
#    interrupts off: the same;
#  - nmi_window_held (the same window held open, but closed by the NMIs as
#    always; not a fault): SUCCESS, with NMIs counted in the window;
#  - control: the same strict backend and fault build without a fault must
#    report SUCCESS for each PV type, with halts and kicks: the real
#    protocol loses no wakeup;
#  - inject_fault=bogus must be refused;
#  - inject_fault=irq_exclusion lets every 16th interrupt-context section
#    run without its lock (the writers keep theirs): the checks of the
#    interrupt-context sections must report FAILURE (one type suffices).
# With --backend kvm (on a testbed with KVM's PV unhalt, --testbed
# tcg-pvunhalt) the library's faults run on the kvm backend instead, every
# lock taken with interrupts off and two writers: there a waiter halts
# with interrupts off and only KVM_HC_KICK_CPU wakes it, so a dropped kick
# must be reported as a stall (with interrupts on, sti; hlt ends at the
# next tick, and a lost kick costs only that).  --lib-only: those alone.
#
# Host side: boots one guest at 2x overcommit and prints TAP.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
PROG=fault_injection
modules=
types=
secs=2
vcpus=4
host_cpus=0-1
backend=strict
lib_only=0
testbed=${PVQ_TESTBED:-$DEFAULT_TESTBED}

usage() {
	echo "usage: $0 --modules DIR --types \"T1 T2\" [--secs N] [--vcpus N] [--host-cpus LIST]"
	echo "          [--backend strict|kvm] [--lib-only] [--testbed NAME]"
}

while [ $# -gt 0 ]; do
	case $1 in
	--modules) modules=${2:-}; shift ;;
	--types) types=${2:-}; shift ;;
	--secs) secs=${2:-}; shift ;;
	--vcpus) vcpus=${2:-}; shift ;;
	--host-cpus) host_cpus=${2:-}; shift ;;
	--backend) backend=${2:-}; shift ;;
	--testbed) testbed=${2:-}; shift ;;
	--lib-only) lib_only=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
if [ -z "$modules" ] || [ -z "$types" ]; then
	usage_error "--modules and --types are needed"
fi
[[ $secs =~ ^[1-9][0-9]*$ && $vcpus =~ ^[1-9][0-9]*$ ]] ||
	usage_error "--secs and --vcpus: whole numbers from 1"
case $backend in
strict | kvm) ;;
*) usage_error "--backend: strict or kvm, not '$backend'" ;;
esac
is_testbed "$testbed" || usage_error "--testbed: '$testbed' is not one of: $TESTBEDS"

outdir=$ROOT/out/fault-injection$([ "$backend" = strict ] || echo "-$backend")
mkdir -p "$outdir"
console=$outdir/console.log
runs=()
stall_secs=3
irq_type=${types%% *}
if ((!lib_only)); then
	for t in $types; do
		runs+=(--run "torture_type=$t runtime_secs=$secs stat_interval=0 inject_fault=exclusion")
	done
	for t in $types; do
		runs+=(--run "torture_type=$t runtime_secs=60 stall_secs=$stall_secs stat_interval=0 inject_fault=stall")
	done
	runs+=(--run "torture_type=$irq_type runtime_secs=$secs stat_interval=0 irq_mode=hardirq inject_fault=irq_exclusion")
fi

# The library's faults: one line "LIB PARAMS|TORTURE PARAMS" per run, in
# the order lib_fault_runs.sh numbers them; lib_runs[i] says what run i+1
# must show ("fault FAULT TYPE [end]", "held FAULT TYPE", "control TYPE"
# or "refused").
has_type() {
	[[ " $types " == *" $1 "* ]]
}
lib_lines=
lib_runs=()
# A small threshold: thousands of halts and kicks per second at 2x.
strict="pv_backend=$backend spin_threshold=64 queue_spin_threshold=64"
# On kvm, every lock taken with interrupts off (only the kick ends such a
# halt), by two writers, so that CPUs are left for the watchdog, loaded
# from writer 0's CPU (the watchdog must still run on a free one).
fault_torture=
fault_cpu=
if [ "$backend" = kvm ]; then
	fault_torture=" irqs_disabled=1 nwriters_stress=2"
	fault_cpu=0
fi
# Long enough for the fault to strike (well under a second) and the
# watchdog to see it; a run that gets to the end has missed it.  Waits of
# a healthy run stay under 0.5 s, so 2 s is safe and saves time.
fault_secs=20
lib_stall_secs=2
# add_lib_run LIB_PARAMS TORTURE_PARAMS WHAT [CPU]: CPU loads the torture
# module (lib_fault_runs.sh).
add_lib_run() {
	lib_lines+="$1|$2${4:+|$4}"$'\n'
	lib_runs+=("$3")
}
for fault in drop_kick skip_handoff; do
	case $fault in
	drop_kick) ftypes="pvqspinlock pvqspinlock_unfair pvticket" ;;
	skip_handoff) ftypes="qspinlock pvqspinlock pvqspinlock_unfair" ;;
	esac
	for t in $ftypes; do
		has_type "$t" || continue
		add_lib_run "$strict inject_fault=$fault" \
			"torture_type=$t runtime_secs=$fault_secs stall_secs=$lib_stall_secs stat_interval=0$fault_torture" \
			"fault $fault $t" $fault_cpu
	done
done
# The NMI kick's window left open (nmi_window): every writer's lock taken
# with interrupts off, so that waiters halt there and an NMI kick that
# lands between a waiter's check and its hlt is lost.  Two writers on the
# four vCPUs: a waiter that lost its NMI halts with interrupts off, the
# other writer queues behind it and halts the same way, and only CPUs
# left free can run the watchdog (with a writer on every CPU the guest
# goes silent).  The module is loaded from CPU 0, writer 0's: the
# watchdog must still run on a free CPU, not where the load happened (it
# did, and then saw the stall only after the end, or never).
if has_type pvqspinlock && [ "$backend" = strict ]; then
	add_lib_run "$strict inject_fault=nmi_window" \
		"torture_type=pvqspinlock irqs_disabled=1 nwriters_stress=2 runtime_secs=$fault_secs stall_secs=$lib_stall_secs stat_interval=0" \
		"fault nmi_window pvqspinlock" 0
fi
# The same window held open, but closed by the NMIs as always
# (nmi_window_held, not a fault): the run must succeed, with NMIs counted
# in the window (nmi_window).  Before the NMI handler set the frame that
# IRET returns through, such an NMI returned into the window, and its
# waiter halted for good.
if has_type pvqspinlock && [ "$backend" = strict ]; then
	add_lib_run "$strict inject_fault=nmi_window_held" \
		"torture_type=pvqspinlock irqs_disabled=1 nwriters_stress=2 runtime_secs=$secs stall_secs=$lib_stall_secs stat_interval=0" \
		"held nmi_window pvqspinlock" 0
fi
# The run ends (after $secs s) long before stall_secs (30): the writers that
# stealers left behind in the queue are caught at the end.  Without the
# pass bound (pass_bound=0) only: with it, the stealers are refused soon
# after the dropped kick and queue behind the halted head too, no CPU is
# left to end the run, and the watchdog reports the stall during the run
# (the drop_kick runs above, which must show the bound's refusals).
if has_type pvqspinlock && [ "$backend" = strict ]; then
	add_lib_run "$strict inject_fault=drop_kick pass_bound=0" \
		"torture_type=pvqspinlock runtime_secs=$secs stat_interval=0" \
		"fault drop_kick pvqspinlock end"
fi
for t in pvqspinlock pvqspinlock_unfair pvticket; do
	has_type "$t" || continue
	add_lib_run "$strict inject_fault=none" \
		"torture_type=$t runtime_secs=$secs stat_interval=0$fault_torture" \
		"control $t" $fault_cpu
done
add_lib_run "inject_fault=bogus" "" refused
lib_timeout=0
for r in "${lib_runs[@]}"; do
	case $r in
	fault*) lib_timeout=$((lib_timeout + fault_secs + 30)) ;;
	*) lib_timeout=$((lib_timeout + secs + 15)) ;;
	esac
done

# Each run is two words of runs (--run PARAMS).
nruns=$((${#runs[@]} / 2))
# vmrun must fail here (the runs report FAILURE); what matters is each verdict.
"$ROOT/tools/vmrun" --modules "$modules" --vcpus "$vcpus" --host-cpus "$host_cpus" \
	--testbed "$testbed" \
	--timeout $((120 + nruns * (secs + stall_secs + 30) + lib_timeout)) \
	--quiet --outdir "$outdir" --console "$console" "${runs[@]}" \
	--guest-script "$ROOT/selftests/vm/lib_fault_runs.sh" \
	--guest-env "FAULT_RUNS=$lib_lines"
vmrun_rc=$?

# The console of library run $1, timestamps and CRs removed.
lib_run_log() {
	console_text "$console" | sed -n "/^fault-run $1 start:/,/^fault-run $1 done/p"
}

# Value of key $2 on the summary line in $1 ("" if absent).
summary_kv() {
	grep -a -- "-torture: summary:" <<<"$1" | tail -n 1 |
		grep -oE "(^| )$2=[^ ]*" | head -n 1 | sed 's/.*=//'
}

# Sum of the summary counters $2... in log $1 (0 for absent ones).
summary_sum() {
	local log=$1 sum=0 k v
	shift
	for k in "$@"; do
		v=$(summary_kv "$log" "$k")
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# A kick dropped to a halted queue head of a PV queued lock: with the pass
# bound (default), stealers must have been refused (pass_bound > 0); in
# the run without it ($4 = end, pass_bound=0) none may be.  Log $1, fault
# $2, type $3.  Prints what it saw (", ..."), or why it fails (status 1).
check_pass_bound() {
	local log=$1 fault=$2 t=$3 how=$4 refused
	case $fault/$t in
	drop_kick/pvqspinlock | drop_kick/pvqspinlock_unfair) ;;
	*) return 0 ;;
	esac
	refused=$(summary_kv "$log" pass_bound)
	if [ -z "$refused" ]; then
		echo "no pass_bound counter in the summary"
		return 1
	elif [ "$how" = end ] && [ "$refused" -ne 0 ]; then
		echo "pass_bound=0 (no bound) yet $refused steals refused"
		return 1
	elif [ "$how" != end ] && [ "$refused" -eq 0 ]; then
		echo "no steal refused at the pass bound: stealers kept passing the halted head"
		return 1
	fi
	echo ", $refused steals refused at the pass bound"
}

# Check library run $1 ($2: what it must show); prints "ok"-line text, or
# "FAIL reason".
check_lib_run() {
	local i=$1 what=$2 log kind fault t how halts kicks bound window
	log=$(lib_run_log "$i")
	read -r kind fault t how <<<"$what"
	[ "$kind" = control ] && t=$fault
	if [ -z "$log" ] || ! grep -q "^fault-run $i done" <<<"$log"; then
		echo "FAIL run $i did not finish"
		return
	fi
	case $kind in
	refused)
		if grep -q "^fault-run $i lib status 0$" <<<"$log"; then
			echo "FAIL insmod pvq_locks inject_fault=bogus succeeded"
		elif ! grep -q "unknown inject_fault 'bogus'; valid in this build: none" <<<"$log"; then
			echo "FAIL no message naming the valid values"
		else
			echo "refused with -EINVAL and the valid values"
		fi
		return
		;;
	esac
	if ! grep -q "^fault-run $i lib status 0$" <<<"$log"; then
		echo "FAIL pvq_locks did not load"
	elif [ "$kind" = fault ]; then
		if [ "$how" = end ] &&
		   ! grep -q "^$t-torture: STALL: .* after the end" <<<"$log"; then
			echo "FAIL no STALL report after the end of the run"
		elif ! grep -q "^$t-torture: STALL: " <<<"$log"; then
			echo "FAIL no STALL report"
		elif [ "$how" != end ] &&
		     grep -q "^$t-torture: STALL: .* after the end" <<<"$log"; then
			echo "FAIL STALL reported only after the end of the run: the watchdog did not see it in $fault_secs s"
		elif ! grep -q -- "^$t-torture: --- End of test: FAILURE" <<<"$log"; then
			echo "FAIL no FAILURE verdict"
		elif ! grep -qE "^pvq_locks: inject_fault=$fault: [1-9][0-9]* faults injected" <<<"$log"; then
			echo "FAIL the library injected no fault (or no rescue)"
		elif ! grep -q "^fault-run $i rmmod status 0$" <<<"$log"; then
			echo "FAIL the rescue did not free the writers (rmmod failed)"
		elif ! bound=$(check_pass_bound "$log" "$fault" "$t" "$how"); then
			echo "FAIL $bound"
		else
			echo "run of $(summary_kv "$log" msecs) ms, $(grep -m 1 "^$t-torture: STALL: " <<<"$log" | sed 's/.*-torture: //')$bound"
		fi
		return
	fi
	# control, held
	case $t in
	pvticket) halts=$(summary_sum "$log" taken_slow)
		kicks=$(summary_sum "$log" released_slow_kicked) ;;
	*) halts=$(summary_sum "$log" wait_node wait_head wait_again)
		kicks=$(summary_sum "$log" kick_unlock) ;;
	esac
	if grep -q "^$t-torture: STALL: " <<<"$log"; then
		echo "FAIL lost wakeup: $(grep -m 1 "^$t-torture: STALL: " <<<"$log")"
	elif grep -aqE 'WARNING:|BUG:|Oops|soft lockup|rcu: INFO' <<<"$log"; then
		echo "FAIL kernel: $(grep -aE -m 1 'WARNING:|BUG:|Oops|soft lockup|rcu: INFO' <<<"$log")"
	elif ! grep -q -- "^$t-torture: --- End of test: SUCCESS" <<<"$log" ||
	     [ "$(summary_kv "$log" result)" != SUCCESS ]; then
		echo "FAIL no SUCCESS verdict"
	elif ! grep -q "^fault-run $i rmmod status 0$" <<<"$log"; then
		echo "FAIL rmmod failed (writers stuck?)"
	elif [ "$halts" -eq 0 ] || [ "$kicks" -eq 0 ]; then
		echo "FAIL nothing halted or kicked (halts=$halts kicks=$kicks)"
	elif [ "$kind" = held ]; then
		window=$(summary_sum "$log" nmi_window)
		if [ "$window" -eq 0 ]; then
			echo "FAIL no NMI landed in the held window (nmi_window=0)"
		else
			echo "SUCCESS, $window NMIs in the held window returned past the hlt, halts=$halts kicks=$kicks"
		fi
	else
		echo "SUCCESS, halts=$halts kicks=$kicks spurious=$(summary_kv "$log" spurious)"
	fi
}

tap_start
for t in $types; do
	((lib_only)) && break
	summary=$(grep -a "$t-torture: summary:" "$console" | head -n 1)
	if grep -aq "$t-torture: --- End of test: FAILURE" "$console" &&
	   [[ $summary =~ result=FAILURE ]] &&
	   ! [[ $summary =~ fail=0\ lost=0 ]]; then
		counts=$(grep -oE 'fail=[0-9]+ lost=[0-9]+' <<<"$summary")
		ok "fault exclusion detected: $t ($counts)"
	else
		not_ok "fault exclusion detected: $t" "no FAILURE report"
	fi
done
# The second run of each type is the stall run: its report must show the
# watchdog's STALL line, the lock word, and FAILURE.
for t in $types; do
	((lib_only)) && break
	log=$(sed -n "/$t-torture: FAULT INJECTION BUILD: inject_fault=stall/,/$t-torture: --- End of test/p" "$console")
	if grep -aq "$t-torture: STALL: " <<<"$log" &&
	   grep -aqE "$t-torture: lock 0: (lock )?word" <<<"$log" &&
	   grep -aq "$t-torture: --- End of test: FAILURE" <<<"$log"; then
		ok "stall detected: $t"
	else
		not_ok "stall detected: $t" "no STALL report with lock word and FAILURE"
	fi
done
# The last run: only interrupt-context sections skip their lock.
((lib_only)) || {
log=$(sed -n "/$irq_type-torture: FAULT INJECTION BUILD: inject_fault=irq_exclusion/,/$irq_type-torture: --- End of test/p" "$console")
summary=$(grep -a "$irq_type-torture: summary:" <<<"$log" | head -n 1)
if grep -aq "$irq_type-torture: --- End of test: FAILURE" <<<"$log" &&
   [[ $summary =~ result=FAILURE ]] && ! [[ $summary =~ fail=0\ lost=0 ]] &&
   ! [[ $summary =~ hardirq_acq=0 ]]; then
	counts=$(grep -oE 'fail=[0-9]+ lost=[0-9]+' <<<"$summary")
	ok "fault irq_exclusion detected: $irq_type ($counts)"
else
	not_ok "fault irq_exclusion detected: $irq_type" "no FAILURE report"
fi
}
for i in "${!lib_runs[@]}"; do
	what=${lib_runs[i]}
	case $what in
	*end) name="lib fault ${what#fault } of run detected (pv_backend=$backend)" ;;
	fault*) name="lib fault ${what#fault } detected (pv_backend=$backend${fault_torture:+,$fault_torture})" ;;
	control*) name="lib $backend control ${what#control }: no lost wakeup${fault_torture:+ (${fault_torture# })}" ;;
	held*) name="lib ${what#held } window held open: no lost wakeup (pv_backend=$backend)" ;;
	refused) name="lib refuses inject_fault=bogus" ;;
	esac
	res=$(check_lib_run $((i + 1)) "$what")
	if [[ $res == FAIL* ]]; then
		not_ok "$name" "${res#FAIL }"
	else
		ok "$name: $res"
	fi
done
if [ "$vmrun_rc" -ne 0 ] && [ "$vmrun_rc" -ne 124 ]; then
	ok "vmrun reports the failure (exit $vmrun_rc)"
else
	not_ok "vmrun reports the failure" "exit $vmrun_rc"
fi
tap_end
