#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run test programs the way kselftest's runner.sh does: one TAP line per
# program, the program's own TAP output indented with "# ", a per-program
# timeout, and a non-zero exit status if any program failed.
#
#   ksft_runner.sh PROG...        (KSFT_TIMEOUT: seconds per program, 45)

set -u

case ${1-} in
-h | --help)
	echo "usage: $0 PROG...  (runs each, prints TAP; KSFT_TIMEOUT: seconds per program, 45)"
	exit 0
	;;
"" | -*)
	echo "$0: unknown option or no program: '${1-}'" >&2
	echo "usage: $0 PROG..." >&2
	exit 2
	;;
esac

timeout_s=${KSFT_TIMEOUT:-45}
collection=pvq
n=0
failed=0

echo "TAP version 13"
echo "1..$#"
for prog in "$@"; do
	n=$((n + 1))
	name=$(basename "$prog")
	echo "# selftests: $collection: $name"
	start=$(date +%s%N)
	timeout --foreground "$timeout_s" "$prog" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	ms=$((($(date +%s%N) - start) / 1000000))
	secs=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
	echo "# $name: exit $rc after ${secs}s"
	case $rc in
	0)	echo "ok $n selftests: $collection: $name" ;;
	4)	echo "ok $n selftests: $collection: $name # SKIP" ;;
	124)	echo "not ok $n selftests: $collection: $name # TIMEOUT ${timeout_s}s"
		failed=1 ;;
	*)	echo "not ok $n selftests: $collection: $name # exit=$rc"
		failed=1 ;;
	esac
done
exit $failed
