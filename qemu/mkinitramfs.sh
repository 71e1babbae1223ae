#!/usr/bin/env bash
# Build the guest initramfs: busybox, e2fsprogs, dmsetup (with the shared
# libraries they need), our /init, the guest helpers (the rest of guest/,
# in /jbd2t/), every scenario, and the project's static tools from
# $BUILD/tools/guest/.
#
#   mkinitramfs.sh OUT.cpio.gz       (FORCE=1 rebuilds even if up to date)
#
# The output is reproducible: sorted entries, owner 0:0, mtime 0, gzip -n.
# OUT.inputs holds "sha256  source -> guest path" for every input; when it
# matches, the archive is up to date and nothing is rebuilt.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

if [ $# -ne 1 ] || [ "$1" = --help ]; then echo "usage: $0 OUT.cpio.gz" >&2; exit 2; fi
out=$(realpath -m "$1")
Q=$TOP/qemu
TOOLS=(/usr/sbin/mke2fs /usr/sbin/e2fsck /usr/sbin/debugfs /usr/sbin/dumpe2fs
	/usr/sbin/tune2fs /usr/sbin/dmsetup)

# inputs: one "SOURCE GUEST-PATH" per line, for every file we copy.
inputs() {
	local f lib
	echo "/bin/busybox /bin/busybox"
	for f in "${TOOLS[@]}"; do
		echo "$f $f"
		# Libraries keep their path; the loader too (it is the ELF interpreter).
		for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
			echo "$(realpath "$lib") $lib"
		done
	done
	echo "/etc/mke2fs.conf /etc/mke2fs.conf"
	echo "$Q/guest/init /init"
	# Everything else in guest/ (lib.sh, checkers) goes to /jbd2t/.
	for f in "$Q"/guest/*; do
		[ "${f##*/}" = init ] || echo "$f /jbd2t/${f##*/}"
	done
	for f in "$Q"/scenarios/*.sh; do echo "$f /scenarios/${f##*/}"; done
	for f in "$BUILD"/tools/guest/*; do
		[ -f "$f" ] && echo "$f /bin/${f##*/}"
	done
	echo "$Q/mkinitramfs.sh /dev/null"   # the recipe is an input too
}

manifest=$(inputs | sort -u -k2 | while read -r src dst; do
	printf '%s  %s -> %s\n' "$(sha256sum < "$src" | cut -c1-64)" "$src" "$dst"
done)
if [ "${FORCE:-0}" != 1 ] && [ -f "$out" ] && [ "$manifest" = "$(cat "$out.inputs" 2>/dev/null)" ]; then
	log "initramfs up to date: $out"
	exit 0
fi

mkdir -p "$(dirname "$out")"
umask 022   # modes in the archive must not depend on the caller's umask
stage=$(mktemp -d "$out.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,mnt,results,scenarios,jbd2t}

while read -r src dst; do
	[ "$dst" = /dev/null ] && continue
	install -D -m "$( [ -x "$src" ] && echo 755 || echo 644 )" "$src" "$stage$dst"
done <<< "$(inputs | sort -u -k2)"
ln -s mke2fs "$stage/usr/sbin/mkfs.ext4"
ln -s mke2fs "$stage/usr/sbin/mkfs.ext3"
ln -s e2fsck "$stage/usr/sbin/fsck.ext4"
ln -s /proc/mounts "$stage/etc/mtab"   # mke2fs/e2fsck check it for mounts
# Applet links, only where no real tool sits (busybox has its own mke2fs).
busybox --list-full | while read -r a; do
	[ -e "$stage/$a" ] || [ -L "$stage/$a" ] || ln -s /bin/busybox "$stage/$a"
done

find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n > "$out.tmp"
mv "$out.tmp" "$out"
printf '%s\n' "$manifest" > "$out.inputs"
log "initramfs: $out ($(du -h "$out" | cut -f1))"
