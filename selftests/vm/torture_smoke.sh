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
#           pv_backend=none (the PV queued types run native: no PV
#           event moves; pvq_fastpath.ko times every type), every PV
#           type on pv_backend=strict (no lost
#           wakeup), refused backends and thresholds, and no inject_fault
#           in this (non-fault) build
#   HOTPLUG_TESTS 1: also one run per type with CPU hotplug (onoff_interval_ms)
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
#   NMI_TESTS 1: also the NMI kick, on pv_backend=nmi and strict (which
#           uses it): every PV type with every writer's lock taken with
#           interrupts off (its waiters halt, and NMI kicks must have woken
#           them), the hardened runs and CPU hotplug with interrupts off;
#           and pv_backend=ipi (the IPI kick alone: the default suite runs
#           on auto, i.e. nmi under TCG)
#   KVM_TESTS 1: also the kvm backend, on a testbed that offers KVM's PV
#           unhalt (tcg-pvunhalt, Documentation/testbeds.rst): auto picks
#           it; every PV type with interrupts on and off (waiters with
#           interrupts off halt, and only the hypercall wakes them), the
#           hardened runs, and CPU hotplug with interrupts off (waiters on
#           CPUs coming up and going down halt, and are kicked)
# Exit status: 0 if every test passed, 1 otherwise.
#
# The plan ("1..N") comes last, after the tests (TAP 13): nothing counts
# the tests ahead.  The uniform scenarios (refused parameters, runs of each
# type, the lock library's backends) are tables, one line each,
# "name | parameters | expected outcome", that run_table() interprets; the
# checks that are more than a run and its report are code.
#
# Its own ok/not_ok/diag, not tools/lib/functions.sh's: this runs under the
# guest's busybox sh, with only what vmrun puts beside it: the lock's event
# counters are read through /vmrun/lock-events.sh (tools/lib/).

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

# Where run_test() keeps the summary of a type's last passed run.
SUMMARY_DIR=/tmp/summary

