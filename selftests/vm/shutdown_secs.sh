#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shutdown_secs: "insmod qspinlock_torture.ko shutdown_secs=N" (no
# runtime_secs) must end the test with its report after N seconds and
# power the guest off by itself, as locktorture does.
#
# Host side, since only the host can see a guest power off: boots a guest
# with tools/vmrun --expect-poweroff, whose last step loads the module and
# then waits instead of unloading it, and checks what QEMU and the console
# show.  With --negative, a second guest whose run does not power off
# must make vmrun fail, proving that --expect-poweroff can fail.
#
# Prints TAP; exit status 0 when every test passed.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
PROG=shutdown_secs
VMRUN=$ROOT/tools/vmrun
modules=$ROOT
type=qspinlock
secs=3
vcpus=2
host_cpus=""
outdir=$ROOT/out/shutdown-secs
negative=0

usage() {
	cat <<EOF
usage: $0 [--type T] [--secs N] [--vcpus N] [--host-cpus LIST] [--modules DIR]
          [--outdir DIR] [--negative]
  --type T      torture type (default: $type)
  --secs N      shutdown_secs (default: $secs)
  --negative    also check that vmrun --expect-poweroff fails for a run
                that does not power off (one more guest boot)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--type) type=${2:-}; shift ;;
	--secs) secs=${2:-}; shift ;;
	--vcpus) vcpus=${2:-}; shift ;;
	--host-cpus) host_cpus=${2:-}; shift ;;
	--modules) modules=${2:-}; shift ;;
	--outdir) outdir=${2:-}; shift ;;
	--negative) negative=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
[[ $secs =~ ^[1-9][0-9]*$ && $vcpus =~ ^[1-9][0-9]*$ && -n $type ]] ||
	usage_error "--secs and --vcpus: whole numbers from 1; --type: not empty"

# Line number of the first console line containing $2 (fixed string), or 0.
line_of() {
	local l
	l=$(console_text "$1" | grep -anF -m 1 -- "$2" | cut -d: -f1)
	echo "${l:-0}"
}

# vmrun [OUTDIR] [ARGS...]: one guest, exit status in $vmrun_rc, wall time
# in $vmrun_secs.
run_guest() {
	local dir=$1 start=$SECONDS
	shift
	mkdir -p "$dir"
	"$VMRUN" --quiet --modules "$modules" --vcpus "$vcpus" \
		${host_cpus:+--host-cpus "$host_cpus"} --outdir "$dir" \
		--timeout "$timeout" --expect-poweroff "$@" \
		>"$dir/vmrun.log" 2>&1
	vmrun_rc=$?
	vmrun_secs=$((SECONDS - start))
}

# The boot takes 10-30 s under TCG; the run secs plus its report.
timeout=$((120 + secs))
tap_start

dir=$outdir/poweroff
console=$dir/console.log
params="torture_type=$type shutdown_secs=$secs stat_interval=0"
run_guest "$dir" --run "$params"
diag "insmod $params: vmrun exit $vmrun_rc after $vmrun_secs s (timeout $timeout s); console $console"

if ((vmrun_rc == 0)) && grep -qx 'status=pass' "$dir/result" 2>/dev/null; then
	ok "vmrun --expect-poweroff passes"
else
	not_ok "vmrun --expect-poweroff passes" \
		"exit $vmrun_rc: $(grep -m 1 '^reason=' "$dir/result" 2>/dev/null)"
fi

# QEMU ended by itself: no timeout, and the guest's own shutdown (what
# /init does after its steps) never ran.
if ((vmrun_rc != 124 && vmrun_secs < timeout)) &&
   [ "$(line_of "$console" 'vmrun: shutdown')" = 0 ] &&
   [ "$(line_of "$console" 'vmrun: run 1 done')" = 0 ]; then
	ok "guest powered off by itself before the timeout"
else
	not_ok "guest powered off by itself before the timeout" \
		"vmrun exit $vmrun_rc after $vmrun_secs s, or /init reached its own shutdown"
fi

end=$(line_of "$console" "$type-torture: --- End of test: SUCCESS")
summary=$(line_of "$console" "$type-torture: summary: type=$type ")
if ((end > 0 && summary > 0 && summary < end)); then
	ok "report with '--- End of test: SUCCESS'"
else
	not_ok "report with '--- End of test: SUCCESS'" \
		"summary at line $summary, End of test: SUCCESS at line $end"
fi

# The report first, then the module's shutdown line, then the power-off.
down=$(line_of "$console" "$type-torture: shutdown_secs=$secs reached: powering off")
power=$(line_of "$console" 'reboot: Power down')
if ((end > 0 && down > end && power > down)); then
	ok "shutdown_secs=$secs line after the report, then 'reboot: Power down'"
else
	not_ok "shutdown_secs=$secs line after the report, then 'reboot: Power down'" \
		"report at line $end, shutdown line at $down, power down at $power"
fi

if ((negative)); then
	dir=$outdir/no-poweroff
	run_guest "$dir" --run "torture_type=$type runtime_secs=1 stat_interval=0"
	diag "runtime_secs=1 (no power-off): vmrun exit $vmrun_rc after $vmrun_secs s"
	if ((vmrun_rc == 1)) &&
	   grep -q '^reason=guest: .*did not power itself off' "$dir/result"; then
		ok "vmrun --expect-poweroff fails when the guest does not power off"
	else
		not_ok "vmrun --expect-poweroff fails when the guest does not power off" \
			"exit $vmrun_rc: $(grep -m 1 '^reason=' "$dir/result" 2>/dev/null)"
	fi
fi
tap_end
