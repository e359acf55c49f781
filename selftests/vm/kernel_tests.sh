#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel_tests.sh - the lock as the guest kernel's own arch_spinlock_t
# (kernel/patches/, make kernel): build the kernels, boot them overcommitted
# and run the upstream locktorture and our torture module on them.
#
#   1. The test kernel (--config, default configs/all.config: the unfair
#      lock, so every path, with LOCK_STATS; built with the test-only fault
#      injection, dormant unless pvq_locks.inject_fault= is given) is built.
#   2. At each overcommit level (2x and 4x: 2 and 4 vCPUs per host CPU):
#      upstream locktorture spin_lock, spin_lock_irq and rw_lock (rwlock_t
#      is qrwlock, whose wait_lock is our lock) each end in SUCCESS with no
#      "???" or "!!!" on their Writes/Reads lines; our torture module's
#      spin_lock type (the kernel's lock) with irq_mode=mixed ends in
#      SUCCESS; no kernel warning, lockup or stall anywhere.
#   3. At 2x the kernel's lock event counters (debugfs) show halts and
#      kicks during locktorture spin_lock: the PV path ran in the kernel.
#   4. A broken lock is caught: the same kernel booted with
#      pvq_locks.inject_fault=skip_handoff (and drop_kick on the strict
#      backend) must stall, and the stall detectors must say so.  Built
#      in, the faults break only locks in module memory (locktorture's),
#      so the console that must report the stall keeps working.
#   5. A module whose licence is not GPL and that takes a spinlock
#      (selftests/vm/extmod/) builds against the test kernel (its slow
#      paths are exported to every module, as upstream's are), and loads
#      in the 2x guest, where it contends its lock from every CPU and
#      checks that no update made under it was lost.
#
# With --all-kernels (make test-kernels, not in make test: two more
# cold kernel builds would take make test past 30 minutes on 2 cores):
#   6. base, native, pv and stock build, boot to a shell and run
#      locktorture spin_lock at 2x;
#   7. the debug kernel (DEBUG_SPINLOCK + PROVE_LOCKING, of --config) runs
#      locktorture spin_lock and rw_lock with lockdep on and no splat.
#
# Prints TAP; exit status 0 when every test passed.

set -uo pipefail

readonly PROG=kernel_tests.sh
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
readonly ROOT
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
readonly VMRUN=$ROOT/tools/vmrun
readonly BUILD=$ROOT/tools/build-kernel
readonly GUEST=$ROOT/selftests/vm/guest_locktorture.sh

CONFIG=configs/all.config
# Seconds per torture type and overcommit unit: 10 s at 2x, 20 s at 4x.
# Shorter runs at 4x show locktorture's start-up skew as "???" (8 s runs
# of the unfair lock: Max/Min 2.02; 20 s: 1.3-1.5).
SECS=5
LEVELS="2 4"
OUTDIR=$ROOT/out/kernel-tests
DEBUG=0
FAULTS=1
ALL_KERNELS=0
GIVEN_IMAGE=""
HOST_CPUS=$(nproc)

usage() {
	cat <<EOF
usage: $PROG [--config FRAGMENT] [--secs N] [--levels "2 4"] [--debug]
	[--no-faults] [--all-kernels] [--kernel IMAGE] [--outdir DIR]
  --config F      the test kernel's fragment (default: $CONFIG)
  --secs N        seconds per torture type, times the overcommit level
                  (default: $SECS)
  --levels L      overcommit levels, vCPUs per host CPU (default: "$LEVELS")
  --debug         also the DEBUG_SPINLOCK + PROVE_LOCKING kernel
  --no-faults     skip the broken-lock runs
  --all-kernels   instead: build base, native, pv and stock and boot
                  each, and test the debug kernel
  --kernel IMAGE  test this make-kernel bzImage instead of building one
  --outdir DIR    consoles and logs (default: out/kernel-tests)
EOF
}