# run_test NAME TYPE [PARAM...]: one torture run of TYPE with the extra
# parameters, checked: a clean report, and EXTRA_CHECK's check of the
# summary if set; runtime_secs=RUN_SECS (default SECS).  Returns 1 when the
# test failed; the run's log stays in $LOG, the summary of a passed run in
# $SUMMARY_DIR/TYPE.
run_test() {
	name=$1
	t=$2
	shift 2
	mkdir -p "$SUMMARY_DIR"
	rm -f "$SUMMARY_DIR/$t"
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
	echo "$out" >"$SUMMARY_DIR/$t"
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

# shellcheck source=tools/lib/lock-events.sh
. /vmrun/lock-events.sh
THRESHOLD=/sys/module/pvq_locks/parameters/spin_threshold
QUEUE_THRESHOLD=/sys/module/pvq_locks/parameters/queue_spin_threshold

# Value of lock event $1 ("" if absent).
event() {
	lock_events_show | sed -n "s/^$1 //p"
}

# The module's lock event counters exist (a LOCK_STATS=y build); else
# test $1 fails.
events_readable() {
	[ "$(lock_events_source)" = module ] && return 0
	not_ok "$1" "$LOCK_EVENTS_MODULE missing (LOCK_STATS=n build?)"
	return 1
}

# Counters of a PV type's run must show that it really halted and kicked:
# with a small spin threshold at 2x overcommit both happen thousands of
# times a second.
test_pv_counters() {
	t=$1
	halts=$2
	kicks=$3
	cname="lock_events $t: $halts and $kicks non-zero"
	events_readable "$cname" || return
	echo 64 >"$THRESHOLD"
	echo 64 >"$QUEUE_THRESHOLD"
	lock_events_reset
	run_test "torture $t (spin_threshold=64)" "$t"
	h=0
	for e in $halts; do h=$((h + $(event "$e"))); done
	k=$(event "$kicks")
	# The run's own summary line carries the same counters.
	sk=$(kv "$(last_line "-torture: summary:")" "$kicks")
	echo 32768 >"$THRESHOLD"
	echo 256 >"$QUEUE_THRESHOLD"
	if ! is_uint "$k" || [ "$h" -eq 0 ] || [ "$k" -eq 0 ]; then
		not_ok "$cname" "halts ($halts)=$h $kicks=$k"
	elif ! is_uint "$sk" || [ "$sk" -eq 0 ]; then
		not_ok "$cname" "summary line has $kicks=$sk"
	else
		ok "$cname"
		diag "$t: halts=$h $kicks=$k"
	fi
}

# pv_backend=none (loaded by the caller): the PV queued type $1 runs as
# the native qspinlock, so no event of the PV protocol may move.
test_pv_native() {
	t=$1
	cname="pv_backend=none: $t runs native (no halt, hash, kick or steal)"
	events_readable "$cname" || return
	lock_events_reset
	without_fairness run_test "torture $t (pv_backend=none)" "$t"
	moved=""
	for e in wait_node wait_head wait_again kick_unlock kick_wake \
		spurious hash_hops lock_stealing steal_block unfair_steal; do
		n=$(event "$e")
		[ "${n:-0}" = 0 ] || moved="$moved $e=$n"
	done
	if [ -n "$moved" ]; then
		not_ok "$cname" "moved:$moved"
	elif [ "$(event slowpath)" = 0 ]; then
		not_ok "$cname" "no slow path at all: nothing was contended"
	else
		ok "$cname"
		diag "$t none: slowpath=$(event slowpath) pending=$(event pending)"
	fi
}

# pvq_fastpath.ko (bench/kfastpath.c, tools/kfastpath) times every built
# type's uncontended pair: a line per type, then "done"; a parameter out of
# range is refused.  Its figures are for tools/kfastpath, not judged here.
test_fastpath_module() {
	name="pvq_fastpath.ko times every built type"
	dmesg -c >/dev/null
	if ! insmod "$MODDIR/pvq_fastpath.ko" pairs=2000 reps=3; then
		not_ok "$name" "insmod failed"
		return
	fi
	rmmod pvq_fastpath
	dmesg >"$LOG"
	missing=""
	for t in $TYPES; do
		[ "$t" = spin_lock ] && continue
		grep -q "pvq_fastpath: $t median [0-9.]* min" "$LOG" ||
			missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		not_ok "$name" "no line for:$missing"
	elif ! grep -q "pvq_fastpath: done" "$LOG"; then
		not_ok "$name" "no 'done' line"
	else
		ok "$name"
	fi
	name="pvq_fastpath.ko refuses reps=0"
	dmesg -c >/dev/null
	if insmod "$MODDIR/pvq_fastpath.ko" reps=0 2>/dev/null; then
		rmmod pvq_fastpath
		not_ok "$name" "loaded"
	elif ! dmesg | grep -q "reps=0 out of range"; then
		not_ok "$name" "no 'out of range' message"
	else
		ok "$name"
	fi
}

has_type() {
	case " $TYPES " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The PV types, each run on the strict backend by pv_tests().
PV_STRICT_TYPES="pvqspinlock pvqspinlock_unfair pvticket"

# The types of {SET} in a table's parameters, those of TYPES, in order.
types_of() {
	case $1 in
	types) echo "$TYPES" ;;
	first) echo "$first_type" ;;
	balance) balance_type ;;
	pv) set_of "pvqspinlock pvticket" ;;
	strict) set_of "$PV_STRICT_TYPES" ;;
	*) echo "bad type set {$1}" >&2 ;;
	esac
}

set_of() {
	for st in $1; do
		has_type "$st" && printf '%s ' "$st"
	done
	echo
}

