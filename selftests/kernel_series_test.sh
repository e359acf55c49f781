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
# fail with a message matching PATTERN (its output left in $out).
expect_failure() {
	local name=$1 dir=$work/$2 pattern=$3
	if out=$("$dir/scripts/gen-kernel-series" --check "$DEFAULT_KVER" 2>&1); then
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

# The lock's patches of version $1 (their first line names no commit).
lock_patches() {
	grep -l '^From 0\{40\} ' "$ROOT"/kernel/patches/"$1"/[0-9]*.patch
}

# patch_of VERSION OPTION: the lock's patch that adds Kconfig OPTION.
patch_of() {
	local patches
	mapfile -t patches < <(lock_patches "$1")
	grep -l "^+config $2\$" "${patches[@]}" 2>/dev/null | sed 's|.*/||'
}

# Every version's series has the lock's patches, and they carry a source.
for ver in $(kernel_versions); do
	mapfile -t patches < <(lock_patches "$ver")
	if grep -q '^+++ b/kernel/locking/pvq/qspinlock.c$' \
		"${patches[@]}" 2>/dev/null; then
		ok "$ver: the series carries the lock's sources"
	else
		not_ok "$ver: the series carries the lock's sources" "no kernel/locking/pvq/qspinlock.c in the lock's patches"
	fi
	# One change per patch: each option arrives with its own patch, in
	# the order of kernel/series/lock/.
	want=$(find "$ROOT"/kernel/series/lock -maxdepth 1 -name '*.txt' | wc -l)
	have=$(lock_patches "$ver" | wc -l)
	first=$(patch_of "$ver" PVQ_SPINLOCKS)
	unfair=$(patch_of "$ver" PARAVIRT_UNFAIR_LOCKS)
	faults=$(patch_of "$ver" PVQ_TORTURE_FAULTS)
	if [[ $have == "$want" && -n $first && -n $unfair && -n $faults &&
	      $first < $unfair && $unfair < $faults ]]; then
		ok "$ver: $have patches of the lock, its options in order ($first, $unfair, $faults)"
	else
		not_ok "$ver: $want patches of the lock, its options in order" "$have patches; PVQ_SPINLOCKS in '$first', PARAVIRT_UNFAIR_LOCKS in '$unfair', PVQ_TORTURE_FAULTS in '$faults'"
	fi
	# Reviewable: no patch adds more than 1,200 lines.
	big=$(for f in "${patches[@]}"; do
		n=$(git apply --numstat "$f" | awk '{ n += $1 } END { print n + 0 }')
		((n <= 1200)) || echo "${f##*/}: $n"
	done)
	if [[ -z $big ]]; then
		ok "$ver: no patch of the lock adds more than 1,200 lines"
	else
		not_ok "$ver: no patch of the lock adds more than 1,200 lines" "$(tr '\n' ' ' <<<"$big")"
	fi
	# Code of a later option is not in an earlier patch.
	unfair_code='PVQ_PARAVIRT_UNFAIR_LOCKS\|pvq_pv_qspin_unfair\|^+config PARAVIRT_UNFAIR_LOCKS'
	if [[ -n $first ]] && ! grep -q "$unfair_code" \
		"$ROOT/kernel/patches/$ver/$first"; then
		ok "$ver: the first patch of the lock has no code of the unfair mode"
	else
		not_ok "$ver: the first patch of the lock has no code of the unfair mode" \
			"$(grep -m 1 -n "$unfair_code" "$ROOT/kernel/patches/$ver/$first" 2>&1)"
	fi
	# A path to a kernel file (no source of ours) stays as written.
	if awk '/^\+\+\+ b\/kernel\/locking\/pvq\/lock_stats.h$/ { f = 1; next }
		/^\+\+\+ / { f = 0 }
		f && /^\+#include "\.\.\/lock_events.h"$/ { found = 1 }
		END { exit !found }' "${patches[@]}"; then
		ok "$ver: lock_stats.h includes the kernel's \"../lock_events.h\" as written"
	else
		not_ok "$ver: lock_stats.h includes the kernel's \"../lock_events.h\" as written" \
			"no such line in kernel/locking/pvq/lock_stats.h of the lock's patches"
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

copy empty
sed -i 's/^Options: .*/Options: NO_SUCH_OPTION/' \
	"$work"/empty/kernel/series/lock/*-tunables.txt
expect_failure "a patch of the lock that changes nothing is refused" empty \
	"tunables.txt changes nothing"

copy numbers
# The last patch (written by hand) moved one number on: a gap.
f=$(find "$work/numbers/kernel/patches/$DEFAULT_KVER" -name '[0-9]*.patch' |
	sort | tail -n 1)
n=$((10#$(basename "$f" | cut -c1-4)))
mv "$f" "$(dirname "$f")/$(printf %04d $((n + 1)))-$(basename "$f" | cut -c6-)"
expect_failure "a written patch numbered into a gap is refused" numbers \
	"numbered $((n + 1)) where $n is expected"

copy include
sed -i '0,/^#include "/s|^#include "|#include "no_such_header.h"\n#include "|' \
	"$work/include/pv/pvqspinlock.c"
expect_failure "an include of no source is refused" include \
	"includes \"no_such_header.h\""
# ... with that message alone: the generator stops there, nothing after
# it runs on the half-read tree (a shell error, a stale series).
others=$(grep -v '^gen-kernel-series: ' <<<"$out")
if [[ -z $others ]]; then
	ok "an include of no source stops the generator with its message alone"
else
	not_ok "an include of no source stops the generator with its message alone" "$(head -n 1 <<<"$others")"
fi
tap_end
