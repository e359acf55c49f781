#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run_vm_tests.sh - run selftests/vm/torture_smoke.sh in a QEMU guest (via
# tools/vmrun) once per vCPU count, and summarise the TAP results.
#
# Exit status: 0 all passed, 1 something failed, 2 usage or setup error.

set -euo pipefail

readonly PROG=run_vm_tests.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$HERE/../.." && pwd)
readonly HERE REPO_ROOT
# shellcheck source=tools/lib/functions.sh
. "$REPO_ROOT/tools/lib/functions.sh"
readonly VMRUN=$REPO_ROOT/tools/vmrun
readonly GUEST_SCRIPT=$HERE/torture_smoke.sh

TYPES="spin_lock ticket tas qspinlock"
SECS=3
# 1x and 2x overcommit of a 2-CPU host.
VCPUS_LIST="2 4"
# The VM that also runs the paravirtual checks (2x overcommit).
PV_VCPUS=4
# The VM that also runs every type with CPU hotplug (2x overcommit).
HOTPLUG_VCPUS=4
# The VM that also runs the hardened runs (interrupt-context locks, nested
# writer locks): one VM is enough, the overcommitted one.
HARDENED_VCPUS=4
# The VM that also runs the hardened runs of the PV types on the strict
# backend (only a kick ends a halt): the most overcommitted one, 4x, where
# the lost-kick stall of the consuming kick flag showed.
STRICT_HARDENED_VCPUS=8
# The VMs that also run the NMI kick (pv_backend=nmi and strict, waiters
# with interrupts off): 2x and 4x overcommit.
NMI_VCPUS_LIST="4 8"
# The VMs that also run the kvm backend: none, but on a testbed that
# offers KVM's PV unhalt (--testbed tcg-pvunhalt).
KVM_VCPUS_LIST=""
TESTBED=${PVQ_TESTBED:-$DEFAULT_TESTBED}
# Up to this many vCPUs (4x on 2 host CPUs), the unfair lock must not be
# flagged unfair ("???"), in runs of FAIRNESS_SECS: over 3 s the host shares
# its CPUs among 8 vCPUs unevenly enough to put the per-vCPU counts of any
# lock type 1.2-1.7 apart (Documentation/torture.rst, balance_writers).
# (--secs longer than FAIRNESS_SECS wins.)
FAIRNESS_MAX_VCPUS=8
FAIRNESS_SECS=8
HOST_CPUS=""
OUTDIR=""
TIMEOUT=""
VMRUN_EXTRA=()

PASSED=0
FAILED=0

usage() {
	cat <<EOF
Usage: selftests/vm/run_vm_tests.sh [OPTIONS]

Boot a guest per vCPU count with tools/vmrun, run torture_smoke.sh in it
and print its TAP results prefixed with the vCPU count.

Options:
  --types "A B"       torture types to test (default: "$TYPES")
  --secs N            runtime_secs per type (default: $SECS)
  --vcpus-list "N M"  vCPU counts, one VM each (default: "$VCPUS_LIST")
  --pv-vcpus N        the VM with N vCPUs also runs the PV checks
                      (default: $PV_VCPUS; 0: none)
  --hotplug-vcpus N   the VM with N vCPUs also runs every type with CPU
                      hotplug (onoff_interval_ms) (default: $HOTPLUG_VCPUS; 0: none)
  --hardened-vcpus N  the VM with N vCPUs also runs the hardened runs
                      (irq_mode=mixed nested_locks=2; default:
                      $HARDENED_VCPUS; 0: none)
  --strict-hardened-vcpus N
                      the VM with N vCPUs also runs the hardened runs of
                      the PV types on pv_backend=strict (default:
                      $STRICT_HARDENED_VCPUS; 0: none)
  --nmi-vcpus-list "N M"
                      the VMs with these vCPU counts also run the NMI kick
                      tests (pv_backend=nmi and strict; default:
                      "$NMI_VCPUS_LIST"; "": none)
  --kvm-vcpus-list "N M"
                      the VMs with these vCPU counts also run the kvm
                      backend's tests (a testbed with KVM's PV unhalt;
                      default: "$KVM_VCPUS_LIST")
  --testbed NAME      tools/vmrun's --testbed (default: $TESTBED)
  --host-cpus LIST    taskset CPU list for QEMU (default: vmrun's, all CPUs)
  --timeout SECS      per-VM timeout (default: computed from types and secs)
  --outdir DIR        keep per-VM console logs here
                      (default: mktemp -d under \${TMPDIR:-/tmp})
  --modules DIR       passed to tools/vmrun (default: repo root)
  -h, --help          show this help

A VM that times out, or whose console shows a kernel error, counts as one
failure on top of its TAP results.
EOF
}

