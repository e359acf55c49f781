#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# torture_smoke.sh - kselftest-style TAP smoke test of qspinlock_torture.ko.
# Runs INSIDE the guest (busybox sh, POSIX only), normally started by
# tools/vmrun --guest-script. Environment:
#   TYPES   space separated torture types (default: "spin_lock ticket tas qspinlock")
#   SECS    runtime_secs per type (default: 3)
#   MODDIR  where the .ko files are (default: $VMRUN_MODULES or /modules)
#   FAIRNESS_TYPES  types whose Writes: line must not flag unfairness
#           ("???": a thread did more than twice the acquisitions of another)
#   FAIRNESS_SECS  runtime_secs of those types' plain runs, the first run
#           of each type (default: SECS);
#           longer runs average out how unevenly the host shares its CPUs
#           among overcommitted vCPUs over a few seconds
#   PV_TESTS 1: also the paravirtual checks (when pvticket/pvqspinlock are
#           among TYPES): irq-disabled use, non-zero halt/kick counters,
#           pv_backend=none, every PV type on pv_backend=strict (no lost
#           wakeup), refused backends and thresholds, and no inject_fault
#           in this (non-fault) build
#   HOTPLUG_TESTS 1: also one run per type with CPU hotplug (onoff_interval)
#           and the refused hotplug parameters
#   HARDENED_TESTS 1: also the hardened runs: every type with locks taken
#           from softirq, hardirq and NMI context and nested writer locks
#           (irq_mode=mixed nested_locks=2 nlocks=4), the MCS nesting
#           levels of qspinlock and pvqspinlock, refused irq_mode and
#           nested_locks values
#   STRICT_HARDENED_TESTS 1: also the hardened runs of every PV type on
#           pv_backend=strict, where only a kick ends a halt: with locks
#           taken in NMI context, nested locks and softirq waits between a
#           kicker's count and its IPI, no wakeup may be lost (the old
#           consuming kick flag stalled pvqspinlock here at 4x)
# Exit status: 0 if every test passed, 1 otherwise.

set -u
# Module parameters are split on blanks but must never be globbed.
set -f

TYPES=${TYPES:-spin_lock ticket tas qspinlock}
SECS=${SECS:-3}
FAIRNESS_SECS=${FAIRNESS_SECS:-$SECS}
MODDIR=${MODDIR:-${VMRUN_MODULES:-/modules}}
TORTURE_KO=$MODDIR/qspinlock_torture.ko
LIB_KO=$MODDIR/pvq_locks.ko
LOG=/tmp/torture_smoke.log
# Kernel messages that fail a run whatever the module reports.
SPLAT_RE='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|soft lockup|hard LOCKUP|rcu: INFO|self-detected stall|detected stalls'

test_no=0
pass=0
fail=0

ok() {
	test_no=$((test_no + 1))
	pass=$((pass + 1))
	echo "ok $test_no $1"
}

not_ok() {
	test_no=$((test_no + 1))
	fail=$((fail + 1))
	echo "not ok $test_no $1 # $2"
}

diag() {
	echo "# $*"
}

is_loaded() {
	grep -q "^$1 " /proc/modules
}

# A run that failed half way may leave the module behind; the next insmod
# would then fail with EEXIST and blame the wrong test.
unload_torture() {
	if is_loaded qspinlock_torture; then
		rmmod qspinlock_torture
		return
	fi
	return 0
}

# insmod the torture module with "$@" (one parameter per word) and keep the
# kernel log of just that insmod in $LOG. Returns insmod's status.
torture_insmod() {
	dmesg -c >/dev/null
	insmod "$TORTURE_KO" "$@" >/dev/null 2>&1
	rc=$?
	dmesg >"$LOG"
	return $rc
}

# Last log line containing $1 ("" if none). The torture module may print
# periodic statistics; the final ones come last.
last_line() {
	grep -F -- "$1" "$LOG" | tail -n 1
}

