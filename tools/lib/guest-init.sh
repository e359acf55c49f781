#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# guest-init.sh - the guest's /init, copied as it is into the initramfs by
# tools/vmrun: mount, load the lock library, do the torture runs and the
# guest script, report through printk markers, power off.  It runs under
# busybox sh (POSIX only).
#
# What to do comes from files vmrun writes under /vmrun, never from code
# spliced in on the host:
#   /vmrun/lib.params        pvq_locks.ko parameters (present when runs are)
#   /vmrun/runs/1, 2, ...    one qspinlock_torture.ko parameter line each
#                            (lib.NAME=VALUE words: pvq_locks.ko's parameter
#                            NAME, for that run only: written if writable,
#                            else pvq_locks.ko is loaded again with it)
#   /vmrun/expect-poweroff   present with --expect-poweroff
#   /vmrun/guest.sh          --guest-script, run with /vmrun/env sourced
#   /vmrun/env               VMRUN_* and --guest-env exports (sh-quoted)
#   /vmrun/lock-events.sh    for guest scripts: the lock event counters
# The markers ("vmrun: ...") end vmrun's steps; see tools/vmrun.

# busybox --install needs /proc/self/exe, so /proc comes first.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t devtmpfs devtmpfs /dev
# The kernel may have had no /dev/console to give us; reopen it so that all
# output (ours and the guest script's) lands on the serial console.
exec </dev/console >/dev/console 2>&1
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
# Boot ran with "quiet" for speed; from now on every module message
# (pr_info included) must reach the console.
dmesg -n 8
# Markers go through printk, not the tty: tty output drains from an
# interrupt while printk writes the UART directly, so an echoed line can be
# cut in half by a kernel message. printk keeps lines whole. Lift the
# /dev/kmsg rate limit so no marker is dropped.
echo on >/proc/sys/kernel/printk_devkmsg
mark() {
	echo "<5>vmrun: $*" >/dev/kmsg
}
# Parameters are split on blanks but must never be globbed.
set -f

mark "guest up: $(nproc) cpus, kernel $(uname -r)"

lib_params=
if [ -f /vmrun/lib.params ]; then
	mark "lib start"
	lib_params=$(cat /vmrun/lib.params)
	# shellcheck disable=SC2086 # one parameter per word (set -f above)
	insmod /modules/pvq_locks.ko $lib_params
	mark "lib insmod status $?"
fi

# --expect-poweroff: the last run's module must power the guest off after
# its report.  Wait for the report (the log was cleared before the insmod),
# then give it POWEROFF_GRACE seconds; if the guest is still up, the run
# goes on to its end and vmrun fails it.
POWEROFF_GRACE=10
wait_poweroff() {
	mark "run $n waiting for the guest to power itself off"
	until dmesg | grep -q -- '--- End of test:'; do
		sleep 1
	done
	sleep $POWEROFF_GRACE
	mark "run $n: still up $POWEROFF_GRACE s after the report"
}

# A run's lib.NAME=VALUE: the load's value is kept in /tmp/lib-saved/NAME.
# A read-only parameter (pv_backend: chosen once, at load) is given by
# loading pvq_locks.ko again, with the load's parameters and NAME=VALUE
# (no torture module holds it between runs); /tmp/lib-reloaded says so.
LIB_PARAMS_DIR=/sys/module/pvq_locks/parameters
reload_lib() {
	rmmod pvq_locks || return 1
	# shellcheck disable=SC2086 # one parameter per word (set -f above)
	insmod /modules/pvq_locks.ko $lib_params "$@"
}

