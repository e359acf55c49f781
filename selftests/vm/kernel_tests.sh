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
#      "!!!" and no "???" on their Writes line (a readers' "???" is
#      reported: tools/lib/locktorture.sh says why); our torture module's
#      spin_lock type (the kernel's lock) with irq_mode=mixed ends in
#      SUCCESS; no kernel warning, lockup or stall anywhere.
#   2a. At 2x the lock's tunables (/sys/module/pvq_locks/parameters) are
#      all read-only, and writing one is refused: they are boot
#      parameters (PVQ_WRITABLE_TUNABLES, not in the test kernel, would
#      make them writable).
#   3. At 2x the kernel's lock event counters (debugfs) show halts and
#      kicks during locktorture spin_lock: the PV path ran in the kernel.
#      They are the kernel's lock events (lock_event_counts/pvq_*).
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
#   6. vcpu_is_preempted() is x86's paravirt one (pv_ops.lock, KVM steal
#      time), not <linux/sched.h>'s always-false fallback: a module that
#      #errors on the fallback (selftests/vm/vcpu_preempted/) builds
#      against the test kernel, and in a 2x guest finds the op set and
#      X86_FEATURE_VCPUPREEMPT agreeing with it (under TCG, with no steal
#      time: the native op, every CPU running).
#   7. nopvspin on the command line means pv_backend=none: the lock is
#      then the native qspinlock, and during locktorture spin_lock at 2x
#      no event of its PV protocol moves.
#   8. The NMI kick: booted with pvq_locks.pv_backend=nmi, at 2x and 4x,
#      upstream locktorture spin_lock_irq (its waiters, and most of the
#      kernel's own, wait with interrupts off and halt there) ends in
#      SUCCESS with no kernel warning, and NMI kicks were sent.
#   8a. KVM's kick: booted on the testbed with KVM's PV unhalt
#      (tcg-pvunhalt, make qemu), at 2x and 4x, the default backend is kvm
#      (auto), upstream locktorture spin_lock and spin_lock_irq end in
#      SUCCESS with no kernel warning, and KVM_HC_KICK_CPU kicks woke the
#      waiters that halted with interrupts off.
#
# With --all-kernels (make test-kernels, not in make test: five more
# cold kernel builds, about 12 minutes each on 2 cores, would take make
# test far past its time limit):
#   9. base, native, pv, unfair and stock build, boot to a shell and run
#      locktorture spin_lock at 2x;
#  10. the debug kernel (DEBUG_SPINLOCK + PROVE_LOCKING, of --config) runs
#      locktorture spin_lock and rw_lock with lockdep on and no splat.
#
# Prints TAP; exit status 0 when every test passed.

set -uo pipefail

readonly PROG=kernel_tests.sh
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
readonly ROOT
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
# shellcheck source=tools/lib/locktorture.sh
. "$ROOT/tools/lib/locktorture.sh"
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
# How much more code kernel A may have than stock, in percent.
readonly TEXT_LIMIT_PCT=0.5
GIVEN_IMAGE=""
HOST_CPUS=$(nproc)

