#!/bin/sh
# bad-options: the controls the series adds refuse malformed values with a
# clear kernel message and leave the filesystem and its mounted state as
# they were.
#
#   mount -o journal_csum_order=1 and friends: refused, fs intact
#   mount -o remount,<bad>: refused, /proc/mounts and the commit mode
#     unchanged (the next fsync still commits the same way)
#   remount with the good spellings switches the mode both ways (so the
#     "unchanged" checks above can tell a change when there is one)
#   journals the mode cannot apply to (no v2/v3 checksums, nobarrier,
#     ext2) take full-barrier commits or refuse the option
#   jbd2's test-only module parameters reject non-boolean values
#
# Args: swap=1 replaces every bad value by its good spelling, to show that
# the refusal checks catch an accepted option.
#
# jbd2t-disks: 64M
# jbd2t-timeout: 600
. /jbd2t/lib.sh

SWAP=$(arg swap 0 "$@")
DEV=vda
MNT=/mnt

# spell OPT: OPT, or with swap=1 the good option it misspells.
spell() {
	if [ "$SWAP" = 1 ]; then echo "$1" | sed 's/=.*//; s/x$//'; else echo "$1"; fi
}

# one_fsync: a metadata-only change made durable (a file's mode), so
# that a commit happens and no file data decides how it is sent.
one_fsync() {
	[ -f $MNT/keep ] || fail "one_fsync: no $MNT/keep"
	if [ -x $MNT/keep ]; then chmod 644 $MNT/keep; else chmod 755 $MNT/keep; fi
	fsync_file $MNT/keep
}

# mode_after_fsync: "ordered" or "full", how the next commit was sent.
# One fsync first: the first commit after a mount or a mode switch may
# still take the full barrier while the journal superblock catches up.
mode_after_fsync() {
	one_fsync
	set -- $(jbd2_orderings $DEV)
	o0=$1 f0=$2
	one_fsync
	set -- $(jbd2_orderings $DEV)
	if [ "$1" -gt "$o0" ] && [ "$2" -eq "$f0" ]; then echo ordered
	elif [ "$2" -gt "$f0" ] && [ "$1" -eq "$o0" ]; then echo full
	else echo "unclear($o0,$f0 -> $1,$2)"
	fi
}

# refused_mount OPT: mount -o OPT fails, with a kernel message naming it;
# the file written before is unchanged and e2fsck finds nothing.
refused_mount() {
	opt=$(spell "$1")
	dmesg_mark "mount-$opt"
	rc=0
	mount -t ext4 -o "$opt" /dev/$DEV $MNT 2>/tmp/mount.err || rc=$?
	name=${1%%=*}
	msg=$(dmesg_since "mount-$opt" | grep -m 1 -- "${name%x}" | sed 's/^\[[^]]*\] *//' || true)
	result refused mount "$opt" "$rc" "${msg:-none}"
	if [ "$rc" -eq 0 ]; then
		umount $MNT
		fail "mount -o $opt succeeded"
	fi
	[ -n "$msg" ] || fail "mount -o $opt: no kernel message naming it ($(cat /tmp/mount.err))"
	check_intact "mount -o $opt"
}

# check_intact WHAT: the keep file's checksum and a clean e2fsck -fn.
check_intact() {
	mount -t ext4 /dev/$DEV $MNT
	assert_eq "$1: checksum of keep" "$KEEP_SUM" "$(checksum $MNT/keep)"
	umount $MNT
	rc=0
	e2fsck -fn /dev/$DEV > /tmp/fsck.log 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { cat /tmp/fsck.log; fail "$1: e2fsck -fn exit $rc"; }
}

# refused_remount OPT: on the mounted fs, remount with OPT fails with a
# message; the options and the commit mode are what they were.
refused_remount() {
	opt=$(spell "$1")
	before=$(mount_opts $MNT)
	mode_before=$(mode_after_fsync)
	dmesg_mark "remount-$opt"
	rc=0
	mount -o "remount,$opt" $MNT 2>/tmp/mount.err || rc=$?
	name=${1%%=*}
	msg=$(dmesg_since "remount-$opt" | grep -m 1 -- "${name%x}" | sed 's/^\[[^]]*\] *//' || true)
	result refused remount "$opt" "$rc" "${msg:-none}"
	[ "$rc" -ne 0 ] || fail "mount -o remount,$opt succeeded"
	[ -n "$msg" ] || fail "remount,$opt: no kernel message naming it ($(cat /tmp/mount.err))"
	assert_eq "remount,$opt: /proc/mounts options" "$before" "$(mount_opts $MNT)"
	assert_eq "remount,$opt: commit mode" "$mode_before" "$(mode_after_fsync)"
}

