#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# kfastpath-guest.sh - a vmrun guest script (busybox sh) for tools/kfastpath:
# load pvq_fastpath.ko (bench/kfastpath.c), which times the uncontended
# lock+unlock pair of every built lock type and prints one line per type,
# then unload it.  It loads pvq_locks.ko first (vmrun loads it only for
# torture runs), unless the kernel has the library built in.
#
#   KFP_BACKEND pvq_locks.ko's pv_backend (none, ipi, strict, auto)
#   KFP_PARAMS  pvq_fastpath.ko parameters, e.g. "pairs=100000 reps=21"

if [ ! -d /sys/module/pvq_locks ]; then
	insmod /modules/pvq_locks.ko "pv_backend=$KFP_BACKEND" || exit 1
fi
# shellcheck disable=SC2086 # one parameter per word
insmod /modules/pvq_fastpath.ko $KFP_PARAMS || exit 1
rmmod pvq_fastpath
