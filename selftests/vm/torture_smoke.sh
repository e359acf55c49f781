#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# torture_smoke.sh - kselftest-style TAP smoke test of qspinlock_torture.ko.
# Runs INSIDE the guest (busybox sh, POSIX only), normally started by
# tools/vmrun --guest-script. Environment:
#   TYPES   space separated torture types (default: "spin_lock ticket tas qspinlock")
#   SECS    runtime_secs per type (default: 3)
#   MODDIR  where the .ko files are (default: $VMRUN_MODULES or /modules)
# Exit status: 0 if every test passed, 1 otherwise.

set -u
# Module parameters are split on blanks but must never be globbed.
set -f

TYPES=${TYPES:-spin_lock ticket tas qspinlock}
SECS=${SECS:-3}
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

test_type() {
	t=$1
	name="torture $t"
	unload_torture
	if ! torture_insmod "torture_type=$t" "runtime_secs=$SECS"; then
		not_ok "$name" "insmod failed (status $rc)"
		return
	fi
	if ! out=$(check_report "$t"); then
		unload_torture
		not_ok "$name" "$out"
		return
	fi
	if ! unload_torture; then
		not_ok "$name" "rmmod failed"
		return
	fi
	diag "$t:$out"
	ok "$name"
}

load_lib() {
	is_loaded pvq_locks && return 0
	insmod "$LIB_KO"
}

main() {
	ntypes=0
	first_type=
	for t in $TYPES; do
		ntypes=$((ntypes + 1))
		first_type=${first_type:-$t}
	done

	echo "TAP version 13"
	echo "1..$((ntypes + 2))"
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
		test_type "$t"
	done

	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" -eq 0 ]
}

main