parse_args() {
	local opt v
	while (($#)); do
		opt=$1
		shift
		case $opt in
		-h | --help) usage; exit 0 ;;
		--types | --secs | --vcpus-list | --host-cpus | --outdir | --modules | \
			--timeout | --pv-vcpus | --hotplug-vcpus | --hardened-vcpus | \
			--strict-hardened-vcpus | --nmi-vcpus-list | --kvm-vcpus-list | \
			--testbed) ;;
		*) usage_error "unknown option '$opt'" ;;
		esac
		(($#)) || usage_error "$opt needs a value"
		case $opt in
		--types) TYPES=$1 ;;
		--secs) need_int "$opt" "$1" 1 86400; SECS=$((10#$1)) ;;
		--vcpus-list) VCPUS_LIST=$1 ;;
		--pv-vcpus) need_int "$opt" "$1" 0 255; PV_VCPUS=$((10#$1)) ;;
		--hotplug-vcpus) need_int "$opt" "$1" 0 255; HOTPLUG_VCPUS=$((10#$1)) ;;
		--hardened-vcpus) need_int "$opt" "$1" 0 255; HARDENED_VCPUS=$((10#$1)) ;;
		--strict-hardened-vcpus)
			need_int "$opt" "$1" 0 255; STRICT_HARDENED_VCPUS=$((10#$1)) ;;
		--nmi-vcpus-list) NMI_VCPUS_LIST=$1 ;;
		--kvm-vcpus-list) KVM_VCPUS_LIST=$1 ;;
		--testbed)
			is_testbed "$1" || usage_error "--testbed: '$1' is not one of: $TESTBEDS"
			TESTBED=$1
			;;
		--host-cpus) HOST_CPUS=$1 ;;
		--outdir) OUTDIR=$1 ;;
		--timeout) need_int "$opt" "$1" 1 86400; TIMEOUT=$((10#$1)) ;;
		--modules) VMRUN_EXTRA+=(--modules "$1") ;;
		esac
		shift
	done
	[[ -n ${TYPES// /} ]] || usage_error "--types: empty list"
	[[ -n ${VCPUS_LIST// /} ]] || usage_error "--vcpus-list: empty list"
	for v in $VCPUS_LIST; do
		need_int --vcpus-list "$v" 1 255
	done
	for v in $NMI_VCPUS_LIST; do
		need_int --nmi-vcpus-list "$v" 1 255
	done
	for v in $KVM_VCPUS_LIST; do
		need_int --kvm-vcpus-list "$v" 1 255
	done
}

# 1 if the VM with $1 vCPUs runs the kvm backend's tests.
kvm_vm() {
	[[ " $KVM_VCPUS_LIST " == *" $1 "* ]] && echo 1 || echo 0
}

# 1 if the VM with $1 vCPUs runs the NMI kick tests.
nmi_vm() {
	[[ " $NMI_VCPUS_LIST " == *" $1 "* ]] && echo 1 || echo 0
}

# Timed runs the hardened set adds to the VM with $1 vCPUs: one per type
# (interrupt sections make a run overshoot its runtime a little), plus the
# refused parameters.
hardened_runs() {
	local n=0
	if (($1 == HARDENED_VCPUS)); then
		n=$(($(wc -w <<<"$TYPES") + 3))
	fi
	# At most three PV types on the strict backend.
	if (($1 == STRICT_HARDENED_VCPUS)); then
		n=$((n + 3))
	fi
	# The NMI kick: two backends, three runs of up to three PV types.
	if (($(nmi_vm "$1"))); then
		n=$((n + 18))
	fi
	# The kvm backend: four runs of up to three PV types.
	if (($(kvm_vm "$1"))); then
		n=$((n + 12))
	fi
	echo "$n"
}

# Generous: a TCG boot takes ~10 s (more when overcommitted), each test its
# runtime plus insmod/rmmod and log checks, and slack for a slow host.
vm_timeout() {
	local ntests ntypes
	if [[ -n $TIMEOUT ]]; then
		echo "$TIMEOUT"
		return
	fi
	ntypes=$(wc -w <<<"$TYPES")
	# The PV checks add up to 17 runs, the hotplug checks one per type,
	# one more and three refusals.
	ntests=$((ntypes + 3 + 17 + ntypes + 4 + $(hardened_runs "$1")))
	echo $((15 + ntests * (SECS + 10) + 60))
}

# TAP lines the guest printed on the serial console.
tap_lines() {
	console_text "$1" | grep -aE '^(TAP version |1\.\.[0-9]+|ok [0-9]+|not ok [0-9]+|# )' || true
}

# Types whose fairness is asserted in a VM with $1 vCPUs.
fairness_types() {
	if (($1 <= FAIRNESS_MAX_VCPUS)) && [[ " $TYPES " == *" pvqspinlock_unfair "* ]]; then
		echo pvqspinlock_unfair
	fi
}

# One VM: boot, collect TAP, count results. VM-level trouble (timeout,
# kernel error, missing results) adds one failure.
run_vm() {
	local vcpus=$1 dir=$OUTDIR/vcpus-$1 tag="[$1 vcpus]" rc=0 timeout
	local console tap ok notok plan p problems=()
	mkdir -p "$dir"
	console=$dir/console.log
	timeout=$(vm_timeout "$vcpus")
	echo "$tag booting: timeout ${timeout} s, console $console"
	"$VMRUN" --quiet --testbed "$TESTBED" --vcpus "$vcpus" \
		${HOST_CPUS:+--host-cpus "$HOST_CPUS"} \
		"${VMRUN_EXTRA[@]}" --outdir "$dir" --console "$console" \
		--timeout "$timeout" --guest-script "$GUEST_SCRIPT" \
		--guest-env "TYPES=$TYPES" --guest-env "SECS=$SECS" \
		--guest-env "PV_TESTS=$((vcpus == PV_VCPUS))" \
		--guest-env "HOTPLUG_TESTS=$((vcpus == HOTPLUG_VCPUS))" \
		--guest-env "HARDENED_TESTS=$((vcpus == HARDENED_VCPUS))" \
		--guest-env "STRICT_HARDENED_TESTS=$((vcpus == STRICT_HARDENED_VCPUS))" \
		--guest-env "NMI_TESTS=$(nmi_vm "$vcpus")" \
		--guest-env "KVM_TESTS=$(kvm_vm "$vcpus")" \
		--guest-env "FAIRNESS_TYPES=$(fairness_types "$vcpus")" \
		--guest-env "FAIRNESS_SECS=$((SECS > FAIRNESS_SECS ? SECS : FAIRNESS_SECS))" \
		>"$dir/vmrun.log" 2>&1 || rc=$?

	tap=$(tap_lines "$console" 2>/dev/null || true)
	if [[ -n $tap ]]; then
		while IFS= read -r p; do
			echo "$tag $p"
		done <<<"$tap"
	fi
	ok=$(grep -c '^ok ' <<<"$tap" || true)
	notok=$(grep -c '^not ok ' <<<"$tap" || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$tap" | head -n 1)
	PASSED=$((PASSED + ok))
	FAILED=$((FAILED + notok))

	# A hung stock-kernel boot that vmrun retried is worth a note, not a
	# failure: none of our code was loaded yet.
	grep '^retry=' "$dir/result" 2>/dev/null | sed "s/^retry=/$tag # vmrun retried: /" || true
	mapfile -t problems < <(vm_problems "$dir" "$rc" "$notok")
	# A VM that never ran or timed out has its message already.
	if [[ ! -f $dir/result ]] || ((rc == 124)); then
		:
	elif [[ -z $plan ]]; then
		problems+=("no TAP plan on the console")
	elif ((ok + notok != plan)); then
		problems+=("$((ok + notok)) of $plan planned results")
	fi
	if ((${#problems[@]})); then
		FAILED=$((FAILED + 1))
		for p in "${problems[@]}"; do
			echo "$tag VM FAILURE: $p"
		done
		echo "$tag see $dir/vmrun.log and $console"
	fi
}

# VM-level problems from vmrun's exit status and result file, one a line.
# A non-zero guest-script status or a torture FAILURE report is not one:
# the "not ok" lines already count it, unless there are none.
vm_problems() {
	local dir=$1 rc=$2 notok=$3 reason
	if [[ ! -f $dir/result ]]; then
		echo "vmrun exited $rc before booting: $(head -n 1 "$dir/vmrun.log")"
		return
	fi
	((rc == 124)) && echo "VM timed out: $(grep -m 1 'TIMEOUT' "$dir/vmrun.log" || true)"
	while IFS= read -r reason; do
		reason=${reason#reason=}
		case $reason in
		timeout:*) ;;
		"guest: guest-script status "* | torture:*)
			((notok)) || echo "$reason, but no 'not ok' line"
			;;
		*) echo "$reason" ;;
		esac
	done < <(grep '^reason=' "$dir/result" || true)
}

main() {
	local v
	parse_args "$@"
	[[ -x $VMRUN ]] || { echo "$PROG: $VMRUN missing" >&2; exit 2; }
	if [[ -z $OUTDIR ]]; then
		OUTDIR=$(mktemp -d "${TMPDIR:-/tmp}/vmtests.XXXXXX")
	fi
	mkdir -p "$OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd)
	echo "# types: $TYPES; secs: $SECS; vcpus: $VCPUS_LIST; testbed: $TESTBED; logs: $OUTDIR"
	for v in $VCPUS_LIST; do
		run_vm "$((10#$v))"
	done
	echo "$PASSED passed, $FAILED failed"
	((FAILED == 0))
}

main "$@"
