#!/usr/bin/env bash
# Build the test-only kernel modules in qemu/modules/<name>/ (each a
# directory with a Kbuild file) against one kernel build, and pack them as
# an initramfs fragment: /lib/modules/<release>/<name>.ko. Appended to the
# guest initramfs (the kernel unpacks concatenated archives), it gives the
# guest the modules of the kernel it boots; lib.sh's load_module loads one.
#
#   qemu/modules/build.sh KBUILD OUT.cpio.gz [BZIMAGE]
#
# KBUILD is the kernel's build directory (e.g. build/kunit). With BZIMAGE,
# the kernel release in the image must be the one the modules are built
# for (vermagic), else the script fails: a rebuilt tree with an old image
# would only fail later, inside the guest. Sources are copied to
# $BUILD/modules/<release>/<name>/ so that the clone stays clean; make
# rebuilds only what changed. Modules never go into the host's kernel.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

if [ $# -lt 2 ] || [ $# -gt 3 ] || [ "$1" = --help ]; then
	sed -n '2,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
kbuild=$(realpath "$1")
out=$(realpath -m "$2")
bzimage=${3:-}
[ -f "$kbuild/include/config/kernel.release" ] ||
	die "no kernel build at $kbuild (include/config/kernel.release missing)"
[ -f "$kbuild/Module.symvers" ] || die "$kbuild has no Module.symvers: build the kernel first"
release=$(cat "$kbuild/include/config/kernel.release")

# bzimage_release FILE: the release string in a bzImage. The x86 boot
# header's kernel_version field (offset 0x20e) points at it, 0x200 bytes
# before the pointed-to place (Documentation/arch/x86/boot.rst).
bzimage_release() {
	local ptr
	ptr=$(od -An -tu2 -j $((0x20e)) -N 2 "$1" | tr -d ' ')
	[ -n "$ptr" ] || return 0
	dd if="$1" bs=1 skip=$((ptr + 0x200)) count=256 status=none |
		tr '\0' '\n' | awk 'NR == 1 { print $1 }'
}
if [ -n "$bzimage" ]; then
	img=$(bzimage_release "$bzimage")
	[ "$img" = "$release" ] ||
		die "$bzimage is $img but $kbuild is configured for $release: rebuild the kernel"
fi

moddir=$BUILD/modules/$release
stage=$(mktemp -d "${TMPDIR:-/tmp}/modules.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib/modules/$release"
for src in "$TOP"/qemu/modules/*/Kbuild; do
	name=$(basename "$(dirname "$src")")
	dir=$moddir/$name
	mkdir -p "$dir"
	# Checksums, not times: an unchanged source keeps its object.
	rsync -rc --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
		--exclude='.*' --exclude='Module.symvers' --exclude='modules.order' \
		"$(dirname "$src")/" "$dir/"
	make -s -C "$kbuild" M="$dir" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KCFLAGS=-Werror -j"$JOBS" modules >&2
	vermagic=$(modinfo -F vermagic "$dir/$name.ko" | cut -d' ' -f1)
	[ "$vermagic" = "$release" ] || die "$name.ko has vermagic $vermagic, not $release"
	cp "$dir/$name.ko" "$stage/lib/modules/$release/"
done

mkdir -p "$(dirname "$out")"
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
log "modules for $release: $(cd "$stage/lib/modules/$release" && echo *.ko) -> $out"