# switch_remount OPT WANT: a good remount changes the mode to WANT.
switch_remount() {
	mount -o "remount,$1" $MNT || fail "mount -o remount,$1 failed"
	mount_has_opt $MNT "$1" || fail "remount,$1: not in /proc/mounts ($(mount_opts $MNT))"
	got=$(mode_after_fsync)
	result switch remount "$1" "$got"
	assert_eq "remount,$1: commit mode" "$2" "$got"
}

# param_refused PARAM VALUE: writing VALUE to a jbd2 parameter fails and
# leaves it as it was.
param_refused() {
	p=/sys/module/jbd2/parameters/$1
	[ -f "$p" ] || fail "no $p: CONFIG_JBD2_DEBUG off in the test kernel?"
	v0=$(cat "$p")
	val=$VALUE
	[ "$SWAP" = 1 ] && val=$v0
	rc=0
	( echo "$val" > "$p" ) 2>/tmp/param.err || rc=$?
	result refused param "$1=$val" "$rc" "$(cat /tmp/param.err)"
	[ "$rc" -ne 0 ] || fail "$1=$val accepted"
	assert_eq "$1 after a refused write" "$v0" "$(cat "$p")"
}

# A metadata_csum filesystem (v3 journal checksums): the mode's home.
mkfs_dev ext4 /dev/$DEV
mount -t ext4 /dev/$DEV $MNT
seq 1 20000 > $MNT/keep
fsync_file $MNT/keep
KEEP_SUM=$(checksum $MNT/keep)
mount_has_opt $MNT journal_csum_order || fail "default mount: journal_csum_order not in $(mount_opts $MNT)"
umount $MNT

for opt in journal_csum_order=1 nojournal_csum_order=yes journal_csum_orderx; do
	refused_mount "$opt"
done

mount -t ext4 /dev/$DEV $MNT
assert_eq "default mount: commit mode" ordered "$(mode_after_fsync)"
for opt in journal_csum_order=0 nojournal_csum_order=1 journal_csum_orderx; do
	refused_remount "$opt"
done
switch_remount nojournal_csum_order full
refused_remount journal_csum_order=on
switch_remount journal_csum_order ordered
# nobarrier turns the mode off without the user's nojournal_csum_order:
# /proc/mounts shows neither, and a remount with barrier (remount tools
# copy the shown options back) brings the mode back.
mount -o remount,nobarrier $MNT
! mount_has_opt $MNT journal_csum_order || fail "nobarrier: /proc/mounts says $(mount_opts $MNT)"
! mount_has_opt $MNT nojournal_csum_order || fail "nobarrier: /proc/mounts says $(mount_opts $MNT)"
mount -o "remount,$(mount_opts $MNT | sed 's/nobarrier/barrier/')" $MNT
mount_has_opt $MNT journal_csum_order || fail "barrier again: /proc/mounts says $(mount_opts $MNT)"
result switch remount "nobarrier,barrier" "$(mode_after_fsync)"
umount $MNT
check_intact "after the remounts"

for VALUE in 2 maybe; do
	param_refused unsafe_ignore_data
	param_refused unsafe_ignore_wrap
done

# No v2/v3 journal checksums: the option is accepted and has no effect;
# every commit keeps the full barrier.
"mkfs.ext4" -q -F -O ^metadata_csum -E lazy_itable_init=0,lazy_journal_init=0 /dev/$DEV ||
	fail "mkfs.ext4 -O ^metadata_csum failed"
mount -t ext4 -o journal_csum_order /dev/$DEV $MNT
: > $MNT/keep
! mount_has_opt $MNT journal_csum_order || fail "no metadata_csum: journal_csum_order shown"
got=$(mode_after_fsync)
result nocsum mount journal_csum_order "$got"
assert_eq "journal without v2/v3 checksums: commit mode" full "$got"
umount $MNT

# ext2 (the ext4 driver, no journal) refuses the journal option outright.
/usr/sbin/mke2fs -q -F -t ext2 /dev/$DEV || fail "mke2fs -t ext2 failed"
rc=0
dmesg_mark ext2
mount -t ext2 -o journal_csum_order /dev/$DEV $MNT 2>/dev/null || rc=$?
msg=$(dmesg_since ext2 | grep -m 1 -e journal_csum_order -e 'incompatible with ext2' |
	sed 's/^\[[^]]*\] *//' || true)
result refused ext2 journal_csum_order "$rc" "${msg:-none}"
[ "$rc" -ne 0 ] || { umount $MNT; fail "ext2 accepted journal_csum_order"; }
[ -n "$msg" ] || fail "ext2 -o journal_csum_order: no kernel message"