usage() {
	cat <<EOF
usage: $PROG [--kver V] [--config FRAGMENT] [--secs N] [--levels "2 4"]
	[--debug] [--no-faults] [--all-kernels] [--kernel IMAGE] [--outdir DIR]
  --kver V        kernel version, one of: $(kernel_versions | tr '\n' ' ')
                  (default: \$KVER or $DEFAULT_KVER)
  --config F      the test kernel's fragment (default: $CONFIG)
  --secs N        seconds per torture type, times the overcommit level
                  (default: $SECS)
  --levels L      overcommit levels, vCPUs per host CPU (default: "$LEVELS")
  --debug         also the DEBUG_SPINLOCK + PROVE_LOCKING kernel
  --no-faults     skip the broken-lock runs
  --all-kernels   instead: build base, native, pv, unfair and stock and
                  boot each, and test the debug kernel
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
		--config | --secs | --levels | --outdir | --kernel | --kver)
			(($# > 1)) || usage_error "$1 needs a value"
			case $1 in
			--kver)
				kernel_versions | grep -qxF -- "$2" ||
					usage_error "--kver: unknown version '$2' (valid: $(kernel_versions | tr '\n' ' '))"
				KVER=$2
				;;
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

# The parameters that keep locktorture's own randomness out of what it
# reports, of those the kernel's locktorture.ko has: since 6.7 it holds a
# lock now and then for long_hold ms (default 100) and RT-boosts its
# threads (rt_boost=2, every lock type); both skew the per-thread counts
# at random (at 4x, reader Max/Min reached 2.6 on 6.12, "???"), so the
# imbalance check would say nothing about the lock.  6.1's has neither.
lt_params() {
	local p out=()
	for p in long_hold=0 rt_boost=0; do
		modinfo -p "$(dirname "$IMAGE")/modules/locktorture.ko" 2>/dev/null |
			grep -q "^${p%%=*}:" && out+=("$p")
	done
	echo "${out[*]}"
}

# vm NAME ARGS...: one tools/vmrun; sets VM_DIR, CONSOLE and VM_RC.  A
# locktorture guest also gets lt_params().
vm() {
	local name=$1 lt=()
	shift
	VM_DIR=$OUTDIR/$name
	mkdir -p "$VM_DIR"
	CONSOLE=$VM_DIR/console.log
	[[ " $* " == *" $GUEST "* ]] && lt=(--guest-env "LT_PARAMS=$(lt_params)")
	"$VMRUN" --quiet --outdir "$VM_DIR" --console "$CONSOLE" \
		--host-cpus "0-$((HOST_CPUS - 1))" "$@" "${lt[@]}" >"$VM_DIR/vmrun.log" 2>&1
	VM_RC=$?
	diag "$name: vmrun exit $VM_RC, console $CONSOLE"
}

# check_backend LABEL TEXT WHAT: the last vm's console says
# "pvq_locks: pv backend TEXT"; the test is named WHAT.
check_backend() {
	if grep -aqF "pvq_locks: pv backend $2" "$CONSOLE"; then
		ok "$1: $3"
	else
		not_ok "$1: $3" \
			"$(grep -a -o 'pvq_locks: pv backend.*' "$CONSOLE" | head -n 1)"
	fi
}

# check_vm_clean LABEL: vmrun passed the last vm (no kernel warning,
# lockup or stall on its console).
check_vm_clean() {
	if ((VM_RC == 0)); then
		ok "$1: no kernel warning, lockup or stall (vmrun passed)"
	else
		not_ok "$1: no kernel warning, lockup or stall" "$(vm_reasons 3)"
	fi
}

# The first N reasons vmrun gave for failing the last vm, on one line.
vm_reasons() {
	grep -a '^reason=' "$VM_DIR/result" | head -n "$1" | tr '\n' ' '
}

# check_locktorture LABEL TYPE: the run of TYPE in $CONSOLE ended as
# lt_verdict (tools/lib/locktorture.sh) says it must: SUCCESS, no "!!!",
# no writers' "???".  A readers' "???" is reported, not failed.
check_locktorture() {
	local label=$1 t=$2 sec stats verdict
	sec=$(lt_section "$CONSOLE" "$t")
	stats=$(lt_stats "$sec")
	while IFS= read -r line; do
		[[ -n $line ]] && diag "$label $t: ${line#*] }"
	done <<<"$stats"
	verdict=$(lt_verdict "$sec")
	case $verdict in
	ok)
		lt_readers_imbalance "$sec" &&
			diag "$label $t: the readers' ??? is reported, not failed (tools/lib/locktorture.sh)"
		ok "$label: upstream locktorture $t ends in SUCCESS, no !!!, writers balanced"
		;;
	failure)
		not_ok "$label: upstream locktorture $t ends in SUCCESS" \
			"$(grep -aE 'End of test|status|!!!' <<<"$sec" | tail -n 2 | tr '\n' ' ')"
		;;
	no-stats)
		not_ok "$label: upstream locktorture $t ends in SUCCESS" "no statistics line" ;;
	*)
		not_ok "$label: upstream locktorture $t ends in SUCCESS" "writers' imbalance (???)" ;;
	esac
}

