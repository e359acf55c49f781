#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verdict the kernel tests give an upstream locktorture run
# (tools/lib/locktorture.sh), on fixed consoles shaped as a guest's serial
# console is (CRs, timestamps, guest_locktorture.sh's markers): SUCCESS
# with balanced writers passes even when the readers are flagged "???";
# a writers' "???", a "!!!", a FAILURE or a missing statistics line does
# not; each type is judged on its own section.  No VM.  Prints TAP.

# The checks pass shell expressions to check() through eval, single-quoted
# so that they expand when the check runs.
# shellcheck disable=SC2016

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
# shellcheck source=tools/lib/locktorture.sh
. "$ROOT/tools/lib/locktorture.sh"
no_options "$@"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# console NAME TYPE END STATS...: a console file $work/NAME with one run of
# TYPE that ends in END (SUCCESS or FAILURE) and prints the STATS lines.
console() {
	local name=$1 type=$2 end=$3 line t=20.000000
	shift 3
	{
		printf '[    1.929029] locktorture-run: start %s\r\n' "$type"
		printf '[    2.000000] %s-torture:--- Start of test: nwriters_stress=8\r\n' "$type"
		for line in "$@"; do
			printf '[   %s] %s\r\n' "$t" "$line"
		done
		printf '[   21.995110] %s-torture:--- End of test: %s: nwriters_stress=8 stutter=5\r\n' \
			"$type" "$end"
		printf '[   22.023089] locktorture-run: done %s status 0\r\n' "$type"
	} >>"$work/$name"
}

# verdict NAME TYPE: lt_verdict of TYPE's section in console NAME.
verdict() {
	lt_verdict "$(lt_section "$work/$1" "$2")"
}

tap_start

# The lines of a 4x run whose readers were flagged: 356152/168833 = 2.1,
# writers 1.5.
console readers rw_lock SUCCESS \
	'Writes:  Total: 1766936  Max/Min: 254667/172805   Fail: 0 ' \
	'Reads :  Total: 2210323  Max/Min: 356152/168833 ???  Fail: 0 '
check "readers flagged ???, writers balanced: the run passes" \
	eval '[ "$(verdict readers rw_lock)" = ok ]'
check "... and the readers' imbalance is reported" \
	lt_readers_imbalance "$(lt_section "$work/readers" rw_lock)"

console writers rw_lock SUCCESS \
	'Writes:  Total: 1766936  Max/Min: 354667/172805 ???  Fail: 0 ' \
	'Reads :  Total: 2210323  Max/Min: 156152/148833   Fail: 0 '
check "writers flagged ???: an imbalance, the run fails" \
	eval '[ "$(verdict writers rw_lock)" = imbalance ]'
check "... and the readers are not flagged" \
	eval '! lt_readers_imbalance "$(lt_section "$work/writers" rw_lock)"'

console spin spin_lock SUCCESS \
	'Writes:  Total: 24689993  Max/Min: 1740794/661857 ???  Fail: 0 '
check "spin_lock's writers flagged ???: an imbalance" \
	eval '[ "$(verdict spin spin_lock)" = imbalance ]'

console broken spin_lock SUCCESS \
	'Writes:  Total: 24689993  Max/Min: 1740794/1361857   Fail: 12 !!!'
check "an exclusion failure (!!!) fails the run, even with SUCCESS" \
	eval '[ "$(verdict broken spin_lock)" = failure ]'

console readfail rw_lock SUCCESS \
	'Writes:  Total: 1766936  Max/Min: 254667/172805   Fail: 0 ' \
	'Reads :  Total: 2210323  Max/Min: 356152/168833 ???  Fail: 3 !!!'
check "a readers' !!! fails the run" \
	eval '[ "$(verdict readfail rw_lock)" = failure ]'

console failed spin_lock_irq FAILURE \
	'Writes:  Total: 27274900  Max/Min: 1857665/1508387   Fail: 0 '
check "End of test: FAILURE fails the run" \
	eval '[ "$(verdict failed spin_lock_irq)" = failure ]'

console nostats spin_lock SUCCESS
check "SUCCESS without a statistics line is not a pass" \
	eval '[ "$(verdict nostats spin_lock)" = no-stats ]'

check "a type that did not run is a failure (no section)" \
	eval '[ "$(verdict nostats rw_lock)" = failure ]'

# Two types in one guest: each is judged on its own lines.
console two spin_lock SUCCESS \
	'Writes:  Total: 24689993  Max/Min: 1740794/1361857   Fail: 0 '
console two rw_lock SUCCESS \
	'Writes:  Total: 1766936  Max/Min: 354667/172805 ???  Fail: 0 ' \
	'Reads :  Total: 2210323  Max/Min: 156152/148833   Fail: 0 '
check "two types in one console: spin_lock passes on its own lines" \
	eval '[ "$(verdict two spin_lock)" = ok ]'
check "two types in one console: rw_lock's writers' ??? stays rw_lock's" \
	eval '[ "$(verdict two rw_lock)" = imbalance ]'

tap_end