set_lib_param() {
	name=${1%%=*}
	if [ ! -f "$LIB_PARAMS_DIR/$name" ]; then
		mark "run $n: cannot set pvq_locks parameter $name: there is none"
		return 1
	fi
	case $(stat -c %a "$LIB_PARAMS_DIR/$name") in
	*[2367]??) ;;
	*)
		# Built in (the kernel's own lock): no reload; its tunables are
		# boot parameters.
		if ! grep -q '^pvq_locks ' /proc/modules; then
			mark "run $n: pvq_locks parameter $name is read-only in this kernel: boot with pvq_locks.$name= (or build it with PVQ_WRITABLE_TUNABLES)"
			return 1
		fi
		# Loaded again or not, the next run needs the load's library.
		: >/tmp/lib-reloaded
		if ! reload_lib "$1"; then
			mark "run $n: cannot load pvq_locks with $1"
			return 1
		fi
		mark "run $n: pvq_locks loaded again: $name=$(cat "$LIB_PARAMS_DIR/$name")"
		return 0
		;;
	esac
	mkdir -p /tmp/lib-saved
	[ -f "/tmp/lib-saved/$name" ] ||
		cat "$LIB_PARAMS_DIR/$name" >"/tmp/lib-saved/$name" 2>/dev/null
	if ! echo "${1#*=}" >"$LIB_PARAMS_DIR/$name"; then
		mark "run $n: cannot set pvq_locks parameter $name to ${1#*=}"
		return 1
	fi
	mark "run $n: pvq_locks parameter $name=$(cat "$LIB_PARAMS_DIR/$name")"
}

restore_lib_params() {
	if [ -f /tmp/lib-reloaded ]; then
		rm -f /tmp/lib-reloaded
		grep -q '^pvq_locks ' /proc/modules && rmmod pvq_locks
		# shellcheck disable=SC2086 # one parameter per word (set -f above)
		insmod /modules/pvq_locks.ko $lib_params
		mark "run $n: pvq_locks loaded again with the load's parameters, status $?"
	fi
	[ -d /tmp/lib-saved ] || return 0
	# Globbing is off (set -f above) for the parameter words: on for this.
	set +f
	for saved in /tmp/lib-saved/*; do
		[ -f "$saved" ] || continue
		cat "$saved" >"$LIB_PARAMS_DIR/${saved##*/}"
		mark "run $n: pvq_locks parameter ${saved##*/} back to $(cat "$LIB_PARAMS_DIR/${saved##*/}")"
	done
	set -f
	rm -rf /tmp/lib-saved
}

n=1
while [ -f "/vmrun/runs/$n" ]; do
	params=$(cat "/vmrun/runs/$n")
	poweroff_run=
	if [ -f /vmrun/expect-poweroff ] && [ ! -f /vmrun/guest.sh ] &&
	   [ ! -f "/vmrun/runs/$((n + 1))" ]; then
		poweroff_run=1
		dmesg -c >/dev/null
	fi
	mark "run $n start: $params"
	# lib.NAME=VALUE words set pvq_locks.ko's writable parameter NAME for
	# this run only (the value from the load is put back for the next);
	# the others are the torture module's.
	restore_lib_params
	torture_params=
	lib_ok=1
	for w in $params; do
		case $w in
		lib.*=*)
			set_lib_param "${w#lib.}" || lib_ok=
			;;
		*) torture_params="$torture_params $w" ;;
		esac
	done
	if [ -n "$lib_ok" ]; then
		# shellcheck disable=SC2086 # one parameter per word (set -f above)
		insmod /modules/qspinlock_torture.ko $torture_params
		mark "run $n insmod status $?"
	else
		mark "run $n insmod status 1"
	fi
	[ -n "$poweroff_run" ] && wait_poweroff
	if grep -q '^qspinlock_torture ' /proc/modules; then
		rmmod qspinlock_torture
		mark "run $n rmmod status $?"
	fi
	mark "run $n done"
	n=$((n + 1))
done

if [ -f /vmrun/guest.sh ]; then
	mark "guest-script start"
	# shellcheck source=/dev/null # written by vmrun (write_guest_env)
	(set +f; . /vmrun/env && cd / && exec sh /vmrun/guest.sh)
	mark "guest-script status $?"
fi

mark "shutdown"
sync
poweroff -f
# Not reached normally; qemu runs with -no-reboot so a reboot also ends it.
sleep 2
reboot -f