parse_args() {
	local l
	while (($#)); do
		case $1 in
		-h | --help) usage; exit 0 ;;
		--debug) DEBUG=1 ;;
		--no-faults) FAULTS=0 ;;
		--all-kernels) ALL_KERNELS=1 ;;
		--config | --secs | --levels | --outdir | --kernel)
			(($# > 1)) || usage_error "$1 needs a value"
			case $1 in
			--config) CONFIG=$2 ;;
			--secs) need_int "$1" "$2" 1 3600; SECS=$2 ;;
			--levels)
				for l in $2; do need_int --levels "$l" 1 8; done
				LEVELS=$2
				;;
			--outdir) OUTDIR=$2 ;;
			--kernel)
				[[ -f $2 ]] || usage_error "--kernel: no such file '$2'"
				GIVEN_IMAGE=$2
				;;
			esac
			shift
			;;
		*) usage_error "unknown option '$1'" ;;
		esac
		shift
	done
}

# build NAME ARGS...: make kernel; sets IMAGE; one TAP line.
build() {
	local name=$1 log start=$SECONDS
	shift
	log=$OUTDIR/build-$name.log
	IMAGE=""
	if "$BUILD" "$@" >"$log" 2>&1; then
		IMAGE=$(tail -n 1 "$log")
		ok "make kernel $name ($((SECONDS - start)) s)"
	else
		not_ok "make kernel $name" "see $log: $(tail -n 3 "$log" | tr '\n' ' ')"
	fi
}

# The section of a console between two locktorture-run markers.
lt_section() {
	console_text "$1" | sed -n "/locktorture-run: start $2\$/,/locktorture-run: done $2 /p"
}

# vm NAME ARGS...: one tools/vmrun; sets VM_DIR, CONSOLE and VM_RC.
vm() {
	local name=$1
	shift
	VM_DIR=$OUTDIR/$name
	mkdir -p "$VM_DIR"
	CONSOLE=$VM_DIR/console.log
	"$VMRUN" --quiet --outdir "$VM_DIR" --console "$CONSOLE" \
		--host-cpus "0-$((HOST_CPUS - 1))" "$@" >"$VM_DIR/vmrun.log" 2>&1
	VM_RC=$?
	diag "$name: vmrun exit $VM_RC, console $CONSOLE"
}

# The first N reasons vmrun gave for failing the last vm, on one line.
vm_reasons() {
	grep -a '^reason=' "$VM_DIR/result" | head -n "$1" | tr '\n' ' '
}

# check_locktorture LABEL TYPE: SUCCESS, and no ???/!!! on its stats lines.
check_locktorture() {
	local label=$1 t=$2 sec stats
	sec=$(lt_section "$CONSOLE" "$t")
	stats=$(grep -aE '(Writes|Reads ):  Total:' <<<"$sec")
	while IFS= read -r line; do
		[[ -n $line ]] && diag "$label $t: ${line#*] }"
	done <<<"$stats"
	if ! grep -aq 'End of test: SUCCESS' <<<"$sec"; then
		not_ok "$label: upstream locktorture $t ends in SUCCESS" \
			"$(grep -aE 'End of test|status' <<<"$sec" | tail -n 2 | tr '\n' ' ')"
	elif [[ -z $stats ]]; then
		not_ok "$label: upstream locktorture $t ends in SUCCESS" "no statistics line"
	elif grep -aqE '\?\?\?|!!!' <<<"$stats"; then
		not_ok "$label: upstream locktorture $t ends in SUCCESS" "imbalance (???) or failure (!!!)"
	else
		ok "$label: upstream locktorture $t ends in SUCCESS, no ??? or !!!"
	fi
}

# The kernel's counter NAME after locktorture TYPE (0 if absent).
event() {
	console_text "$CONSOLE" | awk -v t="$1" -v n="$2" '
		$1 == "pvq-events:" && $2 == t && $3 == n { v = $4 }
		END { print v + 0 }'
}

