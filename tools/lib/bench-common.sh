# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the two benchmarks (tools/bench, tools/kbench) share: CPU lists,
# durations, the source version, host hogs.  Sourced after functions.sh.

# Number of CPUs in a taskset list such as 0-1,4.
count_cpus() {
	local part n=0 lo hi

	for part in ${1//,/ }; do
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
			((hi >= lo)) || return 1
			n=$((n + hi - lo + 1))
		elif [[ $part =~ ^[0-9]+$ ]]; then
			n=$((n + 1))
		else
			return 1
		fi
	done
	echo "$n"
}

fmt_time() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# The commit measured, and whether the tree differed from it.
git_version() {
	local v

	v=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
	git -C "$ROOT" diff --quiet HEAD 2>/dev/null || v+=" (with uncommitted changes)"
	echo "$v"
}

# start_hogs N CPULIST: N busy loops pinned to CPULIST (the noisy
# neighbour), their pids in hog_pids.
hog_pids=()
start_hogs() {
	local i

	for ((i = 0; i < $1; i++)); do
		taskset -c "$2" sh -c 'while :; do :; done' \
			</dev/null >/dev/null 2>&1 &
		hog_pids+=($!)
	done
}

stop_hogs() {
	local pid

	for pid in "${hog_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	hog_pids=()
}