# Value of key $2 in a "k=v k=v" string $1 ("" if absent).
kv() {
	for pair in $1; do
		case $pair in
		"$2"=*)
			echo "${pair#*=}"
			return
			;;
		esac
	done
}

is_uint() {
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
	return 0
}

# Expect insmod with the given parameters to be refused, and (if $1 is not
# empty) the kernel log to mention $1. $2 is the test name.
expect_refused() {
	mention=$1
	name=$2
	shift 2
	if torture_insmod "$@"; then
		unload_torture
		not_ok "$name" "insmod $* succeeded"
	elif [ -n "$mention" ] && ! grep -qF -- "$mention" "$LOG"; then
		not_ok "$name" "kernel log does not mention '$mention'"
	else
		ok "$name"
	fi
}

# Check the log of a finished run of type $1. Prints the reason of the first
# failed check and returns 1, or prints the summary key=values and returns 0.
check_report() {
	t=$1
	# A splat during the run fails it even if the module's own report is
	# clean: the lock may have corrupted something it does not check.
	splat=$(grep -E -m 1 "$SPLAT_RE" "$LOG" | sed 's/^\[[ 0-9.]*\] //')
	if [ -n "$splat" ]; then
		echo "kernel: $splat"
		return 1
	fi
	if ! grep -qF -- "--- End of test: SUCCESS" "$LOG"; then
		echo "no '--- End of test: SUCCESS' line"
		return 1
	fi
	writes=$(last_line "Writes:")
	if [ -z "$writes" ]; then
		echo "no Writes: line"
		return 1
	fi
	case $writes in
	*'!!!'*)
		echo "Writes: line flags '!!!'"
		return 1
		;;
	*'???'*)
		case " ${FAIRNESS_TYPES:-} " in
		*" $t "*)
			echo "Writes: line flags '???' (starvation bound not kept)"
			return 1
			;;
		esac
		;;
	esac
	total=$(echo "$writes" | sed -n 's/.*Total: *\([0-9][0-9]*\).*/\1/p')
	wfail=$(echo "$writes" | sed -n 's/.*Fail: *\([0-9][0-9]*\).*/\1/p')
	if ! is_uint "$total" || [ "$total" -eq 0 ]; then
		echo "Writes: Total is '$total'"
		return 1
	fi
	if [ "$wfail" != 0 ]; then
		echo "Writes: Fail is '$wfail'"
		return 1
	fi
	summary=$(last_line "-torture: summary:")
	if [ -z "$summary" ]; then
		echo "no summary line"
		return 1
	fi
	summary=${summary#*-torture: summary:}
	stype=$(kv "$summary" type)
	acq=$(kv "$summary" acq)
	sfail=$(kv "$summary" fail)
	lost=$(kv "$summary" lost)
	result=$(kv "$summary" result)
	if [ "$stype" != "$t" ]; then
		echo "summary type=$stype, expected $t"
	elif ! is_uint "$acq" || [ "$acq" -eq 0 ]; then
		echo "summary acq=$acq"
	elif [ "$sfail" != 0 ]; then
		echo "summary fail=$sfail"
	elif [ "$lost" != 0 ]; then
		echo "summary lost=$lost"
	elif [ "$result" != SUCCESS ]; then
		echo "summary result=$result"
	else
		echo "$summary"
		return 0
	fi
	return 1
}

# test_type TYPE [PARAM...]: one torture run, checked; extra parameters
# become part of the test name.  Returns 1 when the test failed; the run's
# log stays in $LOG.
test_type() {
	t=$1
	shift
	name="torture $t${*:+ $*}${TEST_NOTE:-}"
	unload_torture
	if ! torture_insmod "torture_type=$t" "runtime_secs=${RUN_SECS:-$SECS}" "$@"; then
		not_ok "$name" "insmod failed (status $rc)"
		return 1
	fi
	if ! out=$(check_report "$t"); then
		unload_torture
		not_ok "$name" "$out"
		return 1
	fi
	# An extra check of the summary, if the caller set one.
	if [ -n "${EXTRA_CHECK:-}" ] && ! why=$($EXTRA_CHECK "$out"); then
		unload_torture
		not_ok "$name" "$why"
		return 1
	fi
	if ! unload_torture; then
		not_ok "$name" "rmmod failed"
		return 1
	fi
	diag "$t:$out"
	ok "$name"
}