# The non-GPL module that takes a spinlock, built against the test kernel
# (as an external module: M=) into a --modules directory of its own, with
# the kernel's modules.  Sets EXTMOD_DIR ("" if it did not build).
readonly EXTMOD=nongpl_spinlock
build_extmod() {
	local build src=$OUTDIR/extmod-src log=$OUTDIR/extmod-build.log
	build=$(dirname "$IMAGE")/build
	EXTMOD_DIR=""
	rm -rf "$src" "$OUTDIR/extmod-modules"
	mkdir -p "$src" "$OUTDIR/extmod-modules"
	cp "$ROOT"/selftests/vm/extmod/* "$src/"
	if make -C "$build" M="$src" modules >"$log" 2>&1; then
		EXTMOD_DIR=$OUTDIR/extmod-modules
		cp "$(dirname "$IMAGE")"/modules/*.ko "$src/$EXTMOD.ko" "$EXTMOD_DIR/"
		ok "a module with MODULE_LICENSE(\"Proprietary\") that takes a spinlock builds against the test kernel"
	else
		not_ok "a module with MODULE_LICENSE(\"Proprietary\") that takes a spinlock builds against the test kernel" \
			"$(grep -a -m 2 -E 'ERROR|error' "$log" | tr '\n' ' ')"
	fi
}

# After the 2x run: it loaded, and found no update lost under its lock.
check_extmod() {
	local label=$1 mark result
	mark=$(console_text "$CONSOLE" | grep -a -o "locktorture-run: insmod $EXTMOD.ko status [0-9]*")
	result=$(console_text "$CONSOLE" | grep -a -m 1 -o "$EXTMOD: \(PASS\|FAIL\).*")
	if [[ $mark == *" status 0" && $result == "$EXTMOD: PASS"* ]]; then
		ok "$label: the non-GPL module loads and takes its spinlock: ${result#*: }"
	else
		not_ok "$label: the non-GPL module loads and takes its spinlock" \
			"${mark:-no insmod mark} ${result:-no result line}"
	fi
}

test_levels() {
	local level vcpus label halts kicks types="spin_lock spin_lock_irq rw_lock" t secs backend
	local -a extra
	for level in $LEVELS; do
		vcpus=$((level * HOST_CPUS))
		secs=$((SECS * level))
		label="${level}x ($vcpus vCPUs)"
		extra=()
		if ((level == 2)) && [[ -n $EXTMOD_DIR ]]; then
			extra=(--modules "$EXTMOD_DIR" --guest-env "LT_MODULES=$EXTMOD.ko")
		fi
		vm "level-${level}x" --kernel "$IMAGE" --vcpus "$vcpus" \
			--timeout $((240 + 6 * secs * level)) \
			--run "torture_type=spin_lock irq_mode=mixed runtime_secs=$secs" \
			--guest-script "$GUEST" --guest-env "LT_TYPES=$types" \
			--guest-env "LT_SECS=$secs" "${extra[@]}"
		((${#extra[@]})) && check_extmod "$label"
		backend=$(grep -a -o 'pvq_locks: pv backend.*' "$CONSOLE" | head -n 1)
		if grep -aq "built in as the kernel's arch_spinlock_t" "$CONSOLE"; then
			ok "$label: the kernel's spinlock is ours (${backend:-no pv backend line})"
		else
			not_ok "$label: the kernel's spinlock is ours" "no 'built in' line from pvq_locks"
		fi
		for t in $types; do
			check_locktorture "$label" "$t"
		done
		if grep -a 'End of test: SUCCESS' "$CONSOLE" | grep -aq 'irq_mode=mixed'; then
			ok "$label: our torture spin_lock (the kernel's lock), irq_mode=mixed, SUCCESS"
		else
			not_ok "$label: our torture spin_lock (the kernel's lock), irq_mode=mixed, SUCCESS"
		fi
		if ((VM_RC == 0)); then
			ok "$label: no kernel warning, lockup or stall (vmrun passed)"
		else
			not_ok "$label: no kernel warning, lockup or stall" \
				"$(vm_reasons 3)"
		fi
		if ((level == 2)) && grep -qx 'CONFIG_PVQ_LOCK_STATS=y' "$(dirname "$IMAGE")/config"; then
			halts=$(($(event spin_lock wait_node) + $(event spin_lock wait_head)))
			kicks=$(($(event spin_lock kick_unlock) + $(event spin_lock kick_wake)))
			diag "$label: during locktorture spin_lock: $halts halts, $kicks kicks"
			if ((halts > 0 && kicks > 0)); then
				ok "$label: the kernel's PV path ran: $halts halts, $kicks kicks"
			else
				not_ok "$label: the kernel's PV path ran" "$halts halts, $kicks kicks"
			fi
		fi
	done
}

# A broken lock must be caught: boot with the fault armed, run locktorture.
test_fault() {
	local fault=$1 params=$2 name="fault-$1" evidence
	# A stall panics the guest (QEMU exits), so the run ends early.
	vm "$name" --kernel "$IMAGE" --vcpus $((2 * HOST_CPUS)) \
		--timeout 300 --boot-timeout 0 --boot-retries 0 \
		--lib-params "inject_fault=$fault $params" \
		--append "rcupdate.rcu_cpu_stall_timeout=10 sysctl.kernel.panic_on_rcu_stall=1 softlockup_panic=1" \
		--guest-script "$GUEST" --guest-env "LT_TYPES=spin_lock" \
		--guest-env "LT_SECS=60"
	evidence=$(console_text "$CONSOLE" | grep -aE -m 1 'self-detected stall|detected stalls|soft lockup|hard LOCKUP|End of test: FAILURE')
	if ! grep -aq "FAULT INJECTION BUILD: inject_fault=$fault" "$CONSOLE"; then
		not_ok "inject_fault=$fault is caught" "the fault was never armed"
	elif ((VM_RC != 0)) && [[ -n $evidence ]]; then
		ok "inject_fault=$fault is caught: vmrun exit $VM_RC, '${evidence:0:80}'"
	else
		not_ok "inject_fault=$fault is caught" "vmrun exit $VM_RC, no stall or FAILURE reported"
	fi
}

test_debug() {
	local label="debug kernel (DEBUG_SPINLOCK, PROVE_LOCKING)" t
	build "$(basename "$CONFIG" .config)+debug" --config "$CONFIG" --debug
	[[ -n $IMAGE ]] || return
	vm debug --kernel "$IMAGE" --vcpus $((2 * HOST_CPUS)) --timeout 600 \
		--guest-script "$GUEST" --guest-env "LT_TYPES=spin_lock rw_lock" \
		--guest-env "LT_SECS=$((SECS * 2))"
	if grep -aq 'boot-log: Lock dependency validator' "$CONSOLE" &&
		grep -aqE 'lockdep-state: *debug_locks: *1' "$CONSOLE"; then
		ok "$label: lockdep is on and stays on (debug_locks 1 after the runs)"
	else
		not_ok "$label: lockdep is on and stays on" \
			"$(grep -aE 'boot-log: Lock dep|lockdep-state' "$CONSOLE" | tr '\n' ' ')"
	fi
	for t in spin_lock rw_lock; do
		check_locktorture "$label" "$t"
	done
	if ((VM_RC == 0)); then
		ok "$label: no lockdep splat, warning or stall (vmrun passed)"
	else
		not_ok "$label: no lockdep splat, warning or stall" \
			"$(vm_reasons 3)"
	fi
}

test_all_kernels() {
	local k
	for k in base native pv stock; do
		build "$k" --config "configs/$k.config"
		[[ -n $IMAGE ]] || continue
		vm "boot-$k" --kernel "$IMAGE" --vcpus $((2 * HOST_CPUS)) \
			--timeout 300 --guest-script "$GUEST" \
			--guest-env "LT_TYPES=spin_lock" --guest-env "LT_SECS=$((SECS * 2))"
		if ((VM_RC == 0)); then
			ok "kernel $k boots to a shell and runs locktorture spin_lock ($(lt_section "$CONSOLE" spin_lock | grep -a -m 1 -o 'Writes:.*' | tr -s ' '))"
		else
			not_ok "kernel $k boots to a shell and runs locktorture spin_lock" \
				"$(vm_reasons 2)"
		fi
	done
}

main() {
	parse_args "$@"
	mkdir -p "$OUTDIR"
	# Absolute: an external module's M= is taken from the kernel's tree.
	OUTDIR=$(cd "$OUTDIR" && pwd)
	tap_start
	if ((ALL_KERNELS)); then
		test_all_kernels
		test_debug
		tap_end
		return
	fi
	if [[ -n $GIVEN_IMAGE ]]; then
		IMAGE=$GIVEN_IMAGE
		diag "testing the given kernel $IMAGE"
	else
		build "$(basename "$CONFIG" .config)+faults" --config "$CONFIG" --faults
	fi
	if [[ -n $IMAGE ]]; then
		build_extmod
		test_levels
		if ((FAULTS)); then
			test_fault skip_handoff ""
			test_fault drop_kick "pv_backend=strict spin_threshold=64 queue_spin_threshold=64"
		fi
	fi
	((DEBUG)) && test_debug
	tap_end
}

main "$@"
