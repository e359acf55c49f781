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

# The most vCPUs tools/vmrun gives one guest (QEMU's limit without an
# IOMMU for x2APIC).
readonly PVQ_MAX_VCPUS=255

# cpu_list_head LIST N: the first N CPUs of taskset list LIST, as a list.
cpu_list_head() {
	local part i out=() n=$2

	for part in ${1//,/ }; do
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			for ((i = BASH_REMATCH[1]; i <= BASH_REMATCH[2] && ${#out[@]} < n; i++)); do
				out+=("$i")
			done
		elif ((${#out[@]} < n)); then
			out+=("$part")
		fi
	done
	local IFS=,
	echo "${out[*]}"
}

# default_host_cpus TOOL FACTOR: the host CPUs a tool uses when not told:
# this process's affinity, or, where FACTOR (the most vCPUs one guest
# gets per host CPU: the highest level) times all of them would exceed
# PVQ_MAX_VCPUS, the first CPUs of it that do not (an even number, so that
# half levels stay whole), saying so on stderr.
default_host_cpus() {
	local tool=$1 factor=$2 all n keep

	all=$(taskset -pc $$ | sed 's/.*: *//')
	n=$(count_cpus "$all") || { echo "$all"; return; }
	keep=$(awk -v f="$factor" -v n="$n" -v max="$PVQ_MAX_VCPUS" 'BEGIN {
		if (f <= 0 || f * n <= max) { print n; exit }
		k = int(max / f)
		if (k > 1) k -= k % 2
		print (k < 1 ? 1 : k)
	}')
	if ((keep == n)); then
		echo "$all"
		return
	fi
	echo "$tool: host CPUs: the first $keep of this process's $n ($all): ${factor}x on all $n would give a guest more than $PVQ_MAX_VCPUS vCPUs (--host-cpus chooses)" >&2
	cpu_list_head "$all" "$keep"
}

# max_level "L ...": the highest of the levels that are numbers (0 if
# none: the tools' own checks report the rest).
max_level() {
	tr -s ' ' '\n' <<<"$1" | awk '/^([0-9]+|[0-9]*\.[0-9]+)$/ && $1 > m { m = $1 } END { print m + 0 }'
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
