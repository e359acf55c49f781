#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pv_auto: pv_backend=auto (the default) must turn halting off where it
# cannot pay, as upstream's kvm_spinlock_init() does, and say why.  A guest
# with one vCPU has one possible CPU: nobody else can hold a lock it waits
# for, so auto picks "none".  (The multi-vCPU TCG guests of run_vm_tests.sh
# check the other answer: nmi, "no KVM PV unhalt".)
#
# Host side: boots a 1-vCPU guest with tools/vmrun, which loads pvq_locks.ko
# without parameters, runs short PV torture runs, and checks the console.
# The same guest checks vmrun's per-run lib.NAME=VALUE parameters.  Prints TAP; exit status 0 when every test passed.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
PROG=pv_auto
VMRUN=$ROOT/tools/vmrun
modules=$ROOT
type=pvqspinlock
host_cpus=""
outdir=$ROOT/out/pv-auto

usage() {
	cat <<EOF
usage: $0 [--type T] [--host-cpus LIST] [--modules DIR] [--outdir DIR]
  --type T      a PV torture type to run (default: $type)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--type) type=${2:-}; shift ;;
	--host-cpus) host_cpus=${2:-}; shift ;;
	--modules) modules=${2:-}; shift ;;
	--outdir) outdir=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
[ -n "$type" ] || usage_error "--type: empty"

tap_start
mkdir -p "$outdir"
console=$outdir/console.log
"$VMRUN" --quiet --modules "$modules" --vcpus 1 \
	${host_cpus:+--host-cpus "$host_cpus"} --outdir "$outdir" \
	--console "$console" --timeout 180 \
	--run "torture_type=$type runtime_secs=1 stat_interval=0" \
	--run "torture_type=$type runtime_secs=1 stat_interval=0 lib.spin_threshold=77" \
	--run "torture_type=$type runtime_secs=1 stat_interval=0 lib.bogus=1" \
	--run "torture_type=$type runtime_secs=1 stat_interval=0" \
	--run "torture_type=$type runtime_secs=1 stat_interval=0 lib.pv_backend=nmi" \
	--run "torture_type=$type runtime_secs=1 stat_interval=0" \
	>"$outdir/vmrun.log" 2>&1
rc=$?
diag "vmrun exit $rc; console $console"

name="pv_backend=auto with one vCPU: none, because of the one possible CPU"
line=$(console_text "$console" 2>/dev/null | grep -a -m 1 "pvq_locks: pv backend")
case $line in
*"pv backend none (one possible CPU"*) ok "$name" ;;
*) not_ok "$name" "${line:-no 'pv backend' line on the console}" ;;
esac

text=$(console_text "$console" 2>/dev/null)
name="$type runs to SUCCESS on it"
if grep -aq "$type-torture: --- End of test: SUCCESS" <<<"$text"; then
	ok "$name"
else
	not_ok "$name" "vmrun exit $rc: $(grep -m 1 '^reason=' "$outdir/result" 2>/dev/null)"
fi

# vmrun --run "... lib.NAME=VALUE": pvq_locks.ko's parameter for that run
# only; an unknown one fails the run (insmod status 1), not the guest.
name="--run lib.spin_threshold=77: set for run 2, read back from sysfs"
if grep -aq "vmrun: run 2: pvq_locks parameter spin_threshold=77" <<<"$text"; then
	ok "$name"
else
	not_ok "$name" "no 'run 2: pvq_locks parameter spin_threshold=77' on the console"
fi
name="lib.NAME=VALUE: the load's value is back for the next run"
if grep -aq "vmrun: run 3: pvq_locks parameter spin_threshold back to 32768" <<<"$text"; then
	ok "$name"
else
	not_ok "$name" "no 'run 3: pvq_locks parameter spin_threshold back to 32768'"
fi
name="lib.bogus=1: that run fails (insmod status 1), the next one runs"
if grep -aq "vmrun: run 3: cannot set pvq_locks parameter bogus" <<<"$text" &&
   grep -aq "vmrun: run 3 insmod status 1" <<<"$text" &&
   [ "$(grep -ac "$type-torture: --- End of test: SUCCESS" <<<"$text")" -ge 3 ]; then
	ok "$name"
else
	not_ok "$name" "run 3 not refused, or not 3 successful runs"
fi

# A read-only parameter (pv_backend) for one run: pvq_locks.ko is loaded
# again with it, and again with the load's parameters for the next run.
backends=$(grep -a "pvq_locks: pv backend" <<<"$text" | sed 's/.*pv backend \([a-z]*\).*/\1/' |
	tr '\n' ' ')
name="--run lib.pv_backend=nmi: pvq_locks.ko loaded again with it for run 5, which succeeds"
if grep -aq "vmrun: run 5: pvq_locks loaded again: pv_backend=nmi" <<<"$text" &&
   [ "$(sed -n '/vmrun: run 5 start/,/vmrun: run 5 done/p' <<<"$text" |
	grep -ac "$type-torture: --- End of test: SUCCESS")" -eq 1 ]; then
	ok "$name"
else
	not_ok "$name" "no 'run 5: pvq_locks loaded again: pv_backend=nmi', or run 5 did not succeed"
fi
name="after it, run 6 has the load's backend again (loads: none nmi none)"
if grep -aq "vmrun: run 6: pvq_locks loaded again with the load's parameters, status 0" <<<"$text" &&
   [ "$backends" = "none nmi none " ] &&
   [ "$(grep -ac "$type-torture: --- End of test: SUCCESS" <<<"$text")" -eq 5 ]; then
	ok "$name"
else
	not_ok "$name" "backends loaded: '$backends'; not reloaded for run 6, or not 5 successful runs"
fi
tap_end
