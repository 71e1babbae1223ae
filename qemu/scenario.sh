#!/usr/bin/env bash
# Run one guest scenario with the project's kernel and initramfs.
#
#   qemu/scenario.sh NAME [ARG...]     e.g. qemu/scenario.sh barrier-defaults fsyncs=50
#
# The scenario's header says what it needs:  "# jbd2t-disks: 256M 1G"
# (fresh sparse images, vda, vdb, ...), "# jbd2t-timeout: SECONDS", and
# "# jbd2t-modules: NAME..." (test-only modules of qemu/modules/, built
# against KERNEL's build directory and added to the initramfs).
# Environment: KERNEL (default $BUILD/kunit/arch/x86/boot/bzImage),
# RESULTS (default $BUILD/results/NAME), TIMEOUT, MEM, VERBOSE=1.
# Ends with "PASS guest:NAME" or "FAIL guest:NAME" (scripts/check.sh
# collects those) and exits non-zero if the run failed.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -lt 1 ] || [ "$1" = --help ]; then sed -n '2,13s/^# \{0,1\}//p' "$0" >&2; exit 2; fi
name=$1
shift
file=$TOP/qemu/scenarios/$name.sh
[ -f "$file" ] || { echo "scenario.sh: no scenario $file" >&2; exit 2; }
KERNEL=${KERNEL:-$BUILD/kunit/arch/x86/boot/bzImage}
RESULTS=${RESULTS:-$BUILD/results/$name}
[ -f "$KERNEL" ] || die "no kernel at $KERNEL: run 'make kernel' first"

header() { sed -n "s/^# jbd2t-$1: *//p" "$file" | head -n 1; }

initrd=$BUILD/initramfs/initramfs.cpio.gz
"$TOP/qemu/mkinitramfs.sh" "$initrd"
# Modules: built for this kernel (its build directory holds the bzImage
# in arch/x86/boot/), appended to the initramfs as a second archive.
if [ -n "$(header modules)" ]; then
	kbuild=$(cd "$(dirname "$KERNEL")/../../.." && pwd)
	release=$(cat "$kbuild/include/config/kernel.release" 2>/dev/null) ||
		die "$KERNEL is not in a kernel build directory: cannot build modules for it"
	"$TOP/qemu/modules/build.sh" "$kbuild" "$BUILD/modules/$release/modules.cpio.gz" "$KERNEL"
	combined=$BUILD/initramfs/initramfs+modules-$release.cpio.gz
	cat "$initrd" "$BUILD/modules/$release/modules.cpio.gz" > "$combined.tmp.$$"
	mv "$combined.tmp.$$" "$combined"
	initrd=$combined
fi

# Every run starts from fresh, empty disks.
disk_args=() letters=(a b c d e f g h)
i=0
for size in $(header disks); do
	img=$BUILD/disks/$(basename "$RESULTS")-vd${letters[$i]}.img
	rm -f "$img"
	disk_args+=(--disk "$img:$size")
	i=$((i + 1))
done
# Only a results dir under build/ is wiped whole; run-guest.sh clears its
# own files anywhere else.
case $RESULTS in "$BUILD"/?*) rm -rf "$RESULTS" ;; esac
timeout=${TIMEOUT:-$(header timeout)}

# barrier-defaults: flush counts per fs x mount mode, then the checks of
# the refused barrier=foo mount.
# shellcheck disable=SC2317  # called by name below
table_barrier_defaults() {
	awk -F'\t' '
	BEGIN { printf "%-5s %-10s %-8s %7s %8s %10s %7s\n", "fs", "mount -o", "barrier", "fsyncs", "flushes", "flush/fsync", "writes" }
	$1 == "flush" { printf "%-5s %-10s %-8s %7s %8s %10s %7s\n", $2, $3, $4, $5, $6, $7, $8 }
	$1 == "device" { dev = $2 ": write cache " $3 ", " $4 }
	$1 == "mkfs" { mkfs[$2] = $3; order[++nfs] = $2 }
	$1 == "badopt" { bad[$2] = "rc=" $4 ", kernel: " $5 }
	$1 == "fsck" { fsck[$2] = "e2fsck -fn rc=" $4 ", file " $5 }
	END {
		print "\n" dev
		for (i = 1; i <= nfs; i++) printf "mkfs.%s features: %s\n", order[i], mkfs[order[i]]
		for (i = 1; i <= nfs; i++) if (order[i] in bad)
			printf "%s -o barrier=foo: %s; then %s\n", order[i], bad[order[i]], fsck[order[i]]
	}
	' "$1"
}

start=$(date +%s)
rc=0
"$TOP/qemu/run-guest.sh" --kernel "$KERNEL" --initrd "$initrd" --scenario "$name" \
	--args "$*" --results "$RESULTS" --timeout "${timeout:-600}" \
	--mem "${MEM:-512}" ${disk_args[@]+"${disk_args[@]}"} || rc=$?
secs=$(( $(date +%s) - start ))

tsv=$RESULTS/results.tsv
if [ -f "$tsv" ] && [ "$(type -t "table_${name//-/_}")" = function ]; then
	echo
	"table_${name//-/_}" "$tsv"
	echo
fi
if [ $rc -eq 0 ]; then
	echo "PASS guest:$name (${secs}s)"
else
	echo "FAIL guest:$name (${secs}s, see $RESULTS/console.log)"
fi
exit $rc
