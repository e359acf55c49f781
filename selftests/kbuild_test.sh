#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module build's own refusals, read by make without a kernel tree
# (Kbuild): a kernel that is not x86-64 is refused with a message that
# says so (the NMI kick's halt and the NMI frame it updates are
# x86-64's), and an x86-64 one is not.  Prints TAP.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
no_options "$@"

# kbuild_read ARGS...: make reads Kbuild as kbuild would; its output.
kbuild_read() {
	make -s -f "$ROOT/Kbuild" src="$ROOT" srctree=/kernel "$@" 2>&1
}

tap_start
name="a kernel without CONFIG_X86_64 is refused, and the message says why"
if out=$(kbuild_read CONFIG_X86_64=); then
	not_ok "$name" "make read Kbuild without an error"
elif ! grep -q 'builds for x86-64 kernels only' <<<"$out"; then
	not_ok "$name" "$(head -n 1 <<<"$out")"
else
	ok "$name"
fi
name="an x86-64 kernel is not refused"
out=$(kbuild_read CONFIG_X86_64=y)
if grep -q 'x86-64 kernels only' <<<"$out"; then
	not_ok "$name" "$(head -n 1 <<<"$out")"
else
	ok "$name"
fi
tap_end