# check_locktorture_at LEVEL LABEL TYPE VCPUS SECS: check_locktorture, but
# at 4x and above a writers' imbalance alone is run again once, in a guest
# of its own: upstream locktorture does not balance its threads, and the
# host's uneven sharing of 2 CPUs among 8 vCPUs has left a writer at 0.55
# of another (1.8) for a whole run.  A lock that starves a thread shows it
# in both runs.
check_locktorture_at() {
	local level=$1 label=$2 t=$3 vcpus=$4 secs=$5
	local saved_console=$CONSOLE saved_dir=$VM_DIR saved_rc=$VM_RC
	if ((level < 4)) || [[ $(lt_verdict "$(lt_section "$CONSOLE" "$t")") != imbalance ]]; then
		check_locktorture "$label" "$t"
		return
	fi
	diag "$label: locktorture $t: a writers' imbalance (???) alone; once more in a guest of its own"
	vm "level-${level}x-$t-again" --kernel "$IMAGE" --vcpus "$vcpus" \
		--timeout $((240 + 6 * secs)) \
		--guest-script "$GUEST" --guest-env "LT_TYPES=$t" \
		--guest-env "LT_SECS=$secs"
	check_locktorture "$label (run again)" "$t"
	CONSOLE=$saved_console
	VM_DIR=$saved_dir
	VM_RC=$saved_rc
}

# The kernel's counter NAME after locktorture TYPE (0 if absent).
event() {
	console_text "$CONSOLE" | awk -v t="$1" -v n="$2" '
		$1 == "pvq-events:" && $2 == t && $3 == n { v = $4 }
		END { print v + 0 }'
}