# Load the lock library with its defaults, unless it is loaded already.
load_lib() {
	is_loaded pvq_locks && return 0
	insmod "$LIB_KO"
}

# Reload the lock library with "$@"; its load messages end up in $LOG.
reload_lib() {
	unload_torture
	is_loaded pvq_locks && rmmod pvq_locks
	dmesg -c >/dev/null
	insmod "$LIB_KO" "$@" >/dev/null 2>&1
	rc=$?
	dmesg >"$LOG"
	return $rc
}

EVENTS=/sys/kernel/debug/pvq_locks/lock_events
THRESHOLD=/sys/module/pvq_locks/parameters/spin_threshold

# Value of lock event $1 in the debugfs file ("" if absent).
event() {
	sed -n "s/^$1 //p" "$EVENTS"
}

# Counters of a PV type's run must show that it really halted and kicked:
# with a small spin threshold at 2x overcommit both happen thousands of
# times a second.
test_pv_counters() {
	t=$1
	halts=$2
	kicks=$3
	cname="lock_events $t: $halts and $kicks non-zero"
	if [ ! -r "$EVENTS" ]; then
		not_ok "$cname" "$EVENTS missing (LOCK_STATS=n build?)"
		return
	fi
	echo 64 >"$THRESHOLD"
	echo reset >"$EVENTS"
	TEST_NOTE=" (spin_threshold=64)"
	test_type "$t"
	TEST_NOTE=
	h=0
	for e in $halts; do h=$((h + $(event "$e"))); done
	k=$(event "$kicks")
	# The run's own summary line carries the same counters.
	sk=$(kv "$(last_line "-torture: summary:")" "$kicks")
	echo 32768 >"$THRESHOLD"
	if ! is_uint "$k" || [ "$h" -eq 0 ] || [ "$k" -eq 0 ]; then
		not_ok "$cname" "halts ($halts)=$h $kicks=$k"
	elif ! is_uint "$sk" || [ "$sk" -eq 0 ]; then
		not_ok "$cname" "summary line has $kicks=$sk"
	else
		ok "$cname"
		diag "$t: halts=$h $kicks=$k"
	fi
}

has_type() {
	case " $TYPES " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The PV types, each run on the strict backend by pv_strict_tests().
PV_STRICT_TYPES="pvqspinlock pvqspinlock_unfair pvticket"

# How many tests pv_tests() runs, for the plan.
pv_test_count() {
	n=0
	has_type pvqspinlock && n=$((n + 5))
	has_type pvticket && n=$((n + 5))
	[ "$n" -gt 0 ] || { echo 0; return; }
	n=$((n + 5))
	# pv_strict_tests(): load, two per type, inject_fault compiled out.
	for t in $PV_STRICT_TYPES; do
		has_type "$t" && n=$((n + 2))
	done
	echo $((n + 2))
}

# One run of PV type $1 on the strict backend: must succeed (a lost wakeup
# halts its waiter for good: the run ends with a STALL, or with writers
# stuck in the lock, and FAILURE), and must really have halted and kicked.
test_pv_strict() {
	t=$1
	case $t in
	pvticket) halts="taken_slow" kicks=released_slow_kicked ;;
	*) halts="wait_node wait_head" kicks=kick_unlock ;;
	esac
	cname="pv_backend=strict $t: $halts and $kicks non-zero"
	TEST_NOTE=" (pv_backend=strict)"
	test_type "$t"
	TEST_NOTE=
	summary=$(last_line "-torture: summary:")
	h=0
	for e in $halts; do
		v=$(kv "$summary" "$e")
		is_uint "$v" && h=$((h + v))
	done
	k=$(kv "$summary" "$kicks")
	if ! is_uint "$k" || [ "$h" -eq 0 ] || [ "$k" -eq 0 ]; then
		not_ok "$cname" "halts ($halts)=$h $kicks=$k"
	else
		ok "$cname"
		diag "$t strict: halts=$h $kicks=$k spurious=$(kv "$summary" spurious)"
	fi
}

