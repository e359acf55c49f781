#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vmrun's boot retries, with a stand-in for QEMU (--qemu) that
# writes a console as a guest would: a boot that dies on a breakpoint of
# the kernel's own text patching ("Oops: int3" before the guest is up, a
# QEMU TCG issue: Documentation/testbeds.rst) is retried and reported as
# a retry; with --boot-retries 0 it fails; the same oops after the boot,
# where our modules run, is never retried.  No VM.  Prints TAP.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
no_options "$@"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The stand-in: each start writes the console of the next boot in
# $work/boots (one word a boot: oops, up-oops or ok), then exits 0.
cat >"$work/qemu" <<'EOF'
#!/bin/bash
console=
while (($#)); do
	[[ $1 == -serial ]] && console=${2#file:}
	shift
done
n=$(cat "$FAKE_DIR/started" 2>/dev/null || echo 0)
echo $((n + 1)) >"$FAKE_DIR/started"
boot=$(sed -n "$((n + 1))p" "$FAKE_DIR/boots")
{
	echo "[    0.000000] Linux version 6.12.0 (fake)"
	case $boot in
	oops) echo "[    2.358186] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" ;;
	oops-trace)
		# An oops with a long trace after it: a check that stops
		# reading at the match must not fail on the rest.
		echo "[    2.358186] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
		seq -f "[    2.400000]  trace line %g" 200000
		;;
	up-oops)
		echo "[    3.000000] vmrun: guest up: kernel 6.12.0"
		echo "[    3.500000] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
		;;
	*)
		echo "[    3.000000] vmrun: guest up: kernel 6.12.0"
		echo "[    3.100000] vmrun: guest-script status 0"
		echo "[    3.200000] reboot: Power down"
		;;
	esac
} >"$console"
exit 0
EOF
chmod +x "$work/qemu"
echo true >"$work/guest.sh"
# vmrun copies the modules of --modules into the guest: one, never loaded.
mkdir -p "$work/modules"
: >"$work/modules/unused.ko"
kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort | head -n 1)

# boots WORDS... then vmrun with the rest of the arguments; its status.
vmrun_with() {
	local words=$1
	shift
	rm -rf "$work/out" "$work/started"
	tr ' ' '\n' <<<"$words" >"$work/boots"
	FAKE_DIR=$work "$ROOT/tools/vmrun" --quiet --qemu "$work/qemu" \
		--kernel "$kernel" --modules "$work/modules" --vcpus 2 --timeout 30 \
		--guest-script "$work/guest.sh" --outdir "$work/out" "$@" \
		>"$work/log" 2>&1
}

tap_start
if [[ -z $kernel ]]; then
	skip "vmrun retries" "no /boot/vmlinuz-*: run 'make deps'"
	tap_end
	exit
fi

name="a boot that dies on a text-patch breakpoint is retried, and says so"
if ! vmrun_with "oops ok" --boot-retries 1; then
	not_ok "$name" "vmrun failed: $(grep -m 1 '^reason=' "$work/out/result")"
elif ! grep -q '^retry=boot died on a kernel text-patch breakpoint' "$work/out/result"; then
	not_ok "$name" "no retry= line in the result"
elif [[ $(cat "$work/started") != 2 ]]; then
	not_ok "$name" "QEMU started $(cat "$work/started") times"
else
	ok "$name"
fi

name="... also with a long trace after the oops (more than a pipe holds)"
if ! vmrun_with "oops-trace ok" --boot-retries 1; then
	not_ok "$name" "vmrun failed: $(grep -m 1 '^reason=' "$work/out/result")"
elif [[ $(cat "$work/started") != 2 ]]; then
	not_ok "$name" "QEMU started $(cat "$work/started") times"
else
	ok "$name"
fi

name="by default, a boot that dies twice is retried twice"
if ! vmrun_with "oops oops ok"; then
	not_ok "$name" "vmrun failed: $(grep -m 1 '^reason=' "$work/out/result")"
elif [[ $(cat "$work/started") != 3 ]]; then
	not_ok "$name" "QEMU started $(cat "$work/started") times"
else
	ok "$name"
fi

name="with --boot-retries 0 it fails"
if vmrun_with "oops ok" --boot-retries 0; then
	not_ok "$name" "vmrun passed"
else
	ok "$name"
fi

name="the same oops after the boot is never retried"
if vmrun_with "up-oops ok" --boot-retries 1; then
	not_ok "$name" "vmrun passed"
elif [[ $(cat "$work/started") != 1 ]]; then
	not_ok "$name" "QEMU started $(cat "$work/started") times"
else
	ok "$name"
fi
tap_end