# Built in, the lock's counters must be the kernel's lock events
# (/sys/kernel/debug/lock_event_counts/pvq_*), not a file of their own.
check_events_source() {
	local source
	source=$(console_text "$CONSOLE" | awk '
		$1 == "pvq-events-source:" { s = $2 }
		END { print s }')
	if [[ $source == kernel ]]; then
		ok "$1: the lock's counters are the kernel's lock events (lock_event_counts/pvq_*)"
	else
		not_ok "$1: the lock's counters are the kernel's lock events" \
			"the guest found them in: ${source:-(no line)}"
	fi
}

# The test modules of selftests/vm/<dir>/, built against the test kernel
# as external modules (M=) into one --modules directory with the kernel's
# own modules; the 2x guest loads them (guest_locktorture.sh LT_MODULES).
TEST_MODULES_DIR=""
TEST_MODULES=()

# build_test_module DIR NAME [MAKE ARGS...]: build selftests/vm/DIR/NAME.ko
# against the kernel's installed headers (make kernel's headers/, which
# need neither its source tree nor its build directory: what a vendor
# building a driver has); status 0 if it built (and was added to
# TEST_MODULES), else BUILD_ERR holds its log's first errors.
BUILD_ERR=""
build_test_module() {
	local dir=$1 name=$2 src=$OUTDIR/$1-src log=$OUTDIR/$1-build.log
	shift 2
	rm -rf "$src"
	mkdir -p "$src"
	cp "$ROOT/selftests/vm/$dir"/* "$src/"
	if ! make -C "$(dirname "$IMAGE")/headers" M="$src" "$@" modules \
		>"$log" 2>&1; then
		BUILD_ERR=$(grep -a -m 2 -E 'ERROR|error' "$log" |
			sed 's|^.*/\([a-z_]*\.c:\)|\1|' | tr '\n' ' ')
		return 1
	fi
	if [[ -z $TEST_MODULES_DIR ]]; then
		TEST_MODULES_DIR=$OUTDIR/test-modules
		rm -rf "$TEST_MODULES_DIR"
		mkdir -p "$TEST_MODULES_DIR"
		cp "$(dirname "$IMAGE")"/modules/*.ko "$TEST_MODULES_DIR/"
	fi
	cp "$src/$name.ko" "$TEST_MODULES_DIR/"
	TEST_MODULES+=("$name.ko")
}

# check_test_module LABEL NAME WHAT: after the 2x run, NAME.ko loaded and
# said PASS; its PASS or FAIL line, without its prefix, follows WHAT.
check_test_module() {
	local label=$1 name=$2 what=$3 mark result
	mark=$(console_text "$CONSOLE" | grep -a -o "locktorture-run: insmod $name.ko status [0-9]*")
	result=$(console_text "$CONSOLE" | grep -a -m 1 -o "$name: \(PASS\|FAIL\).*")
	if [[ $mark == *" status 0" && $result == "$name: PASS"* ]]; then
		ok "$label: $what: ${result#*: PASS: }"
	else
		not_ok "$label: $what" "${mark:-no insmod mark} ${result:-no result line}"
	fi
}

# A module whose licence is not GPL and that takes a spinlock: spin_lock()
# inlines calls to the slow paths, which must be exported to it.
readonly EXTMOD=nongpl_spinlock
build_extmod() {
	local label="a module with MODULE_LICENSE(\"Proprietary\") that takes a spinlock builds against the test kernel's installed headers"
	if build_test_module extmod "$EXTMOD"; then
		ok "$label"
	else
		not_ok "$label" "$BUILD_ERR"
	fi
}

# vcpu_is_preempted() must be x86's paravirt one (pv_ops.lock, which KVM
# sets from steal time), not <linux/sched.h>'s fallback, which always says
# "running": upstream defines it in asm/qspinlock.h, which a kernel whose
# lock is ours does not include (kernel/patches/ patch 3 moves it).  The
# module (selftests/vm/vcpu_preempted/) #errors on the fallback, so it
# must build; if it does not, it is built again with the #error off, so
# that the guest still shows what the kernel does.  In the 2x guest it
# names the function the op holds and checks that X86_FEATURE_VCPUPREEMPT
# agrees with it.  Under TCG there is no KVM steal time, so all it can
# show is that the paravirt path is compiled in and wired up: the op is
# the native one, its calls patched to false, every CPU "running".
readonly VPC=vcpu_preempted_check
build_vcpu_preempted() {
	local label="vcpu_is_preempted() is the arch one at build time: $VPC.ko builds against the test kernel"
	if build_test_module vcpu_preempted "$VPC"; then
		ok "$label"
	else
		not_ok "$label" "$BUILD_ERR"
		build_test_module vcpu_preempted "$VPC" \
			KCFLAGS=-DVCPU_PREEMPTED_ALLOW_GENERIC
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
		if ((level == 2 && ${#TEST_MODULES[@]})); then
			extra=(--modules "$TEST_MODULES_DIR"
				--guest-env "LT_MODULES=${TEST_MODULES[*]}")
		fi
		vm "level-${level}x" --kernel "$IMAGE" --vcpus "$vcpus" \
			--timeout $((240 + 6 * secs * level)) \
			--run "torture_type=spin_lock irq_mode=mixed runtime_secs=$secs" \
			--guest-script "$GUEST" --guest-env "LT_TYPES=$types" \
			--guest-env "LT_SECS=$secs" "${extra[@]}"
		if ((${#extra[@]})); then
			check_test_module "$label" "$EXTMOD" \
				"the non-GPL module loads and takes its spinlock"
			check_test_module "$label" "$VPC" \
				"vcpu_is_preempted() is the paravirt op"
		fi
		backend=$(grep -a -o 'pvq_locks: pv backend.*' "$CONSOLE" | head -n 1)
		if grep -aq "built in as the kernel's arch_spinlock_t" "$CONSOLE"; then
			ok "$label: the kernel's spinlock is ours (${backend:-no pv backend line})"
		else
			not_ok "$label: the kernel's spinlock is ours" "no 'built in' line from pvq_locks"
		fi
		for t in $types; do
			check_locktorture_at "$level" "$label" "$t" "$vcpus" "$secs"
		done
		if grep -a 'End of test: SUCCESS' "$CONSOLE" | grep -aq 'irq_mode=mixed'; then
			ok "$label: our torture spin_lock (the kernel's lock), irq_mode=mixed, SUCCESS"
		else
			not_ok "$label: our torture spin_lock (the kernel's lock), irq_mode=mixed, SUCCESS"
		fi
		check_vm_clean "$label"
		((level == 2)) && check_tunables_read_only "$label"
		if ((level == 2)) && grep -qx 'CONFIG_PVQ_LOCK_STATS=y' "$(dirname "$IMAGE")/config"; then
			halts=$(($(event spin_lock wait_node) + $(event spin_lock wait_head)))
			# Kicks are the unlockers' (kick_unlock); kick_wake
			# counts waiters that woke to their turn, not kicks.
			kicks=$(event spin_lock kick_unlock)
			diag "$label: during locktorture spin_lock: $halts halts, $kicks kicks"
			check_events_source "$label"
			if ((halts > 0 && kicks > 0)); then
				ok "$label: the kernel's PV path ran: $halts halts, $kicks kicks"
			else
				not_ok "$label: the kernel's PV path ran" "$halts halts, $kicks kicks"
			fi
		fi
	done
}

# The kernel's lock tunables are boot parameters: every one read-only
# (0444) in sysfs, and a write refused (2a. above).  Test $1.
check_tunables_read_only() {
	local name="$1: the lock's tunables are read-only (boot parameters)"
	local modes writable write
	modes=$(grep -a -o 'pvq-param: .*' "$CONSOLE" | tr -d '\r')
	writable=$(awk '$3 != "444" { printf "%s %s; ", $2, $3 }' <<<"$modes")
	write=$(grep -a -o 'pvq-param-write: pass_bound status [0-9]*' "$CONSOLE")
	if [[ -z $modes ]]; then
		not_ok "$name" "no pvq-param line on the console"
	elif [[ -n $writable ]]; then
		not_ok "$name" "writable: $writable"
	elif [[ -z $write || $write == *" status 0" ]]; then
		not_ok "$name" "${write:-no pvq-param-write line}"
	else
		ok "$name ($(wc -l <<<"$modes") of them)"
	fi
}

# The NMI kick in the kernel build (8. above).
test_nmi_levels() {
	local level vcpus secs label sent
	for level in $LEVELS; do
		vcpus=$((level * HOST_CPUS))
		secs=$((SECS * level))
		label="${level}x ($vcpus vCPUs), pv_backend=nmi"
		vm "nmi-${level}x" --kernel "$IMAGE" --vcpus "$vcpus" \
			--timeout $((240 + 3 * secs * level)) \
			--lib-args "pv_backend=nmi" \
			--guest-script "$GUEST" --guest-env "LT_TYPES=spin_lock_irq" \
			--guest-env "LT_SECS=$secs"
		check_backend "$label" "nmi" "the kernel's lock runs on the NMI kick"
		check_locktorture "$label" spin_lock_irq
		check_vm_clean "$label"
		if grep -qx 'CONFIG_PVQ_LOCK_STATS=y' "$(dirname "$IMAGE")/config"; then
			sent=$(event spin_lock_irq nmi_kick_sent)
			diag "$label: during locktorture spin_lock_irq: $sent NMI kicks sent, $(event spin_lock_irq nmi_kick_woke) woke a waiter, $(event spin_lock_irq nmi_kick_not_waiting) found none"
			if ((sent > 0)); then
				ok "$label: waiters with interrupts off halted and NMI kicks woke them ($sent)"
			else
				not_ok "$label: waiters with interrupts off halted and NMI kicks woke them" \
					"nmi_kick_sent=$sent"
			fi
		fi
	done
}

# KVM's kick in the kernel build (8a. above).
test_kvm_levels() {
	local level vcpus secs label kicks halts
	if [[ ! -x $PVQ_BUILT_QEMU ]]; then
		not_ok "the kvm backend in the kernel build" "$PVQ_BUILT_QEMU missing: run 'make qemu'"
		return
	fi
	for level in $LEVELS; do
		vcpus=$((level * HOST_CPUS))
		secs=$((SECS * level))
		label="${level}x ($vcpus vCPUs), $(testbed_title tcg-pvunhalt)"
		vm "kvm-${level}x" --testbed tcg-pvunhalt --kernel "$IMAGE" \
			--vcpus "$vcpus" --timeout $((240 + 6 * secs * level)) \
			--guest-script "$GUEST" \
			--guest-env "LT_TYPES=spin_lock spin_lock_irq" \
			--guest-env "LT_SECS=$secs"
		check_backend "$label" "kvm (the hypervisor offers KVM PV unhalt)" \
			"auto picks the kvm backend"
		check_locktorture_at "$level" "$label" spin_lock "$vcpus" "$secs"
		check_locktorture_at "$level" "$label" spin_lock_irq "$vcpus" "$secs"
		check_vm_clean "$label"
		if grep -qx 'CONFIG_PVQ_LOCK_STATS=y' "$(dirname "$IMAGE")/config"; then
			halts=$(($(event spin_lock_irq wait_node) + $(event spin_lock_irq wait_head)))
			kicks=$(event spin_lock_irq kick_unlock)
			diag "$label: during locktorture spin_lock_irq: $halts halts, $kicks kicks"
			if ((halts > 0 && kicks > 0)); then
				ok "$label: waiters with interrupts off halted and KVM_HC_KICK_CPU woke them ($halts halts, $kicks kicks)"
			else
				not_ok "$label: waiters with interrupts off halted and KVM_HC_KICK_CPU woke them" \
					"$halts halts, $kicks kicks"
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
		--lib-args "inject_fault=$fault $params" \
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

# nopvspin (upstream's boot parameter) means pv_backend=none: the PV queued
# lock is then the native qspinlock, and no event of its PV protocol may
# move during locktorture spin_lock at 2x, though the slow path runs.
test_nopvspin() {
	local label="nopvspin at 2x" e n moved=""
	vm nopvspin --kernel "$IMAGE" --vcpus $((2 * HOST_CPUS)) --timeout 240 \
		--append nopvspin --guest-script "$GUEST" \
		--guest-env "LT_TYPES=spin_lock" --guest-env "LT_SECS=$SECS"
	if ! grep -aq 'pvq_locks: pv backend none (nopvspin)' "$CONSOLE"; then
		not_ok "$label: the backend is none" \
			"$(grep -a -m 1 -o 'pvq_locks: pv backend.*' "$CONSOLE")"
		return
	fi
	ok "$label: the backend is none"
	grep -qx 'CONFIG_PVQ_LOCK_STATS=y' "$(dirname "$IMAGE")/config" || return
	for e in wait_node wait_head wait_again kick_unlock kick_wake spurious \
		hash_hops lock_stealing steal_block unfair_steal; do
		n=$(event spin_lock "$e")
		((n == 0)) || moved+=" $e=$n"
	done
	if ((VM_RC != 0)); then
		not_ok "$label: the lock runs native" "$(vm_reasons 2)"
	elif [[ -n $moved ]]; then
		not_ok "$label: the lock runs native" "PV events moved:$moved"
	elif (($(event spin_lock slowpath) == 0)); then
		not_ok "$label: the lock runs native" "no slow path ran: nothing to judge"
	else
		ok "$label: the lock runs native: no PV event in $(event spin_lock slowpath) slow paths"
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

# The text size of the kernel whose bzImage is $1 (size(1) of its vmlinux).
text_size() {
	local dir
	dir=$(dirname "$1")
	size "$dir/vmlinux" 2>/dev/null | awk 'NR == 2 { print $1 }'
}

# Kernel A (the unfair lock built in) may not grow the kernel's code: its
# text at most TEXT_LIMIT_PCT (0.5) percent above stock's, so that the
# inlined fast paths and unlocks at every call site stay paid for.
check_text_size() {
	local a=$1 stock=$2 ta ts
	ta=$(text_size "$a") ts=$(text_size "$stock")
	if [[ -z $ta || -z $ts ]]; then
		not_ok "kernel A's text against stock's" "no vmlinux beside $a or $stock"
		return
	fi
	if awk -v a="$ta" -v s="$ts" -v l="$TEXT_LIMIT_PCT" 'BEGIN { exit !(a <= s * (1 + l / 100)) }'; then
		ok "kernel A's text, $ta bytes, against stock's $ts: $(awk -v a="$ta" -v s="$ts" 'BEGIN { printf "%+.2f%%", (a / s - 1) * 100 }') (limit +$TEXT_LIMIT_PCT%)"
	else
		not_ok "kernel A's text, $ta bytes, at most $TEXT_LIMIT_PCT% above stock's $ts" \
			"$(awk -v a="$ta" -v s="$ts" 'BEGIN { printf "%+.2f%%", (a / s - 1) * 100 }')"
	fi
}

test_all_kernels() {
	local k a_image='' stock_image=''
	for k in base native pv unfair stock; do
		build "$k" --config "configs/$k.config"
		[[ -n $IMAGE ]] || continue
		[[ $k == unfair ]] && a_image=$IMAGE
		[[ $k == stock ]] && stock_image=$IMAGE
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
	if [[ -n $a_image && -n $stock_image ]]; then
		check_text_size "$a_image" "$stock_image"
	else
		not_ok "kernel A's text against stock's" "kernel A or stock did not build"
	fi
}

main() {
	parse_args "$@"
	# tools/build-kernel builds this version.
	export KVER=${KVER:-$DEFAULT_KVER}
	mkdir -p "$OUTDIR"
	# Absolute: an external module's M= is taken from the kernel's tree.
	OUTDIR=$(cd "$OUTDIR" && pwd)
	tap_start
	diag "kernel version $KVER (kernel/patches/$KVER/)"
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
		build_vcpu_preempted
		test_levels
		test_nmi_levels
		test_kvm_levels
		test_nopvspin
		if ((FAULTS)); then
			test_fault skip_handoff ""
			test_fault drop_kick "pv_backend=strict spin_threshold=64 queue_spin_threshold=64"
		fi
	fi
	((DEBUG)) && test_debug
	tap_end
}

main "$@"