# Strip the blanks at both ends of the variable named $1.
trim() {
	eval "tv=\$$1"
	tv=${tv#"${tv%%[! ]*}"}
	tv=${tv%"${tv##*[! ]}"}
	eval "$1=\$tv"
}

# run_table 3<<EOF: the scenarios of a table, one a line (blank lines and
# "#" comments skipped):
#
#   name | parameters | expected outcome
#
# parameters: module parameters, one a word.  A row whose parameters hold
#   torture_type={SET} runs once for each type of the set (none: not at
#   all), {t} in its name standing for the type: {types} (TYPES), {first}
#   (the first of TYPES), {balance} (balance_type), {pv} (pvqspinlock and
#   pvticket), {strict} (PV_STRICT_TYPES), the last two as far as in TYPES.
# expected outcome:
#   refused [TEXT]     insmod qspinlock_torture is refused (and the kernel
#                      log mentions TEXT)
#   lib refused TEXT   insmod pvq_locks (reloaded) is refused, log mentions
#                      TEXT
#   lib loads TEXT     pvq_locks, reloaded, loads and its log mentions TEXT
#   pass [WORD...]     the torture run (runtime_secs=SECS added) ends with
#                      a clean report; WORDs: fair-secs (FAIRNESS_SECS for a
#                      type of FAIRNESS_TYPES), no-fairness (no type's
#                      fairness checked), check_*: a function that must
#                      also pass the summary (EXTRA_CHECK of run_test)
# The table is read from descriptor 3, so that no command of a test can
# eat it from standard input.
TYPE_MARK='{t}'
run_table() {
	while IFS='|' read -r row_name row_params row_expect <&3; do
		trim row_name
		case $row_name in
		'' | '#'*) continue ;;
		esac
		trim row_params
		trim row_expect
		row_set=
		for w in $row_params; do
			case $w in
			'torture_type={'*'}') row_set=${w#"torture_type={"} ;;
			esac
		done
		if [ -z "$row_set" ]; then
			# shellcheck disable=SC2086 # one parameter per word
			run_row "$row_name" "$row_expect" "" $row_params
			continue
		fi
		for row_t in $(types_of "${row_set%?}"); do
			row_p=
			for w in $row_params; do
				case $w in
				'torture_type={'*'}') w=torture_type=$row_t ;;
				esac
				row_p="$row_p $w"
			done
			w=$row_name
			case $w in
			*"$TYPE_MARK"*) w=${w%%"$TYPE_MARK"*}$row_t${w#*"$TYPE_MARK"} ;;
			esac
			# shellcheck disable=SC2086 # one parameter per word
			run_row "$w" "$row_expect" "$row_t" $row_p
		done
	done
}

# run_row NAME EXPECTED TYPE PARAM...: one scenario of a table.
run_row() {
	rname=$1
	rexpect=$2
	rtype=$3
	shift 3
	case $rexpect in
	refused*)
		rexpect=${rexpect#refused}
		expect_refused "${rexpect# }" "$rname" "$@"
		;;
	"lib refused "*)
		expect_lib_refused "${rexpect#lib refused }" "$rname" "$@"
		;;
	"lib loads "*)
		expect_lib_loads "${rexpect#lib loads }" "$rname" "$@"
		;;
	pass*)
		expect_pass "$rname" "$rtype" "${rexpect#pass}" "$@"
		;;
	*)
		not_ok "$rname" "bad expected outcome '$rexpect' in the table"
		;;
	esac
}

# expect_pass NAME TYPE WORDS PARAM...: a table's "pass" row.
expect_pass() {
	pname=$1
	ptype=$2
	pwords=$3
	shift 3
	pargs=
	for w in "$@"; do
		case $w in
		torture_type=*) ;;
		*) pargs="$pargs $w" ;;
		esac
	done
	RUN_SECS=$SECS
	EXTRA_CHECK=
	pfair=run_test
	for w in $pwords; do
		case $w in
		fair-secs)
			case " ${FAIRNESS_TYPES:-} " in
			*" $ptype "*) RUN_SECS=$FAIRNESS_SECS ;;
			esac
			;;
		no-fairness) pfair="without_fairness run_test" ;;
		check_*) EXTRA_CHECK=$w ;;
		esac
	done
	# shellcheck disable=SC2086 # $pfair is a command, $pargs parameters
	$pfair "$pname" "$ptype" $pargs
	RUN_SECS=
	EXTRA_CHECK=
}

