#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbench_smoke.sh - make kbench end to end, small: one kernel (default
# all+faults, the test kernel kernel_tests.sh builds: the lock of A with
# its counters, fault injection dormant), 1x and 2x (1 and 2 guests), one
# run, every workload for a few seconds.  Each workload of each guest must
# produce a parsed number (no silent zero), the kernel's lock event
# counters must be read, and the report must have its verdict, its tables
# and a plot per workload.
#
# Prints TAP; exit status 0 when every test passed.

set -uo pipefail

readonly PROG=kbench_smoke.sh
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
readonly ROOT
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
# Every workload make kbench runs by default: read from its plan, so that a
# workload added there is checked here too.
WORKLOADS=""

KERNEL=all+faults
SECS=2
OUTDIR=$ROOT/out/kbench-smoke

usage() {
	cat <<EOF
usage: $PROG [--kernel NAME] [--secs N] [--outdir DIR]
  --kernel NAME   a make kernel build, fragment[+faults][+debug]
                  (default $KERNEL)
  --secs N        seconds per workload (default $SECS)
  --outdir DIR    results directory, replaced (default out/kbench-smoke)
EOF
}

parse_args() {
	while (($#)); do
		case $1 in
		--kernel) (($# > 1)) || usage_error "--kernel needs a value"; KERNEL=$2; shift ;;
		--secs) (($# > 1)) || usage_error "--secs needs a value"
			need_int --secs "$2" 1 60; SECS=$2; shift ;;
		--outdir) (($# > 1)) || usage_error "--outdir needs a value"; OUTDIR=$2; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "unknown option '$1'" ;;
		esac
		shift
	done
}

# field NAME: that column of runs.csv, one value per record.
column() {
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print (n in c) ? $c[n] : "" }' "$OUTDIR/runs.csv"
}

check_results() {
	local level guests w n bad

	for level in 1 2; do
		guests=$level
		for w in $WORKLOADS; do
			n=$(awk -F, -v l="$level" -v w="$w" '
				NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["level"] == l && $c["workload"] == w && $c["status"] == "ok" && $c["value"] + 0 > 0' \
				"$OUTDIR/runs.csv" | wc -l)
			bad=$(awk -F, -v l="$level" -v w="$w" '
				NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["level"] == l && $c["workload"] == w && $c["status"] != "ok" { print "guest " $c["guest"] ": " $c["reason"] }' \
				"$OUTDIR/runs.csv" | head -n 2 | paste -sd ';' -)
			if [[ $n == "$guests" ]]; then
				ok "$w at ${level}x: each of $guests guest(s) gives a number ($(awk -F, -v l="$level" -v w="$w" '
					NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
					$c["level"] == l && $c["workload"] == w { printf "%s%s %s", s, $c["value"], $c["unit"]; s = ", " }' "$OUTDIR/runs.csv"))"
			else
				not_ok "$w at ${level}x: $n of $guests guest(s) gave a number" "${bad:-no record}"
			fi
		done
	done
}

main() {
	local rc=0

	parse_args "$@"
	tap_start
	WORKLOADS=$("$ROOT/tools/kbench" --dry-run --kernels "$KERNEL" 2>/dev/null |
		sed -n 's/^kbench: kernels: .*; workloads: //p')
	if [[ -z $WORKLOADS ]]; then
		not_ok "tools/kbench --dry-run names its default workloads"
		tap_end
		return
	fi
	rm -rf "$OUTDIR"
	mkdir -p "$(dirname "$OUTDIR")"
	# The test kernel has the counters: no separate counters run.
	"$ROOT/tools/kbench" --kernels "$KERNEL" --counters none --levels "1 2" \
		--runs 1 --secs "$SECS" --outdir "$OUTDIR" >"$OUTDIR.log" 2>&1 || rc=$?
	if ((rc)); then
		not_ok "tools/kbench --kernels $KERNEL --levels '1 2' --runs 1 --secs $SECS" \
			"exit $rc: $(tail -n 3 "$OUTDIR.log" | tr '\n' ' ')"
	else
		ok "tools/kbench --kernels $KERNEL --levels '1 2' --runs 1 --secs $SECS ($(grep -o 'matrix done in [0-9ms]*' "$OUTDIR.log"))"
	fi
	if [[ ! -s $OUTDIR/runs.csv ]]; then
		not_ok "runs.csv written" "none in $OUTDIR"
		tap_end
		return
	fi
	check_results
	if column ev_slowpath | grep -q '[1-9]'; then
		ok "the kernel's lock event counters were read (slow paths counted)"
	else
		not_ok "the kernel's lock event counters were read" "no ev_slowpath in runs.csv"
	fi
	if report_section "$OUTDIR/report.md" "Verdict at 2x" | grep -c '^- ' |
		grep -qx "$(wc -w <<<"$WORKLOADS")" &&
		report_section "$OUTDIR/report.md" "Lock activity" | grep -q "| all+faults |"; then
		ok "report.md: a verdict line per workload and the lock activity table"
	else
		not_ok "report.md: a verdict line per workload and the lock activity table" "see $OUTDIR/report.md"
	fi
	local w missing=""
	for w in $WORKLOADS; do
		[[ -s $OUTDIR/$w.png ]] || missing+=" $w"
	done
	if [[ -z $missing ]]; then
		ok "a plot per workload"
	else
		not_ok "a plot per workload" "missing:$missing"
	fi
	tap_end
}

main "$@"
