# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the host-side scripts (tools/*, selftests/vm/*.sh that
# run on the host), in the manner of rcutorture's functions.sh: TAP output,
# number checks, usage and setup errors, the console log as text.
#
#   . "$ROOT/tools/lib/functions.sh"
#
# A script that uses usage_error, die or need_int sets PROG (the name its
# messages start with) and defines usage() first.  The guest-side scripts
# run under busybox sh and cannot use this file: see guest-init.sh.

# --- TAP ---------------------------------------------------------------
# One line per test, "ok N NAME" or "not ok N NAME # REASON", numbered in
# TAP_N; TAP_FAILED counts the failures.  tap_end prints the plan last
# (TAP 13 allows it after the tests) and returns non-zero if any failed.

TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $1"
}

# not_ok NAME [REASON]
not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N $1${2:+ # $2}"
}

# skip NAME REASON: a test that could not run here passes as skipped.
skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N $1 # SKIP $2"
}

# check NAME COMMAND...: one test, by the command's exit status; a failure
# shows the first 20 lines of the command's output as diagnostics.
check() {
	# Not "out": the command (an eval) sees the caller's variables.
	local check_what=$1 check_log
	shift
	check_log=$(mktemp)
	if "$@" >"$check_log" 2>&1; then
		ok "$check_what"
	else
		not_ok "$check_what"
		sed 's/^/# /' "$check_log" | head -n 20
	fi
	rm -f "$check_log"
}

diag() {
	echo "# $*"
}

tap_start() {
	echo "TAP version 13"
}

tap_end() {
	echo "1..$TAP_N"
	((TAP_FAILED == 0))
}

# A test script that takes no options: -h/--help prints what it does,
# anything else is an error (exit 2).  "$@": the script's arguments.
no_options() {
	case ${1-} in
	"") return 0 ;;
	-h | --help)
		echo "usage: $0   (runs its tests, prints TAP; takes no options)"
		exit 0
		;;
	*)
		printf '%s: unknown option %s\n' "$0" "$1" >&2
		echo "usage: $0" >&2
		exit 2
		;;
	esac
}

# --- errors --------------------------------------------------------------

# A bad option or value: the message, the usage, exit 2.
usage_error() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	usage >&2
	exit 2
}

# A setup error (missing tool or file): one line, exit 2.
die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 2
}

