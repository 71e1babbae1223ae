#!/bin/sh
# fcrace: does an fsync return 0 with changes no commit made durable? On
# a kernel built with qemu/fcrace-detector.diff (by qemu/fcrace-harness.sh),
# which prints "EXT4-fs FCRACE" when its inode still waits for a fast
# commit and "EXT4-fs FCINEL" when a change went untracked. ROUNDS times:
# crashwork WORKLOAD with T threads (append: each appends to its own file
# and fsyncs it; fcmix: new files fsynced while an xattr change makes fast
# commits ineligible) on a fast_commit ext4 over the flush-cost device.
#
# Args: workload=append|fcmix rounds=N threads=T ops=N (per thread and
#   round) flush_us=N
# Row: "fcrace WORKLOAD ROUNDS THREADS OPS FLUSH_US fsyncs fcrace-reports
#   fcinel-reports fast-commits"
#
# jbd2t-disks: 256M
# jbd2t-modules: flushcost
# jbd2t-timeout: 3000
. /jbd2t/lib.sh

ROUNDS=$(arg rounds 20 "$@")
WORKLOAD=$(arg workload append "$@")
THREADS=$(arg threads 4 "$@")
OPS=$(arg ops 20 "$@")
FLUSH_US=$(arg flush_us 0 "$@")
dmesg -n 5
mkdir -p /mnt/fs
load_module flushcost lower=/dev/vda flush_us="$FLUSH_US" fua_us="$FLUSH_US" fua=1
mkfs_dev ext4 /dev/fcost0 -O fast_commit
mount -t ext4 /dev/fcost0 /mnt/fs || fail mount
r=0 n=0 m=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	rm -rf /mnt/fs/w /tmp/oracle
	mkdir /mnt/fs/w
	crashwork run "$WORKLOAD" --dir /mnt/fs/w --oracle /tmp/oracle --ops "$OPS" \
		--threads "$THREADS" --seed "$r" > /dev/null || fail "crashwork round $r"
	n=$(dmesg | grep -c FCRACE || true)
	m=$(dmesg | grep -c FCINEL || true)
	info "round $r: $n FCRACE, $m FCINEL reports so far"
done
fc=$(sed -n 's/^\([0-9]*\) commits$/\1/p' /proc/fs/ext4/fcost0/fc_info)
result fcrace "$WORKLOAD" "$ROUNDS" "$THREADS" "$OPS" "$FLUSH_US" \
	$((ROUNDS * THREADS * OPS)) "$n" "$m" "${fc:-0}"
dmesg | grep -E 'FCRACE|FCINEL' | head -5
umount /mnt/fs