# The strict backend: only a kick ends a halt (no tick does), so every
# wakeup the protocol loses shows.  A small threshold makes thousands of
# halts a second.  Then: this build must not know inject_fault (only a
# TORTURE_FAULTS=y build does; the kernel ignores unknown parameters).
pv_strict_tests() {
	if reload_lib pv_backend=strict spin_threshold=64 &&
	   grep -q "pv backend strict" "$LOG"; then
		ok "pv_backend=strict loads"
	else
		not_ok "pv_backend=strict loads" "insmod status $rc or no message"
	fi
	for t in $PV_STRICT_TYPES; do
		has_type "$t" && test_pv_strict "$t"
	done

	name="no inject_fault in a non-fault build"
	if ! reload_lib inject_fault=drop_kick; then
		not_ok "$name" "insmod pvq_locks inject_fault=drop_kick failed ($rc)"
	elif grep -q "FAULT INJECTION" "$LOG" ||
	     [ -e /sys/module/pvq_locks/parameters/inject_fault ]; then
		not_ok "$name" "the library takes inject_fault"
	elif ! grep -q "unknown parameter 'inject_fault' ignored" "$LOG"; then
		not_ok "$name" "no 'unknown parameter' message"
	else
		ok "$name"
	fi
}

pv_tests() {
	pv_types=
	for t in pvqspinlock pvticket; do
		has_type "$t" && pv_types="$pv_types $t"
	done
	[ -n "$pv_types" ] || return 0

	# Interrupts off: the ipi backend must spin, not halt, and not hang.
	for t in $pv_types; do
		test_type "$t" irqs_disabled=1
	done
	has_type pvqspinlock &&
		test_pv_counters pvqspinlock "wait_node wait_head" kick_unlock
	has_type pvticket &&
		test_pv_counters pvticket taken_slow released_slow_kicked

	# Pure spinning: the PV hooks alone, no halts.
	if reload_lib pv_backend=none && grep -q "pv backend none" "$LOG"; then
		ok "pv_backend=none loads"
	else
		not_ok "pv_backend=none loads" "insmod status $rc or no message"
	fi
	for t in $pv_types; do
		test_type "$t"
		test_type "$t" irqs_disabled=1
	done

	# The default, auto: TCG has no KVM PV unhalt but is a hypervisor
	# with more than one CPU, so ipi, and the log says why.
	if reload_lib && grep -q "pv backend ipi (no KVM PV unhalt" "$LOG"; then
		ok "pv_backend=auto picks ipi, and says why"
	else
		not_ok "pv_backend=auto picks ipi, and says why" \
			"$(grep "pv backend" "$LOG")"
	fi
	expect_lib_refused "pv_backend 'bogus'" "refuse pv_backend=bogus" 		pv_backend=bogus
	# Under TCG there is no KVM PV unhalt: refused as unavailable.
	expect_lib_refused "unavailable" "refuse pv_backend=kvm without KVM" 		pv_backend=kvm
	expect_lib_refused "spin_threshold" "refuse spin_threshold=0" 		spin_threshold=0
	pv_strict_tests
	reload_lib
}

expect_lib_refused() {
	mention=$1
	name=$2
	shift 2
	if reload_lib "$@"; then
		not_ok "$name" "insmod pvq_locks $* succeeded"
	elif ! grep -qF -- "$mention" "$LOG"; then
		not_ok "$name" "kernel log does not mention '$mention'"
	else
		ok "$name"
	fi
}

CPUS_ONLINE=/sys/devices/system/cpu/online

