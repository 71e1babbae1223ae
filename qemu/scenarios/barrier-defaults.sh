#!/bin/sh
# barrier-defaults: the 2008 promise on today's code. ext4 and ext3 (the
# latter mounted by the ext4 driver) write barriers by default: every fsync
# reaches the disk as a cache flush unless barriers are turned off by hand.
#
# For each fs x mount mode, count flush requests the device completed
# during N write+fsync rounds; then check that a bad barrier= value is
# refused and leaves the filesystem intact.
#
# Args: fsyncs=N (default 20); swap=1 mounts each mode with the opposite
# barrier setting, to show that the assertions catch it.
#
# jbd2t-disks: 256M
# jbd2t-timeout: 600
. /jbd2t/lib.sh

N=$(arg fsyncs 20 "$@")
SWAP=$(arg swap 0 "$@")
DEV=vda
MNT=/mnt

result device $DEV "$(write_cache $DEV)" "fua=$(fua $DEV)"
assert_eq "$DEV write cache" "write back" "$(write_cache $DEV)"

# options MODE: the -o string for a mode (swapped for the self-check).
options() {
	if [ "$SWAP" = 1 ]; then
		case "$1" in defaults|barrier) echo nobarrier ;; *) echo barrier ;; esac
	else
		echo "$1"
	fi
}

# measure FS MODE EXPECT: mount, N x (append + fsync), count flushes.
measure() {
	mount -t ext4 -o "$(options "$2")" /dev/$DEV $MNT
	state=on
	! mount_has_opt $MNT nobarrier || state=off
	info "$1 -o $2: $(mount_fstype $MNT) $(mount_opts $MNT)"
	: > $MNT/f
	fsync_file $MNT/f
	f0=$(flush_count $DEV)
	w0=$(write_count $DEV)
	i=0
	while [ $i -lt "$N" ]; do
		echo "round $i" >> $MNT/f
		fsync_file $MNT/f
		i=$((i + 1))
	done
	flushes=$(($(flush_count $DEV) - f0))
	writes=$(($(write_count $DEV) - w0))
	umount $MNT
	result flush "$1" "$2" "$state" "$N" "$flushes" \
		"$(awk -v f="$flushes" -v n="$N" 'BEGIN { printf "%.2f", f / n }')" "$writes"
	# Expectations come from the mode, not from what the mount reports.
	if [ "$3" = on ]; then
		assert_ge "$1 -o $2: flushes for $N fsyncs" "$N" "$flushes"
	else
		assert_eq "$1 -o $2: flushes for $N fsyncs" 0 "$flushes"
	fi
	assert_eq "$1 -o $2: barrier state in /proc/mounts" "$3" "$state"
}

# bad_option FS: "barrier=foo" is refused, with a kernel message naming
# it, and the filesystem behind it is unharmed.
bad_option() {
	mount -t ext4 /dev/$DEV $MNT
	seq 1 20000 > $MNT/keep
	fsync_file $MNT/keep
	sum=$(checksum $MNT/keep)
	umount $MNT

	dmesg_mark "bad-$1"
	rc=0
	mount -t ext4 -o barrier=foo /dev/$DEV $MNT 2>/tmp/mount.err || rc=$?
	msg=$(dmesg_since "bad-$1" | grep -m 1 barrier | sed 's/^\[[^]]*\] *//' || true)
	result badopt "$1" barrier=foo "$rc" "${msg:-none}"
	[ "$rc" -ne 0 ] || { umount $MNT; fail "$1: mount -o barrier=foo succeeded"; }
	[ -n "$msg" ] || fail "$1: no kernel message about barrier=foo ($(cat /tmp/mount.err))"

	mount -t ext4 /dev/$DEV $MNT
	after=$(checksum $MNT/keep)
	! mount_has_opt $MNT nobarrier || fail "$1: barriers off after the refused mount"
	umount $MNT
	rc=0
	e2fsck -fn /dev/$DEV > /tmp/fsck.log 2>&1 || rc=$?
	result fsck "$1" after-badopt "$rc" "$([ "$sum" = "$after" ] && echo same || echo changed)"
	assert_eq "$1: checksum of a file written before the bad mount" "$sum" "$after"
	[ "$rc" -eq 0 ] || { cat /tmp/fsck.log; fail "$1: e2fsck -fn exit $rc"; }
}

for fs in ext4 ext3; do
	mkfs_dev $fs /dev/$DEV
	feat=$(fs_features /dev/$DEV)
	result mkfs $fs "$feat"
	# The ext3 case must be a real ext3 layout (no extents), though the
	# ext4 driver mounts it.
	extents=no
	case " $feat " in *" extent "*) extents=yes ;; esac
	assert_eq "mkfs.$fs: extent feature" "$([ $fs = ext4 ] && echo yes || echo no)" $extents
	measure $fs defaults on
	measure $fs barrier on
	measure $fs nobarrier off
	measure $fs barrier=0 off
	bad_option $fs
done
