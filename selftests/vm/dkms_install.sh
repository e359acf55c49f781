#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms_install: make install builds the modules through DKMS against a
# distribution kernel's installed headers (Debian's 6.12 by default), they
# load and run in a guest of that kernel, and make uninstall removes them.
# Changes the machine (/usr/src, /var/lib/dkms, /lib/modules/*/updates)
# and puts it back.  Needs root.  Prints TAP; exit status 0 when every
# test passed.

# The checks are shell expressions passed to check() through eval,
# single-quoted so that they expand when the check runs.
# shellcheck disable=SC2016,SC2034

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
readonly PROG=dkms_install
# shellcheck source=tools/lib/functions.sh
. "$ROOT/tools/lib/functions.sh"
INSTALL=$ROOT/tools/dkms-install
KVER=${KVER:-$DEFAULT_KVER}
outdir=$ROOT/out/dkms-install
host_cpus=

usage() {
	cat <<EOF
Usage: $0 [--kver V] [--host-cpus LIST] [--outdir DIR]
  --kver V          the kernel version whose newest headers and image are
                    used (default: $KVER)
  --host-cpus LIST  host CPUs for the guest (taskset syntax)
  --outdir DIR      logs and the guest's files (default: out/dkms-install)
EOF
}

while (($#)); do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--kver | --host-cpus | --outdir)
		(($# > 1)) || usage_error "$1 needs a value"
		case $1 in
		--kver) KVER=$2 ;;
		--host-cpus) host_cpus=$2 ;;
		--outdir) outdir=$2 ;;
		esac
		shift
		;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done

tap_start
rm -rf "$outdir"
mkdir -p "$outdir"
name=$(dkms_conf PACKAGE_NAME)
ver=$(dkms_conf PACKAGE_VERSION)
release=$(newest_headers "$KVER")
diag "package $name $ver, kernel ${release:-none}"
dest=/lib/modules/$release/updates/dkms

check "make install: dkms add, build and install for $release" \
	make -C "$ROOT" -s install KVER="$KVER"
check "dkms status says installed" \
	eval 'dkms status -m "$name" -v "$ver" -k "$release" | grep -q ": installed"'
check "each module of dkms.conf is in $dest, built for $release" \
	eval 'for m in pvq_locks qspinlock_torture pvq_fastpath; do
		f=$(ls "$dest/$m.ko"* 2>/dev/null | head -n 1)
		[ -n "$f" ] || { echo "no $m.ko* in $dest"; exit 1; }
		modinfo -F vermagic "$f" | grep -q "^$release " ||
			{ echo "$f: vermagic $(modinfo -F vermagic "$f")"; exit 1; }
	done'

# The installed modules (compressed as the kernel's own are) in a guest of
# that kernel: pvq_locks loads, a PV type runs to SUCCESS.
mods=$outdir/modules
mkdir -p "$mods"
for f in "$dest"/*.ko*; do
	case $f in
	*.ko.xz) xz -dc "$f" >"$mods/$(basename "$f" .xz)" ;;
	*.ko.zst) zstd -qdc "$f" >"$mods/$(basename "$f" .zst)" ;;
	*.ko) cp "$f" "$mods/" ;;
	esac
done 2>/dev/null
"$ROOT/tools/vmrun" --quiet --modules "$mods" --vcpus 2 \
	--kernel "/boot/vmlinuz-$release" \
	${host_cpus:+--host-cpus "$host_cpus"} --outdir "$outdir/vm" \
	--console "$outdir/console.log" --timeout 180 \
	--run "torture_type=pvqspinlock runtime_secs=2 stat_interval=0" \
	>"$outdir/vmrun.log" 2>&1
rc=$?
check "the DKMS-built modules load in a $release guest and pvqspinlock runs to SUCCESS" \
	eval '[ "$rc" = 0 ] && console_text "$outdir/console.log" |
		grep -aq "pvqspinlock-torture: --- End of test: SUCCESS"'

check "make uninstall: the build, the modules and the sources are gone" \
	eval 'make -C "$ROOT" -s uninstall KVER="$KVER" &&
	      ! dkms status -m "$name" -v "$ver" | grep -q . &&
	      ! ls "$dest"/pvq_locks.ko* >/dev/null 2>&1 &&
	      [ ! -e "/usr/src/$name-$ver" ]'
check "tools/dkms-install: an unknown option prints usage and exits 2" \
	eval '"$INSTALL" --bogus >/dev/null 2>"$outdir/err"; [ $? = 2 ] &&
	      grep -q "^Usage: tools/dkms-install" "$outdir/err"'
check "tools/dkms-install: a kernel without headers is refused" \
	eval '! "$INSTALL" --kernel 0.0.0-nosuch 2>"$outdir/err" &&
	      grep -q "no headers for 0.0.0-nosuch" "$outdir/err"'
tap_end