# Run "$@" with no type's fairness checked; returns its status.
without_fairness() {
	fairness_saved=${FAIRNESS_TYPES:-}
	FAIRNESS_TYPES=
	"$@"
	status=$?
	FAIRNESS_TYPES=$fairness_saved
	return $status
}

# The summary of a hotplug run ($1): CPUs went offline and came back, every
# one of them, no writer was stranded, and no kick went to an offline CPU.
check_hotplug() {
	min=$(kv "$1" min)
	offl=$(kv "$1" offl)
	onl=$(kv "$1" onl)
	left=$(kv "$1" offl_left)
	koff=$(kv "$1" kick_offline)
	now=$(cat "$CPUS_ONLINE")
	if [ -z "$offl" ] || [ -z "$onl" ] || [ -z "$left" ]; then
		echo "summary has no offl=/onl=/offl_left= keys"
	elif ! is_uint "${offl%/*}" || [ "${offl%/*}" -eq 0 ]; then
		echo "no CPU went offline (offl=$offl)"
	elif ! is_uint "${onl%/*}" || [ "${onl%/*}" -eq 0 ]; then
		echo "no CPU came back online (onl=$onl)"
	elif [ "$left" != 0 ]; then
		echo "offl_left=$left: CPUs left offline"
	elif [ "$now" != "$HOTPLUG_ONLINE" ]; then
		echo "online CPUs $now after the run, $HOTPLUG_ONLINE before"
	elif ! is_uint "$min" || [ "$min" -eq 0 ]; then
		echo "a writer made no progress (min=$min)"
	elif [ -n "$koff" ] && [ "$koff" != 0 ]; then
		echo "kick_offline=$koff: kicks aimed at offline CPUs"
	else
		return 0
	fi
	return 1
}

# How many tests hotplug_tests() runs, for the plan.
hotplug_test_count() {
	echo $(($1 + 4))
}

# CPU hotplug during a run of every type: a CPU goes offline or comes back
# every 200 ms from the start.  Fairness is not checked: the writers of a
# CPU that goes offline lose their binding and crowd the other CPUs, so
# per-thread counts then measure placement, not the lock.
hotplug_runs() {
	EXTRA_CHECK=check_hotplug
	for t in $TYPES; do
		test_type "$t" onoff_interval=200 onoff_holdoff=0
	done
	# A CPU goes offline at once and the next operation would come long
	# after the run: only the end of the run can bring it back.
	TEST_NOTE=" (CPU offline at the end)"
	test_type "$first_type" onoff_interval=60000
	TEST_NOTE=
	EXTRA_CHECK=
}

hotplug_tests() {
	HOTPLUG_ONLINE=$(cat "$CPUS_ONLINE")
	without_fairness hotplug_runs
	diag "online CPUs: $HOTPLUG_ONLINE before, $(cat "$CPUS_ONLINE") after"
	expect_refused "onoff_interval=60001 out of range" \
		"refuse onoff_interval=60001" \
		"torture_type=$first_type" runtime_secs=1 onoff_interval=60001
	expect_refused "onoff_interval=-1 out of range" \
		"refuse onoff_interval=-1" \
		"torture_type=$first_type" runtime_secs=1 onoff_interval=-1
	expect_refused "onoff_holdoff=3601 out of range" \
		"refuse onoff_holdoff=3601" \
		"torture_type=$first_type" runtime_secs=1 onoff_interval=100 \
		onoff_holdoff=3601
}

# The hardened runs: interrupt-context locks in every context, nested
# writer locks. See Documentation/torture.rst, "Interrupt context".
HARDENED_PARAMS="irq_mode=mixed nested_locks=2 nlocks=4"

# Types whose hardened run must show MCS nodes 2 and 3 in use.
is_nesting_type() {
	case $1 in
	qspinlock | pvqspinlock) return 0 ;;
	esac
	return 1
}

