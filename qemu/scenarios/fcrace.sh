#!/bin/sh
# fcrace: does an fsync return 0 while its file's changes still wait for
# a fast commit? On a kernel built with qemu/fcrace-detector.diff (by
# qemu/fcrace-harness.sh), which prints "EXT4-fs FCRACE" when one does.
# ROUNDS times: 4 threads (crashwork append), each appending to its own
# file and fsyncing it, on a fast_commit ext4 over the flush-cost device.
#
# Args: rounds=N threads=T ops=N (per thread and round) flush_us=N
# Row: "fcrace ROUNDS THREADS OPS FLUSH_US fsyncs reports fast-commits"
#
# jbd2t-disks: 256M
# jbd2t-modules: flushcost
# jbd2t-timeout: 3000
. /jbd2t/lib.sh

ROUNDS=$(arg rounds 20 "$@")
THREADS=$(arg threads 4 "$@")
OPS=$(arg ops 20 "$@")
FLUSH_US=$(arg flush_us 0 "$@")
dmesg -n 5
mkdir -p /mnt/fs
load_module flushcost lower=/dev/vda flush_us="$FLUSH_US" fua_us="$FLUSH_US" fua=1
mkfs_dev ext4 /dev/fcost0 -O fast_commit
mount -t ext4 /dev/fcost0 /mnt/fs || fail mount
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	rm -rf /mnt/fs/w /tmp/oracle
	mkdir /mnt/fs/w
	crashwork run append --dir /mnt/fs/w --oracle /tmp/oracle --ops "$OPS" \
		--threads "$THREADS" --seed "$r" > /dev/null || fail "crashwork round $r"
	n=$(dmesg | grep -c FCRACE || true)
	info "round $r: $n FCRACE reports so far"
done
fc=$(sed -n 's/^\([0-9]*\) commits$/\1/p' /proc/fs/ext4/fcost0/fc_info)
result fcrace "$ROUNDS" "$THREADS" "$OPS" "$FLUSH_US" $((ROUNDS * THREADS * OPS)) \
	"$(dmesg | grep -c FCRACE || true)" "${fc:-0}"
dmesg | grep FCRACE | head -5
umount /mnt/fs
