#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pv_unhalt: the testbed that brings KVM's PV spinlock interface to QEMU's
# TCG (qemu/patches/, make qemu; Documentation/testbeds.rst), tested from
# inside guests of Debian's 6.12 kernel by pv_unhalt_check.ko
# (selftests/vm/pv_unhalt/):
#
#   - with the flag (-cpu max,kvm-pv-unhalt=on): KVM's CPUID leaves with
#     PV unhalt and nothing else; KVM_HC_KICK_CPU by vmcall and vmmcall
#     wakes a CPU halted with interrupts off, and a kick to a running CPU
#     makes its next hlt return, once; other hypercalls return
#     -KVM_ENOSYS; the stock kernel says "kvm-guest: PV spinlocks
#     enabled" (upstream's PV qspinlock);
#   - without it, the built QEMU answers CPUID as Debian's QEMU does,
#     leaf for leaf, and the flag changes only the leaves 0x40000000-1.
#
# Prints TAP; exit status 0 when every test passed.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
PROG=pv_unhalt
VMRUN=$ROOT/tools/vmrun
MODSRC=$ROOT/selftests/vm/pv_unhalt
host_cpus=""
outdir=$ROOT/out/pv-unhalt
debian_qemu=/usr/bin/qemu-system-x86_64

usage() {
	cat <<EOF
usage: $0 [--host-cpus LIST] [--outdir DIR] [--debian-qemu PATH]
  --host-cpus LIST    taskset CPU list for QEMU (default: vmrun's)
  --outdir DIR        consoles and the module build (default: $outdir)
  --debian-qemu PATH  the QEMU to compare CPUID with (default: $debian_qemu)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--host-cpus) host_cpus=${2:-}; shift ;;
	--outdir) outdir=${2:-}; shift ;;
	--debian-qemu) debian_qemu=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
[ -n "$outdir" ] || usage_error "--outdir: empty"
[ -x "$debian_qemu" ] || die "--debian-qemu: $debian_qemu is not an executable: run 'make deps'"
[ -x "$PVQ_BUILT_QEMU" ] || die "$PVQ_BUILT_QEMU missing: run 'make qemu'"