# How many tests hardened_tests() runs, for the plan.
hardened_test_count() {
	n=3
	for t in $TYPES; do
		n=$((n + 1))
		is_nesting_type "$t" && n=$((n + 1))
	done
	echo "$n"
}

# EXTRA_CHECK of a hardened run: locks taken in every interrupt context.
check_irq_contexts() {
	for key in softirq_acq hardirq_acq nmi_acq; do
		v=$(kv "$1" "$key")
		if ! is_uint "$v" || [ "$v" -eq 0 ]; then
			echo "summary $key=$v: no lock taken in that context"
			return 1
		fi
	done
}

# One hardened run of type $1: a clean report, and locks taken in every
# interrupt context.  Interrupt sections steal CPU time unevenly, so
# fairness is not checked.  Leaves the summary in $hsummary ("" on failure).
hardened_type() {
	hsummary=
	EXTRA_CHECK=check_irq_contexts
	TEST_NOTE=${HARDENED_NOTE:-" (hardened)"}
	# shellcheck disable=SC2086 # one parameter per word
	if without_fairness test_type "$1" $HARDENED_PARAMS; then
		hsummary=$(last_line "-torture: summary:")
	fi
	TEST_NOTE=
	EXTRA_CHECK=
}

# The queued types' hardened run ($2: its summary) must have queued with
# MCS nodes 2 and 3 (node_idx2, node_idx3): a softirq or hardirq waiting on
# top of a waiting task, and a third level on top of that.
check_nesting() {
	t=$1
	name="hardened $t: MCS nodes 2 and 3 used (node_idx2, node_idx3 > 0)"
	if [ -z "$2" ]; then
		not_ok "$name" "its hardened run failed"
		return
	fi
	i2=$(kv "$2" node_idx2)
	i3=$(kv "$2" node_idx3)
	if ! is_uint "$i2" || ! is_uint "$i3"; then
		not_ok "$name" "no node_idx2/node_idx3 on the summary line (LOCK_STATS=n build?)"
	elif [ "$i2" -eq 0 ] || [ "$i3" -eq 0 ]; then
		not_ok "$name" "node_idx2=$i2 node_idx3=$i3"
	else
		ok "$name"
		diag "$t: node_idx2=$i2 node_idx3=$i3 node_idx4=$(kv "$2" node_idx4)"
	fi
}

hardened_tests() {
	for t in $TYPES; do
		hardened_type "$t"
		is_nesting_type "$t" && check_nesting "$t" "$hsummary"
	done
	expect_refused "unknown irq_mode 'bogus'; valid: none hardirq softirq mixed" \
		"refuse irq_mode=bogus" \
		"torture_type=$first_type" runtime_secs=1 irq_mode=bogus
	expect_refused "nested_locks=9 out of range" "refuse nested_locks=9" \
		"torture_type=$first_type" runtime_secs=1 nested_locks=9 nlocks=16
	expect_refused "at most nlocks=2" "refuse nested_locks=3 with nlocks=2" \
		"torture_type=$first_type" runtime_secs=1 nested_locks=3 nlocks=2
}

# EXTRA_CHECK of the balance_writers run (verbose=1): the writers that
# share a CPU (writer i on the (i mod nproc)-th CPU) are within 1.2 of each
# other; a writer more than 1/8 + 1024 ahead sleeps, so this holds unless
# the balancing is broken.  Without it they were up to 1.29 apart at 4x.
check_balance() {
	worst=$(sed -n 's/.*-torture: writer \([0-9]*\): acquisitions=\([0-9]*\).*/\1 \2/p' "$LOG" |
		awk -v n="$(nproc)" '
		{ c = $1 % n; if (!(c in lo) || $2 < lo[c]) lo[c] = $2
		  if ($2 > hi[c]) hi[c] = $2; w++ }
		END {
			if (w <= n) { print "none"; exit }
			worst = 0
			for (c in lo) {
				if (lo[c] == 0) { print "inf " c; exit }
				r = hi[c] / lo[c]
				if (r > worst) { worst = r; wc = c }
			}
			printf "%.3f %d\n", worst, wc
		}')
	case $worst in
	none | "")
		echo "no CPU with two writers in the verbose report"
		return 1
		;;
	esac
	ratio=${worst% *}
	if awk -v r="$ratio" 'BEGIN { exit !(r == "inf" || r > 1.2) }'; then
		echo "writers of CPU ${worst#* } are $ratio apart (limit 1.2)"
		return 1
	fi
	if ! is_uint "$(kv "$1" turns)"; then
		echo "no turns= in the summary"
		return 1
	fi
}

