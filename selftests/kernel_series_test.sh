#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel series contain the lock, generated from this tree by
# scripts/gen-kernel-series (Documentation/kernel.rst, "The patches").
# Prove that the committed series is what the tree generates, and that the
# check can fail: in private copies of the tree, a changed source, an
# object the kernel Makefile lacks and an include of no source each make
# the generator fail.  No kernel tree needed.  Prints TAP.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
no_options "$@"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A private copy of the tree's sources, in $work/$1.
copy() {
	mkdir -p "$work/$1"
	(cd "$ROOT" && git ls-files -co --exclude-standard -z |
		xargs -0 cp --parents -t "$work/$1")
}

# expect_failure NAME COPY PATTERN: the generator's --check in COPY must
# fail with a message matching PATTERN.
expect_failure() {
	local name=$1 dir=$work/$2 pattern=$3 out
	if out=$("$dir/scripts/gen-kernel-series" --check 2>&1); then
		not_ok "$name" "--check passed"
	elif ! grep -qE -- "$pattern" <<<"$out"; then
		not_ok "$name" "no message matching '$pattern': $(head -n 1 <<<"$out")"
	else
		ok "$name: $(grep -m 1 -E -- "$pattern" <<<"$out")"
	fi
}

tap_start
if out=$("$ROOT/scripts/gen-kernel-series" --check 2>&1); then
	ok "the committed series are up to date ($(grep -c 'up to date' <<<"$out") versions: $(kernel_versions | tr '\n' ' '))"
else
	not_ok "the committed series are up to date" "$(head -n 1 <<<"$out")"
fi

# Every version's series has the lock patch, and it carries a source.
for ver in $(kernel_versions); do
	if grep -q '^+++ b/kernel/locking/pvq/qspinlock.c$' \
		"$ROOT"/kernel/patches/"$ver"/0002-*.patch 2>/dev/null; then
		ok "$ver: the series carries the lock's sources"
	else
		not_ok "$ver: the series carries the lock's sources" "no kernel/locking/pvq/qspinlock.c in patch 2"
	fi
	# A path to a kernel file (no source of ours) stays as written.
	if awk '/^\+\+\+ b\/kernel\/locking\/pvq\/lock_stats.h$/ { f = 1; next }
		/^\+\+\+ / { f = 0 }
		f && /^\+#include "\.\.\/lock_events.h"$/ { found = 1 }
		END { exit !found }' "$ROOT"/kernel/patches/"$ver"/0002-*.patch; then
		ok "$ver: lock_stats.h includes the kernel's \"../lock_events.h\" as written"
	else
		not_ok "$ver: lock_stats.h includes the kernel's \"../lock_events.h\" as written" \
			"no such line in kernel/locking/pvq/lock_stats.h of patch 2"
	fi
done

copy stale
echo "/* a change the series does not have */" >>"$work/stale/pv/pvqspinlock.c"
expect_failure "a changed source makes the series stale" stale \
	"is stale against the sources"

copy objects
sed -i 's|^pvq_locks-y\([[:space:]]*\)+= module/main.o|pvq_locks-y\1+= module/main.o module/extra.o|' \
	"$work/objects/Kbuild"
echo "// SPDX-License-Identifier: GPL-2.0" >"$work/objects/module/extra.c"
expect_failure "an object the kernel Makefile lacks is refused" objects \
	"build different objects"

copy include
sed -i '0,/^#include "/s|^#include "|#include "no_such_header.h"\n#include "|' \
	"$work/include/pv/pvqspinlock.c"
expect_failure "an include of no source is refused" include \
	"includes \"no_such_header.h\""
tap_end