warn() {
	printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

# --- numbers -------------------------------------------------------------

# A whole number of at most 9 digits (so that arithmetic on it is safe).
is_uint() {
	[[ $1 =~ ^[0-9]{1,9}$ ]]
}

# need_int OPTION VALUE MIN MAX: a whole number within [MIN, MAX], else a
# usage error.
need_int() {
	local opt=$1 val=$2 min=$3 max=$4

	if ! is_uint "$val" || ((10#$val < min || 10#$val > max)); then
		usage_error "$opt: '$val' is not a whole number in $min..$max"
	fi
}

# --- console logs ----------------------------------------------------------

# Kernel log lines carry "[    1.234567] "; checks read better without.
strip_ts() {
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //'
}

# A guest's serial console FILE without CRs and kernel timestamps.
console_text() {
	tr -d '\r' <"$1" | strip_ts
}

# console_has FILE GREP-ARGS...: whether console FILE's text matches.
# grep reads to the end: "console_text | grep -q" would stop at the match
# and, under pipefail, fail with the writer's SIGPIPE on a long console.
console_has() {
	local file=$1
	shift
	console_text "$file" | grep -a "$@" >/dev/null
}

# --- benchmark reports -----------------------------------------------------

# report_section FILE TITLE: the "### TITLE..." section of a report.md,
# from its heading to the next one.
report_section() {
	awk -v want="### $2" '
		index($0, "### ") == 1 { on = index($0, want) == 1 }
		on' "$1"
}

# --- Kernel versions ---------------------------------------------------
# Every version with a kernel series (kernel/patches/<version>/), built
# from Debian's linux-source-<version>; KVER= or --kver picks one.

# shellcheck disable=SC2034 # used by the scripts that source this file
DEFAULT_KVER=6.12

kernel_versions() {
	local d
	for d in "$(dirname "${BASH_SOURCE[0]}")"/../../kernel/patches/*/; do
		basename "$d"
	done | sort -V
}

# newest_headers VERSION: the release (as uname -r names it) of the newest
# kernel of VERSION whose headers are installed under /lib/modules; empty
# if none.
newest_headers() {
	find /lib/modules -mindepth 1 -maxdepth 1 -name "$1.*" \
		-exec test -f '{}/build/Makefile' ';' -printf '%f\n' 2>/dev/null |
		sort -V | tail -n 1
}

# dkms_conf NAME: the value of variable NAME in the tree's dkms.conf.
dkms_conf() {
	sed -n "s/^$1=\"\\(.*\\)\"\$/\\1/p" \
		"$(dirname "${BASH_SOURCE[0]}")/../../dkms.conf"
}

# --- Testbeds ------------------------------------------------------------
# How the guests' vCPUs run (Documentation/testbeds.rst):
#   tcg-pvunhalt  QEMU TCG with KVM's PV unhalt: this project's QEMU
#                 (make qemu, out/qemu/), -cpu max,kvm-pv-unhalt=on; the
#                 guest sees KVM's PV spinlock interface, as on a KVM host
#                 that offers PV unhalt
#   tcg           QEMU TCG without it, as on a hypervisor that hides it:
#                 the guest kernel's own lock falls back to test-and-set
#   kvm           KVM itself (-enable-kvm -cpu host), on a host that has it
# The setting every tool takes: --testbed, or PVQ_TESTBED (make TESTBED=).

# shellcheck disable=SC2034 # used by the scripts that source this file
TESTBEDS="tcg-pvunhalt tcg kvm"
# What a tool boots its guests on by default: the tests, TCG without PV
# unhalt (their checks name the backend auto picks there; the tests on
# the other testbed ask for it); the benchmarks (make bench, make kbench),
# TCG with KVM's PV unhalt, the closest to what users run
# (Documentation/testbeds.rst, "Which testbed the benchmarks use").
# shellcheck disable=SC2034
DEFAULT_TESTBED=tcg
# shellcheck disable=SC2034
DEFAULT_BENCH_TESTBED=tcg-pvunhalt
# The QEMU that make qemu builds (the tests point it elsewhere to play a
# machine that has not built it yet).
PVQ_BUILT_QEMU=${PVQ_BUILT_QEMU:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/out/qemu/bin/qemu-system-x86_64}

# is_testbed NAME: one of TESTBEDS.
is_testbed() {
	[[ " $TESTBEDS " == *" $1 "* ]]
}

# testbed_qemu NAME: the QEMU binary of a testbed: the one make qemu built
# where it exists (with kvm-pv-unhalt off it behaves as Debian's), else
# Debian's; tcg-pvunhalt needs the built one (status 1 without it).
testbed_qemu() {
	if [[ -x $PVQ_BUILT_QEMU ]]; then
		echo "$PVQ_BUILT_QEMU"
	elif [[ $1 == tcg-pvunhalt ]]; then
		return 1
	else
		command -v qemu-system-x86_64
	fi
}

# planned_qemu NAME DRY_RUN: testbed_qemu for a tool about to boot guests;
# a dry run (DRY_RUN 1) only plans them, so a QEMU that make qemu has yet
# to build is named with a warning instead of refused.
planned_qemu() {
	testbed_qemu "$1" && return 0
	(($2)) || return 1
	warn "--testbed $1: $PVQ_BUILT_QEMU is not built yet (make qemu builds it)"
	echo "$PVQ_BUILT_QEMU"
}

# testbed_qemu_args NAME: the accelerator and CPU options, one per line,
# and where the firmware is: the built QEMU has none of its own, Debian's
# seabios and qemu-system-data packages have it (Debian's QEMU looks there
# anyway).
testbed_qemu_args() {
	case $1 in
	kvm) printf '%s\n' -enable-kvm -cpu host ;;
	tcg) printf '%s\n' -accel tcg -cpu max ;;
	tcg-pvunhalt) printf '%s\n' -accel tcg -cpu max,kvm-pv-unhalt=on ;;
	esac
	printf '%s\n' -L /usr/share/seabios -L /usr/share/qemu
}

# testbed_anchor NAME: what the guest kernel's own lock (the torture type
# spin_lock, the stock kernel's spinlock_t) is on that testbed.
testbed_anchor() {
	case $1 in
	tcg) echo "upstream's test-and-set fallback (virt_spin_lock(): no PV unhalt)" ;;
	*) echo "upstream PV qspinlock (KVM's PV unhalt)" ;;
	esac
}

# testbed_title NAME: how reports name it.
testbed_title() {
	case $1 in
	kvm) echo "KVM" ;;
	tcg) echo "QEMU TCG without PV unhalt" ;;
	tcg-pvunhalt) echo "QEMU TCG with KVM's PV unhalt" ;;
	esac
}

# exploratory_note ENV: under a report's environment table, a warning when
# its cells have fewer runs than a claim needs (Documentation/bench.rst).
exploratory_note() {
	local n

	[ -f "$1" ] || return 0
	n=$(sed -n 's/^N per cell=\([0-9]*\) run.*/\1/p' "$1")
	[[ -n $n ]] && ((n < 5)) || return 0
	echo "**Exploratory: $n run(s) per cell, fewer than the 5 a claim needs (RUNS=5; Documentation/bench.rst, \"Statistics\").**"
	echo
}