# The module, against the newest 6.12 headers (a copy: no build output in
# the tree).
build_module() {
	local rel
	rel=$(newest_headers "$DEFAULT_KVER")
	[ -n "$rel" ] || die "no $DEFAULT_KVER headers under /lib/modules: run 'make deps'"
	rm -rf "$outdir/module"
	mkdir -p "$outdir/module"
	cp "$MODSRC"/Kbuild "$MODSRC"/*.c "$outdir/module/"
	make -s -C "/lib/modules/$rel/build" M="$outdir/module" W=1 modules \
		>"$outdir/module/build.log" 2>&1
}

# The guest's part: load the module (its lines go to the console).
guest_script() {
	cat <<'EOF'
insmod "$VMRUN_MODULES/pv_unhalt_check.ko" expect="$EXPECT" dump=1
echo "pv_unhalt: insmod status $?"
dmesg | grep 'Hypervisor detected\|kvm-guest:' | sed 's/^\[[^]]*\] /pv_unhalt: boot: /'
EOF
}

# boot NAME TESTBED QEMU EXPECT: one guest of 2 vCPUs; its console is
# $outdir/NAME.log.
boot() {
	local name=$1 testbed=$2 qemu=$3 expect=$4 dir=$outdir/$1
	mkdir -p "$dir"
	guest_script >"$dir/guest.sh"
	"$VMRUN" --quiet --testbed "$testbed" --qemu "$qemu" --vcpus 2 \
		${host_cpus:+--host-cpus "$host_cpus"} \
		--modules "$outdir/module" --outdir "$dir" \
		--console "$outdir/$name.log" --timeout 180 \
		--guest-env "EXPECT=$expect" --guest-script "$dir/guest.sh" \
		>"$dir/vmrun.log" 2>&1
	diag "$name: vmrun exit $?; console $outdir/$name.log"
}

# The module's verdicts in console $1, as TAP, prefixed with $2.
module_results() {
	local line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in
		"ok "*) ok "$2: ${line#ok }" ;;
		"not ok "*)
			line=${line#not ok }
			not_ok "$2: ${line%%: *}" "${line#*: }"
			;;
		esac
	done < <(console_text "$1" | sed -n 's/^pv_unhalt_check: \(\(not \)\{0,1\}ok .*\)/\1/p')
	[ "$n" -gt 0 ] || not_ok "$2: the module reported" "no ok/not ok line on $1"
	if console_has "$1" '^pv_unhalt: insmod status 0$'; then
		ok "$2: the module loads (every check passed)"
	else
		not_ok "$2: the module loads (every check passed)" \
			"$(console_text "$1" | grep -a -m 1 '^pv_unhalt: insmod status' || echo 'no insmod status')"
	fi
}

# The CPUID dump of console $1, one "leaf.subleaf: eax ebx ecx edx" a line.
cpuid_dump() {
	console_text "$1" | sed -n 's/^pv_unhalt_check: cpuid //p'
}

tap_start
mkdir -p "$outdir"
if build_module; then
	ok "pv_unhalt_check.ko builds against Debian's $DEFAULT_KVER headers (W=1)"
else
	not_ok "pv_unhalt_check.ko builds against Debian's $DEFAULT_KVER headers (W=1)" \
		"$(head -n 5 "$outdir/module/build.log")"
	tap_end
	exit
fi
if grep -q 'warning:' "$outdir/module/build.log"; then
	not_ok "pv_unhalt_check.ko builds without warnings" "$(grep -m 3 'warning:' "$outdir/module/build.log")"
fi

boot pvunhalt tcg-pvunhalt "$PVQ_BUILT_QEMU" pvunhalt
boot off tcg "$PVQ_BUILT_QEMU" none
boot debian tcg "$debian_qemu" none

module_results "$outdir/pvunhalt.log" "kvm-pv-unhalt=on"
# The boot log's lines (the guest script prints them: the console is quiet).
boot_log() {
	console_text "$1" | sed -n 's/^pv_unhalt: boot: //p'
}
name="kvm-pv-unhalt=on: the stock kernel runs upstream's PV qspinlock (kvm-guest: PV spinlocks enabled)"
if boot_log "$outdir/pvunhalt.log" | grep -ax 'kvm-guest: PV spinlocks enabled' >/dev/null; then
	ok "$name"
else
	not_ok "$name" "boot log: $(boot_log "$outdir/pvunhalt.log" | tr '\n' ' ')"
fi
module_results "$outdir/off.log" "built QEMU, flag off"
module_results "$outdir/debian.log" "Debian's QEMU"
for name in off debian; do
	label="$([ $name = off ] && echo "built QEMU, flag off" || echo "Debian's QEMU"): no KVM, no PV spinlocks in the stock kernel"
	if [ -z "$(boot_log "$outdir/$name.log")" ] &&
	   console_has "$outdir/$name.log" '^pv_unhalt: insmod status'; then
		ok "$label"
	else
		not_ok "$label" "boot log: $(boot_log "$outdir/$name.log" | tr '\n' ' ')"
	fi
done

name="flag off: the built QEMU's CPUID is Debian's QEMU's, leaf for leaf"
cpuid_dump "$outdir/off.log" >"$outdir/off.cpuid"
cpuid_dump "$outdir/debian.log" >"$outdir/debian.cpuid"
cpuid_dump "$outdir/pvunhalt.log" >"$outdir/pvunhalt.cpuid"
if [ ! -s "$outdir/off.cpuid" ]; then
	not_ok "$name" "no CPUID dump on $outdir/off.log"
elif ! diff -q "$outdir/debian.cpuid" "$outdir/off.cpuid" >/dev/null; then
	not_ok "$name" "$(diff "$outdir/debian.cpuid" "$outdir/off.cpuid" | head -n 6 | tr '\n' ' ')"
else
	ok "$name ($(wc -l <"$outdir/off.cpuid") leaves)"
fi
name="kvm-pv-unhalt=on changes only the leaves 0x40000000 and 0x40000001"
changed=$(diff "$outdir/off.cpuid" "$outdir/pvunhalt.cpuid" | sed -n 's/^[<>] \([^:]*\):.*/\1/p' | sort -u | tr '\n' ' ')
if [ ! -s "$outdir/pvunhalt.cpuid" ]; then
	not_ok "$name" "no CPUID dump on $outdir/pvunhalt.log"
elif [ "$changed" != "0x40000000.0 0x40000001.0 " ]; then
	not_ok "$name" "changed: ${changed:-nothing}"
else
	ok "$name"
fi
tap_end
