#!/bin/sh
# shared-flush: one cache flush serves the fsyncs of all the data that
# completed before it was sent, and no fsync goes without the flush its
# own data still needs (jbd2_fs_flushed_since(), ext4_fsync_flush()).
#
# On the flush-cost device (1 ms a flush, flushes counted by flushcost):
#   files:   a package install (fsyncbench unpack): FILES new files
#            written and their writeback started, then each one fsynced
#            and renamed into place, then the directory fsynced. The
#            first fsync commits all the files' blocks; the second sends
#            ext4's own flush, which covers the data of the rest. Fewer
#            than FILES/4 flushes (stock 6.12: one per fsync after the
#            first).
#   rounds:  ROUNDS times, a block of one file overwritten in place and
#            fdatasynced, by a buffered write and a direct write in turn.
#            Nothing to commit, so only ext4's flush makes each durable:
#            at least ROUNDS flushes. A round whose write was not marked
#            at completion (a missed end_io) would send none.
#   commits: ROUNDS times, a block of the file overwritten by a direct
#            write (complete when it returns), then another file appended
#            to and fsynced, which commits and flushes; then the first
#            file fdatasynced. The commit's flush was sent after the
#            overwrite completed and covers it: the fdatasyncs send no
#            flush at all (jbd2 counts its own flushes of the file system
#            device; without that, one each).
#   control: the rounds again with jbd2.unsafe_flush_covers_inflight,
#            which lets a flush cover writes that completed while it was
#            in flight: the same count must now come out short, or the
#            rounds check could not fail.
#
# Args: files=64 rounds=8
#
# jbd2t-modules: flushcost
# jbd2t-timeout: 300
. /jbd2t/lib.sh

FILES=$(arg files 64 "$@")
ROUNDS=$(arg rounds 8 "$@")
DEV=/dev/fcost0
MNT=/mnt
UNSAFE=/sys/module/jbd2/parameters/unsafe_flush_covers_inflight

flushes() { module_param flushcost nr_flush; }

# write_block FILE BLOCK [direct]: overwrite 4 KiB block BLOCK of FILE in
# place, through the page cache or with O_DIRECT.
write_block() {
	dd if=/dev/urandom of="$1" bs=4k count=1 seek="$2" conv=notrunc \
		${3:+oflag=direct} 2>/dev/null || fail "dd to $1 failed"
}

# rounds: the overwrite rounds on $MNT/db; prints the flushes they sent.
rounds() {
	_f0=$(flushes)
	_r=0
	while [ $_r -lt "$ROUNDS" ]; do
		if [ $((_r % 2)) = 1 ]; then
			write_block $MNT/db $_r direct
		else
			write_block $MNT/db $_r
		fi
		sync -d $MNT/db || fail "fdatasync of $MNT/db failed"
		_r=$((_r + 1))
	done
	echo $(($(flushes) - _f0))
}

# commits: the after-commit rounds on $MNT/db and $MNT/log; prints the
# flushes the fdatasyncs of $MNT/db sent.
commits() {
	_n=0
	_r=0
	while [ $_r -lt "$ROUNDS" ]; do
		write_block $MNT/db $_r direct
		echo "round $_r" >> $MNT/log || fail "append to $MNT/log failed"
		sync $MNT/log || fail "fsync of $MNT/log failed"
		_f0=$(flushes)
		sync -d $MNT/db || fail "fdatasync of $MNT/db failed"
		_n=$((_n + $(flushes) - _f0))
		_r=$((_r + 1))
	done
	echo $_n
}

[ -w $UNSAFE ] || fail "no $UNSAFE: a kernel without the series' jbd2 debug switches"
flushcost_up 256 64 1000 0
mkdir -p $MNT
mkfs_dev ext4 $DEV
mount -t ext4 $DEV $MNT
info "$(mount_opts $MNT)"

mkdir $MNT/d
f0=$(flushes)
line=$(fsyncbench --workload unpack --files "$FILES" --ops 1 --dir $MNT/d) ||
	fail "fsyncbench failed: $line"
n=$(($(flushes) - f0))
result shared-flush files "$FILES" "$n"
info "files: $FILES fsyncs and one of the directory sent $n flushes"
[ "$n" -lt $((FILES / 4)) ] || fail "files: $FILES fsyncs sent $n flushes, expected fewer than $((FILES / 4))"

dd if=/dev/zero of=$MNT/db bs=4k count="$ROUNDS" 2>/dev/null || fail "dd to $MNT/db failed"
sync $MNT/db && sync -f $MNT || fail "sync of $MNT/db failed"
n=$(rounds)
result shared-flush rounds "$ROUNDS" "$n"
info "rounds: $ROUNDS overwrites and fdatasyncs sent $n flushes"
assert_ge "rounds: flushes for $ROUNDS fdatasyncs of overwritten data" "$ROUNDS" "$n"

n=$(commits)
result shared-flush commits "$ROUNDS" "$n"
info "commits: $ROUNDS fdatasyncs of data a commit's flush covered sent $n flushes"
[ "$n" = 0 ] || fail "commits: $ROUNDS fdatasyncs after a covering commit sent $n flushes, expected 0"

echo 1 > $UNSAFE
n=$(rounds)
echo 0 > $UNSAFE
result shared-flush control "$ROUNDS" "$n"
info "control: $ROUNDS overwrites and fdatasyncs sent $n flushes with the unsafe switch"
[ "$n" -lt "$ROUNDS" ] || fail "control: the unsafe switch still sent $n flushes for $ROUNDS fdatasyncs"

umount $MNT
e2fsck -fn $DEV > /tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck -fn"; }
flushcost_down