# The lock library, reloaded with "$@", must load and say $1.
expect_lib_loads() {
	mention=$1
	name=$2
	shift 2
	if reload_lib "$@" && grep -qF -- "$mention" "$LOG"; then
		ok "$name"
	else
		not_ok "$name" "insmod status $rc; $(grep "pv backend" "$LOG" | tail -n 1)"
	fi
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
	run_test "torture $t (pv_backend=strict)" "$t"
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

# This build must not know inject_fault (only a TORTURE_FAULTS=y build
# does; the kernel ignores unknown parameters).
test_no_inject_fault() {
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
	[ -n "$(types_of pv)" ] || return 0
	run_table 3<<'EOF_TABLE'
# Interrupts off: the ipi backend must spin, not halt, and not hang.
torture {t} irqs_disabled=1 | torture_type={pv} irqs_disabled=1 | pass
EOF_TABLE
	has_type pvqspinlock &&
		test_pv_counters pvqspinlock "wait_node wait_head" kick_unlock
	has_type pvticket &&
		test_pv_counters pvticket taken_slow released_slow_kicked

	run_table 3<<'EOF_TABLE'
# Nothing halts: the PV queued types run native, pvticket spins through
# its PV paths.  No fairness check: none is for machines where no vCPU is
# preempted, and here (overcommitted) the native queue is as unfair as
# qspinlock's is (a waiter whose vCPU is off its CPU holds up the queue).
pv_backend=none loads        | pv_backend=none                  | lib loads pv backend none
torture {t}                  | torture_type={pv}                | pass no-fairness
torture {t} irqs_disabled=1  | torture_type={pv} irqs_disabled=1 | pass no-fairness
EOF_TABLE
	for t in pvqspinlock pvqspinlock_unfair; do
		has_type "$t" && test_pv_native "$t"
	done
	test_fastpath_module

	run_table 3<<'EOF_TABLE'
# The default, auto: TCG has no KVM PV unhalt but is a hypervisor with
# more than one CPU, so the NMI kick (nmi), and the log says why.
pv_backend=auto picks nmi, and says why |                       | lib loads pv backend nmi (no KVM PV unhalt
refuse pv_backend=bogus      | pv_backend=bogus                 | lib refused pv_backend 'bogus'
# Under TCG there is no KVM PV unhalt: refused as unavailable.
refuse pv_backend=kvm without KVM | pv_backend=kvm              | lib refused unavailable
refuse spin_threshold=0      | spin_threshold=0                 | lib refused spin_threshold
# The strict backend: only a kick ends a halt (no tick does), so every
# wakeup the protocol loses shows.  A small threshold makes thousands of
# halts a second.
pv_backend=strict loads      | pv_backend=strict spin_threshold=64 | lib loads pv backend strict
EOF_TABLE
	for t in $(types_of strict); do
		test_pv_strict "$t"
	done
	test_no_inject_fault
	reload_lib
}

CPUS_ONLINE=/sys/devices/system/cpu/online

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

# CPU hotplug during a run of every type: a CPU goes offline or comes back
# every 200 ms from the start.  Fairness is not checked: the writers of a
# CPU that goes offline lose their binding and crowd the other CPUs, so
# per-thread counts then measure placement, not the lock.
hotplug_tests() {
	HOTPLUG_ONLINE=$(cat "$CPUS_ONLINE")
	run_table 3<<'EOF_TABLE'
torture {t} onoff_interval_ms=200 onoff_holdoff=0 | torture_type={types} onoff_interval_ms=200 onoff_holdoff=0 | pass no-fairness check_hotplug
# A CPU goes offline at once and the next operation would come long
# after the run: only the end of the run can bring it back.
torture {t} onoff_interval_ms=60000 (CPU offline at the end) | torture_type={first} onoff_interval_ms=60000 | pass no-fairness check_hotplug
EOF_TABLE
	diag "online CPUs: $HOTPLUG_ONLINE before, $(cat "$CPUS_ONLINE") after"
	run_table 3<<'EOF_TABLE'
refuse onoff_interval_ms=60001 | torture_type={first} runtime_secs=1 onoff_interval_ms=60001 | refused onoff_interval_ms=60001 out of range
refuse onoff_interval_ms=-1    | torture_type={first} runtime_secs=1 onoff_interval_ms=-1    | refused onoff_interval_ms=-1 out of range
refuse onoff_holdoff=3601   | torture_type={first} runtime_secs=1 onoff_interval_ms=100 onoff_holdoff=3601 | refused onoff_holdoff=3601 out of range
EOF_TABLE
}

# Types whose hardened run must show MCS nodes 2 and 3 in use.
is_nesting_type() {
	case $1 in
	qspinlock | pvqspinlock) return 0 ;;
	esac
	return 1
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

# The queued types' hardened run must have queued with MCS nodes 2 and 3
# (node_idx2, node_idx3): a softirq or hardirq waiting on top of a waiting
# task, and a third level on top of that.
check_nesting() {
	t=$1
	name="hardened $t: MCS nodes 2 and 3 used (node_idx2, node_idx3 > 0)"
	if [ ! -f "$SUMMARY_DIR/$t" ]; then
		not_ok "$name" "its hardened run failed"
		return
	fi
	hsummary=$(cat "$SUMMARY_DIR/$t")
	i2=$(kv "$hsummary" node_idx2)
	i3=$(kv "$hsummary" node_idx3)
	if ! is_uint "$i2" || ! is_uint "$i3"; then
		not_ok "$name" "no node_idx2/node_idx3 on the summary line (LOCK_STATS=n build?)"
	elif [ "$i2" -eq 0 ] || [ "$i3" -eq 0 ]; then
		not_ok "$name" "node_idx2=$i2 node_idx3=$i3"
	else
		ok "$name"
		diag "$t: node_idx2=$i2 node_idx3=$i3 node_idx4=$(kv "$hsummary" node_idx4)"
	fi
}

# The hardened runs: interrupt-context locks in every context, nested
# writer locks (see Documentation/torture.rst, "Interrupt context"): a
# clean report, and locks taken in every interrupt context.  Interrupt
# sections steal CPU time unevenly, so fairness is not checked.
hardened_tests() {
	run_table 3<<'EOF_TABLE'
torture {t} irq_mode=mixed nested_locks=2 nlocks=4 (hardened) | torture_type={types} irq_mode=mixed nested_locks=2 nlocks=4 | pass no-fairness check_irq_contexts
EOF_TABLE
	for t in $TYPES; do
		is_nesting_type "$t" && check_nesting "$t"
	done
	run_table 3<<'EOF_TABLE'
refuse irq_mode=bogus             | torture_type={first} runtime_secs=1 irq_mode=bogus            | refused unknown irq_mode 'bogus'; valid: none hardirq softirq mixed
refuse nested_locks=9             | torture_type={first} runtime_secs=1 nested_locks=9 nlocks=16  | refused nested_locks=9 out of range
refuse nested_locks=3 with nlocks=2 | torture_type={first} runtime_secs=1 nested_locks=3 nlocks=2 | refused at most nlocks=2
refuse nested_locks=2 with nlocks=0 | torture_type={first} runtime_secs=1 nested_locks=2 nlocks=0 | refused nlocks=0 gives each writer one lock
refuse nlocks=0 with 65 writers     | torture_type={first} runtime_secs=1 nlocks=0 nwriters_stress=65 | refused more than 64
# The bench's ceiling: a lock per writer, so no lock is ever contended.
torture {t} nlocks=0 (ceiling)  | torture_type={pv} nlocks=0 | pass no-fairness check_ceiling
EOF_TABLE
}

# EXTRA_CHECK of the nlocks=0 runs: one lock per writer (locks=threads),
# and none contended, so a queued lock never left its fast path.
check_ceiling() {
	locks=$(kv "$1" locks)
	threads=$(kv "$1" threads)
	if [ "$locks" != "$threads" ]; then
		echo "locks=$locks for threads=$threads: not a lock per writer"
		return 1
	fi
	slow=$(kv "$1" slowpath)
	if [ -n "$slow" ] && [ "$slow" != 0 ]; then
		echo "slowpath=$slow: a private lock was contended"
		return 1
	fi
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
# its waiter for good: STALL, FAILURE or a hung run).  The old consuming
# kick flag stalled pvqspinlock here at 4x.
strict_hardened_tests() {
	[ -n "$(types_of strict)" ] || return 0
	run_table 3<<'EOF_TABLE'
pv_backend=strict loads (hardened runs) | pv_backend=strict spin_threshold=64 | lib loads pv backend strict
torture {t} irq_mode=mixed nested_locks=2 nlocks=4 (hardened, pv_backend=strict) | torture_type={strict} irq_mode=mixed nested_locks=2 nlocks=4 | pass no-fairness check_irq_contexts
EOF_TABLE
	reload_lib
}

# One run of PV type $1 with every writer's lock taken with interrupts off
# on the backend loaded, $2 (nmi or strict): its waiters halt with
# interrupts off, so NMI kicks must have been sent, and have found halted
# waiters.  A lost one halts its waiter for good on strict (STALL).
test_pv_nmi_halts() {
	t=$1
	backend=$2
	cname="pv_backend=$backend $t irqs_disabled=1: NMI kicks woke halted waiters"
	if ! run_test "torture $t irqs_disabled=1 (pv_backend=$backend)" "$t" \
		irqs_disabled=1; then
		not_ok "$cname" "its run failed"
		return
	fi
	summary=$(last_line "-torture: summary:")
	sent=$(kv "$summary" nmi_kick_sent)
	woke=$(kv "$summary" nmi_kick_woke)
	if ! is_uint "$sent" || ! is_uint "$woke" || [ "$sent" -eq 0 ] ||
	   [ "$woke" -eq 0 ]; then
		not_ok "$cname" "nmi_kick_sent=$sent nmi_kick_woke=$woke"
	else
		ok "$cname"
		diag "$t $backend irqs_disabled=1: nmi_kick_sent=$sent woke=$woke in_flight=$(kv "$summary" nmi_kick_in_flight) not_waiting=$(kv "$summary" nmi_kick_not_waiting) late=$(kv "$summary" nmi_kick_late)"
	fi
}

# The NMI kick: on nmi and on strict (only a kick ends a halt, so a lost
# NMI kick halts its waiter for good), every PV type with interrupts off,
# the hardened runs (locks in every context, NMI included) and CPU hotplug
# with interrupts off (waiters on CPUs coming up and going down halt).
nmi_tests() {
	[ -n "$(types_of strict)" ] || return 0
	# The IPI kick alone (auto's choice before the NMI kick): its waiters
	# with interrupts off spin, the others halt.
	run_table 3<<'EOF_TABLE'
pv_backend=ipi loads         | pv_backend=ipi                   | lib loads pv backend ipi
torture {t} (pv_backend=ipi) | torture_type={strict}            | pass
torture {t} irq_mode=mixed nested_locks=2 nlocks=4 (hardened, pv_backend=ipi) | torture_type={strict} irq_mode=mixed nested_locks=2 nlocks=4 | pass no-fairness check_irq_contexts
EOF_TABLE
	for backend in nmi strict; do
		run_table 3<<EOF_TABLE
pv_backend=$backend loads (NMI kick) | pv_backend=$backend spin_threshold=64 | lib loads pv backend $backend
EOF_TABLE
		for t in $(types_of strict); do
			test_pv_nmi_halts "$t" "$backend"
		done
		HOTPLUG_ONLINE=$(cat "$CPUS_ONLINE")
		run_table 3<<EOF_TABLE
torture {t} irq_mode=mixed nested_locks=2 nlocks=4 (hardened, pv_backend=$backend) | torture_type={strict} irq_mode=mixed nested_locks=2 nlocks=4 | pass no-fairness check_irq_contexts
torture {t} irqs_disabled=1 onoff_interval_ms=200 onoff_holdoff=0 (pv_backend=$backend) | torture_type={strict} irqs_disabled=1 onoff_interval_ms=200 onoff_holdoff=0 | pass no-fairness check_hotplug
EOF_TABLE
	done
	reload_lib
}

# EXTRA_CHECK of the kvm runs with interrupts off: waiters halted with
# interrupts off, and kicks woke them (kick_unlock for the queued types,
# released_slow_kicked for pvticket), as only KVM_HC_KICK_CPU can.
check_kvm_kicks() {
	kicks=0
	for e in kick_unlock released_slow_kicked; do
		v=$(kv "$1" "$e")
		is_uint "$v" && kicks=$((kicks + v))
	done
	if [ "$kicks" -eq 0 ]; then
		echo "no kick: kick_unlock=$(kv "$1" kick_unlock) released_slow_kicked=$(kv "$1" released_slow_kicked)"
		return 1
	fi
}

# The kvm backend: auto's choice where KVM's PV unhalt is offered.  A lost
# kick halts its waiter with interrupts off for good (STALL, FAILURE or a
# hung run).
kvm_tests() {
	[ -n "$(types_of strict)" ] || return 0
	HOTPLUG_ONLINE=$(cat "$CPUS_ONLINE")
	run_table 3<<'EOF_TABLE'
pv_backend=auto picks kvm, and says why | | lib loads pv backend kvm (the hypervisor offers KVM PV unhalt)
pv_backend=kvm loads         | pv_backend=kvm spin_threshold=64 | lib loads pv backend kvm
torture {t} (pv_backend=kvm) | torture_type={strict}            | pass
torture {t} irqs_disabled=1 (pv_backend=kvm) | torture_type={strict} irqs_disabled=1 | pass check_kvm_kicks
torture {t} irq_mode=mixed nested_locks=2 nlocks=4 (hardened, pv_backend=kvm) | torture_type={strict} irq_mode=mixed nested_locks=2 nlocks=4 | pass no-fairness check_irq_contexts
torture {t} irqs_disabled=1 onoff_interval_ms=200 onoff_holdoff=0 (pv_backend=kvm) | torture_type={strict} irqs_disabled=1 onoff_interval_ms=200 onoff_holdoff=0 | pass no-fairness check_hotplug
EOF_TABLE
	reload_lib
}

main() {
	first_type=
	for t in $TYPES; do
		first_type=${first_type:-$t}
	done

	echo "TAP version 13"
	diag "types: $TYPES; runtime_secs=$SECS; $(nproc) cpus"

	if ! load_lib; then
		diag "insmod $LIB_KO failed; every test fails"
	fi
	unload_torture

	run_table 3<<'EOF_TABLE'
refuse torture_type=bogus     | torture_type=bogus runtime_secs=1 | refused bogus
# Far more writer threads than any machine should get: must be refused
# up front rather than trying to create them.
refuse nwriters_stress=100000 | torture_type={first} runtime_secs=1 nwriters_stress=100000 | refused
torture {t}                   | torture_type={types}              | pass fair-secs
torture {t} verbose=1 balance_writers=1 | torture_type={balance} verbose=1 balance_writers=1 | pass check_balance
EOF_TABLE
	[ "${PV_TESTS:-0}" = 1 ] && pv_tests
	[ "${HOTPLUG_TESTS:-0}" = 1 ] && hotplug_tests
	[ "${HARDENED_TESTS:-0}" = 1 ] && hardened_tests
	[ "${STRICT_HARDENED_TESTS:-0}" = 1 ] && strict_hardened_tests
	[ "${NMI_TESTS:-0}" = 1 ] && nmi_tests
	[ "${KVM_TESTS:-0}" = 1 ] && kvm_tests

	echo "1..$test_no"
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}

main