# The type whose balance_writers run is checked: one that lets a running
# vCPU go on, so that the writers' counts follow their CPU time.
balance_type() {
	for t in pvqspinlock_unfair tas $first_type; do
		case " $TYPES " in
		*" $t "*)
			echo "$t"
			return
			;;
		esac
	done
}

# The hardened runs on the strict backend, one per PV type: a clean
# report with locks taken in every interrupt context (a lost wakeup halts
# its waiter for good: STALL, FAILURE or a hung run).
strict_hardened_test_count() {
	n=0
	for t in $PV_STRICT_TYPES; do
		has_type "$t" && n=$((n + 1))
	done
	[ "$n" -gt 0 ] && n=$((n + 1))
	echo "$n"
}

strict_hardened_tests() {
	if reload_lib pv_backend=strict spin_threshold=64 &&
	   grep -q "pv backend strict" "$LOG"; then
		ok "pv_backend=strict loads (hardened runs)"
	else
		not_ok "pv_backend=strict loads (hardened runs)" \
			"insmod status $rc or no message"
	fi
	HARDENED_NOTE=" (hardened, pv_backend=strict)"
	for t in $PV_STRICT_TYPES; do
		has_type "$t" || continue
		hardened_type "$t"
	done
	HARDENED_NOTE=
	reload_lib
}

main() {
	ntypes=0
	first_type=
	for t in $TYPES; do
		ntypes=$((ntypes + 1))
		first_type=${first_type:-$t}
	done

	npv=0
	[ "${PV_TESTS:-0}" = 1 ] && npv=$(pv_test_count)
	nhotplug=0
	[ "${HOTPLUG_TESTS:-0}" = 1 ] && nhotplug=$(hotplug_test_count "$ntypes")
	nhard=0
	[ "${HARDENED_TESTS:-0}" = 1 ] && nhard=$(hardened_test_count)
	nstrict=0
	[ "${STRICT_HARDENED_TESTS:-0}" = 1 ] &&
		nstrict=$(strict_hardened_test_count)
	echo "TAP version 13"
	echo "1..$((ntypes + 3 + npv + nhotplug + nhard + nstrict))"
	diag "types: $TYPES; runtime_secs=$SECS; $(nproc) cpus"

	if ! load_lib; then
		diag "insmod $LIB_KO failed; every test fails"
	fi
	unload_torture

	expect_refused bogus "refuse torture_type=bogus" \
		torture_type=bogus runtime_secs=1
	# Far more writer threads than any machine should get: must be refused
	# up front rather than trying to create them.
	expect_refused "" "refuse nwriters_stress=100000" \
		"torture_type=$first_type" runtime_secs=1 nwriters_stress=100000

	for t in $TYPES; do
		RUN_SECS=$SECS
		case " ${FAIRNESS_TYPES:-} " in
		*" $t "*) RUN_SECS=$FAIRNESS_SECS ;;
		esac
		test_type "$t"
	done
	RUN_SECS=
	EXTRA_CHECK=check_balance
	test_type "$(balance_type)" verbose=1 balance_writers=1
	EXTRA_CHECK=
	[ "$npv" -gt 0 ] && pv_tests
	[ "$nhotplug" -gt 0 ] && hotplug_tests
	[ "$nhard" -gt 0 ] && hardened_tests
	[ "$nstrict" -gt 0 ] && strict_hardened_tests

	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}

main
